"""Who is at the table (RULES.md 5.5): Redis only, no HTTP, no game.

A seat is *connected* while a stream of its own or a request with its token
was seen within the last ``window_ms`` (15 s by RULES.md 5.5). Kept as::

    referee:{<id>}:presence   hash  seat -> the Redis clock when it was last
                                    seen, ms; expires with the table (its
                                    PTTL, copied at each write) and removed
                                    with it

Only last-seen instants are written; ``connected`` is computed at each read
from them and the read's Redis clock (:func:`connected`), so every worker and
every machine agree, and a seat that left falls out with nobody writing
anything. A write (``presence.lua``) that makes a seat connected announces
it on the table's feed with the count ``0`` (no commit announces 0): the
streams read presence again then; a seat's drop is found by each stream
from the last-seen instants (:func:`next_change_ms`).

Writes are the caller's to throttle: the API writes a seat at most once per
``window_ms / 3`` per process (:class:`Throttle`), so a seat's requests do
not each cost a write, and the seat stays connected between writes.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from importlib import resources
from typing import Any

from . import feeds
from .store import presence_key, table_key

WINDOW_MS = 15_000
"""RULES.md 5.5: connected while seen within the last 15 seconds."""


__all__ = ["Presence", "Throttle", "connected", "last_seen", "next_change_ms", "presence_key"]


def last_seen(reply: dict[Any, Any] | None) -> dict[int, int]:
    """An ``HGETALL`` of the presence hash as {seat: last seen, ms}
    (fields that are not a seat and a number are skipped)."""
    seen: dict[int, int] = {}
    for seat, at in (reply or {}).items():
        try:
            seen[int(seat)] = int(at)
        except ValueError:
            continue
    return seen


def connected(seen: dict[int, int], now_ms: int, window_ms: int = WINDOW_MS) -> frozenset[int]:
    """The seats seen within the ``window_ms`` before ``now_ms`` (a Redis clock)."""
    return frozenset(seat for seat, at in seen.items() if now_ms - at < window_ms)


def next_change_ms(seen: dict[int, int], now_ms: int, window_ms: int = WINDOW_MS) -> int | None:
    """The ms from ``now_ms`` until the first connected seat drops out
    (unless seen again), ``None`` when none is connected."""
    ends = [at + window_ms - now_ms for at in seen.values() if now_ms - at < window_ms]
    return max(min(ends), 0) if ends else None


class Presence:
    """Writes and reads of the presence hashes on ``client`` (standalone or cluster)."""

    def __init__(self, client: Any, window_ms: int = WINDOW_MS) -> None:
        self.client = client
        self.window_ms = window_ms
        lua = resources.files(__package__).joinpath("lua")
        self._seen = feeds.register(client, lua.joinpath("presence.lua").read_text())

    def seen(self, table_id: str, seat: int) -> int:
        """Note that ``seat`` was seen now (Redis's clock): 1 when it was not
        connected before (its streams are told), 0 when it was, -1 when the
        table is gone (nothing written)."""
        keys = [presence_key(table_id), table_key(table_id)]
        return int(self._seen(keys=keys, args=[seat, self.window_ms]))

    def read(self, table_id: str) -> tuple[int, dict[int, int]]:
        """The Redis clock (ms, of the table's node) and the seats' last-seen
        instants, in one round trip."""
        pipe = self.client.pipeline(transaction=False)
        pipe.hgetall(presence_key(table_id))
        route: dict[str, Any] = {}
        if hasattr(self.client, "get_node_from_key"):  # a cluster: the table's node's clock
            route = {"target_nodes": self.client.get_node_from_key(table_key(table_id))}
        pipe.execute_command("TIME", **route)
        reply, (seconds, micros) = pipe.execute()
        return int(seconds) * 1000 + int(micros) // 1000, last_seen(reply)


class Throttle:
    """At most one write per seat per ``seconds`` in this process: whether
    a seat seen now is due a write. Remembers at most ``size`` seats (the
    longest unseen are forgotten: they are written again at once)."""

    def __init__(self, seconds: float, size: int = 10_000) -> None:
        self.seconds = seconds
        self.size = size
        self._lock = threading.Lock()
        self._written: OrderedDict[tuple[str, int], float] = OrderedDict()

    def due(self, table_id: str, seat: int) -> bool:
        """Whether ``seat`` of ``table_id`` is due a write now (if so, it is
        counted as written; :meth:`forget` it when the write fails)."""
        now = time.monotonic()
        key = (table_id, seat)
        with self._lock:
            last = self._written.get(key)
            if last is not None and now - last < self.seconds:
                return False
            self._written[key] = now
            self._written.move_to_end(key)
            while len(self._written) > self.size:
                self._written.popitem(last=False)
        return True

    def forget(self, table_id: str, seat: int) -> None:
        """Write ``seat`` at its next sighting (its write failed)."""
        with self._lock:
            self._written.pop((table_id, seat), None)
