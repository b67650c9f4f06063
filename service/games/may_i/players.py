"""Automatic players: the bot, what a turn clock plays for a seat out of
time, and the May I? choices of seats not on turn (the project's rule book,
4.5 and 4.6; RULES.md 5.3, 5.4). A move is ``{"action": ..., "argument":
...}`` (the actions of :func:`~.engine.turn`), ``{"action": "ask"}`` or
``{"action": "answer", "allow": ...}``. ``basic`` (:func:`bot`,
:func:`wants`) is pure and deterministic: the same table gives the same
move; ``random`` draws from the ``rng`` it is given. A bot reads only its
own hand and the public table.

A seat that has not laid down measures its hand by :func:`plan`: the fewest
cards still missing for the round's contract (4.3), jokers counted where the
rules let them stand (4.2). It keeps the hand that misses fewest, takes or
asks for a card only when it brings the contract strictly nearer, lays down
as soon as nothing is missing. A seat that has laid down only lays off
(4.5.2): it takes a discard that fits a meld, lays off all it can, and sheds
the card furthest from fitting, the dearest first (4.8).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement
from typing import Any

from ..base import Shuffler, Transition, Turn
from ..errors import RuleViolation
from . import engine
from .engine import awaited, can_place, discardable
from .melds import (
    CONTRACTS,
    JOKER,
    RUN_RANKS,
    Meld,
    MeldError,
    card_value,
    check_contract,
    classify,
    fits,
    hand_value,
)
from .state import Step, Table

_VALUES = {r: i + 2 for i, r in enumerate("23456789TJQKA")}
_WINDOWS: tuple[tuple[str, ...], ...] = tuple(
    tuple(RUN_RANKS[v - 1] + suit for v in range(low, low + 4))
    for suit in "SHDC"
    for low in range(1, 12)
)
"""Every run of four a contract's run can start from (A-4 up to J-A)."""
_WINDOWS_OF: dict[str, tuple[int, ...]] = {
    card: tuple(i for i, w in enumerate(_WINDOWS) if card in w) for w in _WINDOWS for card in w
}
_TOP_WINDOWS = 8
"""Runs tried per plan: the windows holding most of the hand's cards."""
MAY_I_HAND_LIMIT = 14
"""A seat holding this many cards asks for no more (each May I? adds two)."""


@dataclass(frozen=True, slots=True)
class Plan:
    """The nearest way to a round's contract from a hand: ``missing`` cards
    still wanted (0: it can lay down), the runs aimed at (four cards each,
    lowest first), the ranks of the sets (a rank twice for two sets of it)
    and how many of the missing cards are ``dead`` (none left to draw)."""

    missing: int
    runs: tuple[tuple[str, ...], ...]
    sets: tuple[str, ...]
    dead: int = 0


def plan(round_no: int, hand: Sequence[str], melds: Sequence[Meld] = (), decks: int = 0) -> Plan:
    """The plan that misses fewest cards of round ``round_no``'s contract
    (RULES.md 4.3) from ``hand``. Runs are tried among the
    :data:`_TOP_WINDOWS` four-card windows the hand fills best, then sets
    from what is left; a joker fills a gap where the meld keeps no more
    jokers than natural cards (4.2). With ``decks`` (copies of each card)
    and the ``melds`` on the table, a gap whose every copy is melded or in
    this hand is ``dead`` (no card left can fill it, 4.2: melds never break
    up), and plans with fewer dead gaps come first. A search, not a proof:
    ``missing`` may overstate, never understate (0 means
    :func:`find_contract` succeeds)."""
    melded = Counter(c for m in melds for c in m.cards if c != JOKER) if decks else Counter()
    return _plan(round_no, tuple(sorted(hand)), decks, frozenset(melded.items()))


