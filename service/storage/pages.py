"""Pages a table is read by besides its state: the event log (with the events
due at the read), the list of rounds, the history of the round's finished
steps, the next deal's pending proof and the rounds' records.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .keys import (
    choices_key,
    deal_key,
    events_key,
    history_key,
    moves_key,
    records_key,
    rounds_key,
    table_key,
)
from .loading import Control, Loaded, TableLoads, TableNotFound, _ms


class EventsGone(LookupError):
    """The log cannot go on from the cursor: events after it are no longer all
    kept, or the cursor is past the last event (the log was reset, e.g. Redis
    lost its newest writes, so seqs after ``last`` will be reused).
    ``oldest`` is the seq of the first event kept, ``last`` that of the last one."""

    def __init__(self, oldest: int, last: int, ahead: bool = False) -> None:
        super().__init__(f"events before {oldest} are no longer kept")
        self.oldest = oldest
        self.last = last
        self.ahead = ahead


@dataclass(frozen=True, slots=True)
class EventPage:
    """A page of the event log: ``events`` (each with ``seq``), whether
    ``more`` follow, the seq of the last event so far (``last``) and that of
    the oldest one kept (``oldest``)."""

    events: list[dict[str, Any]]
    more: bool
    last: int
    oldest: int
    now_ms: int = 0
    """The Redis clock at the read."""
    next_due_ms: int | None = None
    """When something of the table next falls due by the clock alone (a
    window's close: an event then appears), ``None`` for nothing."""
    at_cursor: dict[str, Any] | None = None
    """The event at the cursor's own seq (``after``), as the log holds it
    now (``None`` when it is not kept, or for seq 0): a stream compares it
    with the event it sent under that seq, since a log that was rolled back
    (Redis lost its newest writes) writes other events under the same seqs."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A page of the event log and the table it was read with, in one
    atomic read (:meth:`TableStore.snapshot`): ``page`` is the
    :class:`EventsGone` the page's read raised, when it did."""

    page: EventPage | EventsGone
    table: Loaded


@dataclass(frozen=True, slots=True)
class RoundPage:
    """A page of the list of rounds: the rounds numbered after the cursor
    as ``(number, text)`` pairs (the game's texts), whether ``more`` follow,
    the number of the last round listed (``last``, 0 for none), that of the
    oldest one kept (``oldest``), and the table's state as read with them
    (``table``, which renders them)."""

    rounds: list[tuple[int, bytes]]
    more: bool
    last: int
    oldest: int
    table: Any


class RoundsGone(LookupError):
    """Rounds after the cursor are no longer all kept (the list keeps the
    newest ``rounds_kept``); ``oldest`` is the first kept, ``last`` the last."""

    def __init__(self, oldest: int, last: int) -> None:
        super().__init__(f"rounds before {oldest} are no longer kept")
        self.oldest = oldest
        self.last = last


def _text(value: bytes | str | None) -> bytes | None:
    """A reply as bytes (a client that decodes replies gives str)."""
    return value.encode() if isinstance(value, str) else value


def _pairs(flat: Sequence[Any]) -> dict[Any, Any]:
    """A Lua script's ``HGETALL`` reply (field, value, ...) as a dict."""
    return dict(zip(flat[::2], flat[1::2], strict=True))


class TablePages(TableLoads):
    """A table's pages: events, rounds, history, the pending deal, records."""

    def pending_deal(self, table_id: str) -> dict[str, Any] | None:
        """The next deal's pending proof (secret, commitment, seeds, round,
        require_seeds), ``None`` when the table has none (one round trip).
        Read only by the moves that commit under the version check what it
        leads to (a deal, a seed), so that what they read is what they change."""
        found = self.client.get(deal_key(table_id))
        return None if found is None else json.loads(found)

    def round_record(self, table_id: str, round_no: int) -> tuple[bytes, list[bytes], bool] | None:
        """The record of round ``round_no`` as Redis keeps it: its header,
        its items (entries, gap markers, ``T``: :mod:`service.games.record`)
        and whether it is the table's open record (not folded yet: the
        table's ``h`` is its chain); ``None`` when it is not kept (one round
        trip). Whether the round is over is the caller's to check: the
        current round's record holds its secret."""
        pipe = self.client.pipeline(transaction=False)
        pipe.hget(records_key(table_id), str(round_no))
        pipe.lindex(moves_key(table_id), 0)
        folded, number = pipe.execute()
        if folded is not None:
            parts = (folded if isinstance(folded, bytes) else str(folded).encode()).split(b"\n")
            return parts[0], parts[1:], False
        if _text(number) != str(round_no).encode():
            return None  # the open record is another round's: read none of it
        items = self.client.lrange(moves_key(table_id), 0, -1)
        texts = [t if isinstance(t, bytes) else str(t).encode() for t in items]
        if len(texts) < 2 or texts[0] != str(round_no).encode():
            return None
        return texts[1], texts[2:], True

    def round_record_kept(self, table_id: str, round_no: int) -> bool:
        """Whether the record of round ``round_no`` is kept, read without
        reading it (one round trip: ``HEXISTS`` and the open record's number)."""
        pipe = self.client.pipeline(transaction=False)
        pipe.hexists(records_key(table_id), str(round_no))
        pipe.lindex(moves_key(table_id), 0)
        folded, number = pipe.execute()
        return bool(folded) or _text(number) == str(round_no).encode()

    def history(self, table_id: str, index: int, loaded: Loaded | None = None) -> bytes | None:
        """The history text at ``index`` (-1: the newest; 0: the oldest kept), or ``None``:
        what a game keeps of a finished step of its current round, read only
        to answer a repeat of an old step alike (one round trip). With
        ``loaded``, counted from the newest as that read sees it: what its
        due events archive (not stored yet) comes after the stored texts."""
        due = None if loaded is None else loaded.due
        pending: tuple[str, ...] = () if due is None else tuple(due.archive)
        if due is not None and due.archive_reset:
            return pending[index].encode() if -len(pending) <= index < len(pending) else None
        if pending and index < 0:
            if -index <= len(pending):
                return pending[index].encode()
            index += len(pending)
        found = self.client.lindex(history_key(table_id), index)
        return found if isinstance(found, bytes) or found is None else str(found).encode()

    def history_list(self, table_id: str) -> list[bytes]:
        """Every history text kept, oldest first (at most ``history_kept``; one
        round trip): for a game that finds an old step by what its texts say
        rather than by its place."""
        found = self.client.lrange(history_key(table_id), 0, -1)
        return [t if isinstance(t, bytes) else str(t).encode() for t in found]

    def events(self, table_id: str, after: int, limit: int) -> EventPage:
        """Public events with ``seq > after``, oldest first, at most ``limit``
        (one atomic read with the event count), the events due at the read's
        clock but not written yet included (as :meth:`load` counts them, with
        the seqs that follow). Raises :class:`TableNotFound`, or
        :class:`EventsGone` when an event after ``after`` is no longer kept
        or ``after`` is past the last event."""
        page = self.snapshot(table_id, after, limit).page
        if isinstance(page, EventsGone):
            raise page
        return page

    def snapshot(self, table_id: str, after: int, limit: int) -> Snapshot:
        """:meth:`events` and :meth:`load` in one atomic read (one round
        trip, one decode): the page (or the :class:`EventsGone` that
        :meth:`events` would raise) and the table it belongs to, as a
        stream needs both after a commit. Raises :class:`TableNotFound`."""
        found = self._page(
            keys=[table_key(table_id), events_key(table_id), choices_key(table_id)],
            args=[after, limit],
        )
        return self.snapshot_of(table_id, after, limit, found)

    def snapshot_of(self, table_id: str, after: int, limit: int, found: Any) -> Snapshot:
        """:meth:`snapshot` from ``found``, the reply of ``page.lua``'s
        ``table_page(after, limit)`` as redis-py gives it, or as JSON
        decodes the page a commit published (``commit.lua``: ``false`` for
        nil, an empty choices hash as ``{}``). Raises :class:`TableNotFound`."""
        if not found:
            raise TableNotFound(table_id)
        parts: list[Any] = [None if part is False else part for part in found]
        (written, oldest, state, written_ms, clock, choices, version, auth, step, control, kept,
         *raw) = parts  # fmt: skip
        if version is None or state is None or auth is None:
            raise TableNotFound(table_id)
        base = self.codec.decode(state)
        pending = {_text(k): _text(v) for k, v in _pairs(choices or ()).items()}
        as_of = self._as_of(
            Loaded(
                table_id,
                int(version),
                self._fold(base, pending),
                json.loads(auth),
                int(written),
                _ms(*clock),
                step.decode() if isinstance(step, bytes) else (step or ""),
                base,
                pending,
                control=Control.parse(*control),
            ),
            None if written_ms is None else int(written_ms),
        )
        due = as_of.due
        due_events = () if due is None else tuple(due.events)
        last = written + len(due_events)
        if after < oldest - 1 or after > last:
            return Snapshot(EventsGone(oldest, last, ahead=after > last), as_of)
        page = []
        for text in raw:
            event = self.codec.decode_event(text)
            event.pop("seq", None)  # kept by events written before the compact layout
            page.append(event)
        page.extend(due_events[max(0, after - written) :])
        numbered = [
            {"seq": seq, **event} for seq, event in enumerate(page[:limit], start=after + 1)
        ]
        next_due = self.codec.due_at(as_of.table)
        at_cursor = None
        if kept is not None:
            at_cursor = self.codec.decode_event(kept)
            at_cursor.pop("seq", None)
        elif written < after <= last:  # a due event, not stored yet
            at_cursor = dict(due_events[after - written - 1])
        if at_cursor is not None:
            at_cursor = {"seq": after, **at_cursor}
        events = EventPage(
            numbered, len(page) > limit, last, oldest, as_of.now_ms, next_due, at_cursor
        )
        return Snapshot(events, as_of)

    def rounds(self, table_id: str, after: int, limit: int) -> RoundPage:
        """The finished rounds numbered after ``after``, oldest first, at most
        ``limit`` (one atomic read with the round count and the state).
        Raises :class:`TableNotFound`, or :class:`RoundsGone` when a round
        after ``after`` is no longer kept. A table stored before the list of
        rounds existed holds its rounds in its state: they are paged from it."""
        found = self._rounds(keys=[table_key(table_id), rounds_key(table_id)], args=[after, limit])
        if found is None or found[2] is None:
            raise TableNotFound(table_id)
        last, oldest, state, *raw = found
        table = self.codec.decode(state)
        count, held = self.codec.rounds_of(table)
        if count > last:  # not yet written since the list existed: its own
            last, oldest = count, count - len(held) + 1
            start = max(after - oldest + 1, 0)
            raw = [t.encode() for t in held[start : start + limit + 1]]
        if after < oldest - 1:
            raise RoundsGone(oldest, last)
        after = min(after, last)
        page = [(number, text) for number, text in enumerate(raw[:limit], start=after + 1)]
        return RoundPage(page, len(raw) > limit, last, oldest, table)
