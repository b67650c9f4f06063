"""Committing a move: ``commit.lua``'s keys and arguments (the state, its
events, the history, the round's record, an idempotency record), run and
acknowledged (:mod:`.replicas`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import redis

from ..games.errors import StoredFormatNewer
from . import records
from .keys import TABLE_LAYOUT, base_keys, proof_keys
from .loading import Change, Loaded
from .notes import ClockNotes
from .records import RecordWrite

C = TypeVar("C", bound=Change)


@dataclass(frozen=True, slots=True)
class Journal:
    """What a change writes of deal proofs and round records (the keys of
    :func:`proof_keys`), as texts the store does not read: ``public`` the
    table hash's new ``d`` (the next deal's public part), ``deal`` the new
    pending proof, ``move`` an accepted move to append to the round's record
    (``{"seat", "by", "move", "round", ...}``; the store adds ``at_ms``, the
    clock it ran at, and links it), and ``header`` with ``round`` a new
    round's record (the last one's folded into the records first), whose
    chain of moves starts at ``chain`` (the table hash's ``h``:
    :func:`.records.opening`). ``ends``: the move ends its round without the
    game listing it (the host's finish). A change carries one as its
    ``journal`` attribute."""

    public: str = ""
    deal: str = ""
    move: dict[str, Any] | None = None
    round: int = 0
    header: str = ""
    chain: str = ""
    ends: bool = False

    def writes(self) -> bool:
        """Whether it writes anything but a move (a move alone is written
        only with the move's own change)."""
        return bool(self.public or self.deal or self.header)


def _journal(change: Any, recorded: Sequence[Mapping[str, Any]]) -> Journal | None:
    """``change``'s journal; without its move when it is one that this
    request's choices already recorded (``choose.lua`` wrote it). A move
    run again after a choice may be another seat's (the worker makes every
    move due in one look): that one is recorded with its own commit."""
    journal: Journal | None = getattr(change, "journal", None)
    if journal is not None and journal.move is not None and journal.move in recorded:
        return replace(journal, move=None)
    return journal


class Contended(RuntimeError):
    """A move lost the version race too many times in a row; retry later."""


@dataclass(frozen=True, slots=True)
class Record:
    """An idempotency record to commit with a move (``storage.idempotency``):
    its key (in the table's hash tag), its life in seconds, and ``make``, which
    turns the state the move saw and its result (the change, or the
    :class:`RuleViolation` it raised) into the record's text."""

    key: str
    keep_seconds: int
    make: Callable[[Loaded, Any], bytes]
    index: str | None = None
    """The sorted set of the records of the same token on the table: the
    commit adds this one and deletes the oldest beyond ``cap``."""
    cap: int = 0


class AlreadyRecorded(Exception):
    """The same idempotent request committed first; ``record`` is its answer."""

    def __init__(self, record: bytes) -> None:
        super().__init__("already recorded")
        self.record = record


def _first_events(change: C, written: int) -> C:
    """``change`` with only the first ``written`` of its events."""
    if written >= len(change.events):
        return change
    return replace(change, events=change.events[:written])  # type: ignore[type-var]


class MoveCommits(ClockNotes):
    """A move's commit (``commit.lua``) and what it writes."""

    def _record_write(
        self, loaded: Loaded, journal: Journal | None, change: Change | None
    ) -> RecordWrite:
        """What a commit on ``loaded`` writes of the open round record
        (:func:`.records.for_commit`): ``journal``'s move and new record,
        the stocks rebuilt by what was due and by ``change``, and a gap
        marker for what a release without records did since."""
        j = journal or Journal()
        due = loaded.due
        after = self.codec.step_of(loaded.table if change is None else change.table)
        resolves = bool(loaded.step) and (after is None or after.key != loaded.step)
        shuffles = (
            *(() if due is None else getattr(due, "shuffles", ())),
            *(() if change is None else getattr(change, "shuffles", ())),
        )
        return records.for_commit(
            loaded.chain,
            loaded.pending,
            loaded.version,
            loaded.choices if loaded.step else {},
            loaded.now_ms,
            lambda entry, number, base: self.codec.record_item(loaded.table, entry, number, base),
            j.move,
            shuffles,
            j.chain if j.header else "",
            j.ends,
            resolves,
        )

    @staticmethod
    def _due_events(loaded: Loaded) -> tuple[dict[str, Any], ...]:
        """The due events ``loaded`` counted but did not store (stamped)."""
        return () if loaded.due is None else tuple(loaded.due.events)

    @staticmethod
    def _archive(due: Change | None, change: Change) -> tuple[tuple[str, ...], bool]:
        """The history texts (and whether to empty it first) of ``change``
        committed after what was ``due``: a move that empties the history
        (a deal) empties it of what the due events archived too."""
        if due is None:
            return tuple(change.archive), change.archive_reset
        if change.archive_reset:
            return tuple(change.archive), True
        return (*due.archive, *change.archive), due.archive_reset

    def _keys(self, table_id: str, record: Record | None) -> list[str]:
        """The keys of a commit: the table's five, then ``record``'s and its
        index, then the three of the deal proofs and records (always last)."""
        keys = base_keys(table_id)
        if record is not None:
            keys.append(record.key)
            if record.index is not None and record.cap > 0:
                keys.append(record.index)
        return [*keys, *proof_keys(table_id)]

    def _write(
        self,
        table_id: str,
        version: int,
        table: Any,
        events: tuple[dict[str, Any], ...],
        auth: dict[str, Any] | None,
        now_ms: int,
        record: tuple[Record, bytes] | None = None,
        archive: tuple[str, ...] = (),
        archive_reset: bool = False,
        expected: list[Any] | None = None,
        deadline: int | None = None,
        journal: Journal | None = None,
        control: tuple[str, str] = ("", ""),
        clock: dict[str, Any] | None = None,
        written: RecordWrite | None = None,
        note: str = "",
        unattended: str = "0",
        resumes: Any = None,
        keep_ttl: bool = False,
    ) -> bool:
        """Commit under the version check; False when another move won the race
        (or, with ``expected``, the step's choices are not these seat, text
        pairs; or, with ``deadline``, Redis's clock has reached it).
        ``table`` (``None``: kept, with its step and choices) is written with
        its step key and the step's choices (``codec.step_of``); ``archive``
        is appended to the history, emptied first with ``archive_reset``.
        With ``record`` (its key and text), raises :class:`AlreadyRecorded` if
        that key already holds an answer. ``control`` is the away seats'
        change and the bot seats (``commit.lua``'s ARGV[21], ARGV[22]);
        ``clock`` the clock options of a new table; ``written`` what it
        writes of the open round record (:meth:`_record_write`; without
        it, only ``journal``'s new record); ``note`` the commit's clock note (see
        :meth:`_note`); ``unattended`` the change of the moves the referee
        made in a row (:func:`unattended_of`); ``resumes``, the table as read
        when the commit resumes its paused clock (:meth:`_turn_arg`).
        With ``keep_ttl`` (a refusal's log entry), every key keeps its expiry."""
        payloads = [self.codec.encode_event({"at_ms": now_ms, **e}) for e in events]
        step = None if table is None else self.codec.step_of(table)
        played, listed = (0, ()) if table is None else self.codec.rounds_of(table)
        listed = listed[-self.rounds_kept :]  # older ones would be trimmed at once
        choices: list[Any] = []
        if step is not None:
            for seat, text in step.choices.items():
                choices += [seat, text]
        result = self._run(
            self._commit,
            self._keys(table_id, None if record is None else record[0]),
            [
                str(version),
                "" if table is None else self.codec.encode(table),
                "-" if keep_ttl else self.ttl_seconds,
                "" if auth is None else json.dumps(auth, separators=(",", ":")),
                "" if record is None else record[1],
                0 if record is None else record[0].keep_seconds,
                self.events_kept,
                record[0].cap if record is not None and record[0].index is not None else 0,
                now_ms,
                "" if step is None else step.key,
                len(payloads),
                len(choices),
                "R" if archive_reset else "",
                -1 if expected is None else len(expected),
                self.history_kept,
                "" if deadline is None else deadline,
                played,
                len(listed),
                self.rounds_kept,
                self._turn_arg(table, resumes),
                control[0],
                control[1],
                "" if clock is None else json.dumps(clock, separators=(",", ":")),
                *payloads,
                *choices,
                *(expected or ()),
                *listed,
                *archive,
                *self._journal_args(journal, written),
                note,
                unattended,
                (written or RecordWrite()).pending,
            ],
        )
        if int(result[0]) == -3:  # a newer release's layout: never written over
            raise StoredFormatNewer("table", int(result[1]), TABLE_LAYOUT)
        if int(result[0]) == -2:
            raise self._recorded(record[0].key if record else "", result[1])
        return int(result[0]) >= 0

    def _run(self, script: Any, keys: list[str], args: list[Any]) -> Any:
        """A commit script's reply; with replica acknowledgement, ``WAIT``ed
        for on its connection when it wrote (a status above 0), which raises
        :class:`~.replicas.ReplicasBehind` (see :mod:`.replicas`); a choice
        that was there already (status 0) is settled as a replay is."""
        ack = self.acknowledgement
        if not ack.waits:
            return script(keys=keys, args=args)

        # EVALSHA itself: a pipeline given the Script object would ask
        # SCRIPT EXISTS first on every commit (a round trip more).
        def queue(pipe: Any) -> None:
            pipe.evalsha(script.sha, len(keys), *keys, *args)

        try:
            reply, counted = ack.run(self.client, keys[0], queue)
        except redis.exceptions.NoScriptError:  # a new primary (a failover), a flush
            self.client.script_load(script.script)
            reply, counted = ack.run(self.client, keys[0], queue)
        status = int(reply[0])
        if status > 0:
            ack.check(counted)
        elif status == 0:  # written before, maybe not acknowledged
            ack.settle(self.client, keys[0])
        return reply

    def _recorded(self, key: str, held: bytes | str) -> AlreadyRecorded:
        """What to raise when the record ``key`` already held ``held``: the
        replay's answer, once replicas hold it (``acknowledgement``)."""
        self.acknowledgement.settle(self.client, key)
        return AlreadyRecorded(held.encode() if isinstance(held, str) else held)

    def _journal_args(self, journal: Journal | None, written: RecordWrite | None) -> list[Any]:
        """commit.lua's arguments P..P+8 (see its header) for ``journal``
        and what the commit writes of the open record (``written``)."""
        j = journal or Journal()
        w = written or RecordWrite(
            chain=j.chain if j.header else "", pending="" if j.header else "-"
        )
        return [
            j.public,
            j.deal,
            w.items,
            j.round or "",
            j.header,
            self.records_kept,
            self.moves_kept,
            w.expected,
            w.chain,
        ]