@lru_cache(maxsize=1 << 16)
def _plan(
    round_no: int, hand: tuple[str, ...], decks: int, melded_items: frozenset[tuple[str, int]]
) -> Plan:
    # Cached: a bot weighs the same hands again and again (each discard, each offer).
    want_sets, want_runs = CONTRACTS[round_no]
    melded = dict(melded_items)
    counts: dict[str, int] = {}
    for card in hand:
        counts[card] = counts.get(card, 0) + 1
    jokers = counts.pop(JOKER, 0)
    windows: list[int] = []
    if want_runs:
        filled: dict[int, int] = {}
        for card in counts:
            for w in _WINDOWS_OF[card]:
                filled[w] = filled.get(w, 0) + 1
        windows = sorted(filled, key=lambda w: (-filled[w], w))[:_TOP_WINDOWS]
        windows += [w for w in range(want_runs) if w not in windows]  # a hand of no suit
    ranks: dict[str, int] = {}
    for card, n in counts.items():
        ranks[card[0]] = ranks.get(card[0], 0) + n
    # Copies of a rank neither melded nor in this hand (only with decks known).
    spare_rank = {
        r: sum(decks - melded.get(r + s, 0) for s in "SHDC") - ranks.get(r, 0) for r in _VALUES
    }
    best: Plan | None = None
    for runs in combinations_with_replacement(windows, want_runs):
        left = dict(ranks)
        used: dict[str, int] = {}
        missing = fill = dead = 0
        for w in runs:
            have = 0
            for card in _WINDOWS[w]:
                if counts.get(card, 0) > used.get(card, 0):
                    used[card] = used.get(card, 0) + 1
                    left[card[0]] -= 1
                    have += 1
                elif decks and decks - melded.get(card, 0) - counts.get(card, 0) <= 0:
                    dead += 1
            missing += 4 - have
            fill += min(4 - have, have)
        # A rank of n cards offers sets of min(n, 3), then of what is left;
        # a set whose rank has too few copies left comes last.
        slots: list[tuple[int, int, str]] = []
        if want_sets:
            for rank, n in left.items():
                while n > 0:
                    gap = 3 - min(n, 3)
                    short = max(0, gap - spare_rank[rank]) if decks else 0
                    slots.append((short, -min(n, 3), rank))
                    n -= 3
            slots.sort()
            del slots[want_sets:]
        for short, minus_have, _ in slots:
            missing += 3 + minus_have
            fill += min(3 + minus_have, -minus_have)
            dead += short
        missing += 3 * (want_sets - len(slots))
        filled_in = min(jokers, fill)
        found = (max(0, dead - filled_in), missing - filled_in)
        if best is None or found < (best.dead, best.missing):
            runs_cards = tuple(_WINDOWS[w] for w in runs)
            best = Plan(found[1], runs_cards, tuple(r for _, _, r in slots), found[0])
    assert best is not None
    return best


def find_contract(round_no: int, hand: Sequence[str]) -> list[list[str]] | None:
    """A lay-down of round ``round_no``'s contract from ``hand`` (melds as
    :func:`~.melds.check_contract` accepts them: runs ascending, a joker in
    each gap), or ``None`` when :func:`plan` finds cards missing."""
    found = plan(round_no, hand)
    if found.missing:
        return None
    left = Counter(hand)
    melds: list[list[str]] = []
    for window in found.runs:
        meld = []
        for card in window:
            take = card if left[card] > 0 else JOKER
            left[take] -= 1
            meld.append(take)
        melds.append(meld)
    for rank in found.sets:
        naturals = sorted(c for c in left.elements() if c != JOKER and c[0] == rank)[:3]
        for card in naturals:
            left[card] -= 1
        left[JOKER] -= 3 - len(naturals)
        melds.append([*naturals, *[JOKER] * (3 - len(naturals))])
    if left[JOKER] < 0:
        return None
    try:
        check_contract(round_no, melds)
    except MeldError:
        return None
    return melds


