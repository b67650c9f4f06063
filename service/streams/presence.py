"""A stream's view of who is at the table (RULES.md 5.5): the named events
``seat-connected`` and ``seat-disconnected`` (``data``: ``{"type", "seat",
"at_ms"}``, no ``id``, so an EventSource's ``Last-Event-ID`` stays the last
logged event's), sent when a seat's ``connected`` changes while the stream
is open. Presence is not in the event log (it would flood the bounded log
and take a write per change): a stream that opens (or reopens) learns it
from the table's view or the seat's, then from these events.

A seat that became connected is announced on the table's feed (count 0,
:mod:`service.storage.presence`); a seat that drops out is found by every
stream from the last-seen instants and Redis's clock at the instant it drops
(:meth:`Watch.next_at`), with nobody writing anything. A seat's own stream
also keeps its seat connected (``keepalive``, every ``window / 3``, each
once a comment line was written to a client still there: a client gone
away is seen to have closed its end, or fails that write, the stream ends,
and the seat drops out a window after the last comment it was written).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..storage.presence import connected, next_change_ms

Read = Callable[[Any], tuple[int, dict[int, int]]]
"""The Redis clock (ms) and the seats' last-seen instants; its argument is
the key under which the read may be shared with the process's other
streams of the table (``Hub.shared``: after a feed announcement, or when a
seat's drop falls due, which every stream of the table finds at the same
instant), ``None`` for a read of its own."""

SLACK = 0.005
"""Seconds after a seat's drop at which the stream reads presence again
(this process's timer and the Redis clock need not agree to the ms)."""


@dataclass
class Watch:
    """One stream's presence: ``read`` it, ``window_ms`` the window;
    ``keepalive`` (a seat's own stream) notes the seat seen."""

    read: Read
    window_ms: int
    keepalive: Callable[[], None] | None = None
    seats: frozenset[int] = frozenset()
    check_at: float | None = None
    drop_ms: int | None = None
    """When the next connected seat drops out, on the Redis clock (ms)."""
    keep_at: float = field(default=0.0)

    def start(self) -> None:
        """The seats connected as the stream opens (no frame: the views
        tell); the request that opened it noted its seat seen."""
        self._update(None)
        self.keep_at = time.monotonic() + self.window_ms / 3000

    def changes(self, shared: Any) -> list[dict[str, Any]]:
        """Read presence (shared under the key ``shared``, or not: ``None``);
        an event for each seat whose ``connected`` changed."""
        before = self.seats
        now_ms, seen = self._update(shared)
        events = []
        for seat in sorted(before ^ self.seats):
            if seat in self.seats:
                event = {"type": "seat-connected", "seat": seat, "at_ms": seen[seat]}
            else:
                at = seen.get(seat)
                at_ms = now_ms if at is None else min(at + self.window_ms, now_ms)
                event = {"type": "seat-disconnected", "seat": seat, "at_ms": at_ms}
            events.append(event)
        return events

    def _update(self, shared: Any) -> tuple[int, dict[int, int]]:
        now_ms, seen = self.read(shared)
        self.seats = connected(seen, now_ms, self.window_ms)
        drop = next_change_ms(seen, now_ms, self.window_ms)
        self.check_at = None if drop is None else time.monotonic() + drop / 1000 + SLACK
        self.drop_ms = None if drop is None else now_ms + drop
        return now_ms, seen

    def due(self, now: float) -> bool:
        """Whether a connected seat's drop has come (read again)."""
        return self.check_at is not None and now >= self.check_at

    def keep_due(self, now: float) -> bool:
        """Whether the stream's own seat is due its next keepalive (every
        ``window / 3``): the stream writes a comment, and only once it is
        written to a client still there (:meth:`kept`) is the seat noted
        seen, so that a client that went away is never kept connected
        (RULES.md 5.5: connected while a write to it succeeded within the
        window)."""
        return self.keepalive is not None and now >= self.keep_at

    def keep(self, now: float) -> None:
        """The keepalive's comment is on its way: the next one is due a
        third of the window from ``now``."""
        self.keep_at = now + self.window_ms / 3000

    def kept(self) -> None:
        """Note the stream's own seat seen: its comment was written."""
        assert self.keepalive is not None
        self.keepalive()

    def next_at(self) -> float | None:
        """The next instant (monotonic) the stream must wake for presence."""
        check, keep = self.check_at or None, self.keep_at if self.keepalive else None
        if keep and (check is None or keep < check):
            return keep
        return check
