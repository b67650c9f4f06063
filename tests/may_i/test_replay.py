"""A repeated move, May I? request or answer is answered exactly as the
first time and changes nothing, whatever came after it in the round
(later moves, offers that closed, the round's end, the host's finish),
while the table's history keeps it (older: ``repeat-not-kept``); another
body for a move number already taken is ``stale-move``."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.games.base import Transition
from service.games.errors import RuleViolation
from service.games.may_i import engine, views
from service.games.may_i.state import Step, Table

from .common import T0, History, dealt, new_table

Request = tuple[str, tuple[Any, ...]]


def send(table: Table, request: Request, now: int, history: History | None = None) -> Transition:
    kind, args = request
    earlier = None if history is None else history.read
    if kind == "move":
        done = engine.turn(table, *args, now, earlier)
    elif kind == "ask":
        done = engine.ask(table, *args, now, earlier)
    else:
        done = engine.answer(table, *args, now, earlier)
    return done if history is None else history.apply(done)


def play(
    table: Table, rng: random.Random, now: int, history: History
) -> tuple[Table, int, Request | None, Any]:
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
                return table, now, request, send(table, request, now, history)
        else:
            waiting = [s for s in others if s != offer.asker and not offer.answers[s]]
            if waiting and rng.random() < 0.7:
                seat, allow = rng.choice(waiting), rng.random() < 0.5
                request = ("answer", (rnd.number, offer.n, seat, allow))
                return table, now, request, send(table, request, now, history)
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
        answer = send(table, request, now, history)
    except RuleViolation:  # a joker's end that does not fit: try the other end
        assert action == "lay_off"
        request = ("move", (rnd.number, rnd.move, seat, action, {**arg, "end": "low"}))
        answer = send(table, request, now, history)
    return table, now + 1, request, answer


Made = list[tuple[Request, dict[str, Any], int]]
"""Requests made, each with its answer and the move it followed (a move: itself)."""


def check_repeats(table: Table, made: Made, now: int, history: History) -> None:
    """Every request made is answered again as the first time while its
    move is kept (the last one in the state, the ``kept`` before it in the
    history), else refused ``repeat-not-kept``; either way nothing changes."""
    rnd = table.round
    assert rnd is not None
    for request, first, after_move in made:
        if after_move >= rnd.taken - history.kept:
            again = send(table, request, now, history)
            assert again.table is table and not again.events, request
            assert again.outcome == first, request
        else:
            with pytest.raises(RuleViolation) as refused:
                send(table, request, now, history)
            assert refused.value.code == "repeat-not-kept", request


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
    history = History(kept=12)
    table = history.apply(engine.start_round(table, rng, T0, {})).table
    now = T0
    made: Made = []
    for _ in range(300):
        rnd = table.round
        assert rnd is not None
        if not rnd.playing:
            break
        table, now, request, answer = play(table, rng, now, history)
        if request is not None:
            assert answer.table.round is not None
            made.append((request, answer.outcome, answer.table.round.taken))
            table = answer.table
        if rng.random() < 0.1:
            check_repeats(table, made, now, history)
    check_repeats(table, made, now, history)
    rnd = table.round
    assert rnd is not None
    if rnd.playing:
        table = engine.finish(table, now).table
        check_repeats(table, made, now, history)


def test_a_repeat_after_the_offer_closed_and_the_host_finished() -> None:
    history = History()
    table = dealt(discard="2C")
    t = history.apply(engine.turn(table, 1, 1, 1, "decline", None, T0, history.read))
    declined = t.outcome
    assert declined["may_i"]["card"] == "2C" and declined["step"] == "may-i"
    table = t.table
    asked = history.apply(engine.ask(table, 1, 1, 3, T0 + 1, history.read))
    table = asked.table
    denied = history.apply(engine.answer(table, 1, 1, 2, False, T0 + 2, history.read))
    table = denied.table
    last = history.apply(engine.answer(table, 1, 1, 0, True, T0 + 3, history.read))
    table = last.table
    assert last.outcome["open"] is False and last.outcome["step"] == "stock"
    drawn = history.apply(engine.turn(table, 1, 2, 1, "draw", None, T0 + 4, history.read))
    table = drawn.table
    # The draw sent the decline and its offer to the history; the state keeps the draw.
    assert len(history.texts) == 1 and table.round is not None and table.round.closed == ()
    table = engine.finish(table, T0 + 5).table
    for request, first in [
        (("move", (1, 1, 1, "decline", None)), declined),
        (("ask", (1, 1, 3)), asked.outcome),
        (("answer", (1, 1, 2, False)), denied.outcome),
        (("answer", (1, 1, 0, True)), last.outcome),
        (("move", (1, 2, 1, "draw", None)), drawn.outcome),
    ]:
        again = send(table, request, T0 + 6, history)
        assert again.table is table and again.outcome == first
        # Without the history only the last move (the draw) is known.
        if request[0] != "move" or request[1][1] != 2:
            with pytest.raises(RuleViolation) as refused:
                send(table, request, T0 + 6)
            assert refused.value.code == "repeat-not-kept"
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
