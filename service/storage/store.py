"""The table store: Redis only, no rules.

Keys of one table share the hash tag ``{<table id>}`` so that one Lua script
touches one Redis Cluster slot::

    referee:{<id>}:table    hash  v (version), n (events ever written: the
                                  last seq), s (state JSON), a (auth: token
                                  hashes, "" for an open seat, and the
                                  seating: join-code hashes with their
                                  expiry, listed, created; see
                                  ``service.resources.seating``), k (the key of the
                                  state's simultaneous step, "" or absent
                                  for none), w (the Redis clock of the last
                                  write, ms; absent in tables written before
                                  it), r (rounds ever listed: the last
                                  round's number; absent for none), d (the
                                  next deal's public proof part, JSON:
                                  round, commitment, seeded, require_seeds;
                                  absent in tables written before it),
                                  f (the layout of the table's keys and
                                  fields, :data:`TABLE_LAYOUT`; absent: 1),
                                  b, y, c, o, u (the clocks and bots:
                                  :class:`Control`), t (the newest
                                  :data:`DEFAULTS_KEPT` default moves, as
                                  "<seat>:<step>" separated by spaces),
                                  and any field a newer release adds
                                  (never removed: every write is HSET)
    referee:{<id>}:events   list  the last ``events_kept`` public events as the
                                  codec's text, oldest first; no ``seq``: the
                                  first kept is ``n - LLEN + 1``
    referee:{<id>}:choices  hash  the choices made in step ``k``, by seat (the
                                  game's text); absent when none
    referee:{<id>}:history  list  the game's texts of the newest
                                  ``HISTORY_KEPT`` finished steps of the
                                  current round (e.g. a resolved exchange's
                                  passes), oldest first; read only to answer a
                                  repeat of an old step alike
    referee:{<id>}:rounds   list  the game's texts of the newest
                                  ``ROUNDS_KEPT`` finished rounds' results,
                                  oldest first; no number: the first kept
                                  is round ``r - LLEN + 1``. The state
                                  keeps only the totals and the last round,
                                  so that it does not grow with the match
    referee:{<id>}:presence hash  seat -> when it was last seen (ms), for
                                  ``connected`` (``storage.presence``;
                                  expires with the table)
    referee:{<id>}:deal     string  the next deal's pending proof (JSON: round,
                                  secret, commitment, seeds by seat,
                                  require_seeds): read only by a deal, a seed
                                  and the record of a finished round; the
                                  table hash's ``d`` holds its public part
    referee:{<id>}:moves    list  the current (or last) round's record as it
                                  grows: its number, its header (JSON: the
                                  state before the deal, the deal's body and
                                  clock, the secret and seeds, the release),
                                  then its entries (moves, rebuilt stocks),
                                  gap markers, at most ``moves_kept`` (then
                                  ``"T"``: the rest is not kept), in the
                                  compact form of ``service.games.record``;
                                  the table hash's ``h`` and ``hc`` are its
                                  chain (``storage.records``)
    referee:{<id>}:records  hash  finished rounds' records by number (the
                                  newest ``records_kept``): what ``moves``
                                  held but the number, ``"\n"``-joined, when
                                  the next round is dealt
    referee:{<id>}:idem:*   string  answers to Idempotency-Key requests, 24 h,
                                  and the index of each token's answers
                                  (``storage.idempotency``; removed by
                                  ``delete`` with the table)

One family of keys is global, outside every hash tag: the lobby's
``referee:lobby:<preset>`` sorted sets (``storage.lobby``). On a Redis
Cluster each lives in its own slot, so no table commit can touch it: the
API updates it after a listed table's commit and checks each entry against
its table on every read (a stale entry is skipped or removed, never shown).

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

import contextlib
import json
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any, Protocol, TypeVar

import redis
from redis.cluster import RedisCluster

from ..games.errors import RuleViolation, StoredFormatNewer
from . import feeds, records
from .records import ChainState, RecordWrite
from .replicas import Acknowledgement

KEY_PREFIX = "referee"

TABLE_LAYOUT = 1
"""The layout of a table's hash and keys that this release reads and writes
(the hash's ``f``, absent for 1; the Lua scripts' ``LAYOUT``). A release
that gives a field or a key a new meaning raises it, and writes it only
after its contract step."""


def table_key(table_id: str) -> str:
    """The hash that holds a table's state."""
    return f"{KEY_PREFIX}:{{{table_id}}}:table"


