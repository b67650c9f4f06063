"""The automatic players of every game through the :class:`~service.games.base.Game`
interface alone (RULES.md 5.3, 5.4): ``turn_of``, ``bot_move``, ``play`` and
``default_move``, as the deadline worker uses them."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest

from service.games import GAMES
from service.games.base import Game

CASES = [
    ("my-ship-sails", "classic", 4),
    ("sevens", "sevens", 4),
    ("may-i", "may-i", 4),
]


def _finish_match(game: Game, variant: str, seats: int, kind: str, seed: int) -> tuple[Any, int]:
    """Deal and play every round with ``kind`` at every seat until the
    match ends; returns the table and the moves made."""
    rng = random.Random(seed)
    names = [f"P{i}" for i in range(seats)]
    # May I? is always its five contracts (RULES.md 4.3).
    overrides: dict[str, Any] = {} if game.name == "may-i" else {"match": {"deals": 2}}
    if game.name == "my-ship-sails":  # random passes may never make a hand
        overrides["max_exchanges"] = 200
    table = game.create_table(variant, overrides, names, 0, rng).table
    now, moves = 1_000, 0
    assert game.turn_of(table) is None  # nobody moves before the deal
    while game.public_view(table, now)["match"]["status"] == "in-progress":
        table = game.start_round(table, rng, now, {}).table
        while (turn := game.turn_of(table)) is not None:
            if moves >= 3_000:  # random May I? players rarely go out: end it
                assert (game.name, kind) == ("may-i", "random")
                return game.finish(table, now).table, moves
            moved = False
            for seat in (*turn.seats, *turn.optional):
                move = game.bot_move(table, seat, kind, rng)  # type: ignore[misc]
                if move is None:
                    continue
                table = game.play(table, seat, move, now).table
                moves += 1
                moved = True
                break
            now += 1
            if not moved:  # a window nobody acts in: let the clock close it
                at = game.due_at(table)
                assert at is not None
                now = max(now, at)
            table = game.due(table, now).table
    return table, moves


@pytest.mark.parametrize("kind", ["basic", "random"])
@pytest.mark.parametrize(("name", "variant", "seats"), CASES)
def test_bots_play_a_match_to_its_end(name: str, variant: str, seats: int, kind: str) -> None:
    game = GAMES[name]
    table, moves = _finish_match(game, variant, seats, kind, seed=7)
    view = game.public_view(table, 0)
    if (name, kind) == ("may-i", "random"):
        assert view["match"]["status"] in ("won", "abandoned")
    else:
        assert view["match"]["status"] == "won"
        assert view["rounds_played"] == (5 if name == "may-i" else 2)
    assert moves > seats


@pytest.mark.parametrize(("name", "variant", "seats"), CASES)
def test_default_move_is_basic_and_deterministic(name: str, variant: str, seats: int) -> None:
    game = GAMES[name]
    rng = random.Random(3)
    table = game.create_table(variant, {}, [f"P{i}" for i in range(seats)], 0, rng).table
    table = game.start_round(table, rng, 0, {}).table
    for _ in range(30):
        turn = game.turn_of(table)
        if turn is None or not turn.seats:  # the round is over, or a window
            break
        seat = turn.seats[0]
        move = game.default_move(table, seat)  # type: ignore[misc]
        assert move == game.default_move(table, seat)  # type: ignore[misc]
        assert move == game.bot_move(table, seat, "basic", random.Random(99))  # type: ignore[misc]
        table = game.play(table, seat, move, 0).table
        table = game.due(table, 0).table


def _hide_others(table: Any, seat: int, rng: random.Random) -> Any:
    """The table with every other seat's hand dealt again from their cards
    (sizes kept) and any stock shuffled: what ``seat`` cannot see, changed."""
    rnd = table.round
    pool = [c for s, h in enumerate(rnd.hands) if s != seat for c in h]
    rng.shuffle(pool)
    hands = []
    for s, h in enumerate(rnd.hands):
        if s == seat:
            hands.append(h)
        else:
            hands.append(tuple(pool[: len(h)]))
            del pool[: len(h)]
    changes: dict[str, Any] = {"hands": tuple(hands)}
    if hasattr(rnd, "stock"):
        stock = list(rnd.stock)
        rng.shuffle(stock)
        changes["stock"] = type(rnd.stock)(stock)
    return dataclasses.replace(table, round=dataclasses.replace(rnd, **changes))


@pytest.mark.parametrize(("name", "variant", "seats"), CASES)
def test_basic_sees_only_its_seat(name: str, variant: str, seats: int) -> None:
    """RULES.md 5.4: a bot is never told what its seat could not see: its
    move stays the same whatever the other hands and the stock hold."""
    game = GAMES[name]
    rng = random.Random(5)
    table = game.create_table(variant, {}, [f"P{i}" for i in range(seats)], 0, rng).table
    table = game.start_round(table, rng, 0, {}).table
    checked, now = 0, 0
    for _ in range(60):
        turn = game.turn_of(table)
        if turn is None:
            break
        if not turn.seats:  # a window: let the clock close it
            now = game.due_at(table) or now
            table = game.due(table, now).table
            continue
        seat = turn.seats[0]
        move = game.bot_move(table, seat, "basic", None)  # type: ignore[misc]
        for trial in range(3):
            other = _hide_others(table, seat, random.Random(trial))
            assert game.bot_move(other, seat, "basic", None) == move  # type: ignore[misc]
            checked += 1
        table = game.play(table, seat, move, now).table
        table = game.due(table, now).table
    assert checked >= 30


def test_turn_keys_name_one_step() -> None:
    """A deadline belongs to one step: each move moves the key on."""
    game = GAMES["sevens"]
    rng = random.Random(1)
    table = game.create_table("sevens", {}, ["A", "B", "C"], 0, rng).table
    table = game.start_round(table, rng, 0, {}).table
    keys = []
    for _ in range(5):
        turn = game.turn_of(table)
        assert turn is not None and len(turn.seats) == 1
        keys.append(turn.key)
        move = game.default_move(table, turn.seats[0])  # type: ignore[misc]
        table = game.play(table, turn.seats[0], move, 0).table
    assert keys == ["r1t1", "r1t2", "r1t3", "r1t4", "r1t5"]
