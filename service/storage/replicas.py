"""Replica-acknowledged writes (``REDIS_WAIT_REPLICAS``): a move is answered
only once Redis ``WAIT`` says that many replicas hold it.

``WAIT`` counts the replicas that have received every write made *on its own
connection* so far (and, since replication is one ordered stream, everything
written before them). So the commit script and ``WAIT`` go together in one
pipeline, on one connection. A replica acknowledgement that does not come
within the timeout raises :class:`ReplicasBehind` (the API answers 503
``replicas-behind`` with ``Retry-After``): the write is made on the primary,
but not acknowledged. Its retry with the same Idempotency-Key meets the
record the commit wrote (a repeated pass, the choice it made): since that
write may sit on another connection, :meth:`Acknowledgement.settle` makes a
write of its own on the table's slot (a key that lives 1 ms) and waits for
it, so that a replayed answer too is given only once replicas hold it
(replication is one ordered stream: they then hold the earlier write).

On a Redis Cluster each table's commit goes to the primary of its slot and
``WAIT`` there counts that shard's replicas (the pipeline is made on that
node's connection pool).

Behind Sentinels (``redis+sentinel://``) a :class:`~.watch.PrimaryWatch`
says which primary may acknowledge writes: a pipeline whose connection is
to another one, or to one being replaced, writes nothing
(:class:`~.watch.PrimaryReplaced`, 503 ``redis-unavailable``); one whose
connection went to another primary while it ran (redis-py connects again
once after a broken connection) is not acknowledged (``replicas-behind``:
the ``WAIT`` was sized for the first). With ``REDIS_WAIT_REPLICAS=all``
(``everyone``) the ``WAIT`` is for every replica the watch counts, which
no failover can lose a write past (:mod:`.watch` says why one is not enough).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import redis
from redis.cluster import RedisCluster

from .client import Client
from .watch import PrimaryReplaced, PrimaryWatch, WritesRefused


class ReplicasBehind(Exception):
    """Fewer than ``wanted`` replicas confirmed a write within the timeout
    (``acked`` did); the write is on the primary, unacknowledged."""

    def __init__(self, acked: int, wanted: int) -> None:
        super().__init__(f"{acked} of {wanted} replicas confirmed the write in time")
        self.acked = acked
        self.wanted = wanted


READY_KEY = "referee:ready"
"""The key :meth:`Acknowledgement.probe` writes (for a millisecond)."""


class Counted(NamedTuple):
    """How many replicas ``WAIT`` found holding a write (``acked``) of the
    ``wanted`` it waited for."""

    acked: int
    wanted: int


@dataclass(frozen=True, slots=True)
class Acknowledgement:
    """``WAIT replicas timeout_ms`` after each commit (``replicas`` 0: none;
    with ``everyone``, every replica ``watch`` counts); ``watch``, behind
    Sentinels, says which primary may acknowledge (see the module)."""

    replicas: int = 0
    timeout_ms: int = 500
    watch: PrimaryWatch | None = None
    everyone: bool = False

    @property
    def waits(self) -> bool:
        """Whether a commit goes through :meth:`run` (it waits for replicas,
        or a watch says where it may be written)."""
        return self.everyone or self.replicas > 0 or self.watch is not None

    def run(self, client: Client, key: str, queue: Callable[[Any], None]) -> tuple[Any, Counted]:
        """The reply of what ``queue(pipe)`` queues (one command on ``key``)
        and how many replicas ``WAIT`` found holding every write of that
        connection, on the same connection, of how many it waited for.
        Raises :class:`~.watch.PrimaryReplaced` (nothing written) when the
        watch says the connection's primary may not acknowledge; a
        connection that moved to another primary while it ran counts 0."""
        pipe: Any
        if self.watch is None or isinstance(client, RedisCluster):
            pipe = _pipeline(client, key)
            queue(pipe)
            if not self.replicas:
                return pipe.execute()[0], Counted(0, 0)
            pipe.execute_command("WAIT", self.replicas, self.timeout_ms)
            reply, acked = pipe.execute()
            return reply, Counted(int(acked), self.replicas)
        verdict = self.watch.verdict()
        pool = client.connection_pool
        connection = pool.get_connection()
        address = (connection.host, connection.port)
        if address != verdict.primary or verdict.refused:
            pool.release(connection)
            if address != verdict.primary:
                self.watch.again()
            raise PrimaryReplaced(
                verdict.refused
                or f"{address[0]}:{address[1]} is not the primary the Sentinels name"
            )
        wanted = verdict.replicas if self.everyone else self.replicas
        pipe = client.pipeline(transaction=False)
        pipe.connection = connection  # given back by the pipeline once executed
        try:
            queue(pipe)
            if wanted:
                pipe.execute_command("WAIT", wanted, self.timeout_ms)
        except BaseException:
            pipe.reset()
            raise
        replies = pipe.execute()
        if (connection.host, connection.port) != address:
            # Connected again (a broken connection, retried) to another
            # primary, whose replicas the wait was not sized for.
            self.watch.again()
            return replies[0], Counted(0, max(wanted, 1))
        return replies[0], Counted(int(replies[1]) if wanted else 0, wanted)

    def check(self, counted: Counted) -> None:
        """Raise :class:`ReplicasBehind` unless the replicas ``counted`` are enough."""
        if counted.acked < counted.wanted:
            raise ReplicasBehind(counted.acked, counted.wanted)

    def settle(self, client: Client, key: str) -> None:
        """Make sure the replicas hold everything written so far, for an
        answer whose write was made earlier (a replayed record, a repeated
        choice), perhaps on another connection or unacknowledged: a write
        on this connection (``SET <key's hash tag>:ack "" PX 1``, a key that
        lives 1 ms), then ``WAIT``; raises :class:`ReplicasBehind` (and,
        behind Sentinels, :class:`~.watch.PrimaryReplaced`). Nothing without
        replicas to wait for (a repeat then costs no write)."""
        if not (self.everyone or self.replicas):
            return
        tag = key[: key.index("}") + 1] if "{" in key else key
        _, counted = self.run(client, key, lambda pipe: pipe.set(f"{tag}:ack", "", px=1))
        self.check(counted)

    def probe(self, client: Client) -> None:
        """Whether a move could be acknowledged now (``/readyz``): a write
        of :data:`READY_KEY` for 1 ms, waited for as a move's commit is;
        raises what a commit would (a Redis error, :class:`ReplicasBehind`,
        :class:`~.watch.PrimaryReplaced`), and :class:`~.watch.WritesRefused`
        for a write Redis refuses (``READONLY``, ``NOREPLICAS``, ``OOM``)."""
        try:
            _, counted = self.run(client, READY_KEY, lambda pipe: pipe.set(READY_KEY, "", px=1))
        except redis.ResponseError as refused:
            raise WritesRefused(f"Redis refuses writes: {refused}") from None
        self.check(counted)


def _pipeline(client: Client, key: str) -> Any:
    """A pipeline on one connection to the primary that holds ``key``."""
    if isinstance(client, RedisCluster):
        node = client.get_node_from_key(key)  # type: ignore[no-untyped-call]
        return client.get_redis_connection(node).pipeline(transaction=False)
    return client.pipeline(transaction=False)
