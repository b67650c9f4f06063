"""The worker's index of when to look at which table, kept in the jobs Redis
beside dramatiq's queues: tables grouped by the instant they fall due into
buckets of :data:`BUCKET_MS`, each bucket split into :data:`SHARDS` sets by
table id, and one dramatiq message per bucket and shard, sent once by
whichever worker first adds a table to it (:meth:`DueIndex.add`), delayed
until the bucket's end.

Why buckets: a dramatiq message costs about a millisecond of Python and a
few Redis calls (a delayed one is held, requeued, fetched and acknowledged);
one per deadline made 1,000 deadlines falling due together two seconds late
on two cores. A bucket's message looks at all of its tables; its lateness is
at most :data:`BUCKET_MS` more.

Each set holds table ids only, never a deadline or a move: the job reads
every table again and does what is due by Redis's clock (``Worker.tick``),
so a table added twice, a bucket run twice (dramatiq may deliver twice, and
redelivers a dead worker's unacknowledged message) or a table whose step
ended meanwhile changes nothing. A bucket's job marks it started before it
reads the set, atomically with respect to :meth:`DueIndex.add`, which puts
a table in a later bucket once that mark is there: no table is added to a
bucket after its job read it. A bucket is deleted once all of its tables
were looked at, and every key expires :data:`KEEP_MS` after its bucket.
"""

from __future__ import annotations

import zlib
from typing import Any

BUCKET_MS = 20
"""A bucket's width: a table due at ``t`` is looked at by the end of ``t``'s bucket."""
SHARDS = 4
"""Sets (and messages) per bucket, so that one bucket's tables are looked at
by several worker threads and processes at once."""
HORIZON_MS = 60_000
"""How far ahead a table is put in the bucket of its instant. A later one is
looked at again at the first minute past the horizon (at most one bucket per
table and minute): a step that ends long before a day's deadline leaves no
message held for a day."""
KEEP_MS = 600_000
"""How long a bucket's keys outlive its end (a message redelivered late
still finds its tables)."""

ADD = """
-- KEYS[1] the bucket's set, KEYS[2] its sent mark, KEYS[3] its started mark;
-- ARGV[1] the table id, ARGV[2] the keys' life in ms. Returns -1 (the
-- bucket's job has started: use a later bucket), 1 (added; this caller
-- sends the bucket's message) or 0 (added; it is sent).
if redis.call('EXISTS', KEYS[3]) == 1 then return -1 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if redis.call('SET', KEYS[2], '1', 'NX', 'PX', ARGV[2]) then return 1 end
return 0
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
    running), and for an instant past :data:`HORIZON_MS` the first minute
    past the horizon."""
    if at_ms - now_ms > HORIZON_MS:
        return -(-(now_ms + HORIZON_MS) // 60_000) * 60_000
    return bucket_of(max(at_ms, now_ms + BUCKET_MS))


class DueIndex:
    """The buckets in the jobs Redis ``client`` under ``namespace``."""

    def __init__(self, client: Any, namespace: str) -> None:
        self.client = client
        self.namespace = namespace
        self._add = client.register_script(ADD)
        self._take = client.register_script(TAKE)

    def _keys(self, bucket: int, shard: int) -> tuple[str, str, str]:
        base = f"{self.namespace}:due:{bucket}:{shard}"
        return base, f"{base}:sent", f"{base}:started"

    def add(self, table_id: str, at_ms: int, now_ms: int) -> tuple[int, int, bool]:
        """Put ``table_id`` in the bucket :func:`target` gives (or a later
        one, if that one's job has started); returns the bucket, its shard,
        and whether this caller must send its message."""
        bucket, shard = target(at_ms, now_ms), shard_of(table_id)
        while True:
            keys = self._keys(bucket, shard)
            life = bucket - now_ms + KEEP_MS
            found = int(self._add(keys=list(keys), args=[table_id, life]))
            if found >= 0:
                return bucket, shard, found == 1
            bucket += BUCKET_MS

    def take(self, bucket: int, shard: int, now_ms: int) -> list[str]:
        """Mark the bucket started and return its tables."""
        keys = self._keys(bucket, shard)
        found = self._take(keys=[keys[0], keys[2]], args=[max(bucket - now_ms, 0) + KEEP_MS])
        return sorted(t.decode() if isinstance(t, bytes) else str(t) for t in found)

    def done(self, bucket: int, shard: int) -> None:
        """Every table of the bucket was looked at: drop its set (its marks
        expire, so that a table due in it again goes to a later one)."""
        self.client.delete(self._keys(bucket, shard)[0])
