"""A table read: what the store asks of a game (:class:`Codec`), what a
move hands it (:class:`Change`), the clock and bots' fields (:class:`Control`)
and what a read gives (:class:`Loaded`), in one round trip that a caller can
queue on its own (:meth:`TableLoads.queue_load`). The store's connection,
scripts and limits are set up here, below everything that reads or writes.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any, Protocol

import redis
from redis.cluster import RedisCluster

from ..games.errors import StoredFormatNewer
from . import feeds
from .keys import TABLE_LAYOUT, choices_key, presence_key, table_key
from .records import ChainState
from .replicas import Acknowledgement


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


PAGED_SCRIPTS = ("commit.lua", "choose.lua", "events.lua")
"""The scripts that call ``table_page`` (``page.lua``, prepended to them)."""


def script_text(name: str) -> str:
    """The text of the Lua script ``name`` as registered (before
    :func:`.feeds.register` rewrites it): ``page.lua`` first for
    :data:`PAGED_SCRIPTS`."""
    lua = resources.files(__package__).joinpath("lua")
    text = lua.joinpath(name).read_text()
    return lua.joinpath("page.lua").read_text() + text if name in PAGED_SCRIPTS else text


def _ms(seconds: int, micros: int) -> int:
    return int(seconds) * 1000 + int(micros) // 1000


class TableLoads:
    """A table store's connection, scripts and limits, and a table's read
    (see :class:`~.store.TableStore` for the arguments)."""

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
        self._commit = feeds.register(client, script_text("commit.lua"))
        self._choose = feeds.register(client, script_text("choose.lua"))
        self._page = client.register_script(script_text("events.lua"))
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
