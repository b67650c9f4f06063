"""A table's event log as a server-sent event stream (the WHATWG HTML
standard's ``text/event-stream``), for any game.

Frames, each ended by a blank line:

- every public event of the log, in order, unnamed (``onmessage``), ``data``
  the event as the JSON log gives it (``seq``, ``at_ms``, ``type``, …), ``id``
  :func:`event_id`: its seq and a fingerprint of its content;
- ``event: seat``: for a seat's stream, after the events of each commit, the
  seat's whole view (what ``GET …/seats/{seat}`` answers: its hand, what it
  may do, its pending choice), when it changed; ``id`` that of the last event;
- ``event: heartbeat`` every ``heartbeat`` seconds of silence, with the last
  id again (``data``: ``{"last_event"}``);
- ``event: events-gone`` when the cursor is older than the log keeps, past its
  end, or names an event the log no longer has under that seq (Redis lost its
  newest writes and the seq was reused): ``{"oldest_seq", "last_event"}``;
  the stream goes on from the log's last event (re-read the table's view);
- ``event: seat-connected`` and ``event: seat-disconnected`` when a seat's
  ``connected`` changes (RULES.md 5.5; :mod:`.presence`), no ``id``;
- ``event: table-deleted``, then the stream ends (``retry`` an hour: the
  browser does not come back); ``event: seat-closed`` alike on a seat's
  stream whose token was reissued.

Events that fall due by the clock alone (a May I? window that lapsed, a
claim window that closed) are in the log's reads from that instant on
(``service.storage.store``): the stream reads again then, so they arrive
with nobody calling the table. A stream ends by itself after ``lifetime``
seconds; an EventSource reconnects
with ``Last-Event-ID`` and misses nothing.
"""

from __future__ import annotations

import functools
import hashlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from ..storage.store import EventsGone, TableNotFound, TableStore
from .hub import Hub
from .presence import Watch

RETRY_MS = 2000
"""How long an EventSource waits before it reconnects (the ``retry`` field)."""

GIVE_UP_RETRY_MS = 3_600_000
"""The ``retry`` of a stream that must not reconnect (a deleted table, a
spent ticket): an hour, so the page can open a new stream itself."""

KEEPALIVE = ":\n\n"
"""A comment (which EventSource ignores) written before each keepalive of a
seat's own stream (``service.streams.presence``)."""

PAGE = 100
"""Events read from the log per read."""

DUE_SLACK = 0.005
"""Seconds after a window's close at which a stream reads its events (the
Redis clock and this process's timer need not agree to the millisecond)."""


def event_id(event: dict[str, Any]) -> str:
    """A stream id that names one event for good: ``<seq>.<fingerprint>``
    (8 hex digits of the SHA-256 of the event's canonical JSON), so that a
    seq the log reused after losing its newest writes is not taken for the
    event a client saw."""
    return f"{event['seq']}.{fingerprint(event)}"


def fingerprint(event: dict[str, Any]) -> str:
    text = json.dumps(event, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:8]


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where a stream starts: after event ``seq``; ``mark`` the fingerprint
    the client holds for it (``None``: a bare seq, e.g. from ``?after=``)."""

    seq: int
    mark: str | None = None


def parse_cursor(text: str | None) -> Cursor | None:
    """A ``Last-Event-ID`` or ``after`` value as a :class:`Cursor`; ``None``
    for a value that is neither ``<seq>`` nor ``<seq>.<8 hex digits>``."""
    if text is None:
        return None
    seq, dot, mark = text.strip().partition(".")
    if not (seq.isascii() and seq.isdigit()) or len(seq) > 16:
        return None
    if dot and not (len(mark) == 8 and all(c in "0123456789abcdef" for c in mark)):
        return None
    return Cursor(int(seq), mark if dot else None)


def frame(data: Any, event: str | None = None, id: str | None = None) -> str:
    """One server-sent event; ``data`` as one line of JSON."""
    lines = []
    if event is not None:
        lines.append(f"event: {event}")
    if id is not None:
        lines.append(f"id: {id}")
    lines.append("data: " + json.dumps(data, separators=(",", ":")))
    return "\n".join(lines) + "\n\n"


SeatView = Callable[[bool], dict[str, Any] | None]
"""The seat's current view, or ``None`` when the table is gone or the
seat's token changed; its argument says whether the read may be shared
with the process's other streams of the table (after an announced commit)."""


