"""service.clock's pause (RULES.md 5.3, 5.4, and what they leave open): after
``unattended_moves`` moves in a row by the referee, an away person gets no
default move, a bot of a table with a person still moves, and a table of bots
only stops."""

from __future__ import annotations

import random
from dataclasses import replace

from service import clock
from service.games import GAMES
from service.storage.store import Control


def _dealt() -> tuple[object, str]:
    game = GAMES["sevens"]
    rng = random.Random(4)
    table = game.create_table("sevens", {}, ["A", "B", "C", "D"], 0, rng).table
    table = game.start_round(table, rng, 0, {}).table
    turn = game.turn_of(table)
    assert turn is not None
    return table, str(turn.key)


def test_a_paused_table_waits_for_its_people_and_a_table_of_bots_only_stops() -> None:
    table, key = _dealt()
    on_turn = GAMES["sevens"].turn_of(table).seats[0]  # type: ignore[union-attr]
    options = {"turn_timeout_ms": 1000, "unattended_moves": 10}
    person = Control(away=frozenset({on_turn}), clock=options, opened=(key, 5_000))
    assert clock.deadlines(table, person) == (key, {on_turn: 5_000 + 2_000})
    assert not clock.paused(replace_count(person, 9))
    assert clock.deadlines(table, replace_count(person, 10)) == (key, {})
    assert clock.paused(replace_count(person, 10))
    # A bot on turn at a table with a person plays on, paused or not.
    others = {s: {"kind": "basic"} for s in range(4) if s != (on_turn + 1) % 4}
    bot = Control(bots=others, clock=options, opened=(key, 5_000), unattended=10)
    assert clock.deadlines(table, bot) == (key, {on_turn: 5_000 + 600})
    # Bots only: it stops.
    every = Control(
        bots={s: {"kind": "basic"} for s in range(4)}, clock=options, opened=(key, 5_000)
    )
    assert clock.deadlines(table, every) == (key, {on_turn: 5_600})
    assert clock.deadlines(table, replace_count(every, 10)) == (key, {})
    assert clock.next_instant(table, replace_count(every, 10)) is None
    # The default: a thousand.
    assert clock.options_of({})["unattended_moves"] == 1000


def replace_count(control: Control, count: int) -> Control:
    return replace(control, unattended=count)