def events_key(table_id: str) -> str:
    """The list that holds a table's public events."""
    return f"{KEY_PREFIX}:{{{table_id}}}:events"


def choices_key(table_id: str) -> str:
    """The hash of the choices made in a table's current simultaneous step."""
    return f"{KEY_PREFIX}:{{{table_id}}}:choices"


def history_key(table_id: str) -> str:
    """The list of a table's finished steps in its current round (the game's texts)."""
    return f"{KEY_PREFIX}:{{{table_id}}}:history"


def rounds_key(table_id: str) -> str:
    """The list of a table's newest finished rounds (the game's texts of their results)."""
    return f"{KEY_PREFIX}:{{{table_id}}}:rounds"


def presence_key(table_id: str) -> str:
    """The hash of a table's seats' last-seen instants (``storage.presence``)."""
    return f"{KEY_PREFIX}:{{{table_id}}}:presence"


def deal_key(table_id: str) -> str:
    """The next deal's pending proof (its secret: never shown before its round is over)."""
    return f"{KEY_PREFIX}:{{{table_id}}}:deal"


def moves_key(table_id: str) -> str:
    """The list that records the current (or last) round: number, header, moves."""
    return f"{KEY_PREFIX}:{{{table_id}}}:moves"


def records_key(table_id: str) -> str:
    """The hash of a table's newest finished rounds' records, by round number."""
    return f"{KEY_PREFIX}:{{{table_id}}}:records"


def clock_channel(table_id: str) -> str:
    """The channel a table's clock notes are published on (``commit.lua``,
    ``choose.lua``): when the worker must next look at the table."""
    return f"{KEY_PREFIX}:{{{table_id}}}:clock"


RESOLVE_GRACE_MS = 500
"""How long after a choice completed its step the worker looks at the table
(``choose.lua``'s clock note): the request that completed it commits the
resolution at once; if it died first, the worker stores it then."""


def proof_keys(table_id: str) -> list[str]:
    """The keys of a table's deal proofs and round records (after
    :func:`all_keys` in every script's KEYS: they are the last three)."""
    return [deal_key(table_id), moves_key(table_id), records_key(table_id)]


def all_keys(table_id: str) -> list[str]:
    """Every key a table owns (for deletion and memory accounting); the
    choices hash, the history, the rounds, the deal and the records exist
    only while they hold something."""
    return [*base_keys(table_id), *proof_keys(table_id)]


def base_keys(table_id: str) -> list[str]:
    """The first five KEYS of every commit and choice (the scripts' layout)."""
    return [
        table_key(table_id),
        events_key(table_id),
        choices_key(table_id),
        history_key(table_id),
        rounds_key(table_id),
    ]


class Codec(Protocol):
    """How a game's state is kept: ``encode`` to text, ``decode`` back; and its
    events: ``encode_event`` (``at_ms``, ``type``, members) to text,
    ``decode_event`` back (exactly). ``step_of(table)`` is the table's
    simultaneous step (``Step``: ``key``, ``choosers``, ``choices`` by seat as
    text) or ``None``; ``fold_choices(table, {seat: text})`` the table with
    the step's pending choices put in; ``due(table, now_ms)`` the table as it
    stands at ``now_ms`` with the events due by then (a :class:`Change`;
    ``service.games.base.Game.due``); ``due_at(table)`` the first instant at
    which something of it falls due by the clock alone, or ``None``.
    ``rounds_of(table)`` is how many rounds the table has finished and the
    texts of the newest of them that it holds, oldest first
    (``Game.rounds_of``)."""

    def encode(self, table: Any) -> str: ...

    def rounds_of(self, table: Any) -> tuple[int, tuple[str, ...]]: ...

    def decode(self, text: str | bytes) -> Any: ...

    def step_of(self, table: Any) -> Any: ...

    def fold_choices(self, table: Any, choices: dict[int, bytes]) -> Any: ...

    def due(self, table: Any, now_ms: int) -> Any: ...

    def due_at(self, table: Any) -> int | None: ...

    def turn_of(self, table: Any) -> Any: ...

    def encode_event(self, event: dict[str, Any]) -> str: ...

    def decode_event(self, text: str | bytes) -> dict[str, Any]: ...

    def record_item(
        self, table: Any, entry: dict[str, Any], round_no: int, base_ms: int
    ) -> str: ...


