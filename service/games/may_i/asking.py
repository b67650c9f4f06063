"""May I? requests and their answers (RULES.md 4.6): a seat asks for the
discard, the seats before it answer; the window resolves on the last answer
or by the clock (:mod:`.window`)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..base import (
    Choice,
    Transition,
)
from ..errors import RuleViolation
from .numbered import Earlier, _current, _kept_offer, _not_kept, _over, numbers
from .scoring import Event
from .state import Offer, Round, Table
from .window import (
    Shuffled,
    _answerers,
    _close_offer,
    _fresh,
    awaited,
    offer_json,
    on_time,
    step_key,
)


def _seat_round(table: Table, round_no: int, seat: int) -> Round:
    if not 0 <= seat < table.seats:
        raise RuleViolation("seat-not-found", f"There is no seat {seat} at this table.")
    return _current(table, round_no)


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
