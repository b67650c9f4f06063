"""A request's table read rides on its rate limiter's round trip.

Every request that carries a token, or comes from an address, updates one
rate-limit counter first (flask-limiter's fixed window: the limits library's
``incr_expire`` script). A request that then reads a table (every move and
every view of one table) would make a second round trip for the table's
``HMGET`` and ``TIME``. :class:`PrefetchingRedisStorage` is the limits
library's Redis storage with one change: when the request names a table, the
counter's script and the table's read go in one pipeline, one round trip.

What stays as it was: the counter, its key, its window and the limit's
decision are the library's; the read is a snapshot like any other, which the
commit's version check validates (a move on a changed table runs again).
A request over its limit still gets 429 and the read is dropped.

On a Redis Cluster the counter and the table are in different slots (the
limiter keeps its own cluster storage there), so nothing rides: the read is a
round trip of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import redis
from flask import g, has_request_context, request
from limits.storage import RedisStorage

from ..storage.store import Prefetched
from .common import TABLE_ID, referee

NOT_READING = {"tables.Events"}
"""Endpoints with a table id that do not read the table's hash."""


@dataclass(slots=True)
class TableRead:
    """The read planned for this request: the table, whether it was sent,
    and what it read (until the store takes it)."""

    table_id: str
    sent: bool = False
    read: Prefetched | None = None


def plan() -> None:
    """Before the limiter runs: note the table this request will read."""
    table_id = (request.view_args or {}).get("table_id")
    if (
        isinstance(table_id, str)
        and request.endpoint not in NOT_READING
        and TABLE_ID.fullmatch(table_id)
    ):
        g.table_read = TableRead(table_id)


def take(table_id: str) -> Prefetched | None:
    """The read of ``table_id`` made with the rate limit (once), or None when
    nothing rode (then the store reads on its own)."""
    planned: TableRead | None = g.get("table_read")
    if planned is None or planned.table_id != table_id:
        return None
    read, planned.read = planned.read, None
    return read


class PrefetchingRedisStorage(RedisStorage):
    """The limits library's Redis storage (``referee+redis://``); its
    ``incr`` also sends the request's planned table read, in one pipeline."""

    STORAGE_SCHEME = ["referee+redis"]

    def incr(self, key: str, expiry: int, amount: int = 1) -> int:
        planned: TableRead | None = g.get("table_read") if has_request_context() else None
        if planned is None or planned.sent:
            return super().incr(key, expiry, amount)
        planned.sent = True
        pipe = cast(redis.Redis, self.get_connection()).pipeline(transaction=False)
        pipe.evalsha(self.lua_incr_expire.sha, 1, self.prefixed_key(key), expiry, amount)
        prefetched = referee().store.queue_load(pipe, planned.table_id)
        count, *replies = pipe.execute(raise_on_error=False)
        if not any(isinstance(r, Exception) for r in replies):
            planned.read = prefetched(replies)
        if isinstance(count, redis.exceptions.NoScriptError):
            # Redis lost its script cache (a restart): the library loads it.
            return super().incr(key, expiry, amount)
        if isinstance(count, Exception):
            raise count
        return int(count)
