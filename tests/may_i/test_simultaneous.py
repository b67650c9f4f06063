"""May I? answers as a simultaneous step (issue 13): each answer is one
seat's choice, kept apart from the state in its order of arrival; folding
any set of them in, in any order, gives the card exactly as the same
answers made one after another do (RULES.md 4.6)."""

from __future__ import annotations

import itertools
from dataclasses import replace

import pytest

from service.games.base import Choice
from service.games.errors import RuleViolation
from service.games.may_i import GAME, codec, engine
from service.games.may_i.state import Step, Table

from .common import T0, dealt

ON_TURN, ASKER = 1, 4
ANSWERERS = (0, 2, 3, 5, 6)  # 7 seats; the order of play from seat 1: 2 3 4 5 6 0


def asked() -> Table:
    """7 seats, seat 1 declined 2C, seat 4 asked for it (offer 1)."""
    table = dealt(seats=7, discard="2C")
    table = engine.turn(table, 1, 1, ON_TURN, "decline", None, T0).table
    return engine.ask(table, 1, 1, ASKER, T0 + 1).table


def given(table: Table) -> tuple[int, int]:
    """The seat given offer 1's card and how many stock cards with it."""
    rnd = table.round
    assert rnd is not None and rnd.closed and rnd.closed[0].n == 1
    counts = [len(h) for h in rnd.hands]
    taker = next(s for s, n in enumerate(counts) if n > 10)
    return taker, counts[taker] - 11


def stored(table: Table, arrival: list[int], denies: set[int]) -> dict[int, str]:
    """The choices hash as the store keeps it after these answers arrived
    in this order (each answer's text as the engine made it, numbered)."""
    choices: dict[int, str] = {}
    for place, seat in enumerate(arrival, start=1):
        move = engine.answer(table, 1, 1, seat, seat not in denies, T0 + 10 + place)
        choice = move.choice
        assert isinstance(choice, Choice) and choice.ordered and choice.step == "r1o1"
        assert choice.needed == 5 and choice.seat == seat
        choices[seat] = f"{choice.text}#{place}"
    return choices


def sequential(table: Table, arrival: list[int], denies: set[int]) -> Table:
    for place, seat in enumerate(arrival, start=1):
        table = engine.answer(table, 1, 1, seat, seat not in denies, T0 + 10 + place).table
    return table


def test_the_step_is_the_open_request() -> None:
    table = dealt(seats=7, discard="2C")
    assert engine.step_of(table) is None
    table = engine.turn(table, 1, 1, ON_TURN, "decline", None, T0).table
    assert engine.step_of(table) is None  # offered, nobody asked: no answers yet
    table = engine.ask(table, 1, 1, ASKER, T0 + 1).table
    step = engine.step_of(table)
    assert step is not None
    assert (step.key, step.choosers, dict(step.choices)) == ("r1o1", ANSWERERS, {})
    assert GAME.step_of is engine.step_of and GAME.fold_choices is engine.fold_choices


@pytest.mark.parametrize(
    "denies", [set(c) for n in range(6) for c in itertools.combinations(ANSWERERS, n)]
)
def test_every_arrival_order_gives_the_card_as_answers_one_after_another(denies: set[int]) -> None:
    table = asked()
    expected = engine.taker_of(7, ON_TURN, ASKER, ["deny" if s in denies else "" for s in range(7)])
    for arrival in itertools.permutations(ANSWERERS):
        choices = stored(table, list(arrival), denies)
        folded = engine.fold_choices(table, choices)
        settled = engine.settle_due(folded, T0 + 100)
        assert given(settled.table) == expected, (arrival, denies)
        one_by_one = sequential(table, list(arrival), denies)
        assert codec.encode(settled.table) == codec.encode(one_by_one), (arrival, denies)


def test_a_mixed_set_gives_the_card_by_the_order_of_play_not_of_arrival() -> None:
    table = asked()
    # Seat 0 (after the asker: 2 cards) denies first; seat 3 (before it: 1
    # card) denies last: seat 3 takes, whatever came first.
    arrival = [0, 6, 2, 5, 3]
    choices = stored(table, arrival, {0, 3})
    settled = engine.settle_due(engine.fold_choices(table, choices), T0 + 100).table
    assert given(settled) == (3, 1)
    # Only the seats after the asker deny: the first of them in play (5) takes 2.
    settled = engine.settle_due(
        engine.fold_choices(table, stored(table, arrival, {0, 5})), T0
    ).table
    assert given(settled) == (5, 2)


def test_a_partial_set_waits_then_the_window_gives_silence_as_allow() -> None:
    table = asked()
    choices = stored(table, [6, 0], {0})
    folded = engine.fold_choices(table, choices)
    rnd = folded.round
    assert rnd is not None and rnd.offer is not None
    assert rnd.offer.order == (6, 0) and rnd.offer.answers[0] == "deny"
    assert engine.settle_due(folded, rnd.offer.until_ms - 1).table is folded
    step = engine.step_of(folded)
    assert step is not None and dict(step.choices) == choices
    # Stored and read back with its pending answers, it is the same table.
    assert codec.decode(codec.encode(folded)) == folded
    closed = engine.settle_due(folded, rnd.offer.until_ms).table
    assert given(closed) == (0, 2)  # seat 0 denied, after the asker: 2 cards
    late = pytest.raises(RuleViolation, engine.answer, closed, 1, 1, 2, False, rnd.offer.until_ms)
    assert late.value.code == "may-i-closed"


def test_an_answer_once_given_stands_and_a_repeat_answers_as_the_first_time() -> None:
    table = asked()
    choices = stored(table, [2, 5], set())
    folded = engine.fold_choices(table, choices)
    with pytest.raises(RuleViolation) as refused:
        engine.answer(folded, 1, 1, 5, False, T0 + 20)
    assert refused.value.code == "already-answered"
    # What each answer gets is the table right after it, as a repeat gets.
    first = engine.answer(engine.fold_choices(table, {2: choices[2]}), 1, 1, 2, True, T0 + 30)
    again = engine.answer(folded, 1, 1, 2, True, T0 + 30)
    assert again.table is folded and not again.events
    assert again.outcome == first.outcome
    assert first.outcome["current_offer"]["answers"] == {"2": "allow"}
    fifth = engine.fold_choices(table, stored(table, [2, 5, 0, 3, 6], set()))
    last = engine.answer(fifth, 1, 1, 6, True, T0 + 40)
    assert last.outcome["open"] is False and last.events[0]["type"] == "may-i-given"
    assert last.events[0]["seat"] == ASKER


def test_the_card_is_given_at_the_clock_of_the_last_answer() -> None:
    table = dealt(seats=7, discard="2C")
    rnd = table.round
    assert rnd is not None
    # A pile of two (unit test only: no card conservation): offer 2 follows.
    table = replace(table, round=replace(rnd, pile=("9H", "2C"), pile_by=(-1, -1)))
    table = engine.turn(table, 1, 1, ON_TURN, "decline", None, T0).table
    table = engine.ask(table, 1, 1, ASKER, T0 + 1).table
    folded = engine.fold_choices(table, stored(table, [2, 5, 0, 3, 6], set()))
    settled = engine.settle_due(folded, T0 + 4_000).table
    after = settled.round
    assert after is not None and after.offer is not None and after.step is Step.MAY_I
    # Offer 2 opened when the fifth answer came (T0 + 15), not when settled.
    assert (after.offer.n, after.offer.card, after.offer.opened_ms) == (2, "9H", T0 + 15)
    assert after.closed[0].marks == ()
    assert settled == sequential(table, [2, 5, 0, 3, 6], set())
