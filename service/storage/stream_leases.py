"""Open streams counted across worker processes and instances: Redis only,
no HTTP, no game (``service.edge.stream_caps`` says whose streams count
where, and what the caps are).

Each open stream holds a *lease* in each set it counts in::

    referee:streams:<caller>        zset  lease id -> until (ms, Redis's
                                          clock): a caller's streams (its
                                          address, or its client key's name)
    referee:{<id>}:streams          zset  the same, the table's public streams
    referee:{<id>}:streams:<seat>   zset  the same, a seat's own streams
    referee:{<id>}:streams:by:<who> zset  the same, the public streams one
                                          caller (address, or ``key:<name>``)
                                          holds there

A stream takes its leases when it opens (``stream_lease.lua``: refused,
writing nothing, when a set holds its cap of live leases), its process
renews them every :data:`RENEW_SECONDS` while it is open
(``stream_renew.lua``, one call per set the process holds leases in), and
gives them back when it ends (``ZREM``). A process that dies renews nothing:
its leases lapse within :data:`LEASE_MS` and the counts heal by themselves.
Every set expires once its last lease lapses, so nothing is left behind.
The lease's ``until`` is Redis's clock, so every process and machine agree.

On a Redis Cluster a caller's set and a table's sets are in different
slots: the table's are taken first (one script), then the caller's; when the
caller's is at its cap the table's are given back. A table's and its seats'
sets share the table's hash tag.
"""

from __future__ import annotations

import itertools
import logging
import secrets
import threading
import weakref
from collections.abc import Sequence
from importlib import resources
from typing import Any

import redis
from redis.cluster import RedisCluster
from redis.crc import key_slot
from redis.exceptions import RedisClusterException

from .store import KEY_PREFIX

log = logging.getLogger(__name__)

LEASE_MS = 30_000
"""How long a stream's lease holds unless its process renews it: how long
a dead process's streams still count."""

RENEW_SECONDS = 10.0
"""How often a process renews the leases of its open streams (a third of
:data:`LEASE_MS`: one renewal may fail and the lease still holds)."""


ALL: weakref.WeakSet[StreamLeases] = weakref.WeakSet()
"""Every :class:`StreamLeases` of this process (the tests stop their threads)."""


def caller_key(who: str) -> str:
    """The set of a caller's open streams (``who``: ``addr:<address>`` or
    ``key:<client key name>``)."""
    return f"{KEY_PREFIX}:streams:{who}"


def table_streams_key(table_id: str, seat: int | None = None, by: str | None = None) -> str:
    """The set of a table's public streams, of one seat's own streams, or of
    the public streams one caller (``by``: its address key, or
    ``key:<name>`` for a client key) holds there."""
    base = f"{KEY_PREFIX}:{{{table_id}}}:streams"
    if by is not None:
        return f"{base}:by:{by}"
    return base if seat is None else f"{base}:{seat}"


class Lease:
    """One stream's leases: its id and the sets it holds them in."""

    __slots__ = ("id", "keys")

    def __init__(self, lease_id: str, keys: tuple[str, ...]) -> None:
        self.id = lease_id
        self.keys = keys