@dataclass
class Follower:
    """One stream's loop over one table's log (see the module docstring)."""

    store: TableStore
    hub: Hub
    table_id: str
    heartbeat: float
    lifetime: float
    seat_view: SeatView | None = None
    presence: Watch | None = None
    """The stream's presence events (``service.streams.presence``), if any."""

    def open(self, cursor: Cursor) -> Iterator[str]:
        """The stream's frames from ``cursor`` on, until its lifetime ends or
        the table is deleted. Raises :class:`TableNotFound` now (not on the
        first frame) when the table is not there, so that it can be a 404."""
        after, first = self._start(cursor)
        return self._frames(after, first, str(cursor.seq))

    def _frames(self, after: int, first: list[str], last_id: str) -> Iterator[str]:
        # Followed before the first read: no commit can fall between the two.
        with self.hub.follow(self.table_id) as waiter:
            yield f"retry: {RETRY_MS}\n\n"
            yield from first
            view: str | None = None
            now = time.monotonic()
            ends = now + self.lifetime
            beat_at = now + self.heartbeat
            due_at: float | None = None
            woken, notified = True, False
            watch = self.presence
            if watch is not None:
                waiter.presence = False
                watch.start()
            while True:
                if waiter.closing:  # the process is stopping: come back soon, elsewhere
                    yield f"retry: {RETRY_MS}\n\n"
                    return
                now = time.monotonic()
                if watch is not None:
                    if waiter.presence or watch.due(now):
                        shared = waiter.presence and notified
                        waiter.presence = False
                        changes = watch.changes(shared)
                        for change in changes:
                            yield frame(change, change["type"])
                        woken = woken or (bool(changes) and self.seat_view is not None)
                    if watch.keep_due(now):
                        yield KEEPALIVE  # a client gone away ends the stream here
                        watch.keep(now)
                if woken:
                    try:
                        sent, after, newest, due_in = self._read(after, notified)
                    except TableNotFound:
                        yield f"retry: {GIVE_UP_RETRY_MS}\n\n"
                        yield frame({"table": self.table_id}, "table-deleted")
                        return
                    yield from sent
                    last_id = newest or last_id
                    due_at = None if due_in is None else time.monotonic() + due_in
                    if self.seat_view is not None:
                        shown = self.seat_view(notified)
                        if shown is None:  # the table went, or the seat's token changed
                            yield f"retry: {GIVE_UP_RETRY_MS}\n\n"
                            yield frame({"table": self.table_id}, "seat-closed")
                            return
                        text = json.dumps(shown, sort_keys=True)
                        if text != view:
                            view = text
                            yield frame(shown, "seat", last_id)
                now = time.monotonic()
                if now >= ends:
                    return
                # A window closes (its event is in the log's reads from then
                # on, with nobody writing it), a seat drops out or its stream
                # keeps it connected, a heartbeat is due, or the stream ends.
                wakes = [ends, beat_at, due_at, watch.next_at() if watch else None]
                timeout = max(min(t for t in wakes if t is not None) - now, 0.0)
                woken = notified = waiter.wait(timeout)
                now = time.monotonic()
                if woken:
                    beat_at = now + self.heartbeat
                    if waiter.gone:
                        notified = False  # read once more: table-deleted
                elif due_at is not None and now >= due_at:
                    woken = True
                elif now >= beat_at and now < ends:
                    yield frame({"last_event": after}, "heartbeat", last_id)
                    beat_at = now + self.heartbeat
                    woken = True  # a notification may have been lost: read anyway
                    if watch is not None:
                        waiter.presence = True  # and presence, for the same reason

    def _start(self, cursor: Cursor) -> tuple[int, list[str]]:
        """The seq to read on from, and the frames that open the stream
        (``events-gone`` when the cursor cannot go on)."""
        try:
            page = self.store.events(self.table_id, cursor.seq, 1)
        except EventsGone as gone:
            return gone.last, [self._gone(gone.oldest, gone.last)]
        if cursor.mark is not None and cursor.seq >= page.oldest:
            seen = self.store.events(self.table_id, cursor.seq - 1, 1).events
            if not seen or fingerprint(seen[0]) != cursor.mark:
                return page.last, [self._gone(page.oldest, page.last)]
        return cursor.seq, []

    @staticmethod
    def _gone(oldest: int, last: int) -> str:
        return frame({"oldest_seq": oldest, "last_event": last}, "events-gone", str(last))

    def _read(
        self, after: int, notified: bool = False
    ) -> tuple[list[str], int, str | None, float | None]:
        """The frames of every event after ``after``, the new cursor, the id
        of the last event sent (``None``: none) and the seconds until
        something of the table falls due by the clock (``None``: nothing).
        After an announced commit (``notified``) the read is shared with the
        process's other streams of the table (:meth:`.Hub.shared`); a read
        the clock asked for is the stream's own."""
        sent: list[str] = []
        newest: str | None = None
        while True:
            try:
                read = functools.partial(self.store.events, self.table_id, after, PAGE)
                key = ("events", after)
                page = self.hub.shared(self.table_id, key, read) if notified else read()
            except EventsGone as gone:  # fell behind the log, or it was reset: go on from its end
                sent.append(self._gone(gone.oldest, gone.last))
                return sent, gone.last, str(gone.last), None
            for event in page.events:
                newest = event_id(event)
                sent.append(frame(event, None, newest))
            if page.events:
                after = page.events[-1]["seq"]
            if not page.more:
                due_in = None
                # A due time already passed is already in this read (as_of).
                if page.next_due_ms is not None and page.next_due_ms > page.now_ms:
                    due_in = (page.next_due_ms - page.now_ms) / 1000 + DUE_SLACK
                return sent, after, newest, due_in
