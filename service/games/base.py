"""What every game shares: a move's result, the random source, the first-dealer
draw, dealing round the table, and the :class:`Game` interface that the API,
the storage, the CLI, the metrics and the bench use without knowing the game.

A game is a pure package (no Flask, no Redis, no clock, no random source of
its own) that exports one :class:`Game`. Its states are frozen values that
carry ``variant`` (a preset name, unique across games) and ``seats``; its
transitions take a state and the move's arguments and return a
:class:`Transition` or raise :class:`~.errors.RuleViolation`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .cards import RANK_INDEX, STANDARD_DECK
from .drbg import SECRET_BYTES
from .errors import FieldError, RuleViolation

Event = dict[str, Any]
"""A public event: ``{"type": ..., members...}`` (the store adds ``at_ms`` and ``seq``)."""


@dataclass(frozen=True, slots=True)
class Step:
    """A simultaneous step of a table: seats choose in any order and only its
    resolution is serialised (RULES.md 2.5: an exchange of My Ship Sails).

    ``key`` names the step uniquely within the table's life (e.g. ``"r3x7"``,
    round 3 exchange 7); ``choosers`` are the seats that choose in it;
    ``choices`` the choices already made in the state, by seat, in the text
    of :attr:`Choice.text` (the store keeps them apart from the state)."""

    key: str
    choosers: tuple[int, ...]
    choices: Mapping[int, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Choice:
    """A move that is only one seat's choice in the current :class:`Step`,
    which the store may commit without taking the table's version (choices
    of different seats commute).

    ``step`` is the step's key, ``seat`` the chooser, ``text`` the choice as
    kept (the game's :attr:`Game.fold_choices` reads it back), ``needed`` how
    many choosers the step has (the choice that makes them all chosen
    completes it; no choice is replaced after that), ``events`` the public
    events of a seat's first choice in the step (a replacement has none).

    With ``ordered`` the step's choices keep their order of arrival and
    stand once made (May I? answers, RULES.md 4.6): the store keeps the
    text as ``text#n``, ``n`` the choice's place in the step from 1 (what
    :attr:`Game.fold_choices` then reads), never replaces it (another
    choice of the same seat reads the table again, where the game sees the
    first), and runs the move again on the table as it stands right after
    the choice (the step's choices up to this one folded in), so that the
    answer is the one a repeat of it gets."""

    step: str
    seat: int
    text: str
    needed: int
    events: tuple[Event, ...] = ()
    ordered: bool = False


@dataclass(frozen=True, slots=True)
class Transition:
    """The result of a move: the new table, its public events in order, and
    the outcome to report to the caller (a JSON-ready dict).

    ``choice`` is set when the move is a seat's choice in the table's
    simultaneous step (:class:`Choice`); ``table`` and ``events`` are then
    what the move leads to if that choice completes the step.
    ``archive`` holds texts to append to the table's history (the store's
    list of finished steps, e.g. a resolved exchange's passes, kept out of
    the state so that the state does not grow with a round); with
    ``archive_reset`` the history is emptied first (a new round)."""

    table: Any
    events: tuple[Event, ...] = ()
    outcome: dict[str, Any] = field(default_factory=dict)
    choice: Choice | None = None
    archive: tuple[str, ...] = ()
    archive_reset: bool = False
    shuffles: tuple[dict[str, Any], ...] = ()
    """The shuffles this transition made after the deal (May I?'s rebuilt
    stocks, RULES.md 4.7, 5.2), in order: ``{"round", "label", "deck",
    "order"}`` (``deck`` the cards as given, ``order`` after the shuffle)
    and, when the game knows the instant (a window's close), ``at_ms``.
    Never public: the store writes them only to the round's record, which
    is shown once the round is over."""


class Shuffler(Protocol):
    """What a game needs of a random source (the service passes
    :class:`random.SystemRandom`, the CSPRNG; tests a seeded
    :class:`random.Random`): shuffles, and ``getrandbits`` for a secret that
    orders a later shuffle (:mod:`.drbg`)."""

    def shuffle(self, x: list[Any], /) -> None: ...

    def getrandbits(self, k: int, /) -> int: ...


def draw_secret(rng: Shuffler) -> bytes:
    """A shuffle secret of :data:`.drbg.SECRET_BYTES` (256 bits) from ``rng``."""
    return rng.getrandbits(8 * SECRET_BYTES).to_bytes(SECRET_BYTES, "big")


def draw_first_dealer(seats: int, rng: Shuffler) -> tuple[int, tuple[tuple[str | None, ...], ...]]:
    """Draw for the first dealer (RULES.md 1); returns the dealer and every pass
    of the draw (each a card per seat, ``None`` for seats out of the draw)."""
    drawing = list(range(seats))
    passes: list[tuple[str | None, ...]] = []
    while True:
        deck = list(STANDARD_DECK)
        rng.shuffle(deck)
        drawn: list[str | None] = [None] * seats
        for i, seat in enumerate(drawing):
            drawn[seat] = deck[i]
        passes.append(tuple(drawn))
        low = min(RANK_INDEX[c[0]] for c in drawn if c is not None)
        drawing = [s for s in drawing if (c := drawn[s]) is not None and RANK_INDEX[c[0]] == low]
        if len(drawing) == 1:
            return drawing[0], tuple(passes)


Draw = tuple[tuple[str | None, ...], ...]
"""A first-dealer draw: per pass of the draw, one card per seat (``None``: not drawing)."""


def seat_first_dealer(
    seats: int, first_dealer: int | None, rng: Shuffler
) -> tuple[int, Draw, list[Event]]:
    """The first dealer of a new table (RULES.md 1): the seat the caller
    named, or one drawn for when ``first_dealer`` is ``None``. Returns it,
    the draw (empty when named) and the table's first public events
    (``first-dealer-drawn`` after a draw; the caller puts ``table-created``
    before it). Raises ``options-invalid`` for a seat the table does not have."""
    if first_dealer is None:
        dealer, draw = draw_first_dealer(seats, rng)
        return dealer, draw, [{"type": "first-dealer-drawn", "draw": [list(d) for d in draw]}]
    if not 0 <= first_dealer < seats:
        raise RuleViolation(
            "options-invalid",
            f'The first dealer must be a seat 0..{seats - 1} or "draw".',
            [FieldError("/first_dealer", f"no seat {first_dealer} at a table of {seats}")],
        )
    return first_dealer, (), []


def deal_order(seats: int, dealer: int, cards: int) -> list[int]:
    """The seat that gets each of ``cards`` cards dealt one at a time,
    clockwise from the dealer's left (RULES.md 1)."""
    return [(dealer + 1 + i) % seats for i in range(cards)]


def leaders(points: Sequence[int], lowest: bool = False) -> tuple[int, ...]:
    """Every seat with the best total (ties share), highest unless ``lowest``."""
    best = min(points) if lowest else max(points)
    return tuple(s for s, p in enumerate(points) if p == best)


def percent(part: int, whole: int) -> str:
    """``part`` of ``whole`` in words for a table: ``"12.5%"``."""
    return f"{100 * part / whole:.1f}%"


@dataclass(frozen=True, slots=True)
class PresetInfo:
    """What ``GET /v1/variants`` says of a preset: its name, seat range, seed
    file, description and options (wire form)."""

    name: str
    min_players: int
    max_players: int
    source: str
    description: str
    options: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Simulation:
    """How ``referee simulate`` plays a game with its automatic players
    through the pure engine: ``play(variant, players, rounds, seed, options,
    progress)`` plays ``rounds`` rounds from ``seed`` and returns what each
    came to (picklable facts, in order); ``summary(variant, players, seed,
    options, facts)`` sums the facts of one run or of several up (a summary
    with ``to_json()``), so that a long run is played in pieces on every
    core; ``options`` holds the CLI's game-specific settings
    (``max_exchanges`` for My Ship Sails); ``progress()`` is called once
    after each round (the CLI counts them). ``player_counts(variant,
    wanted)`` keeps the table sizes the preset allows;
    ``markdown(summaries)`` is the table the CLI prints."""

    play: Callable[[str, int, int, int, Mapping[str, Any], Callable[[], None]], Sequence[Any]]
    summary: Callable[[str, int, int, Mapping[str, Any], Sequence[Any]], Any]
    player_counts: Callable[[str, Sequence[int]], list[int]]
    markdown: Callable[[Sequence[Any]], str]

    def run(
        self, variant: str, players: int, rounds: int, seed: int, options: Mapping[str, Any]
    ) -> Any:
        """Play ``rounds`` rounds in this process and sum them up: a run of
        one piece (the CLI plays long runs in pieces on every core)."""
        facts = self.play(variant, players, rounds, seed, options, lambda: None)
        return self.summary(variant, players, seed, options, facts)


@dataclass(frozen=True, slots=True)
class Turn:
    """Who a table waits for now, for its clock and its bots (RULES.md 5.3, 5.4).

    ``key`` names the step uniquely within the table's life (``"r3x7"``: round
    3, exchange 7; ``"r2t14"``: round 2, turn 14): a deadline belongs to one
    step, so a default move scheduled for an older step changes nothing.
    ``seats`` are the seats due to move in it that have not moved (each gets
    a deadline); ``optional`` the seats that may move without being due (a
    claim, a May I? request: no deadline, but a bot may act)."""

    key: str
    seats: tuple[int, ...]
    optional: tuple[int, ...] = ()


BOT_KINDS = ("random", "basic")
"""The automatic players every game has (RULES.md 5.4)."""


def no_turn(table: Any) -> Turn | None:
    """:attr:`Game.turn_of` of a game with no clock: nobody is waited for."""
    return None


def no_step(table: Any) -> Step | None:
    """:attr:`Game.step_of` of a game without simultaneous steps (every move
    takes the table's version): always ``None``."""
    return None


def no_fold(table: Any, choices: Mapping[int, str | bytes]) -> Any:
    """:attr:`Game.fold_choices` of a game without simultaneous steps: the table."""
    return table


def nothing_due(table: Any, now_ms: int) -> Transition:
    """:attr:`Game.due` of a game with no clock and no simultaneous steps:
    the table, nothing due."""
    return Transition(table)


def never_due(table: Any) -> int | None:
    """:attr:`Game.due_at` of a game with no clock: ``None``."""
    return None


def no_rounds(table: Any) -> tuple[int, tuple[str, ...]]:
    """:attr:`Game.rounds_of` of a game that lists no rounds: none."""
    return 0, ()


def no_round_result(table: Any, text: str | bytes) -> dict[str, Any]:
    """:attr:`Game.round_result` of a game that lists no rounds (never called)."""
    raise LookupError("this game lists no rounds")


def name_seat(table: Any, seat: int, name: str) -> Any:
    """:attr:`Game.name_seat` of a game whose state keeps the players as
    ``names`` (every game here): the table with seat ``seat`` named ``name``
    (``""``: an open seat, RULES.md 5.1)."""
    names = list(table.names)
    names[seat] = name
    return dataclasses.replace(table, names=tuple(names))


@dataclass(frozen=True, slots=True)
class Game:
    """One game behind the interface the service uses without knowing it.

    ``name`` is the game's id on the wire (``"my-ship-sails"``, ``"sevens"``);
    ``title`` its name in words; ``rules`` the slug of its page under
    ``docs/rules/``. ``presets`` lists its variants (names unique across games).

    - ``create_table(variant, overrides, names, first_dealer, rng)``: a new
      table (``first_dealer`` a seat or ``None`` to draw); raises
      ``unknown-variant`` / ``options-invalid``.
    - ``start_round(table, rng, now_ms, deal)``: deal the next round;
      ``deal`` is the request body (``hands`` for a submitted deal, else a
      shuffle; a game may read more members, e.g. Sevens' ``opening_suit``).
    - ``finish(table, now_ms)``: the host ends the match.
    - ``public_view(table, now_ms)`` / ``seat_view(table, seat, now_ms)``:
      JSON-ready views; the public one holds no hidden card.
    - ``check_deal(variant, overrides, players, deal)``: the stateless check
      of a deal (``{"valid", "problems", "hands"}``).
    - ``encode(table) -> str`` / ``decode(text) -> table``: the stored form;
      every game but the first writes ``{"g":"<name>",...}`` first so that
      the state names its game. ``event_layouts``: the compact form of its
      events (codes unique across games, see :mod:`.codec`);
      ``legacy_event_codes``: codes it no longer writes but still reads.
    - ``default_move(table, seat)``, ``bot(table, seat, rng)`` and
      ``round_record(table, round_no)``: what a turn clock plays for a seat
      that runs out of time, an automatic player's move, and a replayable
      record of a finished round. ``None`` where a game has none yet.
    - ``turn_of(table) -> Turn | None``: the step the table waits on and
      its due seats (:class:`Turn`), ``None`` when no seat is (no round,
      the host must deal, the match is over).
    - ``bot_move(table, seat, kind, rng) -> move``: the move of the
      automatic player ``kind`` (:data:`BOT_KINDS`) for ``seat`` in the
      table's :class:`Turn`, as a JSON-ready dict with ``action``; it reads
      only what that seat may see (its hand and the public table); ``None``
      when a seat that may move (``Turn.optional``) would not.
      ``bot_move(table, seat, "basic", rng)`` is the default move of a seat
      out of time (RULES.md 5.3): deterministic, ``rng`` unused.
    - ``play(table, seat, move, now_ms) -> Transition``: ``move`` (a
      ``bot_move`` answer) made for ``seat`` through the same transitions
      as the game's move endpoints; raises :class:`RuleViolation` as they do.
    - ``simulation``: how ``referee simulate`` plays it (:class:`Simulation`).
    - ``step_of(table) -> Step | None``: the simultaneous step the table is
      in (:class:`Step`), ``None`` when there is none (every move then takes
      the table's version). ``fold_choices(table, {seat: text}) -> table``:
      the table with the step's pending choices (kept by the store beside
      the state) put in; pure, and the identity with no choices. A table
      whose step is complete once folded is resolved by the game's next
      transition and by its views (e.g. My Ship Sails' ``settle_due``).
    - ``due(table, now_ms) -> Transition``: the table as it stands at
      ``now_ms`` and the events whose time has come without a move (a
      window that closed, a complete step resolved), in order, with their
      ``archive``; the table itself and no events when nothing is due. Pure
      and idempotent (``due`` of its result at the same clock is nothing).
      An event whose instant the state knows (a window's end) carries it as
      ``at_ms``, so that it reads the same whenever it is computed; the
      store stamps the others with the clock of the table's last write (a
      step completes with its last choice). The store shows these events
      in every read and stores them, with the same seqs, with the first
      accepted write; a refused move stores nothing of them.
    - ``due_at(table) -> int | None``: the first instant (ms since the
      epoch) at which ``due`` has something for ``table`` by the clock alone
      (a window's end), ``None`` when nothing is waiting for the clock. A
      move computed on ``table`` is committed only before that instant
      (else it runs again, on the table as it then stands), so that nothing
      is stored against what a read has already shown.
    - ``rounds_of(table) -> (count, texts)``: the table's finished rounds
      as its list of rounds keeps them (``GET /v1/tables/{id}/rounds``):
      how many there are so far (the list numbers them 1..count) and the
      game's texts of the newest of them that the state holds, oldest
      first (the last one; every one of a table stored by an older format),
      which the store appends to the list when it writes the table. The
      state itself keeps no list of results, so that it does not grow with
      the match. ``round_result(table, text)``: the public form of one of
      those texts (JSON-ready, what any seat may see of a finished round).
    - ``name_seat(table, seat, name) -> table``: the table with that seat's
      name replaced (a player joins or leaves an open seat, RULES.md 5.1;
      ``""`` is an open seat's name, which no player's name can be).
    - ``replay_move(table, move, now_ms) -> Transition``: one move of a
      round's record (``{"seat", "move": <kind>, ...its arguments}``, the
      form its move endpoints record) run again through the game's
      transitions; raises ``RuleViolation`` as the move would, and
      ``LookupError`` for a kind the game has not. ``None``: no record.
    - ``deal_of(table) -> dict``: what the current round was dealt, as a
      record shows it (``hands`` by seat, and the game's other parts:
      ``set_aside``, ``stock`` top first, ``discard``).
    - ``starting_deck(table) -> cards``: the deck a round's shuffle starts
      from, fixed by the table's game, options and seat count alone
      (RULES.md 5.2): :data:`.cards.STANDARD_DECK`'s order (spades, hearts,
      diamonds, clubs; 2 to Ace) less the cards the deck has not, each
      further deck's copy after it, jokers last.
    - ``reshuffle_piles(deal, moves) -> [pile, ...]``: for a game that
      rebuilds its stock from the discard pile (May I?), the pile each
      ``reshuffle`` entry of a round's record must shuffle (less its top,
      bottom first), derived from the record's ``deal`` and ``moves``
      alone, never from its proof (RULES.md 5.2); ``ValueError`` (its
      words) for moves no referee records. ``None``: the game rebuilds
      no stock, so a record of it holds no ``reshuffle`` entry.
    - ``ended_round(table) -> dict | None``: the public result of the
      current round when the host ended it before it was over and the
      game does not list it (``rounds_of``), marked ``abandoned``; its
      record is shown at once (RULES.md 5.2). ``None`` otherwise.
    - ``rules_version``: the version of the rules this release referees the
      game by; it moves whenever a recorded round would replay otherwise
      (a record names it, and ``referee replay`` refuses another one).
    - ``record_layouts``: per recorded move kind, its arguments in order
      (besides ``seat``, ``move`` and ``round``): the compact form a round's
      record keeps in Redis (:mod:`.record`). Frozen once written.
    """

    name: str
    title: str
    rules: str
    presets: Mapping[str, PresetInfo]
    create_table: Callable[..., Transition]
    start_round: Callable[..., Transition]
    finish: Callable[[Any, int], Transition]
    public_view: Callable[[Any, int], dict[str, Any]]
    seat_view: Callable[[Any, int, int], dict[str, Any]]
    check_deal: Callable[..., dict[str, Any]]
    encode: Callable[[Any], str]
    decode: Callable[[str | bytes], Any]
    event_layouts: Mapping[str, tuple[int, tuple[str, ...]]]
    legacy_event_codes: Mapping[int, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    default_move: Callable[..., Any] | None = None
    bot: Callable[..., Any] | None = None
    round_record: Callable[..., Any] | None = None
    simulation: Simulation | None = None
    step_of: Callable[[Any], Step | None] = no_step
    fold_choices: Callable[[Any, Mapping[int, str | bytes]], Any] = no_fold
    due: Callable[[Any, int], Transition] = nothing_due
    due_at: Callable[[Any], int | None] = never_due
    rounds_of: Callable[[Any], tuple[int, tuple[str, ...]]] = no_rounds
    round_result: Callable[[Any, str | bytes], dict[str, Any]] = no_round_result
    name_seat: Callable[[Any, int, str], Any] = name_seat
    replay_move: Callable[[Any, Mapping[str, Any], int], Transition] | None = None
    deal_of: Callable[[Any], dict[str, Any]] = lambda table: deal_of(table)
    turn_of: Callable[[Any], Turn | None] = no_turn
    bot_move: Callable[..., dict[str, Any] | None] | None = None
    recorded_move: Callable[[Any, int, dict[str, Any]], dict[str, Any]] | None = None
    """``recorded_move(table, seat, move)``: a :attr:`bot_move` answer as the
    round's record holds it (:attr:`replay_move`'s form); the worker journals
    the moves it makes in it, so that a round with bots replays (RULES.md 5.2)."""
    move_step: Callable[[Mapping[str, Any]], str] | None = None
    """``move_step(record)``: the step a recorded move (:attr:`replay_move`'s
    form) was made in, as a short text unique in the table's life (Sevens'
    ``"r1t7"``: round 1, turn 7). The store remembers the step of each
    default move; a seat's own move for it is refused (:attr:`late_move`)."""
    late_move: Callable[[Any, Mapping[str, Any]], RuleViolation] | None = None
    """``late_move(table, record)``: the refusal of a seat's own move
    (recorded as ``record``) for a step whose default move was made for it
    at its deadline: 409 with the game's stale code, even when it is the
    same move, and nothing changes (the seat stays away; RULES.md 5.3)."""
    option_schemas: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """The JSON Schema (OpenAPI 3.0) of each option whose values are the
    game's own (``match``, ``decks``): the spec's options of this game use
    it instead of the option's shared schema, so that the contract states
    what the game's ``resolve_options`` takes."""
    seat_range: tuple[int, int] | None = None
    """The fewest and most players any options of any preset allow, when an
    option moves a preset's range (Sevens' ``decks``, RULES.md 3.2): the
    spec's range for every preset; ``None``: each preset's own range."""
    starting_deck: Callable[[Any], tuple[str, ...]] | None = None
    reshuffle_piles: (
        Callable[[Mapping[str, Any], Sequence[Mapping[str, Any]]], list[list[str]]] | None
    ) = None
    ended_round: Callable[[Any], dict[str, Any] | None] = lambda table: None
    rules_version: int = 1
    record_layouts: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    deal_members: tuple[str, ...] = ("hands",)
    """The members of :data:`DEAL_MEMBERS` a submitted deal of this game
    reads; its ``start_round`` and ``check_deal`` refuse the others
    (:func:`refuse_foreign_members`), and the spec leaves them out."""

    def play(self, table: Any, seat: int, move: dict[str, Any], now_ms: int) -> Transition:
        """``move`` (a :attr:`bot_move` answer) made for ``seat``: its
        :attr:`recorded_move` replayed, so that what is played is what is
        recorded (RULES.md 5.2, 5.4). Raises ``RuleViolation``, or
        ``TypeError`` for a game without recorded moves."""
        if self.recorded_move is None or self.replay_move is None:
            raise TypeError(f"{self.name} has no recorded moves to play")
        return self.replay_move(table, self.recorded_move(table, seat, move), now_ms)


DEAL_MEMBERS = ("hands", "dealer", "opening_suit", "stock", "discard")
"""Every member a submitted deal may have, of any game (:attr:`Game.deal_members`)."""


def refuse_foreign_members(deal: Mapping[str, Any], title: str, own: Sequence[str]) -> None:
    """Refuse (422 ``deal-invalid``, a pointer each) the members of
    ``deal`` that another game reads and ``title``'s, whose are ``own``,
    does not: a deal must be one its game can hold, not a silent subset."""
    problems = [
        FieldError(f"/{name}", f"{name} is no member of a {title} deal")
        for name in DEAL_MEMBERS
        if name not in own and deal.get(name) is not None
    ]
    if problems:
        raise RuleViolation(
            "deal-invalid", f"{title}'s deals take only {', '.join(own)}.", problems
        )


def reading_only(
    members: tuple[str, ...], title: str, deal_with: Callable[..., Any]
) -> Callable[..., Any]:
    """``deal_with`` (a game's ``start_round`` or ``check_deal``, whose last
    argument is a submitted deal), which first refuses the deal's members
    of other games (:func:`refuse_foreign_members`): a game that reads only
    ``members`` says so rather than drop the rest unread."""

    def checked(*args: Any) -> Any:
        refuse_foreign_members(args[-1], title, members)
        return deal_with(*args)

    return checked


def deal_of(table: Any) -> dict[str, Any]:
    """:attr:`Game.deal_of` of a game whose round keeps ``hands`` (every game
    here), with the ``set_aside`` cards, or the ``stock`` (top first: the
    first card drawn first; a round keeps it bottom first) and the
    ``pile``'s first card (the first discard), where its round has them."""
    rnd = table.round
    found: dict[str, Any] = {"hands": [list(h) for h in rnd.hands]}
    if hasattr(rnd, "set_aside"):
        found["set_aside"] = list(rnd.set_aside)
    if hasattr(rnd, "stock"):
        found["stock"] = list(reversed(rnd.stock))
    if hasattr(rnd, "pile"):
        found["discard"] = rnd.pile[0] if rnd.pile else None
    return found