class Change(Protocol):
    """What a move returns: the new state and its public events, in order;
    ``choice`` when the move is one seat's choice in the current step
    (``step``, ``seat``, ``text``, ``needed``, ``events``: see
    ``service.games.base.Choice``); ``archive`` texts to append to the
    history (emptied first with ``archive_reset``). A change that also has
    an ``auth`` attribute (not ``None``: a seat joined or left, a token was
    reissued) replaces the auth record in the same commit."""

    @property
    def table(self) -> Any: ...

    @property
    def events(self) -> tuple[dict[str, Any], ...]: ...

    @property
    def choice(self) -> Any: ...

    @property
    def archive(self) -> tuple[str, ...]: ...

    @property
    def archive_reset(self) -> bool: ...


C = TypeVar("C", bound=Change)


@dataclass(frozen=True, slots=True)
class Control:
    """What a table's clock and bots need, kept in the table hash beside the
    state (fields a release without clocks leaves alone, never in the
    state): ``bots`` (field ``b``: seat -> ``"random"`` / ``"basic"``, and
    whether the seat was open before it was handed to its bot), ``away``
    (``y``: the seats that timed out and have not moved since), ``clock``
    (``c``: ``turn_timeout_ms``, ``away_timeout_ms``, ``bot_delay_ms``) and
    ``opened`` (``o``: the key of the step the clock runs for and the
    Redis clock, ms, of the commit that opened it; ``None`` when unknown),
    ``unattended`` (``u``: the moves the referee made for seats in a
    row since a person's last move or act, ``service.clock.paused``) and
    ``defaulted`` (``t``: the seats and steps of the newest
    :data:`DEFAULTS_KEPT` default moves, each step as the game's
    ``move_step`` names it: a seat's own move for one is stale, RULES.md 5.3)."""

    bots: dict[int, dict[str, Any]] = field(default_factory=dict)
    away: frozenset[int] = frozenset()
    clock: dict[str, Any] = field(default_factory=dict)
    opened: tuple[str, int] | None = None
    unattended: int = 0
    defaulted: frozenset[tuple[int, str]] = frozenset()

    @classmethod
    def parse(
        cls,
        bots: Any,
        away: Any,
        clock: Any,
        opened: Any,
        unattended: Any = None,
        defaulted: Any = None,
    ) -> Control:
        """The control of a table from its hash fields ``b``, ``y``, ``c``,
        ``o``, ``u``, ``t`` (any absent)."""
        text = [
            v.decode() if isinstance(v, bytes) else v
            for v in (bots, away, clock, opened, defaulted)
        ]
        parsed_bots = {int(k): v for k, v in json.loads(text[0]).items()} if text[0] else {}
        seats = frozenset(int(x) for x in text[1].split(",") if x) if text[1] else frozenset()
        at = None
        if text[3]:
            key, _, ms = text[3].partition(" ")
            at = (key, int(ms))
        count = int(unattended) if unattended else 0
        steps = frozenset(
            (int(seat), step)
            for seat, _, step in (entry.partition(":") for entry in (text[4] or "").split())
        )
        return cls(parsed_bots, seats, json.loads(text[2]) if text[2] else {}, at, count, steps)


NO_CONTROL = Control()


