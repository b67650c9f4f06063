"""Pure transitions of a May I? table (the project's rule book, 4).

Every transition takes a :class:`~.state.Table`, the move's arguments and
``now_ms`` and returns a :class:`~service.games.base.Transition`; a refused
move raises :class:`~service.games.errors.RuleViolation` and changes
nothing (but a May I? window that closed by itself before it, see
:func:`on_time`, is kept). No clock and no random source of its own.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..base import (
    Choice,
    Shuffler,
    Transition,
    deal_order,
    draw_secret,
    leaders,
    seat_first_dealer,
)
from ..base import Step as SimultaneousStep
from ..cards import CardError
from ..drbg import shuffled
from ..errors import FieldError, Kind, RuleViolation, register_codes
from ..match import check_dealable
from .codec import archived, unarchived
from .melds import (
    CONTRACTS,
    JOKER,
    Meld,
    MeldError,
    check_contract,
    contract_text,
    fits,
    hand_value,
    lay_off,
    lay_off_end,
    parse,
    sort_hand,
    take,
)
from .options import ROUNDS, deck_for, resolve_options
from .scoring import match_json, result_json
from .state import Cards, MatchStatus, Offer, Round, RoundResult, Step, Table

Event = dict[str, Any]

HAND_SIZE = 10
OUT_BONUS = 20
ACTIONS = ("take_discard", "decline", "draw", "lay_down", "lay_off", "discard", "done")

_R = "may-i#"
register_codes(
    {
        "stale-move": Kind.CONFLICT,
        "move-invalid": Kind.INVALID,
        "must-draw-first": Kind.CONFLICT,
        "already-drawn": Kind.CONFLICT,
        "may-i-open": Kind.CONFLICT,
        "contract-invalid": Kind.INVALID,
        "already-laid-down": Kind.INVALID,
        "not-laid-down": Kind.INVALID,
        "lay-off-invalid": Kind.INVALID,
        "discard-fits": Kind.INVALID,
        "may-i-closed": Kind.CONFLICT,
        "may-i-taken": Kind.CONFLICT,
        "may-i-not-open": Kind.CONFLICT,
        "may-i-own-discard": Kind.INVALID,
        "may-i-not-yours": Kind.INVALID,
        "already-answered": Kind.CONFLICT,
        "already-declined": Kind.CONFLICT,
        "may-i-not-asked": Kind.CONFLICT,
        "repeat-not-kept": Kind.CONFLICT,
    },
    rules={
        "stale-move": _R + "a-turn",
        "move-invalid": _R + "a-turn",
        "must-draw-first": _R + "a-turn",
        "already-drawn": _R + "a-turn",
        "may-i-open": _R + "may-i",
        "contract-invalid": _R + "contracts",
        "already-laid-down": _R + "a-turn",
        "not-laid-down": _R + "a-turn",
        "lay-off-invalid": _R + "melds",
        "discard-fits": _R + "a-turn",
        "may-i-closed": _R + "may-i",
        "may-i-taken": _R + "may-i",
        "may-i-not-open": _R + "may-i",
        "may-i-own-discard": _R + "may-i",
        "may-i-not-yours": _R + "may-i",
        "already-answered": _R + "may-i",
        "already-declined": _R + "a-turn",
        "may-i-not-asked": _R + "may-i",
        "repeat-not-kept": _R + "a-turn",
    },
)


# --- the table -----------------------------------------------------------


def create_table(
    variant: str,
    overrides: Mapping[str, Any],
    names: Sequence[str],
    first_dealer: int | None,
    rng: Shuffler,
) -> Transition:
    """A new table with no round dealt yet (events ``table-created``, and
    ``first-dealer-drawn`` after a draw; outcome ``{"first_dealer"}``)."""
    seats = len(names)
    options = resolve_options(variant, overrides, seats)
    first_dealer, draw, drawn = seat_first_dealer(seats, first_dealer, rng)
    table = Table(
        variant=variant,
        options=options,
        names=tuple(names),
        first_dealer=first_dealer,
        draw=draw,
        points=(0,) * seats,
        played=0,
        last=None,
        round=None,
        match_status=MatchStatus.IN_PROGRESS,
    )
    events: list[Event] = [{"type": "table-created", "variant": variant, "seats": seats}, *drawn]
    return Transition(table, tuple(events), {"first_dealer": first_dealer})


# --- the deal --------------------------------------------------------------


def _deal_problem(problems: list[FieldError]) -> RuleViolation:
    return RuleViolation(
        "deal-invalid",
        f"The submitted deal is not valid ({len(problems)} problem(s)).",
        problems,
    )


def _parse_list(value: Any, pointer: str, problems: list[FieldError]) -> list[str]:
    if not isinstance(value, Sequence) or isinstance(value, str):
        problems.append(FieldError(pointer, "a list of card codes"))
        return []
    cards = []
    for i, text in enumerate(value):
        try:
            cards.append(parse(text))
        except (CardError, AttributeError) as exc:
            problems.append(FieldError(f"{pointer}/{i}", str(exc) or "not a card"))
    return cards


def validate_deal(
    table_seats: int, deck: Sequence[str], deal: Mapping[str, Any]
) -> tuple[tuple[Cards, ...], Cards, str]:
    """A submitted deal: ``hands`` (10 cards each, by seat), ``stock`` (top
    first) and ``discard`` (the first discard); together exactly the decks.
    Returns the hands, the stock (top last) and the discard; raises
    ``deal-invalid`` listing every problem."""
    problems: list[FieldError] = []
    hands_in = deal.get("hands")
    if not isinstance(hands_in, Sequence) or isinstance(hands_in, str):
        raise _deal_problem([FieldError("/hands", "hands must be a list, one per seat")])
    if len(hands_in) != table_seats:
        problems.append(FieldError("/hands", f"{len(hands_in)} hands for {table_seats} seats"))
    hands = []
    for h, hand in enumerate(hands_in):
        cards = _parse_list(hand, f"/hands/{h}", problems)
        if len(cards) != HAND_SIZE:
            problems.append(FieldError(f"/hands/{h}", f"{len(cards)} cards; a hand is 10"))
        hands.append(sort_hand(cards))
    stock = _parse_list(deal.get("stock"), "/stock", problems)
    discard = None
    try:
        discard = parse(deal.get("discard"))  # type: ignore[arg-type]
    except (CardError, AttributeError):
        problems.append(FieldError("/discard", "the first discard is one card code"))
    if not stock:
        problems.append(FieldError("/stock", "the stock holds at least one card"))
    given = Counter(c for h in hands for c in h) + Counter(stock)
    if discard is not None:
        given[discard] += 1
    wanted = Counter(deck)
    if given != wanted:
        extra = sorted((given - wanted).elements())
        missing = sorted((wanted - given).elements())
        detail = "hands, stock and discard are exactly the decks"
        if extra:
            detail += "; too many: " + " ".join(extra)
        if missing:
            detail += "; missing: " + " ".join(missing)
        problems.append(FieldError("/hands", detail))
    if problems:
        raise _deal_problem(problems)
    assert discard is not None
    return tuple(hands), tuple(reversed(stock)), discard


def shuffle_and_deal(
    seats: int, dealer: int, deck: Sequence[str], rng: Shuffler
) -> tuple[tuple[Cards, ...], Cards, str]:
    """Shuffle and deal 10 cards each, two at a time from the dealer's
    left; the next card is the first discard, the rest the stock."""
    cards = list(deck)
    rng.shuffle(cards)
    hands: list[list[str]] = [[] for _ in range(seats)]
    order = deal_order(seats, dealer, seats * HAND_SIZE // 2)
    for i, seat in enumerate(order):
        hands[seat].extend(cards[2 * i : 2 * i + 2])
    rest = cards[seats * HAND_SIZE :]
    discard = rest[0]
    return tuple(sort_hand(h) for h in hands), tuple(reversed(rest[1:])), discard


def start_round(table: Table, rng: Shuffler, now_ms: int, deal: Mapping[str, Any]) -> Transition:
    """Deal the next round (4.4): ``deal["hands"]``, ``["stock"]`` (top
    first) and ``["discard"]`` for a submitted deal, else a shuffle. Event
    ``round-dealt`` {round, dealer, submitted, contract, discard, stock};
    outcome ``{"round", "dealer"}``."""
    rnd = table.round
    check_dealable(table.match_status, rnd.number if rnd and rnd.playing else None, numbers(table))
    number = table.played + 1
    dealer = table.next_dealer
    deck = deck_for(table.options)
    submitted = deal.get("hands") is not None
    if submitted:
        hands, stock, discard = validate_deal(table.seats, deck, deal)
    else:
        hands, stock, discard = shuffle_and_deal(table.seats, dealer, deck, rng)
    seats = table.seats
    rnd = Round(
        number=number,
        dealer=dealer,
        hands=hands,
        stock=stock,
        pile=(discard,),
        pile_by=(-1,),
        melds=(),
        down=(False,) * seats,
        on_turn=(dealer + 1) % seats,
        step=Step.DRAW,
        taken=0,
        offer=None,
        offers=0,
        secret=draw_secret(rng),  # orders the reshuffles (4.9): 256 bits, never shown
        reshuffles=0,
        out=None,
        final=(),
        submitted=submitted,
    )
    event: Event = {
        "type": "round-dealt",
        "round": number,
        "dealer": dealer,
        "submitted": submitted,
        "contract": contract_text(number),
        "discard": discard,
        "stock": len(stock),
    }
    # The history holds the current round's older moves: a new round starts it anew.
    outcome = {"round": number, "dealer": dealer}
    return Transition(replace(table, round=rnd), (event,), outcome, archive_reset=True)


# --- the clock ---------------------------------------------------------------


def on_time(table: Table, now_ms: int, move: Callable[[Table], Transition]) -> Transition:
    """Run ``move`` on the table as it stands at ``now_ms``: a May I? window
    whose time has come is settled first (:func:`settle_due`). A refused
    move keeps nothing of it: the service's store settles a table as it
    reads it (``Game.due``) and stores that with the next accepted move."""
    settled = settle_due(table, now_ms)
    done = move(settled.table)
    if not settled.events:
        return done
    return replace(
        done, events=settled.events + done.events, shuffles=settled.shuffles + done.shuffles
    )


def settle_due(table: Table, now_ms: int) -> Transition:
    """Give the card of a May I? request that every seat has answered (a
    table with the answers' pending choices folded in, :func:`fold_choices`;
    at the clock of the answer that completed it) and close every May I?
    window whose time has come (``now_ms >= until``): the views apply it to
    what they show, every move runs it first; it is the game's ``due``. Each
    event carries ``at_ms``, the instant it was due (the last answer's
    clock, or the window's end), the same whenever it is computed."""
    rnd = table.round
    events: list[Event] = []
    rebuilt: Shuffled = []
    while rnd is not None and rnd.step is Step.MAY_I and rnd.offer is not None:
        at = _completed_at(table.seats, rnd.on_turn, rnd.offer)
        if at is None:
            if now_ms < rnd.offer.until_ms:
                break
            at = rnd.offer.until_ms
        table, more, stocks = _close_offer(table, at)
        events.extend({"at_ms": at, **e} for e in more)
        rebuilt.extend({**s, "at_ms": at} for s in stocks)
        rnd = table.round
    return Transition(table, tuple(events), shuffles=tuple(rebuilt))


def due_at(table: Table) -> int | None:
    """When the open May I? window closes by itself (its ``until_ms``), the
    game's ``due_at``; ``None`` when no window is open."""
    rnd = table.round
    if rnd is None or rnd.step is not Step.MAY_I or rnd.offer is None:
        return None
    return rnd.offer.until_ms


def _answerers(seats: int, on_turn: int, offer: Offer) -> tuple[int, ...]:
    """The seats that answer ``offer``'s request: all but the asker and the seat on turn."""
    return tuple(s for s in range(seats) if s not in (on_turn, offer.asker))


def awaited(seats: int, on_turn: int, offer: Offer) -> list[int]:
    """The seats that answer ``offer``'s request and have not answered yet (4.6)."""
    return [s for s in _answerers(seats, on_turn, offer) if not offer.answers[s]]


def _completed_at(seats: int, on_turn: int, offer: Offer) -> int | None:
    """When the last answer of ``offer``'s request came (the clock of the
    answer last in order), if every seat that answers has answered; else None."""
    if offer.asker is None or not offer.order:
        return None
    if awaited(seats, on_turn, offer):
        return None
    last = offer.marks[offer.order[-1]] if offer.marks else ""
    return int(last[1:].split("#")[0]) if last else offer.until_ms


def step_key(rnd: Round) -> str:
    """The key of the answers to ``rnd``'s open May I? request as a
    simultaneous step: ``"r2o5"`` for round 2, offer 5."""
    assert rnd.offer is not None
    return f"r{rnd.number}o{rnd.offer.n}"


def step_of(table: Table) -> SimultaneousStep | None:
    """The answers to an open May I? request as a simultaneous step
    (:class:`~..base.Step`, 4.6): the seats that answer choose, each
    answer a choice in its order of arrival (:attr:`Offer.marks`); ``None``
    when no request is open."""
    rnd = table.round
    if rnd is None or rnd.step is not Step.MAY_I or rnd.offer is None:
        return None
    offer = rnd.offer
    if offer.asker is None:
        return None
    choices = {}
    for place, seat in enumerate(offer.order, start=1):
        mark = offer.marks[seat] if offer.marks else ""
        said = mark.split("#")[0] if mark else f"{offer.answers[seat][0]}0"
        choices[seat] = f"{said}#{place}"
    return SimultaneousStep(step_key(rnd), _answerers(table.seats, rnd.on_turn, offer), choices)


def fold_choices(table: Table, choices: Mapping[int, str | bytes]) -> Table:
    """The table with the pending answers of its open May I? request put
    in (``{seat: mark}``, as the store keeps them: see :attr:`Offer.marks`;
    checked when they were given), in their order of arrival. A request
    then answered by every seat is given by :func:`settle_due`. The table
    itself when there is nothing to fold or no request is open."""
    rnd = table.round
    if not choices or rnd is None or rnd.step is not Step.MAY_I or rnd.offer is None:
        return table
    offer = rnd.offer
    if offer.asker is None:
        return table
    answers = list(offer.answers)
    marks = list(offer.marks or ("",) * table.seats)
    placed: list[tuple[int, int]] = []
    for key, text in choices.items():
        seat = int(key)
        mark = text.decode() if isinstance(text, bytes) else text
        answers[seat] = "allow" if mark[0] == "a" else "deny"
        marks[seat] = mark
        placed.append((int(mark.rsplit("#", 1)[1]), seat))
    placed.sort()
    folded = {s for _, s in placed}
    order = (*(s for s in offer.order if s not in folded), *(s for _, s in placed))
    offer = replace(offer, answers=tuple(answers), order=order, marks=tuple(marks))
    return replace(table, round=replace(rnd, offer=offer))


def reshuffle_label(round_no: int, reshuffles: int) -> str:
    """The DRBG label of a round's reshuffle (:mod:`..drbg`): the round's
    ``reshuffles``-th (from 0) rebuilt stock is the pile less its top, bottom
    first, shuffled under the round's secret and this label (4.7, 4.9)."""
    return f"may-i:round:{round_no}:reshuffle:{reshuffles}"


Shuffled = list[dict[str, Any]]
"""The stocks a step rebuilt (``Transition.shuffles``: round, label, deck, order)."""


def _draw(
    table: Table, rnd: Round, seat: int, count: int
) -> tuple[Round, int, list[Event], Shuffled]:
    """Move up to ``count`` stock cards to ``seat``'s hand, reshuffling the
    discard pile less its top into a new stock when it runs out (4.7); the
    rebuilt stocks too, for the round's record (RULES.md 5.2: the pile as
    given, bottom first, and the new stock, whose last card is drawn first)."""
    events: list[Event] = []
    rebuilt: Shuffled = []
    got: list[str] = []
    stock = list(rnd.stock)
    pile, pile_by = list(rnd.pile), list(rnd.pile_by)
    reshuffles = rnd.reshuffles
    for _ in range(count):
        if not stock and len(pile) > 1:
            given = pile[:-1]
            pile, pile_by = pile[-1:], pile_by[-1:]
            label = reshuffle_label(rnd.number, reshuffles)
            stock = shuffled(rnd.secret, label, given)
            rebuilt.append({"round": rnd.number, "label": label, "deck": given, "order": stock[:]})
            reshuffles += 1
            events.append({"type": "stock-reshuffled", "round": rnd.number, "cards": len(stock)})
        if not stock:
            break
        got.append(stock.pop())
    hands = list(rnd.hands)
    hands[seat] = sort_hand((*hands[seat], *got))
    rnd = replace(
        rnd,
        hands=tuple(hands),
        stock=tuple(stock),
        pile=tuple(pile),
        pile_by=tuple(pile_by),
        reshuffles=reshuffles,
    )
    return rnd, len(got), events, rebuilt


def _take_top(rnd: Round, seat: int) -> Round:
    hands = list(rnd.hands)
    hands[seat] = sort_hand((*hands[seat], rnd.pile[-1]))
    return replace(rnd, hands=tuple(hands), pile=rnd.pile[:-1], pile_by=rnd.pile_by[:-1])


def _open_offer(table: Table, rnd: Round, at_ms: int) -> tuple[Table, list[Event]]:
    """Offer the top discard (4.6), or let the seat on turn draw when the
    pile is empty or the window is 0 (4.9: nobody can ask, so no offer
    opens and no offer event is logged)."""
    if not rnd.pile or table.options.may_i_window_ms <= 0:
        return replace(table, round=replace(rnd, offer=None, step=Step.STOCK)), []
    n = rnd.offers + 1
    until = at_ms + table.options.may_i_window_ms
    offer = Offer(n, rnd.pile[-1], at_ms, until, None, ("",) * table.seats, (), rnd.on_turn)
    rnd = replace(rnd, offer=offer, offers=n, step=Step.MAY_I)
    event: Event = {
        "type": "may-i-offered",
        "round": rnd.number,
        "offer": n,
        "card": offer.card,
        "until_ms": until,
    }
    return replace(table, round=rnd), [event]


def taker_of(seats: int, on_turn: int, asker: int, answers: Sequence[str]) -> tuple[int, int]:
    """Who takes an asked-for discard and how many stock cards with it
    (4.6): the first denier in order of play from the seat on turn (1 if
    before the asker, 2 if after), else the asker with 1."""
    order = [(on_turn + i) % seats for i in range(1, seats)]
    for seat in order:
        if seat != asker and answers[seat] == "deny":
            return seat, 1 if order.index(seat) < order.index(asker) else 2
    return asker, 1


def _close_offer(table: Table, at_ms: int) -> tuple[Table, list[Event], Shuffled]:
    rnd = table.round
    assert rnd is not None and rnd.offer is not None
    offer = rnd.offer
    rnd = replace(rnd, closed=(*rnd.closed, replace(offer, marks=())))
    if offer.asker is None:
        event: Event = {"type": "may-i-lapsed", "round": rnd.number, "offer": offer.n}
        return replace(table, round=replace(rnd, offer=None, step=Step.STOCK)), [event], []
    taker, extra = taker_of(table.seats, rnd.on_turn, offer.asker, offer.answers)
    rnd = _take_top(rnd, taker)
    rnd, got, events, rebuilt = _draw(table, rnd, taker, extra)
    events.insert(
        0,
        {
            "type": "may-i-given",
            "round": rnd.number,
            "offer": offer.n,
            "seat": taker,
            "card": offer.card,
            "stock_cards": got,
            "asker": offer.asker,
        },
    )
    table, more = _open_offer(table, replace(rnd, offer=None), at_ms)
    return table, events + more, rebuilt


# --- numbered moves ------------------------------------------------------------


def numbers(table: Table) -> dict[str, Any]:
    """The current round, move, seat on turn and step, for 409 answers."""
    rnd = table.round
    playing = rnd is not None and rnd.playing
    return {
        "current_round": rnd.number if rnd else None,
        "current_move": rnd.move if rnd and playing else None,
        "on_turn": rnd.on_turn if rnd and playing else None,
        "step": rnd.step.value if rnd else None,
        "round_status": ("playing" if playing else "over") if rnd else None,
        "waiting_for": [rnd.on_turn] if rnd and playing else [],
    }


def _current(table: Table, round_no: int) -> Round:
    rnd = table.round
    if rnd is None:
        raise RuleViolation(
            "no-round-in-play", "No round has been dealt yet.", extra=numbers(table)
        )
    if round_no != rnd.number:
        raise RuleViolation(
            "stale-round",
            f"Round {round_no} is not the current round; the current round is {rnd.number}.",
            extra=numbers(table),
        )
    return rnd


def _over(table: Table, rnd: Round) -> RuleViolation:
    if table.match_status is not MatchStatus.IN_PROGRESS:
        return RuleViolation("match-over", "The match is over.", extra=numbers(table))
    return RuleViolation("round-over", f"Round {rnd.number} is over.", extra=numbers(table))


def _invalid(detail: str, pointer: str = "") -> RuleViolation:
    return RuleViolation("move-invalid", detail, [FieldError(pointer or "/", detail)])


def _parse_args(action: str, arg: Any) -> Any:
    """A move's argument in canonical form (cards parsed)."""
    try:
        if action == "lay_down":
            if not isinstance(arg, Sequence) or isinstance(arg, str) or not arg:
                raise _invalid("lay_down is a list of melds, each a list of cards", "/lay_down")
            return [[parse(c) for c in meld] for meld in arg]
        if action == "lay_off":
            if not isinstance(arg, Mapping):
                raise _invalid('lay_off is {"card", "meld", "end"}', "/lay_off")
            end = arg.get("end")
            if end not in (None, "low", "high"):
                raise _invalid("end is low or high", "/lay_off/end")
            return {"card": parse(arg.get("card", "")), "meld": arg.get("meld"), "end": end}
        if action == "discard":
            return parse(arg)
    except (CardError, AttributeError, TypeError) as exc:
        raise _invalid(str(exc) or "not a card", f"/{action}") from None
    return None


Earlier = Callable[[], Sequence[str | bytes]]
"""Reads the table's history: every text it keeps of the current round's
older moves, oldest first (:func:`.codec.archived`; the store keeps the
newest ``HISTORY_KEPT``)."""


@dataclass(frozen=True, slots=True)
class Kept:
    """What is kept of numbered move ``move_no``: its ``record``
    (``"seat:action:argument"``), its ``note`` (:func:`snapshot`) and the
    May I? offers after it, in order (those that closed, then the open one)."""

    move_no: int
    record: str
    note: str
    offers: tuple[Offer, ...]


def _last_kept(rnd: Round) -> Kept | None:
    """The round's last move as the state keeps it; None before the first."""
    if not rnd.taken:
        return None
    open_offer = () if rnd.offer is None else (rnd.offer,)
    return Kept(rnd.taken, rnd.last_move, rnd.last_note, rnd.closed + open_offer)


def _older_kept(rnd: Round, earlier: Earlier | None) -> Iterator[Kept]:
    """The round's older moves that are kept: a format-1 round's
    :attr:`~.state.Round.legacy`, then the history (read only if needed)."""

    def kept(texts: Sequence[str | bytes]) -> Iterator[Kept]:
        for text in texts:
            round_no, move_no, record, note, offers = unarchived(text)
            if round_no == rnd.number:
                yield Kept(move_no, record, note, offers)

    yield from kept(rnd.legacy)
    if earlier is not None:
        yield from kept(earlier())


def _kept_move(rnd: Round, move_no: int, earlier: Earlier | None) -> Kept | None:
    """Move ``move_no`` (taken) of the round, if it is still kept."""
    last = _last_kept(rnd)
    if last is not None and last.move_no == move_no:
        return last
    return next((k for k in _older_kept(rnd, earlier) if k.move_no == move_no), None)


def _kept_offer(rnd: Round, n: int, earlier: Earlier | None) -> tuple[Offer, Offer | None] | None:
    """Offer ``n`` of the round and the offer opened right after it (when
    its card was given and the pile held another), if it is still kept."""
    last = _last_kept(rnd)
    for kept in (*(() if last is None else (last,)), *_older_kept(rnd, earlier)):
        for i, offer in enumerate(kept.offers):
            if offer.n == n:
                following = kept.offers[i + 1] if i + 1 < len(kept.offers) else None
                return offer, following
    return None


def _not_kept(table: Table, what: str) -> RuleViolation:
    return RuleViolation(
        "repeat-not-kept",
        f"{what} is older than the moves the referee keeps of this round: whether this "
        "repeats what it answered then can no longer be told, and nothing changed.",
        extra=numbers(table),
    )


def turn(
    table: Table,
    round_no: int,
    move_no: int,
    seat: int,
    action: str,
    arg: Any,
    now_ms: int,
    earlier: Earlier | None = None,
) -> Transition:
    """Move ``move_no`` of round ``round_no`` by ``seat`` (4.5, 4.7):
    ``action`` one of :data:`ACTIONS` with its argument (a list of melds
    for ``lay_down``, ``{card, meld, end}`` for ``lay_off``, a card for
    ``discard``). A repeat of the move recorded as ``move_no`` changes
    nothing and answers exactly as the first time (:func:`outcome`); the
    state keeps only the last move, an older one is read through
    ``earlier`` (the table's history), and one older than the history
    keeps is ``repeat-not-kept``. The transition's ``archive`` holds the
    previous move (and the offers after it), for the history.
    Refusals: ``seat-not-found``, ``no-round-in-play``, ``stale-round``,
    ``round-over``, ``match-over``, ``stale-move``, ``repeat-not-kept``,
    ``not-your-turn``, ``move-invalid``, ``must-draw-first``,
    ``already-drawn``, ``already-declined``, ``may-i-open``,
    ``contract-invalid``, ``already-laid-down``, ``not-laid-down``,
    ``lay-off-invalid``, ``discard-fits``."""
    if not 0 <= seat < table.seats:
        raise RuleViolation("seat-not-found", f"There is no seat {seat} at this table.")
    if action not in ACTIONS:
        raise _invalid(f"unknown action {action!r}; one of {', '.join(ACTIONS)}")
    canonical = _parse_args(action, arg)
    record = f"{seat}:{action}:{json.dumps(canonical, separators=(',', ':'))}"
    rnd = _current(table, round_no)
    if 1 <= move_no <= rnd.taken:
        kept = _kept_move(rnd, move_no, earlier)
        if kept is None:
            raise _not_kept(table, f"Move {move_no} of round {rnd.number}")
        if kept.record == record:
            return Transition(table, (), _outcome(table, kept))

    def move(t: Table) -> Transition:
        before = t.round
        assert before is not None
        done, events, rebuilt = _turn(t, move_no, seat, action, canonical, record, now_ms)
        done = snapshot(done, seat)
        # The move before this one, with the offers after it, leaves the
        # state for the history (a format-1 round's older moves first).
        archive = before.legacy
        if before.taken:
            previous = (before.last_move, before.last_note, before.closed)
            archive += (archived(before.number, before.taken, *previous),)
        return Transition(
            done, tuple(events), outcome(done, move_no), archive=archive, shuffles=tuple(rebuilt)
        )

    return on_time(table, now_ms, move)


def snapshot(table: Table, seat: int) -> Table:
    """The table with what the move just made left noted in
    ``round.last_note``: ``"on_turn|step|offer|hand"`` (``offer`` the
    number of the May I? offer it opened, if still open; ``hand`` the
    mover's), all that :func:`outcome` cannot tell later from the round."""
    rnd = table.round
    assert rnd is not None
    offer = rnd.offer.n if rnd.offer is not None and rnd.step is Step.MAY_I else ""
    note = f"{rnd.on_turn}|{rnd.step.value}|{offer}|{''.join(rnd.hands[seat])}"
    return replace(table, round=replace(rnd, last_note=note))


def _turn(
    table: Table, move_no: int, seat: int, action: str, arg: Any, record: str, now_ms: int
) -> tuple[Table, list[Event], Shuffled]:
    rnd = table.round
    assert rnd is not None
    if not rnd.playing:
        raise _over(table, rnd)
    if move_no != rnd.move:
        raise RuleViolation(
            "stale-move",
            f"Move {move_no} is not the current move; round {rnd.number} is at move "
            f"{rnd.move}, seat {rnd.on_turn} to {rnd.step.value}.",
            extra=numbers(table),
        )
    if seat != rnd.on_turn:
        raise RuleViolation(
            "not-your-turn",
            f"It is seat {rnd.on_turn}'s turn, not seat {seat}'s.",
            extra=numbers(table),
        )
    _check_step(rnd, action)
    number = rnd.number
    base: Event = {"round": number, "move": move_no, "seat": seat}
    events: list[Event] = []
    rebuilt: Shuffled = []
    # This move is the state's last: the previous one and the offers after
    # it go to the history (see turn).
    rnd = replace(rnd, taken=rnd.taken + 1, last_move=record, closed=(), legacy=())
    hand = rnd.hands[seat]
    if action == "take_discard":
        card = rnd.pile[-1]
        rnd = replace(_take_top(rnd, seat), step=Step.PLAY)
        events.append({"type": "discard-taken", **base, "card": card})
        table = replace(table, round=rnd)
    elif action == "decline":
        events.append({"type": "discard-declined", **base, "card": rnd.pile[-1]})
        table, more = _open_offer(table, rnd, now_ms)
        events.extend(more)
    elif action == "draw":
        rnd, got, more, rebuilt = _draw(table, rnd, seat, 1)
        events.extend(more)
        if not got:
            events.append({"type": "stock-drawn", **base, "count": 0})
            table, more = end_round(replace(table, round=rnd), None)
            events.extend(more)
            return table, events, rebuilt
        events.append({"type": "stock-drawn", **base, "count": 1})
        table = replace(table, round=replace(rnd, step=Step.PLAY))
    elif action == "lay_down":
        table, done = _lay_down(table, rnd, seat, hand, arg)
        events.append({**done, **base})
    elif action == "lay_off":
        table, done = _lay_off(table, rnd, seat, hand, arg)
        events.append({**done, **base})
    elif action == "discard":
        table, done = _discard(table, rnd, seat, hand, arg)
        events.append({**done, **base})
        after = table.round
        assert after is not None
        if after.hands[seat] and blocked(after):
            events.append({"type": "round-blocked", "round": number})
            table, more = end_round(table, None)
            events.extend(more)
            return table, events, rebuilt
    else:  # done
        events.append({"type": "lay-off-done", "round": number, "seat": seat, "auto": False})
        table, more = _next_final(table, rnd)
        events.extend(more)
        return table, events, rebuilt
    rnd = table.round
    assert rnd is not None
    if rnd.step is Step.FINAL and not rnd.hands[seat]:
        # An empty hand in a lay-off turn ends that turn; only the first
        # seat to go out scores the bonus.
        events.append({"type": "lay-off-done", "round": number, "seat": seat, "auto": True})
        table, more = _next_final(table, rnd)
        events.extend(more)
    elif rnd.playing and not rnd.hands[seat]:
        table, more = _went_out(table, rnd, seat)
        events.extend(more)
    return table, events, rebuilt


def _check_step(rnd: Round, action: str) -> None:
    step = rnd.step
    if step is Step.FINAL:
        if action not in ("lay_off", "done"):
            raise RuleViolation(
                "move-invalid",
                "A seat went out: now each seat in turn only lays off, then says it is done.",
                extra={"step": step.value},
            )
        return
    if action == "done":
        raise _invalid("done ends a lay-off turn after a seat went out; discard to end a turn")
    if step is Step.MAY_I:
        raise RuleViolation(
            "may-i-open",
            f"The declined discard is offered (May I? {rnd.offer.n if rnd.offer else ''}) "
            "until its window closes; then draw from the stock.",
            extra={"step": step.value},
        )
    if action in ("take_discard", "decline"):
        if step is Step.STOCK:
            # The offer of the declined discard closed; the seat has not drawn.
            raise RuleViolation(
                "already-declined",
                "This seat declined the discard this turn; now it draws from the stock.",
                extra={"step": step.value},
            )
        if step is not Step.DRAW:
            raise RuleViolation(
                "already-drawn",
                "The discard was already taken, or the stock drawn, this turn.",
                extra={"step": step.value},
            )
        if not rnd.pile:
            raise _invalid("the discard pile is empty: draw from the stock")
        return
    if action == "draw":
        if step is Step.PLAY:
            raise RuleViolation(
                "already-drawn", "This seat has already drawn this turn.", extra={"step": "play"}
            )
        if step is Step.DRAW and rnd.pile:
            raise RuleViolation(
                "must-draw-first",
                f"Take the discard {rnd.pile[-1]} or decline it before drawing from the stock.",
                extra={"step": step.value},
            )
        return
    if step is not Step.PLAY:
        raise RuleViolation(
            "must-draw-first",
            "Draw first (take or decline the discard, then the stock) before laying or discarding.",
            extra={"step": step.value},
        )


def _lay_down(
    table: Table, rnd: Round, seat: int, hand: Cards, melds: list[list[str]]
) -> tuple[Table, Event]:
    if rnd.down[seat]:
        raise RuleViolation(
            "already-laid-down", f"Seat {seat} has already laid down its contract this round."
        )
    left = take(hand, [c for m in melds for c in m])
    if left is None:
        raise _invalid(f"the lay-down uses cards seat {seat} does not hold", "/lay_down")
    try:
        found = check_contract(rnd.number, melds)
    except MeldError as exc:
        detail = f"Not the contract: {exc}."
        raise RuleViolation("contract-invalid", detail, [FieldError("/lay_down", detail)]) from None
    first = len(rnd.melds) + 1
    new = tuple(
        Meld(first + i, seat, kind, cards, low, rank)
        for i, (kind, cards, low, rank) in enumerate(found)
    )
    hands = list(rnd.hands)
    hands[seat] = left
    down = list(rnd.down)
    down[seat] = True
    rnd = replace(rnd, hands=tuple(hands), melds=rnd.melds + new, down=tuple(down))
    event: Event = {
        "type": "laid-down",
        "melds": [{"id": m.id, "kind": m.kind, "cards": list(m.cards)} for m in new],
    }
    return replace(table, round=rnd), event


def _lay_off(
    table: Table, rnd: Round, seat: int, hand: Cards, arg: dict[str, Any]
) -> tuple[Table, Event]:
    if rnd.step is Step.PLAY and not rnd.down[seat]:
        raise RuleViolation(
            "not-laid-down",
            f"Seat {seat} lays off only after laying down its contract "
            f"({contract_text(rnd.number)}).",
        )
    card, meld_id, end = arg["card"], arg["meld"], arg["end"]
    if card not in hand:
        raise _invalid(f"{card} is not in seat {seat}'s hand", "/lay_off/card")
    if (
        isinstance(meld_id, bool)
        or not isinstance(meld_id, int)
        or not 1 <= meld_id <= len(rnd.melds)
    ):
        raise _invalid(f"there is no meld {meld_id!r} on the table", "/lay_off/meld")
    try:
        where = lay_off_end(rnd.melds[meld_id - 1], card, end)
        meld = lay_off(rnd.melds[meld_id - 1], card, None if where == "set" else where)
    except MeldError as exc:
        raise RuleViolation(
            "lay-off-invalid", f"{exc}.", [FieldError("/lay_off", str(exc))]
        ) from None
    melds = list(rnd.melds)
    melds[meld_id - 1] = meld
    hands = list(rnd.hands)
    hands[seat] = take(hand, [card]) or ()
    rnd = replace(rnd, hands=tuple(hands), melds=tuple(melds))
    event: Event = {"type": "laid-off", "card": card, "meld": meld_id, "end": where}
    return replace(table, round=rnd), event


def discard_allowed(hand: Sequence[str], melds: Sequence[Meld], card: str) -> bool:
    """Whether ``card`` may be discarded (4.5.3): it fits no meld on the
    table, or every card of the hand fits one."""
    if not any(fits(m, card) for m in melds):
        return True
    return all(any(fits(m, c) for m in melds) for c in hand)


def discardable(hand: Sequence[str], melds: Sequence[Meld]) -> list[str]:
    """The distinct cards of ``hand`` that may be discarded (4.5.3), sorted:
    :func:`discard_allowed` of each, with each card's fit found once (the
    bots ask it of every card of a hand)."""
    return discardable_given({c: any(fits(m, c) for m in melds) for c in set(hand)})


def discardable_given(fitting: Mapping[str, Sequence[int] | bool]) -> list[str]:
    """:func:`discardable` from what each distinct card of the hand fits
    (a seat view's lay-offs: card -> the ids of the melds it fits, or
    whether it fits one): those that fit none, or all when every card fits."""
    every = all(fitting.values())
    return sorted(c for c, fit in fitting.items() if not fit or every)


def _discard(table: Table, rnd: Round, seat: int, hand: Cards, card: str) -> tuple[Table, Event]:
    if card not in hand:
        raise _invalid(f"{card} is not in seat {seat}'s hand", "/discard")
    if not discard_allowed(hand, rnd.melds, card):
        where = next(m for m in rnd.melds if fits(m, card))
        detail = f"{card} fits meld {where.id} ({where.text()}) and may not be discarded."
        raise RuleViolation(
            "discard-fits", detail, [FieldError("/discard", detail)], extra={"meld": where.id}
        )
    hands = list(rnd.hands)
    hands[seat] = take(hand, [card]) or ()
    rnd = replace(
        rnd,
        hands=tuple(hands),
        pile=(*rnd.pile, card),
        pile_by=(*rnd.pile_by, seat),
        on_turn=(seat + 1) % table.seats,
        step=Step.DRAW,
    )
    return replace(table, round=rnd), {"type": "discarded", "card": card}


def blocked(rnd: Round) -> bool:
    """Whether nobody can ever go out (the referee's choice, RULES.md 4.7
    is silent): every seat has laid down, so no new meld can come, and no
    card outside the melds (hands, stock, discards) fits one, so no card
    can ever be laid off; then a hand never shrinks (a turn draws one card
    and discards one) and reshuffles would go on for ever."""
    if not all(rnd.down) or not rnd.melds:
        return False
    loose = set(rnd.stock) | set(rnd.pile) | {c for h in rnd.hands for c in h}
    return not any(fits(m, c) for c in loose for m in rnd.melds)


def can_place(hand: Sequence[str], melds: Sequence[Meld]) -> bool:
    """Whether any card of ``hand`` fits any meld."""
    return any(fits(m, c) for c in set(hand) for m in melds)


def _went_out(table: Table, rnd: Round, seat: int) -> tuple[Table, list[Event]]:
    """``seat`` emptied its hand: +20, and the round ends by ``ending``."""
    events: list[Event] = [{"type": "went-out", "round": rnd.number, "seat": seat}]
    seats = table.seats
    ending = table.options.ending
    if ending == "immediate":
        table, more = end_round(replace(table, round=rnd), seat)
        return table, events + more
    after = [(seat + i) % seats for i in range(1, seats)]
    if ending == "lay-off-round":
        after = after[: after.index(rnd.dealer) + 1] if rnd.dealer in after else []
    rnd = replace(rnd, out=seat, final=tuple(after), step=Step.FINAL, offer=None)
    table, more = _next_final(table, rnd, first=True)
    return table, events + more


def _next_final(table: Table, rnd: Round, first: bool = False) -> tuple[Table, list[Event]]:
    """The next seat to lay off after a seat went out, skipping those that
    can place no card; the round ends when none is left."""
    events: list[Event] = []
    final = list(rnd.final)
    if not first and final:
        final.pop(0)
    while final and not can_place(rnd.hands[final[0]], rnd.melds):
        events.append({"type": "lay-off-done", "round": rnd.number, "seat": final[0], "auto": True})
        final.pop(0)
    if not final:
        table, more = end_round(replace(table, round=replace(rnd, final=())), rnd.out)
        return table, events + more
    rnd = replace(rnd, final=tuple(final), on_turn=final[0], step=Step.FINAL)
    return replace(table, round=rnd), events


# --- May I? ---------------------------------------------------------------------


def _seat_round(table: Table, round_no: int, seat: int) -> Round:
    if not 0 <= seat < table.seats:
        raise RuleViolation("seat-not-found", f"There is no seat {seat} at this table.")
    return _current(table, round_no)


def _fresh(offer: Offer, seats: int) -> Offer:
    """The offer as it was opened: nobody asked, nobody answered."""
    return replace(offer, asker=None, answers=("",) * seats, order=())


def _first_answer(
    table: Table, rnd: Round, offer_no: int, seat: int, said: str | None, earlier: Earlier | None
) -> dict[str, Any] | None:
    """What ``seat``'s request (``said`` None) or answer ``said`` for offer
    ``offer_no`` was first answered, rebuilt from the offer's record (asker,
    answers in their order); None when it is no repeat. Raises
    ``repeat-not-kept`` for an offer of the round no longer kept."""
    if not 1 <= offer_no <= rnd.offers:
        return None
    found = _kept_offer(rnd, offer_no, earlier)
    if found is None:
        raise _not_kept(table, f"May I? {offer_no} of round {rnd.number}")
    offer, following = found
    first: dict[str, Any] = {"round": rnd.number, "offer": offer_no, "on_turn": offer.on_turn}
    if said is None:
        if offer.asker != seat:
            return None
        then = replace(_fresh(offer, table.seats), asker=seat)
        return {**first, "open": True, "current_offer": offer_json(then), "step": "may-i"}
    if offer.answers[seat] != said or seat not in offer.order:
        return None
    order = offer.order[: offer.order.index(seat) + 1]
    answers = tuple(offer.answers[s] if s in order else "" for s in range(table.seats))
    if len(order) < table.seats - 2:  # seats other than the asker and the seat on turn
        then = replace(offer, answers=answers, order=order)
        return {**first, "open": True, "current_offer": offer_json(then), "step": "may-i"}
    # This answer gave the card, and the next discard was offered at once
    # unless the pile ran empty.
    if following is None:
        return {**first, "open": False, "current_offer": None, "step": "stock"}
    then = _fresh(following, table.seats)
    return {**first, "open": False, "current_offer": offer_json(then), "step": "may-i"}


def _offer_for(table: Table, round_no: int, offer_no: int, seat: int) -> tuple[Round, Offer]:
    rnd = _seat_round(table, round_no, seat)
    if not rnd.playing:
        raise _over(table, rnd)
    offer = rnd.offer
    if offer is None or offer_no != offer.n:
        if table.options.may_i_window_ms <= 0:
            raise RuleViolation(
                "may-i-not-open",
                "This table's May I? window is 0 ms: no discard is ever offered (RULES.md 4.9).",
                extra={**numbers(table), "offer": None},
            )
        if offer_no <= rnd.offers:
            raise RuleViolation(
                "may-i-closed",
                f"May I? {offer_no} of round {rnd.number} is closed.",
                extra={**numbers(table), "offer": offer.n if offer else None},
            )
        raise RuleViolation(
            "may-i-not-open",
            f"No May I? {offer_no} is open: the seat on turn has not declined that discard.",
            extra={**numbers(table), "offer": offer.n if offer else None},
        )
    if seat == rnd.on_turn:
        raise RuleViolation(
            "may-i-not-yours", "The seat on turn never asks for its discard and never answers."
        )
    return rnd, offer


def offer_json(offer: Offer) -> dict[str, Any]:
    return {
        "offer": offer.n,
        "card": offer.card,
        "opened_ms": offer.opened_ms,
        "until_ms": offer.until_ms,
        "asker": offer.asker,
        "answers": {str(s): a for s, a in enumerate(offer.answers) if a},
    }


def ask(
    table: Table,
    round_no: int,
    offer_no: int,
    seat: int,
    now_ms: int,
    earlier: Earlier | None = None,
) -> Transition:
    """``seat`` asks "May I?" for offer ``offer_no`` (4.6). The first request
    counts; asking again for an offer one asked for (open or closed)
    answers as the first time (an offer closed before the last move is read
    through ``earlier``, the table's history). Event
    ``may-i-asked`` {round, offer, seat, card}. Raises ``may-i-closed``,
    ``may-i-not-open``, ``may-i-taken``, ``may-i-not-yours``,
    ``may-i-own-discard``, ``repeat-not-kept`` (an offer older than the
    history keeps)."""

    def move(t: Table) -> Transition:
        first = _first_answer(t, _seat_round(t, round_no, seat), offer_no, seat, None, earlier)
        if first is not None:
            return Transition(t, (), first)
        rnd, offer = _offer_for(t, round_no, offer_no, seat)
        if offer.asker is not None:
            raise RuleViolation(
                "may-i-taken",
                f"Seat {offer.asker} asked first for {offer.card}; answer it instead.",
                extra={"offer": offer.n, "asker": offer.asker},
            )
        if rnd.pile_by and rnd.pile_by[-1] == seat:
            raise RuleViolation(
                "may-i-own-discard", f"Seat {seat} discarded {offer.card} itself and may not ask."
            )
        offer = replace(offer, asker=seat)
        rnd = replace(rnd, offer=offer)
        event: Event = {
            "type": "may-i-asked",
            "round": rnd.number,
            "offer": offer.n,
            "seat": seat,
            "card": offer.card,
        }
        return _maybe_resolve(replace(t, round=rnd), [event], now_ms, offer_no)

    return on_time(table, now_ms, move)


def answer(
    table: Table,
    round_no: int,
    offer_no: int,
    seat: int,
    allow: bool,
    now_ms: int,
    earlier: Earlier | None = None,
) -> Transition:
    """``seat`` allows or denies the request of offer ``offer_no`` (4.6);
    when every seat has answered the card is given at once. The same
    answer again (open or closed) answers as the first time (read through
    ``earlier`` as :func:`ask` does); another is ``already-answered``
    (``may-i-closed`` once closed). Other refusals: ``may-i-not-open``,
    ``may-i-not-asked`` (nobody asked yet), ``may-i-not-yours``,
    ``repeat-not-kept``. Event
    ``may-i-answered`` {round, offer, seat, allow}. The answer is also
    the transition's ``choice`` in the request's simultaneous step
    (:func:`step_of`, an ordered one): the store may keep it beside the
    state without taking the version, and the card is then given by
    :func:`settle_due` once every seat has answered or the window closed."""
    said = "allow" if allow else "deny"

    def move(t: Table) -> Transition:
        first = _first_answer(t, _seat_round(t, round_no, seat), offer_no, seat, said, earlier)
        if first is not None:
            return Transition(t, (), first)
        rnd, offer = _offer_for(t, round_no, offer_no, seat)
        if offer.asker is None:
            raise RuleViolation(
                "may-i-not-asked",
                f"Nobody has asked for {offer.card} yet: there is no request to answer.",
                extra={**numbers(t), "offer": offer.n},
            )
        if seat == offer.asker:
            raise RuleViolation("may-i-not-yours", "The asker does not answer its own request.")
        if offer.answers[seat]:
            raise RuleViolation(
                "already-answered", f"Seat {seat} has already answered {offer.answers[seat]}."
            )
        answers = list(offer.answers)
        answers[seat] = said
        # Kept as the store keeps it, in the answers' simultaneous step
        # (4.6: answers of different seats commute; the store gives the
        # answer its place in the order of arrival).
        text = f"{said[0]}{now_ms}"
        marks = list(offer.marks or ("",) * t.seats)
        marks[seat] = f"{text}#{len(offer.order) + 1}"
        key = step_key(rnd)
        offer = replace(
            offer, answers=tuple(answers), order=(*offer.order, seat), marks=tuple(marks)
        )
        rnd = replace(rnd, offer=offer)
        event: Event = {
            "type": "may-i-answered",
            "round": rnd.number,
            "offer": offer.n,
            "seat": seat,
            "allow": allow,
        }
        needed = len(_answerers(t.seats, rnd.on_turn, offer))
        choice = Choice(key, seat, text, needed, (event,), ordered=True)
        done = _maybe_resolve(replace(t, round=rnd), [event], now_ms, offer_no)
        return replace(done, choice=choice)

    return on_time(table, now_ms, move)


def _maybe_resolve(table: Table, events: list[Event], now_ms: int, offer_no: int) -> Transition:
    """Give the card at once when every seat that answers has answered."""
    rnd = table.round
    assert rnd is not None and rnd.offer is not None
    offer = rnd.offer
    rebuilt: Shuffled = []
    if offer.asker is not None and not awaited(table.seats, rnd.on_turn, offer):
        table, more, rebuilt = _close_offer(table, now_ms)
        events.extend(more)
    done = table.round
    assert done is not None
    outcome = _may_i_outcome(table, done, offer_no)
    return Transition(table, tuple(events), outcome, shuffles=tuple(rebuilt))


def _may_i_outcome(table: Table, rnd: Round, offer_no: int) -> dict[str, Any]:
    return {
        "round": rnd.number,
        "offer": offer_no,
        "open": rnd.offer is not None and rnd.offer.n == offer_no,
        "current_offer": None if rnd.offer is None else offer_json(rnd.offer),
        "step": rnd.step.value,
        "on_turn": rnd.on_turn if rnd.playing else None,
    }


# --- the end ---------------------------------------------------------------------


def end_round(table: Table, out: int | None, abandoned: bool = False) -> tuple[Table, list[Event]]:
    """Score the round (4.8): +20 for the seat that went out, minus the
    value of its cards for every other; the match ends after round 5."""
    rnd = table.round
    assert rnd is not None
    penalties = tuple(hand_value(h) for h in rnd.hands)
    if rnd.offer is not None:  # kept, so that a repeat of its request still answers
        rnd = replace(rnd, closed=(*rnd.closed, replace(rnd.offer, marks=())))
    if abandoned:
        points = (0,) * table.seats
    else:
        points = tuple(OUT_BONUS if s == out else -p for s, p in enumerate(penalties))
    result = RoundResult(
        round=rnd.number,
        dealer=rnd.dealer,
        out=out,
        cards_left=tuple(len(h) for h in rnd.hands),
        penalties=penalties,
        points=points,
        abandoned=abandoned,
    )
    # The seat that went out, whichever the ending (``immediate`` ends here).
    rnd = replace(
        rnd,
        step=Step.OVER,
        offer=None,
        final=(),
        result=result,
        out=rnd.out if out is None else out,
    )
    totals = tuple(a + b for a, b in zip(table.points, points, strict=True))
    if not abandoned:
        table = replace(table, played=table.played + 1, last=result)
    table = replace(table, round=rnd, points=totals)
    events: list[Event] = []
    if not abandoned:
        events.append({"type": "round-over", **result_json(result)})
    if not abandoned and table.played >= ROUNDS:
        table = replace(table, match_status=MatchStatus.WON, match_winners=leaders(totals))
        events.append({"type": "match-won", **match_json(table)})
    return table, events


def finish(table: Table, now_ms: int) -> Transition:
    """The host ends the match: a round in play is abandoned (not scored);
    the match is ``abandoned`` with no winner."""
    if table.match_status is not MatchStatus.IN_PROGRESS:
        raise RuleViolation("match-over", "The match is already over.", extra=numbers(table))
    events: list[Event] = []
    rnd = table.round
    if rnd is not None and rnd.playing:
        table, _ = end_round(table, None, abandoned=True)  # not scored, not listed
        events.append({"type": "round-abandoned", "round": rnd.number})
    table = replace(table, match_status=MatchStatus.ABANDONED, match_winners=())
    events.append({"type": "match-abandoned", **match_json(table)})
    return Transition(table, tuple(events), match_json(table))


def outcome(table: Table, move_no: int, earlier: Earlier | None = None) -> dict[str, Any]:
    """The answer to move ``move_no`` of the current round: ``{"round",
    "move", "seat", "action", "argument", "next_move", "on_turn", "step",
    "may_i", "round_status", "result", "match", "hand"}``, where the round
    stood just after that move (its note, :func:`snapshot`) and the mover's
    hand then; ``result`` and an ended ``match`` only for the move that
    ended the round. So a repeat of an earlier move answers exactly as it
    did, whatever came after (later moves, May I?, the host's finish). An
    older move than the last is read through ``earlier`` (the history);
    raises ``repeat-not-kept`` when it is no longer kept."""
    rnd = table.round
    assert rnd is not None
    kept = _kept_move(rnd, move_no, earlier)
    if kept is None:
        raise _not_kept(table, f"Move {move_no} of round {rnd.number}")
    return _outcome(table, kept)


def _outcome(table: Table, kept: Kept) -> dict[str, Any]:
    rnd = table.round
    assert rnd is not None
    move_no = kept.move_no
    seat, action, arg = kept.record.split(":", 2)
    if kept.note:
        on_turn, step, offer_no, cards = kept.note.split("|")
        hand = [cards[i : i + 2] for i in range(0, len(cards), 2)]
        offer = next((o for o in kept.offers if str(o.n) == offer_no), None)
        may_i = None if offer is None else offer_json(_fresh(offer, table.seats))
    else:  # a state kept before moves were noted: as the round stands now
        on_turn, step, hand = str(rnd.on_turn), rnd.step.value, list(rnd.hands[int(seat)])
        may_i = None if rnd.offer is None else offer_json(rnd.offer)
    playing = step != Step.OVER.value
    won = not playing and table.match_status is MatchStatus.WON
    return {
        "round": rnd.number,
        "move": move_no,
        "seat": int(seat),
        "action": action,
        "argument": json.loads(arg),
        "next_move": move_no + 1 if playing else None,
        "on_turn": int(on_turn) if playing else None,
        "step": step,
        "may_i": may_i,
        "round_status": "playing" if playing else "over",
        "result": None if playing or rnd.result is None else result_json(rnd.result),
        "match": match_json(table)
        if won
        else {"status": MatchStatus.IN_PROGRESS.value, "winners": []},
        "hand": hand,
    }


__all__ = ["CONTRACTS", "JOKER", "ask", "answer", "create_table", "finish", "start_round", "turn"]
