"""A repeated move, May I? request or answer is answered exactly as the
first time and changes nothing, whatever came after it in the round
(later moves, offers that closed, the round's end, the host's finish);
another body for a move number already taken is ``stale-move``."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from service.games.base import Transition
from service.games.errors import RuleViolation
from service.games.may_i import engine, views
from service.games.may_i.state import Step, Table

from .common import T0, dealt, new_table

Request = tuple[str, tuple[Any, ...]]


def send(table: Table, request: Request, now: int) -> Transition:
    kind, args = request
    if kind == "move":
        return engine.turn(table, *args, now)
    if kind == "ask":
        return engine.ask(table, *args, now)
    return engine.answer(table, *args, now)


def play(table: Table, rng: random.Random, now: int) -> tuple[Table, int, Request | None, Any]:
    """One random legal request (a move from the seat view's ``may`` list,
    a May I? request or answer) or the window closing; the request and its
    answer, if one was made."""
    rnd = table.round
    assert rnd is not None
    if rnd.step is Step.MAY_I and rnd.offer is not None:
        offer = rnd.offer
        others = [s for s in range(table.seats) if s != rnd.on_turn]
        if offer.asker is None:
            askers = [s for s in others if rnd.pile_by[-1] != s]
            if askers and rng.random() < 0.6:
                request: Request = ("ask", (rnd.number, offer.n, rng.choice(askers)))
                return table, now, request, send(table, request, now)
        else:
            waiting = [s for s in others if s != offer.asker and not offer.answers[s]]
            if waiting and rng.random() < 0.7:
                seat, allow = rng.choice(waiting), rng.random() < 0.5
                request = ("answer", (rnd.number, offer.n, seat, allow))
                return table, now, request, send(table, request, now)
        return engine.settle_due(table, offer.until_ms).table, offer.until_ms, None, None
    seat = rnd.on_turn
    view = views.seat_view(table, seat, now)
    options: list[tuple[str, Any]] = []
    for action in view["may"]:
        if action in ("take_discard", "decline", "draw", "done"):
            options.append((action, None))
        elif action == "discard":
            options += [("discard", c) for c in view["discardable"]]
        elif action == "lay_off":
            options += [
                ("lay_off", {"card": c, "meld": m, "end": "high"})
                for c, melds in view["lay_offs"].items()
                for m in melds
            ]
    lay_down = view["contract"]
    if lay_down:
        options = [("lay_down", lay_down)] * 4 + options
    action, arg = rng.choice(options)
    request = ("move", (rnd.number, rnd.move, seat, action, arg))
    try:
        answer = send(table, request, now)
    except RuleViolation:  # a joker's end that does not fit: try the other end
        assert action == "lay_off"
        request = ("move", (rnd.number, rnd.move, seat, action, {**arg, "end": "low"}))
        answer = send(table, request, now)
    return table, now + 1, request, answer


def check_repeats(table: Table, made: list[tuple[Request, dict[str, Any]]], now: int) -> None:
    for request, first in made:
        again = send(table, request, now)
        assert again.table is table and not again.events, request
        assert again.outcome == first, request


@settings(max_examples=15, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    seats=st.integers(3, 6),
    ending=st.sampled_from(["immediate", "lay-off-round", "play-out"]),
)
def test_every_repeat_in_a_round_answers_as_the_first_time(
    seed: int, seats: int, ending: str
) -> None:
    rng = random.Random(seed)
    table = engine.create_table(
        "may-i", {"ending": ending}, [f"P{i}" for i in range(seats)], 0, rng
    ).table
    table = engine.start_round(table, rng, T0, {}).table
    now = T0
    made: list[tuple[Request, dict[str, Any]]] = []
    for _ in range(300):
        rnd = table.round
        assert rnd is not None
        if not rnd.playing:
            break
        table, now, request, answer = play(table, rng, now)
        if request is not None:
            made.append((request, answer.outcome))
            table = answer.table
        if rng.random() < 0.1:
            check_repeats(table, made, now)
    check_repeats(table, made, now)
    rnd = table.round
    assert rnd is not None
    if rnd.playing:
        table = engine.finish(table, now).table
        check_repeats(table, made, now)


def test_a_repeat_after_the_offer_closed_and_the_host_finished() -> None:
    table = dealt(discard="2C")
    t = engine.turn(table, 1, 1, 1, "decline", None, T0)
    declined = t.outcome
    assert declined["may_i"]["card"] == "2C" and declined["step"] == "may-i"
    table = t.table
    asked = engine.ask(table, 1, 1, 3, T0 + 1)
    table = asked.table
    denied = engine.answer(table, 1, 1, 2, False, T0 + 2)
    table = denied.table
    last = engine.answer(table, 1, 1, 0, True, T0 + 3)
    table = last.table
    assert last.outcome["open"] is False and last.outcome["step"] == "stock"
    drawn = engine.turn(table, 1, 2, 1, "draw", None, T0 + 4)
    table = drawn.table
    table = engine.finish(table, T0 + 5).table
    for request, first in [
        (("move", (1, 1, 1, "decline", None)), declined),
        (("ask", (1, 1, 3)), asked.outcome),
        (("answer", (1, 1, 2, False)), denied.outcome),
        (("answer", (1, 1, 0, True)), last.outcome),
        (("move", (1, 2, 1, "draw", None)), drawn.outcome),
    ]:
        again = send(table, request, T0 + 6)
        assert again.table is table and again.outcome == first
    assert drawn.outcome["match"] == {"status": "in-progress", "winners": []}
    assert drawn.outcome["hand"] == engine.outcome(table, 2)["hand"]
    assert len(drawn.outcome["hand"]) == 11


def test_another_body_for_a_move_taken_is_stale() -> None:
    table = engine.turn(dealt(), 1, 1, 1, "take_discard", None, T0).table
    for action in ("decline", "draw"):
        try:
            engine.turn(table, 1, 1, 1, action, None, T0)
        except RuleViolation as refused:
            assert refused.code == "stale-move"
        else:
            raise AssertionError(action)
    assert new_table().round is None
