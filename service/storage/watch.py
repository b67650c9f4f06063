"""Which Redis primary may acknowledge a move, and how many replicas it must
wait for, as the Sentinels and the data nodes say (``redis+sentinel://``
only; deploy/README, "Failovers").

Why: a Sentinel failover, planned (``SENTINEL FAILOVER``) or not (the
primary dies), promotes one replica (``REPLICAOF NO ONE``) and only then
points the other replicas and the old primary at it. Until it does, the old
primary, if alive, goes on taking writes, and a replica still following it
answers its ``WAIT``; once re-pointed, that replica drops all it received
since the promotion (issue 41, Redis 7.0: 242 of 4,216 passes acknowledged
with ``WAIT 1`` were lost over two planned failovers; ``make bench``
measures it again with this watch, which alone does not close it). And
Sentinel's choice of replica goes by the offsets it last read, not by who
holds the newest write. So a move is safe only once *every* replica that
could take the primary's place, or stand in for it in ``WAIT``, holds it.

:class:`PrimaryWatch` looks every :data:`WATCH_SECONDS` (in a thread, or a
greenlet under gevent, of each process that writes) and gives a
:class:`Verdict`:

- the primary: the one named by the Sentinel with the newest configuration
  (the highest config epoch; of equal epochs, one not in the middle of a
  failover, whose answer is still the old primary). The Sentinels it asks
  are reordered so that redis-py's new connections ask that one first, and
  the connection pool is told, so that idle connections to an old primary
  are dropped at once (redis-py alone only learns of a failover when a
  connection breaks, which a live old primary does not do until Sentinel
  demotes it, some 10 s later);
- ``refused``, a reason the primary must not acknowledge anything now:
  it is no master (demoted, or not promoted yet), or a replica it had
  was promoted from it (``ROLE`` says master, its second replication id is
  the primary's id), or follows a master so promoted;
- ``replicas``, every replica that could acknowledge a write or be
  promoted: those the Sentinels list for the primary and do not hold down
  (``s_down``, ``o_down``), and those connected to the primary that the
  Sentinels do not know yet; less any that reports itself a master of
  another history (an old primary waiting to be demoted: it holds nothing
  the new one needs, and Sentinel converts it before it could be promoted
  again). A listed replica that does not answer counts until the
  Sentinels hold it down (``down-after-milliseconds``). At least 1.

A look that fails (no Sentinel answers) keeps the last verdict: the
replicas it counted never shrink without a look, and without Sentinels no
failover happens either.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import redis
from redis.sentinel import SentinelConnectionPool

log = logging.getLogger("referee.redis")

WATCH_SECONDS = 0.5
"""How often a process looks at the Sentinels and the primary."""
PROBE_SECONDS = 0.25
"""The longest a look waits for one data node (the primary, a replica); the
Sentinels are asked with the client's own timeout."""

Address = tuple[str, int]


class WritesRefused(redis.ConnectionError):
    """Redis takes no write now (the message says why): nothing was
    written. The service answers 503 ``redis-unavailable``."""


