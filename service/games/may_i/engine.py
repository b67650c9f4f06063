"""Pure transitions of a May I? table (the project's rule book, 4): the
table, the deal, a turn and the host's finish. The May I? window is
:mod:`.window` (with the clock), its requests and answers :mod:`.asking`,
the numbered moves and their repeats :mod:`.numbered`, the endings
:mod:`.scoring`; this module's ``__all__`` names what others read of them.

Every transition takes a :class:`~.state.Table`, the move's arguments and
``now_ms`` and returns a :class:`~service.games.base.Transition`; a refused
move raises :class:`~service.games.errors.RuleViolation` and changes
nothing (but a May I? window that closed by itself before it, see
:func:`on_time`, is kept). No clock and no random source of its own.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..base import (
    Shuffler,
    Transition,
    deal_order,
    draw_secret,
    seat_first_dealer,
)
from ..cards import CardError
from ..errors import FieldError, Kind, RuleViolation, register_codes
from ..match import check_dealable
from .asking import answer, ask
from .codec import archived
from .melds import (
    CONTRACTS,
    JOKER,
    Meld,
    MeldError,
    check_contract,
    contract_text,
    fits,
    lay_off,
    lay_off_end,
    parse,
    sort_hand,
    take,
)
from .numbered import (
    Earlier,
    _current,
    _invalid,
    _kept_move,
    _not_kept,
    _outcome,
    _over,
    numbers,
    outcome,
)
from .options import deck_for, resolve_options
from .scoring import Event, _next_final, _went_out, blocked, can_place, end_round, match_json
from .state import Cards, MatchStatus, Round, Step, Table
from .window import (
    Shuffled,
    _draw,
    _open_offer,
    _take_top,
    awaited,
    due_at,
    fold_choices,
    offer_json,
    on_time,
    reshuffle_label,
    settle_due,
    step_of,
    taker_of,
)

HAND_SIZE = 10
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


# --- a turn --------------------------------------------------------------------


def parse_args(action: str, arg: Any) -> Any:
    """A move's argument in canonical form (cards parsed: ``"10c"`` is
    ``"TC"``), as a round's record holds it (RULES.md 5.2); 422
    ``move-invalid`` for one that is not of its action's form."""
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
    canonical = parse_args(action, arg)
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


# --- the end ---------------------------------------------------------------------


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


# The game's transitions, and what the views, the bots and the tests read of
# the window, the numbered moves and the endings, from their modules.
__all__ = [
    "CONTRACTS",
    "JOKER",
    "ask",
    "answer",
    "create_table",
    "finish",
    "start_round",
    "turn",
    "Earlier",
    "awaited",
    "blocked",
    "can_place",
    "due_at",
    "end_round",
    "fold_choices",
    "numbers",
    "offer_json",
    "outcome",
    "reshuffle_label",
    "settle_due",
    "step_of",
    "taker_of",
]
