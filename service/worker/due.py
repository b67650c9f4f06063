"""The worker's index of when to look at which table, kept in the jobs Redis
beside dramatiq's queues: tables grouped by the instant they fall due into
buckets of :data:`BUCKET_MS`, each bucket split into :data:`SHARDS` sets by
table id, and the buckets that hold tables in a sorted set by their end
(:data:`PENDING`). When a bucket's end comes, one worker claims it
(:meth:`DueIndex.claim`) and sends one dramatiq job for it, at once: the job
looks at all of its tables (``Worker.on_due``) and then drops the bucket
(:meth:`DueIndex.done`).

Why buckets: a dramatiq message costs about a millisecond of Python and a
few Redis calls; one per deadline made 1,000 deadlines falling due together
two seconds late on two cores. A bucket's message looks at all of its
tables; its lateness is at most :data:`BUCKET_MS` more.

Why the pending buckets are not delayed dramatiq messages: dramatiq's
consumer holds a delayed message in memory until its time, loses it when its
Redis connection breaks while Redis keeps it listed as held by that (still
living) worker, and fetches them in the order they were sent (a near bucket
waited behind thousands of far ones). Here a bucket stays in :data:`PENDING`
until its job is done: a claim leases it for :data:`LEASE_MS` (its score
moves on by that much), and the job renews the lease while it runs
(:meth:`DueIndex.renew`), so a job lost anywhere (a worker killed between
the claim and the send, or while it runs the job, a dropped message, a
Redis restart) is claimed and sent again once the lease runs out, 5 s
later (RULES.md 5.3: another worker fires a dead one's deadlines within 10
seconds); a job that runs twice finds the bucket's tables looked at, or
gone, and changes nothing. A job that waits in the queue longer than the
lease (every worker busy) is sent once more: the second finds nothing to do.

Each set holds table ids only, never a deadline or a move: the job reads
every table again and does what is due by Redis's clock (``Worker.look``).
A bucket's job marks it started before it reads the set, atomically with
respect to :meth:`DueIndex.add`, which puts a table in a later bucket once
that mark is there: no table is added to a bucket after its job read it.
Every key expires :data:`KEEP_MS` after its bucket.
"""

from __future__ import annotations

import zlib
from typing import Any

BUCKET_MS = 20
"""A bucket's width: a table due at ``t`` is looked at by the end of ``t``'s bucket."""
SHARDS = 4
"""Sets (and jobs) per bucket, so that one bucket's tables are looked at by
several worker threads and processes at once."""
HORIZON_MS = 60_000
"""How far ahead a table is put in the bucket of its instant. A later one is
looked at again at the first minute past the horizon (at most one bucket per
table and minute), unless its own bucket comes first: a step that ends long
before a day's deadline leaves no bucket held for a day."""
KEEP_MS = 600_000
"""How long a bucket's keys outlive its end."""
LEASE_MS = 5_000
"""How long a claimed bucket waits for its job (or for its running job to
renew the lease) before it is claimed again."""
CLAIMED_AT_ONCE = 100
"""Buckets one claim takes at most."""

ADD = """
-- KEYS[1] the bucket's set, KEYS[2] its started mark, KEYS[3] the pending
-- buckets; ARGV[1] the table id, ARGV[2] the keys' life in ms, ARGV[3] the
-- bucket's member of KEYS[3] ("<end>:<shard>"), ARGV[4] its end. Returns -1
-- (the bucket's job has started: use a later bucket) or 1 (added).
if redis.call('EXISTS', KEYS[2]) == 1 then return -1 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[3], 'NX', ARGV[4], ARGV[3])
return 1
"""

CLAIM = """
-- KEYS[1] the pending buckets; ARGV[1] now (ms), ARGV[2] the lease (ms),
-- ARGV[3] how many at most. The buckets whose end (or lease) has come,
-- leased (each is claimed again once its lease runs out, unless done),
-- after the score of the first one still pending ("" for none).
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])
for _, member in ipairs(due) do
  redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), member)
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
table.insert(due, 1, first[2] or '')
return due
"""

