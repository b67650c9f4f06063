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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from redis.cluster import RedisCluster

from .client import Client


class ReplicasBehind(Exception):
    """Fewer than ``wanted`` replicas confirmed a write within the timeout
    (``acked`` did); the write is on the primary, unacknowledged."""

    def __init__(self, acked: int, wanted: int) -> None:
        super().__init__(f"{acked} of {wanted} replicas confirmed the write in time")
        self.acked = acked
        self.wanted = wanted


@dataclass(frozen=True, slots=True)
class Acknowledgement:
    """``WAIT replicas timeout_ms`` after each commit (``replicas`` 0: none)."""

    replicas: int = 0
    timeout_ms: int = 500

    def run(self, client: Client, key: str, queue: Callable[[Any], None]) -> tuple[Any, int]:
        """The reply of what ``queue(pipe)`` queues (one command on ``key``)
        and how many replicas ``WAIT`` found holding every write of that
        connection, on the same connection."""
        pipe = _pipeline(client, key)
        queue(pipe)
        pipe.execute_command("WAIT", self.replicas, self.timeout_ms)
        reply, acked = pipe.execute()
        return reply, int(acked)

    def check(self, acked: int) -> None:
        """Raise :class:`ReplicasBehind` unless ``acked`` replicas are enough."""
        if acked < self.replicas:
            raise ReplicasBehind(acked, self.replicas)

    def settle(self, client: Client, key: str) -> None:
        """Make sure the replicas hold everything written so far, for an
        answer whose write was made earlier (a replayed record, a repeated
        choice), perhaps on another connection or unacknowledged: a write
        on this connection (``SET <key's hash tag>:ack "" PX 1``, a key that
        lives 1 ms), then ``WAIT``; raises :class:`ReplicasBehind`."""
        if not self.replicas:
            return
        tag = key[: key.index("}") + 1] if "{" in key else key
        _, acked = self.run(client, key, lambda pipe: pipe.set(f"{tag}:ack", "", px=1))
        self.check(acked)


def _pipeline(client: Client, key: str) -> Any:
    """A pipeline on one connection to the primary that holds ``key``."""
    if isinstance(client, RedisCluster):
        node = client.get_node_from_key(key)  # type: ignore[no-untyped-call]
        return client.get_redis_connection(node).pipeline(transaction=False)
    return client.pipeline(transaction=False)
