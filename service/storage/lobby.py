"""The lobby's index of listed tables (RULES.md 5.6): Redis only, no game.

One sorted set per preset::

    referee:lobby:<preset>   zset  member: table id; score: created at (ms)

These are global keys, outside every table's hash tag: on a Redis Cluster
each preset's set lives on the node of its own slot, so it cannot be
written in the table's commit (that Lua call touches one slot). The API
keeps it right after each commit that changes a listed table's seats or
its match's status (``service.resources.seats.lobby.sync``: write, then check that the
table's version did not move meanwhile, else again), and reads check each
entry against its table, never trusting the index: an entry whose table is
gone is removed, one whose table is full or whose match ended is removed
unless the table changed since it was read (:meth:`Lobby.unlist`), so that
an entry a lost update left behind costs one read, once.

Bounded: a set keeps the newest ``kept`` tables (the commit of a newer one
drops the oldest), and each read first drops the entries older than a
table's life (``max_age_ms``), so an index never outgrows
``kept`` × presets entries whatever happens to its tables.

Per caller (a client address or client key), the tables it listed::

    referee:lobby-owner:<hash of the caller>   zset  member: "<preset>/<table id>";
                                               score: created at (ms)

:meth:`Lobby.hold` counts a caller's tables that hold a place (made and,
as the API judges, able to show in the lobby now or again later, full or
not; or being made: not written yet, held in the last :data:`PENDING_MS`)
before a new one is listed, so that one caller cannot fill the lobby's
first pages, nor push everyone else's tables out of an index: a table that
fills is still counted, so that opening a seat again cannot list it past
the cap. A member whose table is gone, or that the API clears, is dropped
by the caller's next listing, and the set expires with its newest table.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from redis.cluster import RedisCluster

from .client import Client
from .store import KEY_PREFIX, table_key


def lobby_key(variant: str) -> str:
    """The sorted set of the listed tables of a preset."""
    return f"{KEY_PREFIX}:lobby:{variant}"


PENDING_MS = 30_000
"""How long a caller's new table counts as listed while it is not made yet
(a creation in flight): two creations at once count each other, so
neither slips past the cap (but for the instant between a table's commit
and its listing)."""


def owner_key(caller: str) -> str:
    """The sorted set of the tables that ``caller`` (``addr:…``, ``client:…``) listed."""
    digest = hashlib.sha256(b"card-referee lobby owner\0" + caller.encode()).hexdigest()[:32]
    return f"{KEY_PREFIX}:lobby-owner:{digest}"


Entry = tuple[int, str, str]
"""A listed table: created at (ms), table id, preset."""


class Lobby:
    """Writes and reads the lobby's sets on ``client``."""

    def __init__(self, client: Client, kept: int) -> None:
        self.client = client
        self.kept = kept

    def put(self, variant: str, table_id: str, created_ms: int) -> None:
        """List ``table_id`` (its score never changes: pages stay stable)."""
        key = lobby_key(variant)
        pipe = self.client.pipeline(transaction=False)
        pipe.zadd(key, {table_id: created_ms})
        pipe.zremrangebyrank(key, 0, -(self.kept + 1))
        pipe.execute()

    def hold(
        self,
        caller: str,
        cap: int,
        variant: str,
        table_id: str,
        now_ms: int,
        keep_s: int,
        places: Callable[[list[str]], list[bool]],
    ) -> bool:
        """Count ``table_id`` (of preset ``variant``, made at ``now_ms``)
        among ``caller``'s tables that hold a place, unless the caller
        holds ``cap`` already (then ``False``, and the set is as it was).

        A table holds its place from its creation for as long as it exists
        and ``places`` (given the ids of such tables, it answers for each
        whether the table may still show in the lobby: the API's judgement,
        this layer knows no game) says so, full or not: a table that fills
        and opens a seat again is not counted anew. ``places`` is asked only
        when the count by existence alone reaches ``cap``; the tables it
        clears, and those gone, are dropped from the set (the set lives
        ``keep_s`` seconds, a table's life, after its newest). Three round
        trips, four when ``places`` is asked (one more: its reads)."""
        key, member = owner_key(caller), f"{variant}/{table_id}"
        pipe = self.client.pipeline(transaction=False)
        pipe.zadd(key, {member: now_ms}, nx=True)
        pipe.zrange(key, 0, -1, withscores=True)
        _, held = pipe.execute()
        others = [
            (m.decode() if isinstance(m, bytes) else m, int(score))
            for m, score in held
            if (m.decode() if isinstance(m, bytes) else m) != member
        ]
        pipe = self.client.pipeline(transaction=False)
        for other, _ in others:
            pipe.exists(table_key(other.partition("/")[2]))
        made = pipe.execute() if others else []
        pending = [
            other
            for (other, at), made_yet in zip(others, made, strict=True)
            if not made_yet and at > now_ms - PENDING_MS
        ]
        existing = [other for (other, _), made_yet in zip(others, made, strict=True) if made_yet]
        if len(pending) + len(existing) >= cap:
            kept = places([other.partition("/")[2] for other in existing])
            existing = [other for other, keeps in zip(existing, kept, strict=True) if keeps]
        counted = {*pending, *existing}
        pipe = self.client.pipeline(transaction=False)
        if len(counted) >= cap:
            pipe.zrem(key, member)  # the set as it was (gone, if it held none)
            pipe.execute()
            return False
        stale = [other for other, _ in others if other not in counted]
        if stale:
            pipe.zrem(key, *stale)
        pipe.expire(key, keep_s)
        pipe.execute()
        return True

    def let_go(self, caller: str, variant: str, table_id: str) -> None:
        """Take back :meth:`hold`'s count of ``table_id`` (it was not made)."""
        self.client.zrem(owner_key(caller), f"{variant}/{table_id}")

    def drop(self, variants: Sequence[str], table_id: str) -> None:
        """Unlist ``table_id`` from the sets of ``variants``."""
        pipe = self.client.pipeline(transaction=False)
        for variant in variants:
            pipe.zrem(lobby_key(variant), table_id)
        pipe.execute()

    def version(self, table_id: str) -> int | None:
        """The table's version now (``None``: gone)."""
        found = self.client.hget(table_key(table_id), "v")
        return None if found is None else int(found)

    def page(
        self,
        variants: Sequence[str],
        before: tuple[int, str] | None,
        count: int,
        oldest_ms: int,
    ) -> list[Entry]:
        """The first ``count`` entries of ``variants`` newest first (by
        created, then table id, both descending) strictly after the cursor
        ``before``; entries created before ``oldest_ms`` are dropped first."""
        pipe = self.client.pipeline(transaction=False)
        for variant in variants:
            key = lobby_key(variant)
            pipe.zremrangebyscore(key, "-inf", f"({oldest_ms}")
            if before is None:
                pipe.zrevrangebyscore(key, "+inf", "-inf", start=0, num=count, withscores=True)
            else:
                score, _ = before
                pipe.zrevrangebyscore(key, f"({score}", "-inf", start=0, num=count, withscores=True)
                # The same millisecond: by table id (bounded like a page).
                pipe.zrevrangebyscore(key, score, score, start=0, num=count + 100, withscores=True)
        replies = pipe.execute()
        per = 2 if before is None else 3
        found: list[Entry] = []
        for i, variant in enumerate(variants):
            for member, score in [pair for r in replies[per * i + 1 : per * i + per] for pair in r]:
                table_id = member.decode() if isinstance(member, bytes) else member
                entry = (int(score), table_id, variant)
                if before is None or (entry[0], entry[1]) < before:
                    found.append(entry)
        found.sort(key=lambda e: (e[0], e[1]), reverse=True)
        return found[:count]

    def peek(self, table_ids: Sequence[str]) -> list[tuple[Any, Any, int, Any]]:
        """Per table: its state text, its auth text (``None``: gone), its
        time to live in ms and its version, in one round trip."""
        pipe = self.client.pipeline(transaction=False)
        for table_id in table_ids:
            pipe.hmget(table_key(table_id), "s", "a", "v")
            pipe.pttl(table_key(table_id))
        replies = pipe.execute()
        found = []
        for i in range(len(table_ids)):
            state, auth, version = replies[2 * i]
            found.append((state, auth, int(replies[2 * i + 1]), version))
        return found

    def unlist(self, entries: Sequence[tuple[Entry, Any]]) -> list[Entry]:
        """Remove the entries whose tables a read found unlistable (full, or
        their match ended) at the versions given: the entries whose table's
        version has moved since (a change in between, whose own update may
        have been overtaken by this removal) are returned, for the caller
        to make right again. On one server the
        versions are read after the removals in the same pipeline, one round
        trip (Redis runs a connection's commands in order); a cluster's
        nodes do not order one pipeline's commands among them, so there it
        takes two."""
        if not entries:
            return []
        pipe = self.client.pipeline(transaction=False)
        for (_, table_id, variant), _ in entries:
            pipe.zrem(lobby_key(variant), table_id)
        if isinstance(self.client, RedisCluster):
            pipe.execute()
            pipe = self.client.pipeline(transaction=False)  # type: ignore[no-untyped-call]
        for (_, table_id, _), _ in entries:
            pipe.hget(table_key(table_id), "v")
        now = pipe.execute()[-len(entries) :]
        return [entry for (entry, read), seen in zip(entries, now, strict=True) if seen != read]