TAKE = """
-- KEYS[1] the bucket's set, KEYS[2] its started mark; ARGV[1] the mark's
-- life in ms. Marks the bucket started and returns its tables.
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
return redis.call('SMEMBERS', KEYS[1])
"""


def bucket_of(at_ms: int) -> int:
    """The bucket of instant ``at_ms``: its end, ms since the epoch."""
    return -(-at_ms // BUCKET_MS) * BUCKET_MS


def shard_of(table_id: str) -> int:
    """The set of a bucket that holds ``table_id``."""
    return zlib.crc32(table_id.encode()) % SHARDS


def target(at_ms: int, now_ms: int) -> int:
    """The bucket a table due at ``at_ms`` goes in at ``now_ms``: its own,
    at least one bucket ahead of now (a bucket whose end has come may be
    running); for an instant past :data:`HORIZON_MS`, the first minute past
    the horizon if that comes before its own."""
    own = bucket_of(max(at_ms, now_ms + BUCKET_MS))
    if at_ms - now_ms > HORIZON_MS:
        return min(own, -(-(now_ms + HORIZON_MS) // 60_000) * 60_000)
    return own


class DueIndex:
    """The buckets in the jobs Redis ``client`` under ``namespace``."""

    def __init__(self, client: Any, namespace: str) -> None:
        self.client = client
        self.namespace = namespace
        self.pending = f"{namespace}:due-pending"
        self._add = client.register_script(ADD)
        self._claim = client.register_script(CLAIM)
        self._take = client.register_script(TAKE)

    def _keys(self, bucket: int, shard: int) -> tuple[str, str]:
        base = f"{self.namespace}:due:{bucket}:{shard}"
        return base, f"{base}:started"

    def add(self, table_id: str, at_ms: int, now_ms: int) -> tuple[int, int]:
        """Put ``table_id`` in the bucket :func:`target` gives (or a later
        one, if that one's job has started); returns the bucket and its shard."""
        bucket, shard = target(at_ms, now_ms), shard_of(table_id)
        while True:
            keys = self._keys(bucket, shard)
            life = bucket - now_ms + KEEP_MS
            member = f"{bucket}:{shard}"
            added = int(
                self._add(keys=[*keys, self.pending], args=[table_id, life, member, bucket])
            )
            if added >= 0:
                return bucket, shard
            bucket += BUCKET_MS

    def claim(self, now_ms: int) -> tuple[list[tuple[int, int]], int | None]:
        """The buckets whose end has come (or whose lease ran out), leased
        to this caller, which sends their jobs: (bucket, shard) each; and
        when the first bucket still pending comes (``None``: none)."""
        first, *found = self._claim(keys=[self.pending], args=[now_ms, LEASE_MS, CLAIMED_AT_ONCE])
        claimed = []
        for member in found:
            text = member.decode() if isinstance(member, bytes) else str(member)
            bucket, _, shard = text.partition(":")
            claimed.append((int(bucket), int(shard)))
        return claimed, int(float(first)) if first not in (b"", "") else None

    def renew(self, bucket: int, shard: int, now_ms: int) -> None:
        """Lease the bucket (still pending) for :data:`LEASE_MS` from
        ``now_ms`` again: its job is still running."""
        self.client.zadd(self.pending, {f"{bucket}:{shard}": now_ms + LEASE_MS}, xx=True)

    def take(self, bucket: int, shard: int, now_ms: int) -> list[str]:
        """Mark the bucket started and return its tables."""
        keys = self._keys(bucket, shard)
        found = self._take(keys=list(keys), args=[max(bucket - now_ms, 0) + KEEP_MS])
        return sorted(t.decode() if isinstance(t, bytes) else str(t) for t in found)

    def done(self, bucket: int, shard: int) -> None:
        """Every table of the bucket was looked at: drop its set and its
        place among the pending (its started mark expires, so that a table
        due in it again goes to a later one)."""
        pipe = self.client.pipeline(transaction=False)
        pipe.delete(self._keys(bucket, shard)[0])
        pipe.zrem(self.pending, f"{bucket}:{shard}")
        pipe.execute()
