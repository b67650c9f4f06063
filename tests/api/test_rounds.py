"""A long match does not grow its table: the state and the views hold the
totals and the last round, the finished rounds are listed apart (a list of
the table's own, the newest ``ROUNDS_KEPT``) and paged by
``GET /v1/tables/{id}/rounds``; tables stored with every result in their
state still load, and list them."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
import redis

from benchmarks import growth
from service import create_app
from service.games import GAMES
from service.games.base import Transition
from service.games.may_i.codec import _result_to as may_i_result_to
from service.games.may_i.scoring import result_json as may_i_result_json
from service.games.sevens import engine as sevens_engine
from service.games.sevens import simulate as sevens_play
from service.games.sevens.codec import _result_to as sevens_result_to
from service.games.sevens.options import resolve_options
from service.games.sevens.scoring import result_json as sevens_result_json
from service.games.ship.codec import _result_to as ship_result_to
from service.games.ship.scoring import result_dict as ship_result_json
from service.storage.store import all_keys, rounds_key, table_key

from ..conftest import RedisProcess, settings_for
from ..helpers import bearer


def page_all(client: Any, table_id: str, limit: int, after: int = 0) -> list[dict[str, Any]]:
    """Every round after ``after``, read ``limit`` at a time by following ``next``."""
    found: list[dict[str, Any]] = []
    url = f"/v1/tables/{table_id}/rounds?after={after}&limit={limit}"
    while url:
        answer = client.get(url)
        assert answer.status_code == 200, answer.get_json()
        body = answer.get_json()
        assert len(body["rounds"]) <= limit
        found += body["rounds"]
        assert body["next_after"] == (found[-1]["round"] if found else after)
        assert body["more"] == (body["next"] is not None)
        url = body["next"]
    return found


@pytest.mark.parametrize("game", ["sevens", "my-ship-sails"])
def test_an_open_match_keeps_its_views_and_state_flat_over_200_rounds(
    app: Any, redis_client: redis.Redis, game: str
) -> None:
    grown = growth.grow(app, redis_client, game)
    one, many = grown["after_one_round"], grown["after_rounds"]
    assert (one["rounds_played"], many["rounds_played"]) == (1, 200)
    # The totals' digits may grow; nothing grows per round (it was ~34 KB).
    assert abs(many["public_view_bytes"] - one["public_view_bytes"]) <= 64
    assert abs(many["seat_view_bytes"] - one["seat_view_bytes"]) <= 64
    assert abs(many["state_bytes"] - one["state_bytes"]) <= 96
    assert abs(many["match_state_bytes"] - one["match_state_bytes"]) <= 96


def sevens_match(app: Any, rounds: int, seed: int = 3) -> tuple[dict[str, Any], list[Any]]:
    """An open Sevens match of ``rounds`` rounds; its creation and every
    round's result as the view showed it after the round."""
    created = growth.create(app.test_client(), "parliament", 4, {"match": {"open": True}})
    store = app.extensions["referee"].store
    play = growth.GAMES["sevens"][3]
    shown = growth.play_rounds(store, created["table_id"], play, rounds, seed)
    return created, shown


def test_the_rounds_endpoint_pages_every_round_exactly(app: Any) -> None:
    client = app.test_client()
    created, shown = sevens_match(app, 30)
    table_id = created["table_id"]
    assert [r["round"] for r in shown] == list(range(1, 31))
    assert page_all(client, table_id, 7) == shown
    assert page_all(client, table_id, 100, after=12) == shown[12:]
    first = client.get(f"/v1/tables/{table_id}/rounds?limit=4").get_json()
    assert first["rounds"] == shown[:4] and first["more"] is True
    assert first["next"] == f"/v1/tables/{table_id}/rounds?after=4&limit=4"
    assert (first["last_round"], first["oldest_round"]) == (30, 1)
    done = client.get(f"/v1/tables/{table_id}/rounds?after=30").get_json()
    assert done["rounds"] == [] and done["more"] is False and done["next_after"] == 30
    view = client.get(f"/v1/tables/{table_id}").get_json()
    assert view["rounds_played"] == 30 and view["last_result"] == shown[-1]
    assert "results" not in view
    # Totals are the sum of every round's.
    points = [sum(r["points"][s] for r in shown) for s in range(4)]
    assert [s["points"] for s in view["seats"]] == points
    # One round, listed or the last.
    assert client.get(f"/v1/tables/{table_id}/rounds/5").get_json()["result"] == shown[4]
    assert client.get(f"/v1/tables/{table_id}/rounds/30").get_json()["result"] == shown[-1]
    assert client.get(f"/v1/tables/{table_id}/rounds/31").status_code == 404


def test_the_rounds_endpoint_bounds_its_page_and_refuses_bad_cursors(app: Any) -> None:
    client = app.test_client()
    created, _ = sevens_match(app, 1)
    url = f"/v1/tables/{created['table_id']}/rounds"
    for query in ("limit=0", "limit=101", "after=-1", "after=x", "limit=1.5"):
        answer = client.get(f"{url}?{query}")
        assert answer.status_code == 422, (query, answer.get_json())
    missing = client.get("/v1/tables/AAAAAAAAAAAAAAAAAAAAAAAA/rounds")
    assert missing.status_code == 404 and missing.get_json()["code"] == "table-not-found"


@pytest.fixture()
def kept_10(redis_server: RedisProcess) -> Any:
    return create_app(settings_for(redis_server.url, rounds_kept=10))


