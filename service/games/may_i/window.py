"""The May I? window (RULES.md 4.6): an offer of the discard, who may answer
it, when it closes (by the clock or by the last answer) and who takes the
card, with the stock it is drawn from; a table's simultaneous step."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..base import Step as SimultaneousStep
from ..base import (
    Transition,
)
from ..drbg import shuffled
from .melds import (
    sort_hand,
)
from .scoring import Event
from .state import Offer, Round, Step, Table

Shuffled = list[dict[str, Any]]
"""The stocks a step rebuilt (``Transition.shuffles``: round, label, deck, order)."""


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


def _fresh(offer: Offer, seats: int) -> Offer:
    """The offer as it was opened: nobody asked, nobody answered."""
    return replace(offer, asker=None, answers=("",) * seats, order=())


def offer_json(offer: Offer) -> dict[str, Any]:
    return {
        "offer": offer.n,
        "card": offer.card,
        "opened_ms": offer.opened_ms,
        "until_ms": offer.until_ms,
        "asker": offer.asker,
        "answers": {str(s): a for s, a in enumerate(offer.answers) if a},
    }