def _spread(hand: Sequence[str], round_no: int) -> int:
    """How many near misses a hand holds (pairs of a rank for sets, counted
    up to three cards of it; distinct suit neighbours within two ranks for
    runs): breaks ties between hands missing as many. Capped so that a
    seat does not hoard copies a meld does not need (another seat's
    contract may wait for them)."""
    sets, runs = CONTRACTS[round_no]
    naturals = [c for c in hand if c != JOKER]
    score = 0
    if sets:
        for n in Counter(c[0] for c in naturals).values():
            kept = min(n, 3)
            score += 3 * (kept * (kept - 1) // 2)
    if runs:
        distinct = sorted(set(naturals))
        for i, a in enumerate(distinct):
            for b in distinct[i + 1 :]:
                if a[1] == b[1] and abs(_VALUES[a[0]] - _VALUES[b[0]]) <= 2:
                    score += 2
    return score


def _plan_at(table: Table, hand: Sequence[str]) -> Plan:
    """:func:`plan` for ``hand`` at this table (its round, melds and decks)."""
    rnd = table.round
    assert rnd is not None
    return plan(rnd.number, hand, rnd.melds, table.options.decks or 2)


def _worth(hand: Sequence[str], table: Table) -> tuple[int, int, int, int]:
    """A hand's rank for a seat not laid down, lower is better: dead gaps,
    cards missing, fewer near misses, then its penalty (4.8)."""
    found = _plan_at(table, hand)
    assert table.round is not None
    return (found.dead, found.missing, -_spread(hand, table.round.number), hand_value(hand))


def _without(hand: Sequence[str], card: str) -> list[str]:
    rest = list(hand)
    rest.remove(card)
    return rest


def _distance(card: str, melds: Sequence[Meld]) -> int:
    """How far ``card`` is from fitting a meld: 0 fits, 1-2 a rank or two
    beyond a run's end in its suit, 3 otherwise (jokers always 0)."""
    if card == JOKER:
        return 0
    best = 3
    for meld in melds:
        if fits(meld, card):
            return 0
        if meld.kind != "run" or card[1] != next(c[1] for c in meld.cards if c != JOKER):
            continue
        for value in (1, 14) if card[0] == "A" else (_VALUES[card[0]],):
            gap = meld.low - value if value < meld.low else max(value - meld.high, 0)
            if 2 <= gap <= 3:
                best = min(best, gap - 1)
    return best


def best_discard(table: Table, seat: int) -> str:
    """The card the seat on turn discards: one the rules allow (4.5.3).
    Not laid down: the one whose loss keeps the hand nearest the contract
    (:func:`plan`), the dearest among equals. Laid down: the furthest from
    fitting a meld, the dearest among equals."""
    rnd = table.round
    assert rnd is not None
    hand = rnd.hands[seat]
    allowed = discardable(hand, rnd.melds)
    if rnd.down[seat]:
        return min(allowed, key=lambda c: (-_distance(c, rnd.melds), -card_value(c), c))
    return min(allowed, key=lambda c: (*_worth(_without(hand, c), table), c))


def _kept_with(table: Table, seat: int, card: str) -> tuple[int, int, int, int]:
    """The seat's hand's worth after taking ``card`` and discarding its best."""
    rnd = table.round
    assert rnd is not None
    hand = [*rnd.hands[seat], card]
    allowed = discardable(hand, rnd.melds)
    return min(_worth(_without(hand, c), table) for c in allowed)


def _lay_off_move(table: Table, seat: int) -> dict[str, Any] | None:
    """Lay off the first card that fits a meld (natural cards before
    jokers, so that a joker does not close an end a natural card needed)."""
    rnd = table.round
    assert rnd is not None
    for card in sorted(set(rnd.hands[seat]), key=lambda c: (c == JOKER, c)):
        for meld in rnd.melds:
            if fits(meld, card):
                end = None
                if card == JOKER and meld.kind == "run":
                    end = "high" if meld.high < 14 else "low"
                return {
                    "action": "lay_off",
                    "argument": {"card": card, "meld": meld.id, "end": end},
                }
    return None


def bot(table: Table, seat: int, rng: Shuffler | None = None) -> dict[str, Any]:
    """A legal move for the seat on turn (RULES.md 4.5, 4.7). Not laid
    down: take the discard only if the hand then misses fewer cards of the
    contract (:func:`plan`) or, as many, holds more near misses; lay down
    as soon as nothing is missing. Laid down: take a discard that fits a
    meld, lay off everything that fits. Both then discard by
    :func:`best_discard`. After a seat went
    out: lay off, then done. Raises ``ValueError`` if ``seat`` is not on
    turn or a May I? window is open."""
    rnd = table.round
    if rnd is None or not rnd.playing or rnd.on_turn != seat or rnd.step is Step.MAY_I:
        raise ValueError(f"seat {seat} is not on turn")
    hand = rnd.hands[seat]
    if rnd.step is Step.DRAW:
        if not rnd.pile:
            return {"action": "draw", "argument": None}
        top = rnd.pile[-1]
        if rnd.down[seat]:
            take = any(fits(m, top) for m in rnd.melds)
        else:
            # Nearer the contract, not merely cheaper: a stock card may help more.
            take = _kept_with(table, seat, top)[:3] < _worth(hand, table)[:3]
        return {"action": "take_discard" if take else "decline", "argument": None}
    if rnd.step is Step.STOCK:
        return {"action": "draw", "argument": None}
    if rnd.step is Step.FINAL:
        return _lay_off_move(table, seat) or {"action": "done", "argument": None}
    if not rnd.down[seat]:
        melds = find_contract(rnd.number, hand)
        if melds is not None:
            return {"action": "lay_down", "argument": melds}
    elif can_place(hand, rnd.melds):
        move = _lay_off_move(table, seat)
        if move is not None:
            return move
    return {"action": "discard", "argument": best_discard(table, seat)}


def wants(table: Table, seat: int) -> bool:
    """Whether ``seat`` would have the offered discard (4.6): it has not
    laid down (a seat down only lays off; two more cards would keep it from
    going out), holds fewer than :data:`MAY_I_HAND_LIMIT` cards, and the
    card brings its contract strictly nearer (:func:`plan`). Used both to
    ask and to deny (a denier takes the card as the asker would)."""
    rnd = table.round
    if rnd is None or rnd.offer is None or rnd.down[seat]:
        return False
    hand = rnd.hands[seat]
    if len(hand) >= MAY_I_HAND_LIMIT:
        return False
    now, then = _plan_at(table, hand), _plan_at(table, [*hand, rnd.offer.card])
    return (then.dead, then.missing) < (now.dead, now.missing)


def is_meld(cards: Sequence[str]) -> bool:
    """Whether ``cards`` in the order given are a set or a run (4.2)."""
    try:
        classify(cards)
    except MeldError:
        return False
    return True


def turn_of(table: Table) -> Turn | None:
    """Who the round waits for: the seat on turn (one step per numbered
    move and step: ``"r2m17play"``), the voters of an open May I? request
    (``"r2o5v"``; each allows when silent, 4.6), or, while a declined
    discard is offered, nobody due and the seats that may ask
    (``"r2o5"``); ``None`` with no round in play."""
    rnd = table.round
    if rnd is None or not rnd.playing:
        return None
    if rnd.step is Step.MAY_I and rnd.offer is not None:
        offer = rnd.offer
        if offer.asker is None:
            discarder = rnd.pile_by[-1] if rnd.pile_by else -1
            askers = tuple(s for s in range(table.seats) if s not in (rnd.on_turn, discarder))
            return Turn(f"r{rnd.number}o{offer.n}", (), askers)
        return Turn(f"r{rnd.number}o{offer.n}v", tuple(awaited(table.seats, rnd.on_turn, offer)))
    return Turn(f"r{rnd.number}m{rnd.move}{rnd.step.value}", (rnd.on_turn,))


def _random_turn(table: Table, seat: int, rng: Shuffler) -> dict[str, Any]:
    """A uniform choice among the seat on turn's legal moves of its step
    (a lay-down only as :func:`find_contract` finds one)."""
    rnd = table.round
    assert rnd is not None
    hand = rnd.hands[seat]
    moves: list[dict[str, Any]] = []
    if rnd.step is Step.DRAW:
        moves = [{"action": "take_discard" if rnd.pile else "draw", "argument": None}]
        if rnd.pile:
            moves.append({"action": "decline", "argument": None})
    elif rnd.step is Step.STOCK:
        moves = [{"action": "draw", "argument": None}]
    else:
        if rnd.down[seat]:
            lay_off = _lay_off_move(table, seat)
            if lay_off is not None:
                moves.append(lay_off)
        else:
            melds = find_contract(rnd.number, hand)
            if melds is not None:
                moves.append({"action": "lay_down", "argument": melds})
        if rnd.step is Step.FINAL:
            moves.append({"action": "done", "argument": None})
        else:
            allowed = discardable(hand, rnd.melds)
            moves += [{"action": "discard", "argument": c} for c in allowed]
    rng.shuffle(moves)
    return moves[0]


def bot_move(
    table: Table, seat: int, kind: str, rng: Shuffler | None = None
) -> dict[str, Any] | None:
    """The move of the automatic player ``kind`` for ``seat`` in the
    table's :func:`turn_of`: on turn, ``basic`` is :func:`bot` and
    ``random`` uniform over its legal moves; a voter denies when it
    :func:`wants` the card (``random``: either); a seat that may ask asks
    when it wants the card (``random``: one time in two, below
    :data:`MAY_I_HAND_LIMIT` cards), else ``None`` (nothing to do). Raises
    ``ValueError`` when the seat has no move."""
    turn = turn_of(table)
    if turn is None or (seat not in turn.seats and seat not in turn.optional):
        raise ValueError(f"seat {seat} has no move now")
    rnd = table.round
    assert rnd is not None
    coin = None
    if kind == "random":
        assert rng is not None
        coin = rng.getrandbits(1) == 1
    if rnd.step is Step.MAY_I:
        if seat in turn.optional:
            if coin is None:
                return {"action": "ask"} if wants(table, seat) else None
            return {"action": "ask"} if coin and len(rnd.hands[seat]) < MAY_I_HAND_LIMIT else None
        allow = not wants(table, seat) if coin is None else coin
        return {"action": "answer", "allow": allow}
    if kind == "random":
        assert rng is not None
        return _random_turn(table, seat, rng)
    return bot(table, seat)


def default_move(table: Table, seat: int) -> dict[str, Any]:
    """What a turn clock plays for a seat out of time (RULES.md 5.3):
    ``basic``'s move (:func:`bot_move`). Raises ``ValueError`` when the
    seat is not due."""
    move = bot_move(table, seat, "basic")
    if move is None:
        raise ValueError(f"seat {seat} is not due to move")
    return move


def recorded_move(table: Table, seat: int, move: dict[str, Any]) -> dict[str, Any]:
    """``move`` (a :func:`bot_move` answer) for ``seat`` as a round's record
    holds it (:func:`replay_move`'s form, as the move, May I? and answer
    endpoints record them)."""
    rnd = table.round
    if rnd is None:
        raise ValueError("no round in play")
    at = {"seat": seat, "round": rnd.number}
    if move["action"] in ("ask", "answer"):
        assert rnd.offer is not None
        if move["action"] == "ask":
            return {**at, "move": "ask", "offer": rnd.offer.n}
        return {**at, "move": "answer", "offer": rnd.offer.n, "allow": move["allow"]}
    return {
        **at,
        "move": "turn",
        "number": rnd.move,
        "action": move["action"],
        "arg": move["argument"],
    }


def move_step(move: Mapping[str, Any]) -> str:
    """The step of a recorded move (``Game.move_step``): a turn's move,
    ``"r2m17"`` (round 2, move 17), or a May I? request's offer, ``"r2o5"``."""
    if move["move"] == "turn":
        return f"r{move['round']}m{move['number']}"
    return f"r{move['round']}o{move['offer']}"


def late_move(table: Any, move: Mapping[str, Any]) -> RuleViolation:
    """A seat's own move for a move or a May I? answer made for it at its
    deadline (``Game.late_move``, RULES.md 5.3): ``stale-move`` for a turn's
    move, ``already-answered`` for an answer, with the numbers."""
    if move["move"] == "turn":
        return RuleViolation(
            "stale-move",
            f"Move {move['number']} of round {move['round']} was made for seat {move['seat']} "
            "when its time ran out (its default move): its own move for it comes too late.",
            extra=engine.numbers(table),
        )
    return RuleViolation(
        "already-answered",
        f"Seat {move['seat']}'s answer to May I? {move.get('offer')} was given for it when "
        "its time ran out (its default move): its own answer comes too late.",
        extra=engine.numbers(table),
    )


def replay_move(table: Any, move: Mapping[str, Any], now_ms: int) -> Transition:
    """One recorded move (``Game.replay_move``): ``{"move": "turn", "seat",
    "round", "number", "action", "arg"}``, ``{"move": "ask", "seat",
    "round", "offer"}`` or ``{"move": "answer", "seat", "round", "offer",
    "allow"}``, through the transitions of the endpoints (:func:`.engine.turn`,
    :func:`.engine.ask`, :func:`.engine.answer`)."""
    kind = move["move"]
    if kind == "turn":
        return engine.turn(
            table,
            move["round"],
            move["number"],
            move["seat"],
            move["action"],
            move["arg"],
            now_ms,
        )
    if kind == "ask":
        return engine.ask(table, move["round"], move["offer"], move["seat"], now_ms)
    if kind == "answer":
        return engine.answer(
            table, move["round"], move["offer"], move["seat"], move["allow"], now_ms
        )
    raise LookupError(f"May I? has no move {kind!r}")