def test_the_list_keeps_the_newest_rounds_and_the_totals_stay_exact(
    kept_10: Any, redis_client: redis.Redis
) -> None:
    client = kept_10.test_client()
    created, shown = sevens_match(kept_10, 25)
    table_id = created["table_id"]
    assert redis_client.llen(rounds_key(table_id)) == 10
    gone = client.get(f"/v1/tables/{table_id}/rounds")
    assert gone.status_code == 410
    problem = gone.get_json()
    assert problem["code"] == "rounds-gone"
    assert (problem["oldest_round"], problem["last_round"]) == (16, 25)
    assert page_all(client, table_id, 3, after=15) == shown[15:]
    view = client.get(f"/v1/tables/{table_id}").get_json()
    chips = [sum(r["chips"][s] for r in shown) for s in range(4)]
    points = [sum(r["points"][s] for r in shown) for s in range(4)]
    assert [s["chips"] for s in view["seats"]] == chips
    assert [s["points"] for s in view["seats"]] == points
    # What the match rules read still counts every round: the dealer rotation.
    assert view["dealer"] == 25 % 4 and view["rounds_played"] == 25
    assert client.get(f"/v1/tables/{table_id}/rounds/3").status_code == 404  # no longer kept


def test_the_rounds_expire_and_are_deleted_with_the_table(
    app: Any, redis_client: redis.Redis
) -> None:
    created, _ = sevens_match(app, 3)
    table_id = created["table_id"]
    assert redis_client.llen(rounds_key(table_id)) == 3
    assert rounds_key(table_id) in all_keys(table_id)
    ttl = redis_client.ttl(table_key(table_id))
    assert ttl > 3000 and abs(redis_client.ttl(rounds_key(table_id)) - ttl) <= 1
    answer = app.test_client().delete(
        f"/v1/tables/{table_id}", headers=bearer(created["host_token"])
    )
    assert answer.status_code == 204
    assert redis_client.exists(table_key(table_id), rounds_key(table_id)) == 0


def test_a_sevens_deals_match_still_ends_on_its_deals_and_rotates_the_dealer() -> None:
    rng = random.Random(4)
    table = sevens_engine.create_table("parliament", {"match": {"deals": 7}}, ["A"] * 3, 1, rng)
    t = table.table
    dealers = []
    while t.match_status.value == "in-progress":
        t = sevens_play.play_round(t, rng)
        assert t.round is not None
        dealers.append(t.round.dealer)
    assert t.played == 7 and dealers == [(1 + i) % 3 for i in range(7)]


def old_state(text: str, results: list[list[Any]], fmt: int) -> str:
    """``text`` (a state of today) as a state of format ``fmt`` stored it:
    every finished round's result in ``res``, no count and no last one."""
    data = json.loads(text)
    data["fmt"] = fmt
    for key in ("pl", "last", "fx"):
        data.pop(key, None)
    data["res"] = results
    rnd = data.get("rnd")
    if data.get("g") == "may-i" and fmt == 1 and rnd is not None:
        # May I?'s format 1 also kept every move of the round (none here: the
        # rounds were played straight through the engine) and a 24-bit secret.
        for key in ("lm", "ln", "lg", "sc"):
            rnd.pop(key, None)
        rnd.update({"m": [], "af": [], "cl": [], "sd": 1})
    return json.dumps(data, separators=(",", ":"))


RESULTS = {
    "sevens": (sevens_result_to, lambda r: sevens_result_json(r, SEVENS_OPTIONS)),
    "my-ship-sails": (ship_result_to, ship_result_json),
    "may-i": (may_i_result_to, may_i_result_json),
}
"""Per game: a result as the old state kept it, and as the view shows it."""
SEVENS_OPTIONS = resolve_options("sevens", {"match": {"open": True}}, 4)


def played_round(store: Any, table_id: str, play: Any, seed: int) -> Any:
    """Play one round on the stored table (one commit); its result."""
    rng = random.Random(seed)
    _, change = store.apply(table_id, lambda loaded: Transition(play(loaded.table, rng)))
    return change.table.last


@pytest.mark.parametrize("game", ["sevens", "my-ship-sails", "may-i"])
def test_a_table_stored_with_every_result_in_its_state_lists_them_and_plays_on(
    app: Any, redis_client: redis.Redis, game: str
) -> None:
    client = app.test_client()
    variant, seats, options, play, _ = growth.GAMES[game]
    created = growth.create(client, variant, seats, options)
    table_id = created["table_id"]
    store = app.extensions["referee"].store
    n = 3 if game == "may-i" else 6  # May I?: a match of 5 rounds
    played = [played_round(store, table_id, play, seed) for seed in range(n)]
    shown = [RESULTS[game][1](r) for r in played]
    # As the release before stored it: the results in the state, no list.
    codec = GAMES[game]
    table = codec.decode(redis_client.hget(table_key(table_id), "s"))
    results = [RESULTS[game][0](r) for r in played]
    fmt = 3 if game == "my-ship-sails" else 1
    redis_client.hset(table_key(table_id), "s", old_state(codec.encode(table), results, fmt))
    redis_client.hdel(table_key(table_id), "r")
    redis_client.delete(rounds_key(table_id))
    view = client.get(f"/v1/tables/{table_id}").get_json()
    assert view["rounds_played"] == n and view["last_result"] == shown[-1]
    assert page_all(client, table_id, 4) == shown
    assert client.get(f"/v1/tables/{table_id}/rounds/2").get_json()["result"] == shown[1]
    # The next move writes it anew: its rounds move to the list.
    more = growth.play_rounds(store, table_id, play, 1, seed=9)
    stored = json.loads(redis_client.hget(table_key(table_id), "s"))
    assert "res" not in stored and stored["pl"] == n + 1
    assert redis_client.llen(rounds_key(table_id)) == n + 1
    assert page_all(client, table_id, 5) == shown + more
