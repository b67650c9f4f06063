"""Plays whole rounds of each game through the real HTTP app for the deal
proof tests: every seat seeds the deal, the round is played to its end by
the games' own automatic players (read from the stored state, sent as HTTP
moves), and the record is fetched."""

from __future__ import annotations

import random
from typing import Any

import redis

from service.games import codec
from service.games.may_i import players as may_i_players
from service.games.sevens import players as sevens_players
from service.storage.store import choices_key, table_key

from ..helpers import Table, TableClient, bearer

SETUPS: dict[str, dict[str, Any]] = {
    # A void round after two exchanges: passes only, no claim needed.
    "classic": {"max_exchanges": 2},
    "sevens": {},
    "may-i": {"may_i_window_ms": 0},
}


def swap_apart(cards: list[str]) -> None:
    """Swap the first card with the first different one, in place: a deck of
    two packs holds each card twice, and swapping two alike changes nothing."""
    other = next(i for i, card in enumerate(cards) if card != cards[0])
    cards[0], cards[other] = cards[other], cards[0]


def stored(r: redis.Redis, t: Table) -> Any:
    """The table as stored, its pending choices folded in."""
    state = r.hget(table_key(t.table_id), "s")
    table = codec.decode(state)  # type: ignore[arg-type]
    choices = r.hgetall(choices_key(t.table_id))
    if choices:
        table = codec.fold_choices(table, {int(k): v for k, v in choices.items()})
    return table


def seed_all(tables: TableClient, t: Table, seeds: list[str]) -> None:
    for seat, seed in enumerate(seeds):
        r = tables.client.put(
            f"{t.url}/next-deal/seeds/{seat}", json={"seed": seed}, headers=bearer(t.seats[seat])
        )
        assert r.status_code == 200, r.get_json()


def play_round(tables: TableClient, r: redis.Redis, t: Table, variant: str, number: int) -> None:
    """Play round ``number`` (dealt) of ``t`` to its end."""
    rng = random.Random(number)
    for _ in range(5000):
        view = tables.public(t)
        if view["rounds_played"] >= number:
            return
        table = stored(r, t)
        rnd = table.round
        if variant == "classic":
            exchange = rnd.exchange.number
            for seat in range(table.seats):
                hand = tables.hand(t, seat)
                res = tables.pass_(t, number, exchange, seat, hand[: table.options.pass_count])
                assert res.status_code == 200, res.get_json()
        elif variant == "sevens":
            seat = rnd.on_turn
            move = sevens_players.bot(table, seat, rng)
            body: dict[str, Any] = (
                {"pass": True}
                if move["action"] == "pass"
                else {"play": move["card"], "last_card": move.get("last_card", False)}
            )
            res = tables.client.put(
                f"{t.url}/rounds/{number}/turns/{rnd.turn}",
                json=body,
                headers=bearer(t.seats[seat]),
            )
            assert res.status_code == 200, res.get_json()
        else:
            seat = rnd.on_turn
            move = may_i_players.bot(table, seat, rng)
            arg = move["argument"]
            body = {move["action"]: True if arg is None else arg}
            res = tables.client.put(
                f"{t.url}/rounds/{number}/moves/{view['round']['move']}",
                json=body,
                headers=bearer(t.seats[seat]),
            )
            assert res.status_code == 200, res.get_json()
    raise AssertionError("the round did not end")


def record(tables: TableClient, t: Table, number: int) -> dict[str, Any]:
    res = tables.client.get(f"{t.url}/rounds/{number}/record")
    assert res.status_code == 200, res.get_json()
    return res.get_json()  # type: ignore[no-any-return]