@dataclass(frozen=True, slots=True)
class Loaded:
    """A table as read: its version, state (with the pending choices of its
    step folded in, then as it stands at the read's clock: see ``due``),
    auth record, event count (the due events counted), the Redis clock at
    the read (ms since the epoch), the stored step key (``""``: none) and
    the state as stored (``base``, before the choices were folded in)."""

    table_id: str
    version: int
    table: Any
    auth: dict[str, Any]
    event_count: int
    now_ms: int
    step: str = ""
    base: Any = None
    choices: dict[Any, Any] = field(default_factory=dict)
    """The step's pending choices as read (the choices hash: seat, text)."""
    chosen: tuple[dict[str, Any], ...] = ()
    """The public events of this move's choice when :meth:`TableStore.apply`
    committed it and then ran the move again (the step completed, or an
    ordered choice): written, but not among the events of the move it
    returns (which answers as the table stands after the choice); and the
    due events it committed with the move."""
    deal: dict[str, Any] | None = None
    """The next deal's public proof part (the table hash's ``d``: round,
    commitment, seeded, require_seeds), ``None`` for a table written before
    it (or by an older release)."""
    control: Control = None  # type: ignore[assignment]
    """The seats' clock and automatic players (:class:`Control`)."""
    due: Any = None
    """What was due at the read's clock and is not stored yet (a
    :class:`Change` of the game's ``due``, its events stamped with
    ``at_ms``), or ``None``: ``table`` already includes it, the next commit
    stores it."""
    presence: dict[Any, Any] = field(default_factory=dict)
    """The presence hash as read (seat, last seen in ms: ``storage.presence``)."""
    chain: str = ""
    """The open round record's chain of moves (the table hash's ``h``,
    :class:`.records.ChainState`); ``""`` before a round chained."""
    pending: str = ""
    """The moves that commuted since the chain's head last moved (``hc``,
    :mod:`.records`)."""

    @property
    def move_chain(self) -> dict[str, Any] | None:
        """The public part of ``chain``: ``{"moves", "head"}``, or ``None``."""
        state = ChainState.parse(self.chain)
        return None if state is None else state.public()


@dataclass(frozen=True, slots=True)
class Prefetched:
    """A table read made ahead (:meth:`TableStore.queue_load`): the replies of
    ``HMGET`` (v, n, s, a, k, w), ``HGETALL`` of the choices and of the
    presence hash and ``TIME``, and
    how many turns on the table's stripe this process had given when it was
    read (None: a move was in progress)."""

    replies: list[Any]
    turns: int | None


class StepMismatch(LookupError):
    """The table's pending choices are not those of its state's step: the
    step key ``k`` (``stored``) is not the state's (``state``), or choices
    are kept for a state with no step. Another release wrote the state
    without them; folding them in would play them in the wrong step."""

    def __init__(self, table_id: str, stored: str, state: str) -> None:
        super().__init__(f"table {table_id}: choices of step {stored!r}, state in {state!r}")
        self.stored = stored
        self.state = state


class TableNotFound(LookupError):
    """No table has this id (never created, deleted, or expired)."""


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


ROUNDS_KEPT = 100
"""How many finished rounds the list of rounds keeps (the newest): an open
match must not grow Redis without bound; the totals stay exact in the state."""

HISTORY_KEPT = 100
"""How many finished steps of a round the history keeps (the newest): a
round with no exchange limit must not grow Redis without bound; a repeat of
an older step is answered as stale."""

NO_WAIT = Acknowledgement()
"""A commit counts as made once the primary has it (no ``WAIT``)."""

TURN_STRIPES = 64
"""Locks by which one process's moves on one table take turns (striped by
table id: a few unrelated tables share a lock, which costs only overlap)."""


RECORDS_KEPT = 20
"""How many finished rounds' records a table keeps (the newest): a record
holds every move of its round, so fewer are kept than results."""

DEFAULTS_KEPT = 32
"""How many default moves a table remembers (its hash's ``t``, the newest):
a seat's own move for the step of one is refused as stale (RULES.md 5.3),
also when it equals the default move; an own move later than that many
default moves of the table after its own is judged as any move is."""

MOVES_KEPT = 2000
"""How many moves one round's record keeps; a longer round's record says it
is incomplete (a round with no exchange limit must not grow without bound)."""


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


def _journal(change: Any, chose: bool) -> Journal | None:
    """``change``'s journal; without its move once this request's choice
    (which recorded it) is written."""
    journal: Journal | None = getattr(change, "journal", None)
    if journal is not None and chose and journal.move is not None:
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


def back_events(away: str) -> tuple[dict[str, Any], ...]:
    """The ``seat-back`` event (``seat``) of a commit whose away change
    (:meth:`TableStore._away_op`) is ``-seat``: an away seat moved itself and
    is back (RULES.md 5.3), said on the log and the streams after the move's
    own events; none for any other change."""
    if not away.startswith("-"):
        return ()
    return ({"type": "seat-back", "seat": away_seat(away)},)


def away_seat(away: str) -> int:
    """The seat of an away change (``"+3"``, ``"+3 r1t7"``, ``"-3"``)."""
    return int(away[1:].partition(" ")[0])


