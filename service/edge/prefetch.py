"""A request's table read rides on its rate limit's round trip.

Every request that is limited updates a rate-limit counter first (the
``limits`` library's fixed window, :mod:`.limits`). A request that then reads
a table (every move and every view of one table) would make a second round
trip for the table's ``HMGET`` and ``TIME``. The limiter's hook sends the
counter's script and the table's read in one pipeline, one round trip, and
leaves the read here as a :class:`TableRead`; the view takes it
(:func:`take`) instead of reading again. The limiter needs that read anyway:
it tells whether the request's bearer value is a token of the table.

What stays as it was: the counter, its key, its window and the limit's
decision are the library's; the read is a snapshot like any other, which the
commit's version check validates (a move on a changed table runs again).
A request over its limit still gets 429 and the read is dropped.

On a Redis Cluster the counter and the table are in different slots, so
nothing rides: the read is a round trip of its own (still made once).
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import g

from ..storage.store import Prefetched

NOT_READING = {"tables.Events", "streams.TableStream"}
"""Endpoints with a table id that do not read the table's hash (the public
stream reads the log and the table with its own snapshots: a read made for
it went unused, and its request context kept it for the stream's life)."""


@dataclass(slots=True)
class TableRead:
    """The read made for this request: the table, whether it was sent,
    and what it read (until the store takes it)."""

    table_id: str
    sent: bool = False
    read: Prefetched | None = None


def take(table_id: str) -> Prefetched | None:
    """The read of ``table_id`` made with the rate limit (once), or None when
    nothing rode (then the store reads on its own)."""
    planned: TableRead | None = g.get("table_read")
    if planned is None or planned.table_id != table_id:
        return None
    read, planned.read = planned.read, None
    return read
