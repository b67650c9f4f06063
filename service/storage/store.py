"""The table store: Redis only, no rules. The keys are :mod:`.keys`'s; a read
is :mod:`.loading`'s, pages :mod:`.pages`', a choice :mod:`.choosing`'s.

A move is one round trip to read (``HMGET``, ``HGETALL`` of the choices and
``TIME``, pipelined; a caller can queue them on a round trip it makes anyway,
see :meth:`TableStore.queue_load`) and one atomic commit (the ``commit.lua``
script: compare version, write state and step, append events and trim the
list, refresh expiry). When another move committed in between, the move is
recomputed on the new state.

Simultaneous steps (every seat choosing its pass in an exchange): the state
read is the stored one with the step's choices folded in (the game's
``fold_choices``). A move that is only one seat's choice in the current step
(its transition's ``choice``) is committed by ``choose.lua`` without taking
the version: it checks that ``k`` is still the step, writes the choice and
the choice's events, and moves only ``n``. Choices of different seats thus
never race. The choice that completes the step is told so; its move then
runs again on the completed state (which the game resolves, e.g. in its
``settle_due``) and commits the resolution with the version check, which
empties the choices hash and sets the new ``k``. Any other move (a claim) is a
commit with the version check as before, and ends or keeps the step as its
new state says. Every commit with the version check made while a step is
pending also checks that the choices hash holds exactly the choices it read
(a choice committed since must be seen, never dropped or cancelled unseen).
Only such commits can lose a race: a resolution, a claim, a deal, the end.
A choice marked ``ordered`` (May I? answers) is numbered by ``choose.lua`` in
its order of arrival (kept as ``text#n``), never replaced, and its move runs
again on the table as it stands right after it, which is what it answers
(and what the caller records under an Idempotency-Key).

The clock of a move is Redis's ``TIME``, read with the state, so that every
worker and every machine agree on when a claim window closes.

Events whose time has come without a move (a window that closed, a step
whose last choice came: the game's ``due``) are never written by a read nor
by a refusal. Every read computes them (:meth:`TableStore.load`,
:meth:`TableStore.events`): the table read is the table as of the read's
clock, its event count and the event log include them, with the seqs that
follow the stored ones; the first accepted move that writes stores them
before its own events, in its commit (the version check makes them the
ones it read), and a commit is refused once Redis's clock reaches the
instant the table it was computed on falls due (the game's ``due_at``): the
move runs again on the table as it then stands, so that nothing computed
before a window closed is stored after a read showed it closed. Their
content does not depend on who computes them or when:
each carries the instant it was due (``at_ms``: the game's, else the clock
of the table's last write, ``w``). A refused move writes nothing at all
(no expiry refreshed either), except the events its refusal must log
(``RuleViolation.record``), which are committed after the due ones.

The event log keeps only the newest ``events_kept`` events, so that a long
match costs no more memory than a short one; a page is read with the count in
one atomic step (``events.lua``), and a cursor older than what is kept, or
past the last event, raises :class:`EventsGone`.

The list of rounds is written by ``commit.lua`` only: with each state it
writes, the codec says how many rounds that state has finished and gives the
texts of the newest it holds (``rounds_of``); those after ``r`` are appended
(the list trimmed to the newest ``rounds_kept``) and ``r`` moves, in the same
commit. A page of it is read with ``r`` and the state in one atomic step
(``rounds.lua``); a table stored before the list existed holds its rounds in
its state, and is paged from there until it is written again.

The stored-format contract (deploy/README, "Upgrading"): the table hash's
layout is ``f`` (absent: 1, this release's :data:`TABLE_LAYOUT`), a state's
is its game's ``fmt``, an event's its code. A read that meets a newer one
raises :class:`~service.games.errors.StoredFormatNewer`, and one whose
choices belong to another step than the state's (``k`` is not the state's
step key: another release wrote the state without them) raises
:class:`StepMismatch`; the service answers both 503 and writes nothing.
``commit.lua`` and ``choose.lua`` refuse a table hash of a newer layout too,
so that a move computed before a newer release wrote the table is never
stored over it. A release only adds fields and keys that an older one
leaves alone (it writes with ``HSET``, never replaces the hash).

The store knows no game: a codec turns a game's state and its events into text
and back, and a move is anything that returns an object with ``table`` and
``events``.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..games.errors import RuleViolation
from .choosing import RESOLVE_GRACE_MS, ChoiceCommits
from .committing import AlreadyRecorded, C, Contended, Journal, Record, _first_events, _journal
from .keys import (
    KEY_PREFIX,
    TABLE_LAYOUT,
    all_keys,
    choices_key,
    deal_key,
    events_key,
    history_key,
    moves_key,
    presence_key,
    proof_keys,
    records_key,
    rounds_key,
    table_key,
)
from .loading import (
    HISTORY_KEPT,
    MOVES_KEPT,
    NO_CONTROL,
    NO_WAIT,
    RECORDS_KEPT,
    Change,
    Control,
    Loaded,
    Prefetched,
    StepMismatch,
    TableNotFound,
)
from .notes import away_seat, back_events, unattended_of
from .pages import EventPage, EventsGone, RoundPage, RoundsGone, Snapshot, TablePages

# The store's face: TableStore and the values its callers hand it and get
# back, from the modules that hold them.
__all__ = [
    "AlreadyRecorded",
    "Contended",
    "Control",
    "EventPage",
    "EventsGone",
    "HISTORY_KEPT",
    "Journal",
    "KEY_PREFIX",
    "Loaded",
    "MOVES_KEPT",
    "NO_CONTROL",
    "NO_WAIT",
    "Prefetched",
    "RECORDS_KEPT",
    "RESOLVE_GRACE_MS",
    "Record",
    "RoundPage",
    "RoundsGone",
    "Snapshot",
    "StepMismatch",
    "TABLE_LAYOUT",
    "TableNotFound",
    "TableStore",
    "all_keys",
    "choices_key",
    "deal_key",
    "events_key",
    "history_key",
    "moves_key",
    "presence_key",
    "proof_keys",
    "records_key",
    "rounds_key",
    "table_key",
]


class TableStore(ChoiceCommits, TablePages):
    """Reads and atomically writes tables in Redis.

    ``client`` is a ``redis.Redis`` or a ``redis.RedisCluster``; ``codec`` keeps the
    game's state; ``ttl_seconds`` is how long an untouched table lives;
    ``max_attempts`` bounds the optimistic retries of one move;
    ``on_conflict`` is told each time a move lost the version race and runs
    again (the service counts them in its metrics); ``events_kept`` (at least
    1) is how many of a table's newest events the log keeps; ``history_kept``
    (at least 1) how many finished steps of a round the history keeps;
    ``rounds_kept`` (at least 1) how many finished rounds the list of rounds
    keeps; ``acknowledgement`` when a commit counts as made (after ``WAIT``
    for replicas: :mod:`.replicas`); ``notes(table, control)``, when given,
    says when the worker must next look at a committed table
    (``service.clock.next_instant``), which the commit publishes as its
    clock note (:func:`clock_channel`); a choice that completes its step
    publishes one :data:`RESOLVE_GRACE_MS` later; with ``publish_notes``
    false (the worker's own store, which notes a table itself) nothing is
    published, and :meth:`instant_after` still says the instant;
    ``paused(control)`` says whether a table's clock is paused
    (``service.clock.paused``): a seat's own move or act on a paused table
    starts its step's clock again (every deadline counts from it) and
    publishes the clock note of the deadlines it gives (RULES.md 5.3: any
    person's act of play resumes a paused clock).
    """

    def create(
        self,
        table_id: str,
        change: Change,
        auth: dict[str, Any],
        record: tuple[Record, bytes] | None = None,
        bots: dict[int, Any] | None = None,
        clock: dict[str, Any] | None = None,
    ) -> None:
        """Store a new table with its first events (and ``record``, an
        idempotency record and its text, in the same commit); raises
        ``RuntimeError`` if the id is taken (128+ random bits make that a broken
        random source), :class:`AlreadyRecorded` if ``record``'s key holds an answer."""
        now = self.now_ms(table_id)
        journal = getattr(change, "journal", None)
        bots_text = "" if not bots else json.dumps({str(k): v for k, v in bots.items()})
        if not self._write(
            table_id,
            0,
            change.table,
            change.events,
            auth,
            now,
            record,
            journal=journal,
            control=("", bots_text),
            clock=clock,
            note=self._note(Control(bots=bots or {}, clock=clock or {}), change.table, now),
        ):
            # A client retry after a lost reply can find the table written by
            # the first try; any other holder means a broken random source.
            stored = self.client.hget(table_key(table_id), "a")
            if stored is None or json.loads(stored) != auth:
                raise RuntimeError(f"table id {table_id} already exists")

    def apply(
        self,
        table_id: str,
        move: Callable[[Loaded], C],
        record: Record | None = None,
        prefetched: Prefetched | None = None,
        mover: Callable[[Loaded], int | None] | None = None,
    ) -> tuple[Loaded, C]:
        """Run ``move`` on the current state and commit its result atomically.

        ``mover`` says, once ``move`` has run, which seat made it itself
        (its token's seat, ``None``: the host, or nobody): a seat ``away``
        is back once its own move is committed (RULES.md 5.3). A change
        with ``timed_out`` (a seat) marks that seat away in its commit; one
        with ``bots`` (a dict) replaces the table's bot seats.

        ``move`` runs on the table as of the read's clock (:meth:`load`); the
        events due by then are committed with its result, before its events.
        ``move`` may raise (an auth error, a :class:`RuleViolation`); then
        nothing is written (no expiry refreshed), except the events a
        ``RuleViolation`` records (``record``), written (after the due
        events, which are then added to its ``record``) under the same
        version check before it is re-raised. A result that changes nothing
        writes nothing. On a version conflict ``move`` runs again on the
        fresh state. A result with a ``choice`` in
        the stored step is committed without the version check
        (``choose.lua``, see the module's notes); when that choice completes
        the step, ``move`` runs again on the completed state and its result
        (the step's resolution) is committed with the version check. Returns
        the state ``move`` last saw (with its clock) and what ``move`` returned.
        With ``record``, its text is written in the same commit as the move;
        when the move writes nothing, ``record`` is not written here (the
        caller records it). Raises :class:`TableNotFound`, :class:`Contended`,
        or :class:`AlreadyRecorded` when ``record``'s key already holds an answer.
        ``prefetched`` (see :meth:`queue_load`) stands for the first read
        unless a move of this process took a turn on the table since it was
        read (then it is likely stale: reading again spares a lost race).
        """
        completed: Loaded | None = None
        # The events choose.lua wrote for this request's choice when the move
        # runs again after it (it completed its step, or it is an ordered
        # step's choice): the request wrote them, so the metrics count them.
        chosen: tuple[dict[str, Any], ...] = ()
        # Once this request's choice is written, what it made due (the step
        # it completed) is stored by this request, even when the move itself
        # has nothing more to write (also after a lost race).
        chose = False
        # The moves of the choices this request wrote (choose.lua recorded them).
        recorded: list[Mapping[str, Any]] = []
        for attempt in range(self.max_attempts):
            # Moves on one table inside this process take turns, so that they
            # do not lose the version race to each other and redo their work;
            # the version check still settles races with other processes.
            with self._turn(table_id) as before:
                if completed is not None:
                    loaded, completed = completed, None
                else:
                    fresh = (
                        prefetched is not None
                        and prefetched.turns is not None
                        and prefetched.turns == before
                    )
                    loaded = self.load(table_id, prefetched if fresh else None)
                prefetched = None
                due = loaded.due
                try:
                    change = move(loaded)
                except RuleViolation as refused:
                    if not refused.record:
                        raise
                    # A refusal is no act of play: it keeps the referee's
                    # moves in a row (a paused clock stays paused) and every
                    # key's expiry (the house rule: a refused request leaves
                    # Redis as it was, but for its log entry).
                    if self._write(
                        table_id,
                        loaded.version,
                        None if due is None else loaded.table,
                        (*self._due_events(loaded), *refused.record),
                        None,
                        loaded.now_ms,
                        None if record is None else (record, record.make(loaded, refused)),
                        () if due is None else due.archive,
                        due is not None and due.archive_reset,
                        expected=None if due is None else self._choices_read(loaded),
                        deadline=self.codec.due_at(loaded.table),
                        note="" if due is None else self._note_after(loaded, loaded.table),
                        unattended="",
                        written=self._record_write(loaded, None, change=None),
                        keep_ttl=True,
                    ):
                        refused.record = (*self._due_events(loaded), *refused.record)
                        raise
                else:
                    away = self._away_op(loaded, change, mover)
                    unattended = unattended_of(change, None if mover is None else mover(loaded))
                    resumes = self._resumes(loaded, unattended)
                    if (
                        change.table is loaded.table
                        and not change.events
                        and (due is None or not chose)
                        and getattr(change, "auth", None) is None
                        and not getattr(getattr(change, "journal", None), "writes", bool)()
                        and getattr(change, "bots", None) is None
                        and not getattr(change, "settle", False)
                    ):
                        # Nothing to write, e.g. a repeated pass: what it
                        # answers was written before, maybe unacknowledged.
                        self.acknowledgement.settle(self.client, table_key(table_id))
                        return (
                            replace(loaded, chosen=chosen) if chosen else loaded
                        ), change  # nothing to write
                    choice = change.choice
                    # With events due, the step read may be over: the
                    # version check stores them with the choice.
                    step = choice is not None and choice.step == loaded.step and due is None
                    if step and not self._completes(change):
                        status, done, written = self._write_choice(
                            table_id, loaded, change, record, away, unattended, resumes
                        )
                        if status == 2 or (status >= 0 and choice.ordered):
                            # This choice completed the step: resolve it now,
                            # before answering (not a lost race). An ordered
                            # step's choice is answered as the table stands
                            # right after it (what a repeat of it gets).
                            completed, chose = done, True
                            chosen = tuple(choice.events[:written])
                            journal = getattr(change, "journal", None)
                            if journal is not None and journal.move is not None:
                                recorded.append(journal.move)
                            if away.startswith("-") and done.control is not None:
                                # Back with this choice: the resolution's
                                # commit says it no more.
                                back = done.control.away - {away_seat(away)}
                                completed = replace(done, control=replace(done.control, away=back))
                            continue
                        if status >= 0:
                            # The events choose.lua wrote (none when a
                            # duplicate of this request chose first).
                            return done, _first_events(change, written)
                    else:
                        # Any other move, or a choice when the choices read
                        # lack only this one (the step's resolution is then
                        # committed with it, in one commit, if no choice
                        # changed since they were read).
                        journal = _journal(change, recorded)
                        record_write = self._record_write(loaded, journal, change)
                        # The move's answer (and its idempotency record) shows
                        # the chain as this commit leaves it.
                        chain = record_write.after or loaded.chain
                        answered = loaded if chain == loaded.chain else replace(loaded, chain=chain)
                        if self._write(
                            table_id,
                            loaded.version,
                            change.table,
                            (*self._due_events(loaded), *change.events, *back_events(away)),
                            getattr(change, "auth", None),
                            loaded.now_ms,
                            None if record is None else (record, record.make(answered, change)),
                            *self._archive(due, change),
                            self._choices_read(loaded),
                            self.codec.due_at(loaded.table),
                            journal,
                            (away, self._bots_arg(change)),
                            written=record_write,
                            note=self._note_after(
                                loaded,
                                change.table,
                                away,
                                getattr(change, "bots", None),
                                unattended,
                                resumes,
                            ),
                            unattended=unattended,
                            resumes=loaded.table if resumes else None,
                        ):
                            chosen = (*chosen, *self._due_events(loaded))
                            return (
                                replace(answered, chosen=chosen) if chosen else answered
                            ), change
            if self.on_conflict is not None:
                self.on_conflict()
            # Jittered backoff so that seats racing for one table spread out.
            time.sleep(random.uniform(0, 0.002 * min(attempt + 1, 10)))
        raise Contended(table_id)

    def delete(self, table_id: str, owned: Sequence[str] = (), indexes: Sequence[str] = ()) -> bool:
        """Remove every key of the table, the keys ``owned`` (in its hash tag),
        and the keys listed in the sorted sets ``indexes`` with the sets, in
        one atomic step; False if there was none."""
        keys = [*all_keys(table_id), presence_key(table_id), *owned]
        return bool(self._delete(keys=[*keys, *indexes], args=[len(keys)]))

    def exists(self, table_id: str) -> bool:
        """Whether the table is there (not deleted, not expired)."""
        return bool(self.client.exists(table_key(table_id)))

    def ping(self) -> bool:
        """Whether Redis answers."""
        return bool(self.client.ping())