def unattended_of(change: Any, seat: int | None = None) -> str:
    """How a commit of ``change`` changes the moves the referee made for
    seats in a row (the table hash's ``u``, ``service.clock.paused``): as
    the change says (the worker's: ``"+"`` a bot's or a default move, ``""``
    what fell due; a deal, a join: ``"0"``), else ``"0"`` for a seat's own
    move (``seat``: its token's), ``""`` (kept) for anything else, such as
    the host's seat changes or a new join code (no act of play buys the bots
    more moves, RULES.md 5.4)."""
    said = getattr(change, "unattended", None)
    if said is not None:
        return str(said)
    return "0" if seat is not None else ""


def _first_events(change: C, written: int) -> C:
    """``change`` with only the first ``written`` of its events."""
    if written >= len(change.events):
        return change
    return replace(change, events=change.events[:written])  # type: ignore[type-var]


def _ms(seconds: int, micros: int) -> int:
    return int(seconds) * 1000 + int(micros) // 1000


def _pairs(flat: Sequence[Any]) -> dict[Any, Any]:
    """A Lua script's ``HGETALL`` reply (field, value, ...) as a dict."""
    return dict(zip(flat[::2], flat[1::2], strict=True))


class TableStore:
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

    def __init__(
        self,
        client: redis.Redis | RedisCluster,
        codec: Codec,
        ttl_seconds: int,
        max_attempts: int = 64,
        on_conflict: Callable[[], None] | None = None,
        turn_wait_seconds: float = 1.0,
        *,
        events_kept: int,
        history_kept: int = HISTORY_KEPT,
        rounds_kept: int = ROUNDS_KEPT,
        acknowledgement: Acknowledgement = NO_WAIT,
        records_kept: int = RECORDS_KEPT,
        moves_kept: int = MOVES_KEPT,
        notes: Callable[[Any, Control], int | None] | None = None,
        publish_notes: bool = True,
        paused: Callable[[Control], bool] | None = None,
    ) -> None:
        if events_kept < 1:
            raise ValueError(f"events_kept must be at least 1, not {events_kept}")
        if history_kept < 1:
            raise ValueError(f"history_kept must be at least 1, not {history_kept}")
        if rounds_kept < 1:
            raise ValueError(f"rounds_kept must be at least 1, not {rounds_kept}")
        self.events_kept = events_kept
        self.acknowledgement = acknowledgement
        self.rounds_kept = rounds_kept
        self.records_kept = max(1, records_kept)
        self.moves_kept = max(1, moves_kept)
        self.history_kept = history_kept
        self.client = client
        self.turn_wait_seconds = turn_wait_seconds
        self.on_conflict = on_conflict
        self._turns = [threading.Lock() for _ in range(TURN_STRIPES)]
        self._turns_given = [0] * TURN_STRIPES
        self.codec = codec
        self.ttl_seconds = ttl_seconds
        self.max_attempts = max_attempts
        self.notes = notes
        self.publish_notes = publish_notes and notes is not None
        self.paused = paused
        lua = resources.files(__package__).joinpath("lua")
        self._commit = feeds.register(client, lua.joinpath("commit.lua").read_text())
        self._choose = feeds.register(client, lua.joinpath("choose.lua").read_text())
        self._page = client.register_script(lua.joinpath("events.lua").read_text())
        self._rounds = client.register_script(lua.joinpath("rounds.lua").read_text())
        self._delete = feeds.register(client, lua.joinpath("delete_table.lua").read_text())

    def _stripe(self, table_id: str) -> int:
        return hash(table_id) % TURN_STRIPES

    @contextlib.contextmanager
    def _turn(self, table_id: str) -> Iterator[int | None]:
        """This process's turn on ``table_id``, waited for at most
        ``turn_wait_seconds``: the turn only spares lost races (the version
        check keeps moves right), so a move never waits long behind another
        table's slow Redis call on the same stripe. Yields how many turns the
        stripe had given before this one (None when it was not taken)."""
        stripe = self._stripe(table_id)
        turn = self._turns[stripe]
        taken = turn.acquire(timeout=self.turn_wait_seconds)
        before = self._turns_given[stripe] if taken else None
        if taken:
            self._turns_given[stripe] += 1
        try:
            yield before
        finally:
            if taken:
                turn.release()

    def queue_load(self, pipe: Any, table_id: str) -> Callable[[list[Any]], Prefetched]:
        """Queue on ``pipe`` the commands of :meth:`load` (``HMGET``,
        ``HGETALL`` of the choices and of the presence hash, ``TIME``), for a
        caller that makes a round trip anyway; returns what turns the
        pipeline's replies into ``prefetched`` for :meth:`load` or
        :meth:`apply`."""
        key = table_key(table_id)
        pipe.hmget(
            key, "v", "n", "s", "a", "k", "w", "f", "d", "b", "y", "c", "o", "h", "u", "hc", "t"
        )
        pipe.hgetall(choices_key(table_id))
        pipe.hgetall(presence_key(table_id))
        pipe.execute_command("TIME", **self._on_node_of(key))
        stripe = self._stripe(table_id)
        # A move of this process in progress could commit after this read;
        # one that takes its turn from now on moves the count.
        given = self._turns_given[stripe]
        turns = None if self._turns[stripe].locked() else given
        return lambda replies: Prefetched(replies[-4:], turns)

    def load(self, table_id: str, prefetched: Prefetched | None = None) -> Loaded:
        """The table's current state as of the Redis clock, with the events due
        by then (``Loaded.due``, not written), in one round trip (none with
        ``prefetched``, see :meth:`queue_load`); raises :class:`TableNotFound`."""
        if prefetched is None:
            pipe = self.client.pipeline(transaction=False)
            prefetched = self.queue_load(pipe, table_id)(pipe.execute())
        fields, choices, seen, clock = prefetched.replies
        version, count, state, auth, step, written, layout, deal = fields[:8]
        if version is None or state is None or auth is None:
            raise TableNotFound(table_id)
        if layout is not None and int(layout) > TABLE_LAYOUT:
            raise StoredFormatNewer("table", int(layout), TABLE_LAYOUT)
        # b y c o, then u and t (h and hc between them are the chain's)
        control = Control.parse(*fields[8:12], *fields[13:14], *fields[15:16])
        chain = fields[12] if len(fields) > 12 and fields[12] is not None else b""
        pending = fields[14] if len(fields) > 14 and fields[14] is not None else b""
        base = self.codec.decode(state)
        self._check_step(table_id, base, step, choices)
        loaded = Loaded(
            table_id,
            int(version),
            self._fold(base, choices),
            json.loads(auth),
            int(count or 0),
            _ms(*clock),
            step.decode() if isinstance(step, bytes) else (step or ""),
            base,
            choices,
            presence=seen or {},
            deal=json.loads(deal) if deal else None,
            control=control,
            chain=chain.decode() if isinstance(chain, bytes) else chain,
            pending=pending.decode() if isinstance(pending, bytes) else pending,
        )
        return self._as_of(loaded, None if written is None else int(written))

    def _check_step(self, table_id: str, base: Any, stored: Any, choices: dict[Any, Any]) -> None:
        """Raise :class:`StepMismatch` unless the choices read belong to
        ``base``'s step (``stored``: the hash's ``k``; absent, and no choices,
        in a table written before the step key)."""
        if stored is None and not choices:
            return
        step = self.codec.step_of(base)
        key = "" if step is None else step.key
        stored = stored.decode() if isinstance(stored, bytes) else (stored or "")
        if stored != key or (choices and step is None):
            raise StepMismatch(table_id, stored, key)

    def _as_of(self, loaded: Loaded, written_ms: int | None) -> Loaded:
        """``loaded`` as it stands at its clock: the game's due events, each
        stamped with its instant (the game's ``at_ms``, else ``written_ms``,
        the clock of the table's last write; the read's for a table written
        before that was kept), counted but not written (``Loaded.due``)."""
        due = self.codec.due(loaded.table, loaded.now_ms)
        if due.table is loaded.table and not due.events:
            return loaded
        at = loaded.now_ms if written_ms is None else written_ms
        events = tuple(e if "at_ms" in e else {"at_ms": at, **e} for e in due.events)
        return replace(
            loaded,
            table=due.table,
            event_count=loaded.event_count + len(events),
            due=replace(due, events=events),
        )

    def _fold(self, base: Any, choices: dict[Any, Any]) -> Any:
        """``base`` with the step's pending choices (``HGETALL``'s reply) put in."""
        if not choices:
            return base
        return self.codec.fold_choices(base, {int(seat): text for seat, text in choices.items()})

    def _on_node_of(self, key: str) -> dict[str, Any]:
        """Routing for a keyless command: on a cluster, the node that holds
        ``key``'s slot, so that one table always reads one clock and its read
        stays one round trip to one node; nothing on one server."""
        if isinstance(self.client, RedisCluster):
            return {"target_nodes": self.client.get_node_from_key(key)}  # type: ignore[no-untyped-call]
        return {}

    def now_ms(self, table_id: str | None = None) -> int:
        """The Redis clock, ms since the epoch (on a cluster, that of the node
        holding ``table_id``'s slot when it is given)."""
        route = self._on_node_of(table_key(table_id)) if table_id else {}
        return _ms(*self.client.execute_command("TIME", **route))  # type: ignore[no-untyped-call]

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
                    unattended = unattended_of(refused, None if mover is None else mover(loaded))
                    resumes = self._resumes(loaded, unattended)
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
                        note=""
                        if due is None and not resumes
                        else self._note_after(
                            loaded, loaded.table, unattended=unattended, restart=resumes
                        ),
                        unattended=unattended,
                        written=self._record_write(loaded, None, change=None),
                        resumes=loaded.table if resumes else None,
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
                        journal = _journal(change, chose)
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

    def _resume_args(
        self, loaded: Loaded, change: Change, away: str, unattended: str, resumes: bool
    ) -> list[str]:
        """``choose.lua``'s last two arguments: the key of the step whose
        clock starts again at a choice that ``resumes`` a paused clock, and
        the clock note of its deadlines then (each ``""``: none)."""
        turn = self.codec.turn_of(loaded.table) if resumes else None
        if turn is None:
            return ["", ""]
        # The table with the choice made (the step still open when it does
        # not complete it), whose seats still due get the new deadlines.
        note = self._note_after(loaded, change.table, away, None, unattended, restart=True)
        return [str(turn.key), note]

    @staticmethod
    def _away_op(
        loaded: Loaded, change: Change, mover: Callable[[Loaded], int | None] | None
    ) -> str:
        """The away seats' change of ``change`` committed on ``loaded``
        (``commit.lua``'s ARGV[21]): ``+seat step`` for a seat that timed
        out (its default move's step, ``timed_out_step``, remembered in
        ``t``), ``-seat`` for an away seat that moved itself, ``""`` for none."""
        timed_out = getattr(change, "timed_out", None)
        if timed_out is not None:
            step = getattr(change, "timed_out_step", "")
            return f"+{timed_out} {step}" if step else f"+{timed_out}"
        seat = None if mover is None else mover(loaded)
        control = loaded.control or NO_CONTROL
        if seat is not None and seat in control.away:
            return f"-{seat}"
        return ""

    @staticmethod
    def _bots_arg(change: Change) -> str:
        """``commit.lua``'s ARGV[22] for ``change``: its ``bots`` as JSON, or keep."""
        bots = getattr(change, "bots", None)
        if bots is None:
            return ""
        return json.dumps({str(k): v for k, v in bots.items()}, separators=(",", ":"))

    def instant_after(self, loaded: Loaded, change: Change) -> int | None:
        """When the worker must next look at the table once ``change`` (not
        a seat's own move) is committed on ``loaded``: the instant of that
        commit's clock note, ``None`` for never (or a store without
        ``notes``)."""
        away = self._away_op(loaded, change, None)
        bots = getattr(change, "bots", None)
        return self._instant_after(loaded, change.table, away, bots, unattended_of(change))

    def _note_after(
        self,
        loaded: Loaded,
        table: Any,
        away: str = "",
        bots: dict[int, Any] | None = None,
        unattended: str = "",
        restart: bool = False,
    ) -> str:
        """The clock note of a commit of ``table`` on ``loaded`` (see
        :meth:`_instant_after`), ``""`` for none."""
        if not self.publish_notes:
            return ""
        at = self._instant_after(loaded, table, away, bots, unattended, restart)
        return "" if at is None else str(at)

    def _resumes(self, loaded: Loaded, unattended: str) -> bool:
        """Whether a commit on ``loaded`` whose change of the referee's moves
        in a row is ``unattended`` (``"0"``: a person's move or act) resumes
        a paused clock (``paused``): its step's clock starts again."""
        control = loaded.control or NO_CONTROL
        return unattended == "0" and self.paused is not None and self.paused(control)

    def _instant_after(
        self,
        loaded: Loaded,
        table: Any,
        away: str = "",
        bots: dict[int, Any] | None = None,
        unattended: str = "",
        restart: bool = False,
    ) -> int | None:
        """When the worker must next look at ``table`` committed on
        ``loaded`` with the away change ``away``, the bot seats ``bots``
        (``None``: kept) and the change ``unattended`` of the referee's
        moves in a row (:func:`unattended_of`), as ``commit.lua`` leaves
        the table's control (``opened`` moves with a new step, at this
        commit's clock, and with ``restart`` in the same step too): a commit
        that resumes a paused table says so."""
        if self.notes is None:
            return None
        before = loaded.control or NO_CONTROL
        seats = set(before.away)
        if away:
            seat = away_seat(away)
            if away.startswith("+"):
                seats.add(seat)
            else:
                seats.discard(seat)
        count = {"0": 0, "+": before.unattended + 1}.get(unattended, before.unattended)
        control = replace(
            before,
            bots=before.bots if bots is None else bots,
            away=frozenset(seats),
            unattended=count,
        )
        return self._instant(control, table, loaded.now_ms, restart)

    def _note(self, control: Control, table: Any, now_ms: int) -> str:
        """``commit.lua``'s clock note for ``table`` committed at ``now_ms``
        with ``control`` (see :meth:`_instant`), ``""`` for none."""
        at = self._instant(control, table, now_ms) if self.publish_notes else None
        return "" if at is None else str(at)

    def _instant(
        self, control: Control, table: Any, now_ms: int, restart: bool = False
    ) -> int | None:
        """When the worker must next look at ``table`` committed at
        ``now_ms`` with ``control`` (its ``opened`` as before the commit;
        with ``restart`` its step's clock starts at ``now_ms``), by
        ``notes``; ``None`` for never."""
        if self.notes is None:
            return None
        turn = self.codec.turn_of(table)
        opened = control.opened
        if turn is None:
            opened = None
        elif restart or opened is None or opened[0] != turn.key:
            opened = (str(turn.key), now_ms)
        return self.notes(table, replace(control, opened=opened))

    def _turn_arg(self, table: Any, resumes: Any = None) -> str:
        """``commit.lua``'s ARGV[20]: the key of the step ``table`` waits on
        (``"-"``: the state is kept, so is the step's clock); ``resumes``
        (the table as read) when the commit resumes a paused clock: the key
        with ``"!"`` before it, its clock starting again."""
        if table is None and resumes is None:
            return "-"
        turn = self.codec.turn_of(resumes if table is None else table)
        if turn is None:
            return "-" if table is None else ""
        return ("!" if resumes is not None else "") + str(turn.key)

    def _deadline(self, loaded: Loaded) -> str:
        """``choose.lua``'s deadline for a move computed on ``loaded``: when
        its table falls due by the clock (``""``: never)."""
        at = self.codec.due_at(loaded.table)
        return "" if at is None else str(at)

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

    def _keys(self, table_id: str, record: Record | None) -> list[str]:
        """The keys of a commit: the table's five, then ``record``'s and its
        index, then the three of the deal proofs and records (always last)."""
        keys = base_keys(table_id)
        if record is not None:
            keys.append(record.key)
            if record.index is not None and record.cap > 0:
                keys.append(record.index)
        return [*keys, *proof_keys(table_id)]

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
        when the commit resumes its paused clock (:meth:`_turn_arg`)."""
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
                self.ttl_seconds,
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
        pipe.lrange(moves_key(table_id), 0, -1)
        folded, items = pipe.execute()
        if folded is not None:
            parts = (folded if isinstance(folded, bytes) else str(folded).encode()).split(b"\n")
            return parts[0], parts[1:], False
        texts = [t if isinstance(t, bytes) else str(t).encode() for t in items]
        if len(texts) < 2 or texts[0] != str(round_no).encode():
            return None
        return texts[1], texts[2:], True

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
        if found is None:
            raise TableNotFound(table_id)
        (written, oldest, state, written_ms, clock, choices, version, auth, step, control, kept,
         *raw) = found  # fmt: skip
        if version is None or state is None or auth is None:
            raise TableNotFound(table_id)
        base = self.codec.decode(state)
        pending = _pairs(choices)
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