class PrimaryReplaced(WritesRefused):
    """The primary a write would go to must not acknowledge it now (a
    failover is under way, or it is no longer the primary the Sentinels
    name): nothing was written."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """One look: the ``primary`` (``None`` before the first look
    answered), the ``replicas`` a write there must reach to be safe (at
    least 1), and ``refused``: why the primary may acknowledge nothing now
    (``""``: it may)."""

    primary: Address | None = None
    replicas: int = 1
    refused: str = "no look at the Sentinels has answered yet"
    at: float = field(default=0.0, compare=False)
    """When the look was made (``time.monotonic()``)."""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class PrimaryWatch:
    """The looks of one process at the Sentinels of ``client``'s pool
    (redis-py's ``Sentinel.master_for``), every ``seconds``; started by the
    first :meth:`verdict` of each process (a fork starts its own)."""

    def __init__(self, client: redis.Redis, seconds: float = WATCH_SECONDS) -> None:
        pool = client.connection_pool
        if not isinstance(pool, SentinelConnectionPool):
            raise TypeError("a PrimaryWatch needs a client of Sentinel.master_for")
        self.pool = pool
        self.service = pool.service_name
        self.sentinel = pool.sentinel_manager
        self.seconds = seconds
        kwargs = pool.connection_kwargs
        # The data nodes' credentials and TLS, as the pool's connections have them.
        self._node_options: dict[str, Any] = {
            k: v
            for k, v in kwargs.items()
            if (k in ("username", "password", "db") or k.startswith("ssl_")) and v is not None
        }
        if pool.connection_class.__name__.endswith("SSLConnection"):
            self._node_options["ssl"] = True
        self._nodes: dict[Address, redis.Redis] = {}
        self._verdict = Verdict()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stopped = threading.Event()
        self._pid = 0

    @classmethod
    def of(cls, client: Any) -> PrimaryWatch | None:
        """A watch for ``client`` when it is a Sentinel-named primary's, else ``None``."""
        pool = getattr(client, "connection_pool", None)
        return cls(client) if isinstance(pool, SentinelConnectionPool) else None

    def verdict(self) -> Verdict:
        """The last look's verdict; the first call of a process looks now
        and starts the looks that follow."""
        if self._pid != os.getpid():
            with self._lock:
                if self._pid != os.getpid():
                    self._nodes = {}
                    self._verdict = self.look()
                    threading.Thread(target=self._run, name="primary-watch", daemon=True).start()
                    self._pid = os.getpid()
        return self._verdict

    def again(self) -> None:
        """Look again now (a connection met another primary than the last look's)."""
        self._wake.set()

    def stop(self) -> None:
        """End the looks (an app that is done with, in a process that goes on)."""
        self._stopped.set()
        self._wake.set()

    def _run(self) -> None:
        pid = os.getpid()
        while pid == os.getpid() and not self._stopped.is_set():
            self._wake.wait(self.seconds)
            self._wake.clear()
            if self._stopped.is_set():
                return
            try:
                self._verdict = self.look()
            except Exception:  # the looks go on whatever one meets
                log.exception("primary watch: a look failed")

    # One look --------------------------------------------------------------

    def look(self) -> Verdict:
        """Look at the Sentinels and the nodes now, and say what is seen."""
        before = self._verdict
        named = self._freshest()
        if named is None:
            return before
        sentinel, state = named
        primary: Address = (str(state["ip"]), int(state["port"]))
        if self.pool.master_address != primary:
            # Drops idle connections to the old primary; in-use ones go when
            # they are given back (SentinelConnectionPool.owns_connection).
            with contextlib.suppress(redis.RedisError):
                self.pool.get_master_address()  # type: ignore[no-untyped-call]
        verdict = self._judge(sentinel, primary)
        if (verdict.primary, verdict.replicas, verdict.refused) != (
            before.primary,
            before.replicas,
            before.refused,
        ):
            log.warning(
                "redis primary %s:%s, %d replica(s) to wait for%s",
                *primary,
                verdict.replicas,
                f"; writes refused: {verdict.refused}" if verdict.refused else "",
            )
        return verdict

    def _freshest(self) -> tuple[redis.Redis, dict[str, Any]] | None:
        """The Sentinel with the newest configuration of the service and its
        view of it; that Sentinel goes first in redis-py's list."""
        best: tuple[tuple[int, bool], int, dict[str, Any]] | None = None
        sentinels = self.sentinel.sentinels
        for i, sentinel in enumerate(sentinels):
            try:
                state = sentinel.sentinel_master(self.service)
            except redis.RedisError:
                continue
            if state.get("is_odown") or state.get("is_sdown"):
                continue
            rank = (int(state.get("config-epoch", 0)), "failover_in_progress" not in state["flags"])
            if best is None or rank > best[0]:
                best = (rank, i, state)
        if best is None:
            return None
        _, i, state = best
        if i:
            sentinels.insert(0, sentinels.pop(i))
        return sentinels[0], state

    def _node(self, address: Address) -> redis.Redis:
        node = self._nodes.get(address)
        if node is None:
            node = redis.Redis(
                address[0],
                address[1],
                socket_timeout=PROBE_SECONDS,
                socket_connect_timeout=PROBE_SECONDS,
                **self._node_options,
            )
            self._nodes[address] = node
        return node

    def _replication(self, address: Address) -> dict[str, Any] | None:
        """``INFO replication`` of the node at ``address``, ``None`` when it does not answer."""
        try:
            return dict(self._node(address).info("replication"))
        except redis.RedisError:
            return None

    def _judge(self, sentinel: redis.Redis, primary: Address) -> Verdict:
        now = time.monotonic()
        info = self._replication(primary)
        if info is None:
            return Verdict(primary, self._verdict.replicas, "the primary does not answer", now)
        if info.get("role") != "master":
            return Verdict(primary, self._verdict.replicas, "the primary is no master", now)
        replid = _text(info.get("master_replid", ""))
        connected = {
            (str(v["ip"]), int(v["port"]))
            for k, v in info.items()
            if k.startswith("slave") and isinstance(v, dict)
        }
        try:
            listed = sentinel.sentinel_slaves(self.service)
        except redis.RedisError:
            listed = None
        if listed is None:  # keep what the last look counted, never fewer than connected
            wanted = max(self._verdict.replicas, len(connected), 1)
            return Verdict(primary, wanted, "", now)
        counted = set(connected)
        for replica in listed:
            address = (str(replica["ip"]), int(replica["port"]))
            if replica.get("is_sdown") or replica.get("is_odown") or address in connected:
                continue
            seen = self._replication(address)
            if seen is None:
                counted.add(address)  # silent: it counts until the Sentinels hold it down
                continue
            if seen.get("role") == "master":
                if _text(seen.get("master_replid2", "")) == replid:
                    return Verdict(
                        primary,
                        self._verdict.replicas,
                        f"replica {address[0]}:{address[1]} was promoted",
                        now,
                    )
                continue  # an old primary waiting to be demoted
            leader = (str(seen.get("master_host", "")), int(seen.get("master_port") or 0))
            if leader != primary:
                above = self._replication(leader)
                if (
                    above is not None
                    and above.get("role") == "master"
                    and _text(above.get("master_replid2", "")) == replid
                ):
                    return Verdict(
                        primary,
                        self._verdict.replicas,
                        f"replica {address[0]}:{address[1]} follows {leader[0]}:{leader[1]},"
                        " promoted from the primary",
                        now,
                    )
            counted.add(address)
        return Verdict(primary, max(1, len(counted)), "", now)
