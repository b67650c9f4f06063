"""The worker's job on dramatiq's Redis broker: ``due(bucket, shard)``,
which looks at the tables of one bucket of :mod:`.due` (a small function of
ids, never a pickled state), sent when the bucket's end has come (never as
a delayed message: :mod:`.due` says why).

Why dramatiq: its Redis broker keeps every message in Redis, hands it to one
of any number of worker processes and threads, acknowledges it only once its
actor returned, retries an actor that failed, and hands a dead worker's
unacknowledged messages to the others once its heartbeat is older than
``heartbeat_timeout``. What it does not guarantee (a message held by a
worker whose connection broke) the bucket's lease does (:mod:`.due`). It
may deliver twice; a bucket's job reads each table again and the versioned
commit makes a second look change nothing. Its keys (and the buckets') are
not in one hash slot: on a Redis Cluster give it its own Redis
(``JOBS_REDIS_URL``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import dramatiq
from dramatiq.brokers.redis import RedisBroker

QUEUE = "referee-clock"
NAMESPACE = "referee-jobs"
HEARTBEAT_MS = 5_000
"""How long a worker may be silent before its held messages go to another."""

log = logging.getLogger("referee.worker")


def make_broker(url: str) -> RedisBroker:
    """The broker on the Redis at ``url`` (not a cluster)."""
    broker = RedisBroker(  # type: ignore[no-untyped-call]
        url=url,
        namespace=NAMESPACE,
        heartbeat_timeout=HEARTBEAT_MS,
        dead_message_ttl=3_600_000,
        # Maintenance (requeueing a dead worker's messages) at 1 fetch in 20.
        maintenance_chance=50_000,
    )
    return broker


class Jobs:
    """The actor, bound to ``broker``, calling ``on_due(bucket, shard)``."""

    def __init__(self, broker: RedisBroker, on_due: Callable[[int, int], None]) -> None:
        self.broker = broker
        self.due = dramatiq.actor(
            broker=broker,
            actor_name="referee_due",
            queue_name=QUEUE,
            max_retries=5,
            min_backoff=100,
            max_backoff=2_000,
            time_limit=60_000,
        )(on_due)

    def send_due(self, bucket: int, shard: int) -> None:
        """Send ``due(bucket, shard)`` to run at once."""
        self.due.send(bucket, shard)
