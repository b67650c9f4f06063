"""How a table grows with the rounds played: an open match of every game,
played by the pure engines' automatic players and committed through the
store as the API commits a move (one commit per round: the round played
whole, then stored, which is what the list of rounds sees of it), read back
through the HTTP API (in process), skipping HTTP for the moves only to fit
the run's time budget.

Figures per game after 1 round and after ``rounds``, each time at a round's
end: the public view's bytes (``GET /v1/tables/{id}``), a seat's view's
bytes, the stored state's bytes (``s``: the hot state every move reads and
decodes), what of it is the match's rather than the round's (the state
with its round left out: the totals, the last result, the bookkeeping) and
the Redis memory of every key of the table (its list of rounds included,
bounded by ``ROUNDS_KEPT``; the moves here write no events). Flat: the
figure after ``rounds`` within :data:`FLAT` of the one after 1 round.

May I?'s match is always 5 rounds (RULES.md 4.1): it is measured after 1
and 5.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import redis

from service.games import codec, game_of
from service.games.base import Transition
from service.games.may_i import simulate as may_i_play
from service.games.sevens import simulate as sevens_play
from service.games.ship import simulate as ship_play
from service.storage.store import Loaded, all_keys, table_key

FLAT = 1.2
"""The most a figure after many rounds may be of the same after 1 round."""

ROUNDS = 200
"""The rounds of an open match measured (May I?: its 5)."""


def _sevens(table: Any, rng: random.Random) -> Any:
    return sevens_play.play_round(table, rng)


def _ship(table: Any, rng: random.Random) -> Any:
    return ship_play.play_round(table, rng, 0)[0]


def _may_i(table: Any, rng: random.Random) -> Any:
    return may_i_play.play_round(table, rng, 0)[0]


GAMES: dict[str, tuple[str, int, dict[str, Any], Callable[[Any, random.Random], Any], int]] = {
    "sevens": ("sevens", 4, {"match": {"open": True}}, _sevens, ROUNDS),
    "my-ship-sails": (
        "mein-schiff",
        4,
        {"match": {"open": True}, "max_exchanges": 50},
        _ship,
        ROUNDS,
    ),
    "may-i": ("may-i", 4, {}, _may_i, 5),
}
"""Per game: its preset, seats, options, a round of its automatic players
(deal and play to the end, pure) and the rounds it is measured after."""


def create(client: Any, variant: str, seats: int, options: dict[str, Any]) -> dict[str, Any]:
    """A table made through the HTTP API (``client``: a Flask test client)."""
    body = {
        "variant": variant,
        "players": [f"P{i}" for i in range(seats)],
        "first_dealer": 0,
        "options": options,
    }
    answer = client.post("/v1/tables", json=body)
    assert answer.status_code == 201, answer.get_json()
    created: dict[str, Any] = answer.get_json()
    return created


def play_rounds(
    store: Any, table_id: str, play: Callable[[Any, random.Random], Any], rounds: int, seed: int
) -> list[dict[str, Any]]:
    """Play ``rounds`` rounds on the stored table, one commit each; returns
    every round's result as the public view showed it right after."""
    rng = random.Random(seed)
    shown = []
    for _ in range(rounds):

        def move(loaded: Loaded) -> Transition:
            return Transition(play(loaded.table, rng))

        _, change = store.apply(table_id, move)
        view = game_of(change.table).public_view(change.table, 0)
        shown.append(view["last_result"])
    return shown


def measure(client: Any, r: redis.Redis, created: dict[str, Any]) -> dict[str, int]:
    """Bytes of the table's public view, seat 0's view, its stored state
    and the Redis memory of all its keys."""
    table_id = created["table_id"]
    view = client.get(f"/v1/tables/{table_id}")
    token = created["seat_tokens"][0]["token"]
    seat = client.get(
        f"/v1/tables/{table_id}/seats/0", headers={"Authorization": f"Bearer {token}"}
    )
    assert view.status_code == 200 and seat.status_code == 200
    state = r.hget(table_key(table_id), "s") or b""
    table = codec.decode(state)
    memory = sum(int(r.memory_usage(k, samples=0) or 0) for k in all_keys(table_id))
    return {
        "public_view_bytes": len(view.data),
        "seat_view_bytes": len(seat.data),
        "state_bytes": len(state),
        "match_state_bytes": len(codec.encode(replace(table, round=None)).encode()),
        "memory_bytes": memory,
        "rounds_played": json.loads(view.data)["rounds_played"],
    }


def grow(app: Any, r: redis.Redis, game: str, seed: int = 1) -> dict[str, Any]:
    """``game``'s table after 1 round and after its :data:`GAMES` rounds."""
    variant, seats, options, play, rounds = GAMES[game]
    client = app.test_client()
    store = app.extensions["referee"].store
    created = create(client, variant, seats, options)
    play_rounds(store, created["table_id"], play, 1, seed)
    first = measure(client, r, created)
    play_rounds(store, created["table_id"], play, rounds - 1, seed + 1)
    last = measure(client, r, created)
    return {
        "variant": variant,
        "seats": seats,
        "rounds": rounds,
        "after_one_round": first,
        "after_rounds": last,
        "ratios": {k: last[k] / first[k] for k in first if k != "rounds_played"},
    }


def growth(url: str, games: Sequence[str] = tuple(GAMES)) -> dict[str, Any]:
    """:func:`grow` for every game, on an in-process app on ``url``."""
    from .redis_cost import in_process_app

    app = in_process_app(url)
    r = redis.Redis.from_url(url)
    return {game: grow(app, r, game) for game in games}