class StreamLeases:
    """The leases of this process's open streams on ``client`` (standalone or
    cluster); see the module docstring. Renewed in a background thread (a
    greenlet under gevent), started with the first lease."""

    def __init__(
        self, client: Any, lease_ms: int = LEASE_MS, renew_seconds: float = RENEW_SECONDS
    ) -> None:
        self.client = client
        self.lease_ms = lease_ms
        self.renew_seconds = renew_seconds
        self.cluster = isinstance(client, RedisCluster)
        lua = resources.files(__package__).joinpath("lua")
        self._take = client.register_script(lua.joinpath("stream_lease.lua").read_text())
        self._renew = client.register_script(lua.joinpath("stream_renew.lua").read_text())
        self._prefix = secrets.token_hex(6)  # this process's leases, apart from others'
        self._count = itertools.count(1)
        self._lock = threading.Lock()
        self._held: dict[str, Lease] = {}
        self._thread: threading.Thread | None = None
        self._stopped = threading.Event()
        ALL.add(self)

    def take(self, caps: Sequence[tuple[str, int]]) -> Lease | int:
        """A lease in each set of ``caps`` (set, cap), unless a set holds
        its cap of live leases: then the place (0-based) of that set in
        ``caps``, and nothing is held. Raises ``redis.RedisError``."""
        lease_id = f"{self._prefix}:{next(self._count)}"
        taken: list[str] = []
        try:
            for group in self._groups(caps):
                keys = [key for _, (key, _) in group]
                args = [lease_id, self.lease_ms, *(cap for _, (_, cap) in group)]
                refused = int(self._take(keys=keys, args=args))
                if refused:
                    self._give_back(lease_id, taken)
                    return group[refused - 1][0]
                taken += keys
        except BaseException:
            self._give_back(lease_id, taken)
            raise
        lease = Lease(lease_id, tuple(taken))
        with self._lock:
            self._held[lease_id] = lease
        self._start()
        return lease

    def release(self, lease: Lease) -> None:
        """Give ``lease`` back (its stream ended); a Redis error is logged
        (the lease lapses by itself). A second call does nothing."""
        with self._lock:
            if self._held.pop(lease.id, None) is None:
                return
        self._give_back(lease.id, list(lease.keys))

    @property
    def held(self) -> int:
        """How many leases this process holds (its open streams that count)."""
        with self._lock:
            return len(self._held)

    def renew(self) -> int:
        """Renew every lease this process holds now (one call per set);
        how many sets were renewed."""
        with self._lock:
            by_key: dict[str, list[str]] = {}
            for lease in self._held.values():
                for key in lease.keys:
                    by_key.setdefault(key, []).append(lease.id)
        if not by_key:
            return 0
        pipe = self.client.pipeline(transaction=False)
        for key, ids in by_key.items():
            pipe.evalsha(self._renew.sha, 1, key, self.lease_ms, *ids)
        try:
            replies = pipe.execute(raise_on_error=False)
        except redis.exceptions.NoScriptError:
            replies = [redis.exceptions.NoScriptError()]
        if any(isinstance(r, redis.exceptions.NoScriptError) for r in replies):
            # Redis lost its scripts (a restart, a failover): load, then once more.
            for key, ids in by_key.items():
                self._renew(keys=[key], args=[self.lease_ms, *ids])
            return len(by_key)
        failed = [r for r in replies if isinstance(r, Exception)]
        if failed:
            raise failed[0]
        return len(by_key)

    def stop(self) -> None:
        self._stopped.set()

    def _groups(self, caps: Sequence[tuple[str, int]]) -> list[list[tuple[int, tuple[str, int]]]]:
        """``caps`` with their places, in the groups one script may take at
        once: all of them on one server; by slot on a cluster, the table's
        (the later ones) first."""
        placed = list(enumerate(caps))
        if not self.cluster:
            return [placed]
        groups: dict[int, list[tuple[int, tuple[str, int]]]] = {}
        for item in reversed(placed):
            groups.setdefault(key_slot(item[1][0].encode()), []).append(item)
        return list(groups.values())

    def _give_back(self, lease_id: str, keys: list[str]) -> None:
        if not keys:
            return
        try:
            pipe = self.client.pipeline(transaction=False)
            for key in keys:
                pipe.zrem(key, lease_id)
            pipe.execute()
        except (redis.RedisError, RedisClusterException, OSError) as error:
            log.warning("stream lease not given back (%s); it lapses", type(error).__name__)

    def _start(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="referee-stream-leases", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        while not self._stopped.wait(self.renew_seconds):
            with self._lock:
                if not self._held:  # no stream open: the next lease starts it again
                    self._thread = None
                    return
            try:
                self.renew()
            except (redis.RedisError, RedisClusterException, OSError) as error:
                log.warning("stream leases not renewed (%s)", type(error).__name__)
