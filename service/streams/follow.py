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
  the stream goes on from the log's last event (re-read the table's view).
  An open stream finds the same: each read holds the event at its cursor,
  compared with the one it sent (its fingerprint, which covers its
  ``at_ms``);
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

import hashlib
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .. import json_text
from ..storage.store import EventsGone, Loaded, TableNotFound, TableStore
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

RETRY_SOON = f"retry: {RETRY_MS}\n\n".encode()
"""What a stream ends with when its process stops: come back soon, elsewhere."""

PUBLIC = "public"
SEAT = "seat"
"""The audiences of a stream's frames (:meth:`.Hub.rendered`): the event
frames every stream of a table writes, and a seat's view."""

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
    return frame_text(json_text.compact(data), event, id)


SeatView = Callable[[Loaded], dict[str, Any] | None]
"""The seat's view of the table as read (``None`` when the seat's token
changed: the stream ends)."""


@dataclass(frozen=True, slots=True)
class Read:
    """One read of a table for its streams, rendered (:meth:`Follower._read`):
    the frames of its events as one text, the cursor after them, the id of
    the last event sent (``None``: none), and the table as read with them;
    ``at_mark`` the fingerprint of the event at the cursor the read started
    from, as the log holds it now (``None``: not kept, or none), and the
    log's ``oldest`` and ``last`` seqs; ``now_ms`` the Redis clock at the
    read, and ``due_ms`` the instant (that clock) something falls due
    (``None``: nothing after the read)."""

    frames: str
    after: int
    newest: str | None
    table: Loaded
    at_mark: str | None = None
    oldest: int = 0
    last: int = 0
    now_ms: int = 0
    due_ms: int | None = None

    @property
    def due_in(self) -> float | None:
        """The seconds from the read until something falls due by the clock
        (``None``: nothing), with :data:`DUE_SLACK`."""
        if self.due_ms is None:
            return None
        return (self.due_ms - self.now_ms) / 1000 + DUE_SLACK


@dataclass(frozen=True, slots=True)
class Step:
    """What a stream writes after one read of its table (:meth:`Follower._step`),
    and where it stands then: ``out`` the frames as bytes (the same object
    for every stream of one audience in one state: nothing is rendered or
    encoded per stream), the cursor ``after``, the ``mark`` and ``last_id``
    of the last event sent, the seat's ``view`` as last sent (``None``: a
    public stream, or none yet), the seconds until something falls due by
    the clock (``due_ms``: the instant, by the Redis clock), and whether
    the stream ends with ``out``."""

    out: bytes
    after: int
    mark: str | None
    last_id: str
    view: str | None
    due_in: float | None
    ends: bool = False
    due_ms: int | None = None


class _NotDueYet(Exception):
    """A read made for an instant that the Redis clock had not reached yet
    (this process's timer ran ahead of it): the stream's own, never shared."""


