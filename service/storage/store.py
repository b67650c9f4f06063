"""The table store: Redis only, no rules.

Keys of one table share the hash tag ``{<table id>}`` so that one Lua script
touches one Redis Cluster slot::

    referee:{<id>}:table    hash  v (version), n (event count), s (state JSON),
                                  a (auth: token hashes)
    referee:{<id>}:events   list  public events as JSON, oldest first

A move is one read (``HMGET``) and one atomic commit (the ``commit.lua``
script: compare version, write state, append events, refresh expiry). When
another move committed in between, the move is recomputed on the new state;
that is what lets every seat pass at the same moment and still resolve the
exchange exactly once.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any

import redis

from ..rules.engine import Transition
from ..rules.errors import RuleViolation
from ..rules.state import Table
from .codec import decode, encode

KEY_PREFIX = "referee"


def table_key(table_id: str) -> str:
    """The hash that holds a table's state."""
    return f"{KEY_PREFIX}:{{{table_id}}}:table"


def events_key(table_id: str) -> str:
    """The list that holds a table's public events."""
    return f"{KEY_PREFIX}:{{{table_id}}}:events"


def all_keys(table_id: str) -> list[str]:
    """Every key a table owns (for deletion and memory accounting)."""
    return [table_key(table_id), events_key(table_id)]


@dataclass(frozen=True, slots=True)
class Loaded:
    """A table as read: its version, state, auth record and event count."""

    table_id: str
    version: int
    table: Table
    auth: dict[str, Any]
    event_count: int


class TableNotFound(LookupError):
    """No table has this id (never created, deleted, or expired)."""


class Contended(RuntimeError):
    """A move lost the version race too many times in a row; retry later."""


class TableStore:
    """Reads and atomically writes tables in Redis.

    ``client`` is a ``redis.Redis`` (or cluster client); ``ttl_seconds`` is how
    long an untouched table lives; ``max_attempts`` bounds the optimistic retries
    of one move.
    """

    def __init__(self, client: redis.Redis, ttl_seconds: int, max_attempts: int = 64) -> None:
        self.client = client
        self.ttl_seconds = ttl_seconds
        self.max_attempts = max_attempts
        script = resources.files(__package__).joinpath("lua/commit.lua").read_text()
        self._commit = client.register_script(script)

    def load(self, table_id: str) -> Loaded:
        """The table's current state; raises :class:`TableNotFound`."""
        version, count, state, auth = self.client.hmget(table_key(table_id), "v", "n", "s", "a")
        if version is None or state is None or auth is None:
            raise TableNotFound(table_id)
        return Loaded(table_id, int(version), decode(state), json.loads(auth), int(count or 0))

    def create(self, table_id: str, transition: Transition, auth: dict[str, Any]) -> None:
        """Store a new table with its first events; raises ``RuntimeError`` if the
        id is taken (128+ random bits make that a broken random source)."""
        ok, _ = self._write(table_id, 0, 0, transition.table, transition.events, auth)
        if not ok:
            raise RuntimeError(f"table id {table_id} already exists")

    def apply(
        self, table_id: str, move: Callable[[Loaded], Transition]
    ) -> tuple[Loaded, Transition]:
        """Run ``move`` on the current state and commit its result atomically.

        ``move`` may raise (an auth error, a :class:`RuleViolation`); then
        nothing is written, except what a ``RuleViolation`` carries to keep (the
        events it records, the table as the clock settled it), written under
        the same version check before it is re-raised. On a version conflict
        ``move`` runs again on the fresh state.
        Returns the state the move saw and its transition. Raises
        :class:`TableNotFound` or :class:`Contended`.
        """
        for attempt in range(self.max_attempts):
            loaded = self.load(table_id)
            try:
                transition = move(loaded)
            except RuleViolation as violation:
                if not violation.record and violation.settled is None:
                    raise
                ok, _ = self._write(
                    table_id,
                    loaded.version,
                    loaded.event_count,
                    violation.settled,
                    violation.record,
                    None,
                )
                if ok:
                    raise
            else:
                if transition.table is loaded.table and not transition.events:
                    return loaded, transition  # a repeat: nothing to write
                ok, _ = self._write(
                    table_id,
                    loaded.version,
                    loaded.event_count,
                    transition.table,
                    transition.events,
                    None,
                )
                if ok:
                    return loaded, transition
            # Jittered backoff so that seats racing for one table spread out.
            time.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
        raise Contended(table_id)

    def _write(
        self,
        table_id: str,
        version: int,
        event_count: int,
        table: Table | None,
        events: tuple[dict[str, Any], ...],
        auth: dict[str, Any] | None,
    ) -> tuple[bool, int]:
        now_ms = int(time.time() * 1000)
        payloads = [
            json.dumps({"seq": event_count + i + 1, "at_ms": now_ms, **e}, separators=(",", ":"))
            for i, e in enumerate(events)
        ]
        result = self._commit(
            keys=[table_key(table_id), events_key(table_id)],
            args=[
                str(version),
                "" if table is None else encode(table),
                self.ttl_seconds,
                "" if auth is None else json.dumps(auth, separators=(",", ":")),
                *payloads,
            ],
        )
        return int(result[0]) >= 0, int(result[1])

    def events(self, table_id: str, after: int, limit: int) -> list[dict[str, Any]]:
        """Public events with ``seq > after``, oldest first, at most ``limit``."""
        raw = self.client.lrange(events_key(table_id), after, after + limit - 1)
        return [json.loads(e) for e in raw]

    def exists(self, table_id: str) -> bool:
        """Whether the table exists."""
        return bool(self.client.exists(table_key(table_id)))

    def delete(self, table_id: str) -> bool:
        """Remove every key of the table; False if there was none."""
        return bool(self.client.delete(*all_keys(table_id)))

    def ping(self) -> bool:
        """Whether Redis answers."""
        return bool(self.client.ping())
