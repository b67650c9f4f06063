"""Committing a choice: one seat's choice in a simultaneous step, written
beside the state by ``choose.lua`` without taking the version (see
:mod:`.store`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..games.errors import StoredFormatNewer
from . import records
from .committing import MoveCommits, Record
from .keys import TABLE_LAYOUT
from .loading import Change, Loaded
from .notes import back_events

RESOLVE_GRACE_MS = 500
"""How long after a choice completed its step the worker looks at the table
(``choose.lua``'s clock note): the request that completed it commits the
resolution at once; if it died first, the worker stores it then."""


class ChoiceCommits(MoveCommits):
    """A choice's commit (``choose.lua``)."""

    def _completes(self, change: Change) -> bool:
        """Whether ``change``, a choice, left its step (its choice completed it)."""
        step = self.codec.step_of(change.table)
        return step is None or step.key != change.choice.step

    @staticmethod
    def _choices_read(loaded: Loaded) -> list[Any] | None:
        """The step's choices ``loaded`` read, as seat, text pairs: what a
        commit with the version check expects the choices hash to hold still
        (a choice committed since would be lost, or cancelled unseen); None
        when the table had no step."""
        if not loaded.step:
            return None
        pairs: list[Any] = []
        for seat, text in loaded.choices.items():
            pairs += [seat, text]
        return pairs

    def _write_choice(
        self,
        table_id: str,
        loaded: Loaded,
        change: Change,
        record: Record | None,
        away: str = "",
        unattended: str = "",
        resumes: bool = False,
    ) -> tuple[int, Loaded, int]:
        """Commit ``change.choice`` with ``choose.lua``. Returns 1 and the
        state the move saw when it is written (or 0: the same choice was
        there), 2 and the completed state (the step's choices all folded in,
        the event count after this choice) when it completed the step, -1
        when the step is no longer the current one (read again); then how
        many of the choice's events were written. An ordered choice
        (``choice.ordered``) returns with 1 and 0 the state right after it
        instead (the step's choices up to it folded in), and its ``record``
        is not written (the caller records the move's answer on that state).
        ``unattended`` is the commit's change of the referee's moves in a row
        (:func:`unattended_of`; ``"+"``: the referee's choice, written only
        if the seat has not chosen); with ``resumes`` (a person's act on a
        paused clock) the step's clock starts again at this choice and its
        clock note is published. Raises :class:`AlreadyRecorded`."""
        choice = change.choice
        payloads = [
            self.codec.encode_event({"at_ms": loaded.now_ms, **e})
            for e in (*choice.events, *back_events(away))
        ]
        journal = getattr(change, "journal", None)
        item, token, expected = records.for_choice(
            loaded.chain,
            loaded.now_ms,
            lambda entry, number, base: self.codec.record_item(loaded.table, entry, number, base),
            None if journal is None else journal.move,
            choice.text,
        )
        if choice.ordered:
            record = None
        indexed = record is not None and record.index is not None and record.cap > 0
        result = self._run(
            self._choose,
            self._keys(table_id, record),
            [
                choice.step,
                choice.seat,
                choice.text,
                choice.needed,
                self.ttl_seconds,
                "" if record is None else record.make(loaded, change),
                0 if record is None else record.keep_seconds,
                self.events_kept,
                record.cap if record is not None and indexed else 0,
                loaded.now_ms,
                # The referee's choice for a seat never replaces the seat's own.
                "O" if choice.ordered else "F" if unattended == "+" else "",
                self._deadline(loaded),
                away,
                *payloads,
                item,
                self.moves_kept,
                expected,
                loaded.now_ms + RESOLVE_GRACE_MS if self.publish_notes else "",
                unattended,
                token,
                len(back_events(away)),
                *self._resume_args(loaded, change, away, unattended, resumes),
            ],
        )
        status = int(result[0])
        if status == -3:  # a newer release's layout: never written over
            raise StoredFormatNewer("table", int(result[1]), TABLE_LAYOUT)
        if status == -2:
            raise self._recorded(record.key if record else "", result[1])
        if status == -1:
            return -1, loaded, 0
        count, written = int(result[1]), int(result[2])
        if status == 2 or choice.ordered:
            pending, pairs = result[3], result[4:]
            choices = dict(zip(pairs[::2], pairs[1::2], strict=True))
            folded = self._fold(loaded.base, choices)
            after = replace(
                loaded,
                table=folded,
                event_count=count,
                choices=choices,
                pending=pending.decode() if isinstance(pending, bytes) else pending,
            )
            # What this choice made due (its step complete) was due when it
            # was written: at this clock, the table's last write.
            return status, self._as_of(after, loaded.now_ms), written
        # The answer is as the move saw the table, its own events after it.
        return status, replace(loaded, event_count=count - written), written