@dataclass
class Follower:
    """One stream's loop over one table's log (see the module docstring).

    After an announced commit, the process's streams of the table share
    each read (:meth:`.Hub.shared`): the page the commit published
    (:meth:`.Hub.page`), else one atomic read of the log and the table
    (:meth:`.TableStore.snapshot`), its event frames rendered once, and
    each seat's frame rendered once for all the streams of that seat
    (counted: :meth:`.Hub.rendered`); so do the streams that wake at the
    instant a window closes (one read, once Redis's clock is there).
    What a stream writes after it (a
    :class:`Step`) is the same bytes object for every stream of the
    audience in the same state, which each writes in one piece."""

    store: TableStore
    hub: Hub
    table_id: str
    heartbeat: float
    lifetime: float
    seat_view: SeatView | None = None
    presence: Watch | None = None
    """The stream's presence events (``service.streams.presence``), if any."""
    seat: int | None = None
    holder: str | None = None
    """What the seat's stream was authorised with (its token's digest): only
    the streams of one seat and one holder share a rendered view (a holder
    whose token was reissued must never be given the new holder's)."""
    peer_gone: Callable[[], bool] = lambda: False
    """Whether the client has closed its end of the connection, asked
    before a keepalive is written: a write to a closed connection may still
    succeed once, and must not count."""

    def open(self, cursor: Cursor) -> Iterator[bytes]:
        """The stream's frames (UTF-8) from ``cursor`` on, until its lifetime ends or
        the table is deleted. Raises :class:`TableNotFound` now (not on the
        first frame) when the table is not there, so that it can be a 404."""
        after, first = self._start(cursor)
        mark = cursor.mark if after == cursor.seq else None
        return self._frames(after, first, str(cursor.seq), mark)

    def _frames(
        self, after: int, first: list[str], last_id: str, mark: str | None
    ) -> Iterator[bytes]:
        # ``mark``: the fingerprint of the event at ``after`` that the client
        # holds (None: not known yet, taken from the next read). Each read
        # compares it with the log's: a log rolled back (Redis lost its
        # newest writes) that wrote other events under the same seqs is told
        # as a reconnecting stream is told it, with events-gone.
        # Followed before the first read: no commit can fall between the two.
        with self.hub.follow(self.table_id) as waiter:
            watch = self.presence
            if watch is not None:
                # Before the first write (which carries the response's head):
                # a client that acts once it has the 200 sees its change announced.
                waiter.presence = False
                watch.start()
            yield (f"retry: {RETRY_MS}\n\n" + "".join(first)).encode()
            view: str | None = None
            clock = time.monotonic
            now = clock()
            ends = now + self.lifetime
            beat_at = now + self.heartbeat
            due_at: float | None = None
            due_ms: int | None = None
            woken, notified, keep, by_clock = True, False, False, False
            while True:
                if waiter.closing:  # the process is stopping: come back soon, elsewhere
                    yield RETRY_SOON
                    return
                out = b""
                if watch is not None:
                    now = clock()
                    text = ""
                    if waiter.presence or watch.due(now):
                        # Shared with the process's other streams of the table:
                        # after an announcement, or at a drop they all foresaw.
                        key: Any = None
                        if waiter.presence and notified:
                            key = "presence"
                        elif watch.due(now):
                            key = ("presence-drop", watch.drop_ms)
                        waiter.presence = False
                        changes = watch.changes(key)
                        for change in changes:
                            text += frame(change, change["type"])
                        woken = woken or (bool(changes) and self.seat_view is not None)
                    if watch.keep_due(now):
                        if self.peer_gone():  # it closed its end: never seen again
                            return
                        text += KEEPALIVE  # a client gone away ends the stream here
                        watch.keep(now)
                        keep = True
                    if text:
                        out = text.encode()
                if woken:
                    step = self._step(
                        after, mark, last_id, view, notified, due_ms if by_clock else None
                    )
                    after, mark, last_id, view = step.after, step.mark, step.last_id, step.view
                    due_at = None if step.due_in is None else clock() + step.due_in
                    due_ms, by_clock = step.due_ms, False
                    if step.ends:
                        yield out + step.out
                        return
                    # The bytes every stream of this audience in the process writes.
                    out = out + step.out if out else step.out
                if out:
                    yield out  # one write for all this wake sends
                    if keep and watch is not None:
                        watch.kept()  # written (RULES.md 5.5): the seat is seen
                keep = False
                now = clock()
                if now >= ends:
                    return
                # A window closes (its event is in the log's reads from then
                # on, with nobody writing it), a seat drops out or its stream
                # keeps it connected, a heartbeat is due, or the stream ends.
                until = ends if ends < beat_at else beat_at
                if due_at is not None and due_at < until:
                    until = due_at
                if watch is not None:
                    presence_at = watch.next_at()
                    if presence_at is not None and presence_at < until:
                        until = presence_at
                woken = notified = waiter.wait_until(until, now)
                now = clock()
                if woken:
                    beat_at = now + self.heartbeat
                    if waiter.gone:
                        notified = False  # read once more: table-deleted
                elif due_at is not None and now >= due_at:
                    woken = by_clock = True
                elif now >= beat_at and now < ends:
                    yield frame({"last_event": after}, "heartbeat", last_id).encode()
                    beat_at = now + self.heartbeat
                    woken = True  # a notification may have been lost: read anyway
                    if watch is not None:
                        waiter.presence = True  # and presence, for the same reason

    def _step(
        self,
        after: int,
        mark: str | None,
        last_id: str,
        view: str | None,
        shared: bool,
        due_ms: int | None = None,
    ) -> Step:
        """What the stream writes after reading the table from its state
        (``after``, ``mark``, ``last_id``, the seat's ``view`` last sent),
        and its state then. After an announced commit (``shared``), or at
        the instant ``due_ms`` its last read said something falls due by the
        clock (a window's close: every stream of the table in that state
        wakes then), the step is rendered once for all of this process's
        streams of the table in the same state and of the same audience (the
        public, or one seat under one holder): they are handed the same bytes."""
        if not shared and due_ms is None:
            return self._render_step(after, mark, last_id, view, False)
        key = ("step", self.seat, self.holder, after, mark, last_id, view, due_ms)
        found: Step | None = self.hub.peek(self.table_id, key)
        if found is not None:  # another stream of this audience rendered it
            return found
        try:
            return self.hub.shared(
                self.table_id,
                key,
                lambda: self._render_step(after, mark, last_id, view, True, due_ms),
            )
        except _NotDueYet:  # the Redis clock was behind this process's timer
            return self._render_step(after, mark, last_id, view, False)

    def _render_step(
        self,
        after: int,
        mark: str | None,
        last_id: str,
        view: str | None,
        shared: bool,
        due_ms: int | None = None,
    ) -> Step:
        try:
            read = self._read(after, shared, due_ms)
        except TableNotFound:
            ended = f"retry: {GIVE_UP_RETRY_MS}\n\n" + _deleted(self.table_id)
            return Step(ended.encode(), after, mark, last_id, view, None, True)
        out = ""
        if mark is not None and read.at_mark is not None and read.at_mark != mark:
            # Not the event the client was sent under this seq: the log
            # was rolled back. On from its end, as _start.
            after, mark = read.last, None
            last_id = str(read.last)
            out = self._gone(read.oldest, read.last)
        else:
            after = read.after
            last_id = read.newest or last_id
            if read.newest is not None:  # "<seq>.<fp>", or "<seq>" after events-gone
                mark = read.newest.partition(".")[2] or None
            elif mark is None:
                mark = read.at_mark
            out = read.frames
        if self.seat_view is not None:
            shown = self._seat_frame(read, shared, due_ms)
            if shown is None:  # the seat's token changed
                out += f"retry: {GIVE_UP_RETRY_MS}\n\n" + _closed(self.table_id)
                return Step(out.encode(), after, mark, last_id, view, read.due_in, True)
            if shown != view:
                view = shown
                out += frame_text(shown, "seat", last_id)
        return Step(out.encode(), after, mark, last_id, view, read.due_in, due_ms=read.due_ms)

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

    def _read(self, after: int, notified: bool = False, due_ms: int | None = None) -> Read:
        """Every event after ``after``, rendered, with the table read with
        them. After an announced commit (``notified``) the read is shared
        with the process's other streams of the table (:meth:`.Hub.shared`,
        the same cursor: the same read); so is a read at the instant
        ``due_ms`` (Redis's clock) something falls due, once Redis's clock
        has reached it (before, :class:`_NotDueYet`: nothing is kept); any
        other read is the stream's own. Raises :class:`TableNotFound`."""
        if due_ms is not None:

            def when_due() -> Read:
                read = self._render(after)
                if read.now_ms < due_ms:
                    raise _NotDueYet
                return read

            return self.hub.shared(self.table_id, ("due", after, due_ms), when_due)
        if notified:
            return self.hub.shared(
                self.table_id, ("read", after), lambda: self._render(after, True)
            )
        return self._render(after)

    def _render(self, after: int, notified: bool = False) -> Read:
        self.hub.rendered(PUBLIC)
        texts: list[str] = []
        newest: str | None = None
        at_mark: str | None = None
        first = True
        # The page the announced commit published for this cursor, if it
        # did: what the first read would find (Hub.page).
        published = self.hub.page(self.table_id, after) if notified else None
        while True:
            if published is not None:
                snapshot = self.store.snapshot_of(self.table_id, after, PAGE, published)
                published = None
            else:
                snapshot = self.store.snapshot(self.table_id, after, PAGE)
            page = snapshot.page
            if isinstance(page, EventsGone):  # behind the log, or it was reset: on from its end
                texts.append(self._gone(page.oldest, page.last))
                return Read(
                    "".join(texts),
                    page.last,
                    str(page.last),
                    snapshot.table,
                    None,
                    page.oldest,
                    page.last,
                    snapshot.table.now_ms,
                )
            if first and page.at_cursor is not None:  # the event at the cursor, as held now
                at_mark = fingerprint(page.at_cursor)
            first = False
            for event in page.events:
                newest = event_id(event)
                texts.append(frame(event, None, newest))
            if page.events:
                after = page.events[-1]["seq"]
            if not page.more:
                # A due time already passed is already in this read (as_of).
                due_ms = page.next_due_ms
                if due_ms is not None and due_ms <= page.now_ms:
                    due_ms = None
                return Read(
                    "".join(texts),
                    after,
                    newest,
                    snapshot.table,
                    at_mark,
                    page.oldest,
                    page.last,
                    page.now_ms,
                    due_ms,
                )

    def _seat_frame(self, read: Read, shared: bool, due_ms: int | None = None) -> str | None:
        """The seat's view of ``read.table`` as the ``data`` of its frame
        (canonical JSON, so that an unchanged view is the same text), or
        ``None`` when the seat's token changed; rendered once per read for
        all of this process's streams of the seat when ``shared`` (a read
        at the instant ``due_ms`` apart from an announced commit's)."""
        assert self.seat_view is not None
        view, table = self.seat_view, read.table

        def render() -> str | None:
            self.hub.rendered(SEAT)
            shown = view(table)
            if shown is None:
                return None
            return json_text.compact(shown, sort_keys=True)

        if not shared:
            return render()
        key = ("seat", self.seat, self.holder, read.after, due_ms)
        return self.hub.shared(self.table_id, key, render)


def frame_text(data: str, event: str | None = None, id: str | None = None) -> str:
    """One server-sent event whose ``data`` is ``data``, already one line of JSON."""
    head = "" if event is None else f"event: {event}\n"
    if id is not None:
        head += f"id: {id}\n"
    return f"{head}data: {data}\n\n"


def _deleted(table_id: str) -> str:
    return frame({"table": table_id}, "table-deleted")


def _closed(table_id: str) -> str:
    return frame({"table": table_id}, "seat-closed")
