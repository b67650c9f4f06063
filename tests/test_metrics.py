"""`/metrics` in the Prometheus text format, through the WSGI app, on a Redis of
this module's own (so that the active-tables gauge counts only these tables)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from prometheus_client.parser import text_string_to_metric_families

from service import create_app
from service.metrics import ACTIVE_WINDOW_MINUTES, ActiveTables
from service.storage.store import table_key

from .conftest import RedisProcess, free_port, settings_for
from .helpers import TableClient, play_worked_round

PASS_RULE = (
    "/v1/tables/<table_id>/rounds/<int:round_no>/exchanges/<int:exchange_no>/passes/<int:seat>"
)

pytestmark = pytest.mark.own_app  # each reads its app's metrics


def scrape(client: Any) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Every sample of ``GET /metrics``, keyed by name and labels."""
    r = client.get("/metrics")
    assert r.status_code == 200
    assert r.mimetype == "text/plain"
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(r.get_data(as_text=True))
        for s in family.samples
    }


def value(samples: dict[Any, float], name: str, **labels: str) -> float | None:
    return samples.get((name, frozenset(labels.items())))


@pytest.fixture(scope="module")
def own_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisProcess]:
    server = RedisProcess(tmp_path_factory.mktemp("metrics-redis")).start()
    yield server
    server.stop()


def test_game_counters_latency_and_active_tables(own_redis: RedisProcess) -> None:
    app = create_app(settings_for(own_redis.url))
    client = app.test_client()
    tables = TableClient(client)
    played = []
    for _ in range(3):
        t = tables.create(variant="mein-schiff")
        play_worked_round(tables, t, 1, early_claim=True)
        played.append(t)
    play_worked_round(tables, played[0], 2, early_claim=False)
    tables.create(variant="classic")  # created, never moved: active all the same
    assert client.get("/v1/tables/" + "x" * 20).status_code == 404

    m = scrape(client)
    assert value(m, "referee_tables_created_total", variant="mein-schiff") == 3
    assert value(m, "referee_tables_created_total", variant="classic") == 1
    assert value(m, "referee_exchanges_resolved_total", variant="mein-schiff") == 8
    assert value(m, "referee_claims_total", outcome="accepted") == 4
    assert value(m, "referee_claims_total", outcome="rejected") == 3
    assert value(m, "referee_rounds_won_total", variant="mein-schiff") == 4
    assert value(m, "referee_rounds_void_total", variant="mein-schiff") is None
    assert value(m, "referee_active_tables") == 4
    assert value(m, "referee_redis_errors_total", error="ConnectionError") is None
    # Four rounds of eight passes; each pass one observation of its endpoint.
    assert (
        value(m, "referee_request_duration_seconds_count", method="PUT", endpoint=PASS_RULE) == 32
    )
    assert value(m, "referee_requests_total", method="PUT", endpoint=PASS_RULE, status="200") == 32
    claims_rule = "/v1/tables/<table_id>/rounds/<int:round_no>/claims"
    assert (
        value(m, "referee_requests_total", method="POST", endpoint=claims_rule, status="422") == 3
    )
    assert (
        value(
            m,
            "referee_requests_total",
            method="GET",
            endpoint="/v1/tables/<table_id>",
            status="404",
        )
        == 1
    )
    assert (
        value(
            m,
            "referee_request_duration_seconds_bucket",
            method="PUT",
            endpoint=PASS_RULE,
            le="+Inf",
        )
        == 32
    )

    # A repeated pass writes nothing, so it counts no exchange.
    t = played[1]
    tables.deal(t)
    hand = tables.hand(t, 2)
    assert tables.pass_(t, 2, 1, 2, hand[:1]).status_code == 200
    assert tables.pass_(t, 2, 1, 2, hand[:1]).status_code == 200
    m = scrape(client)
    assert value(m, "referee_exchanges_resolved_total", variant="mein-schiff") == 8
    assert value(m, "referee_active_tables") == 4


def test_redis_errors_are_counted_and_metrics_still_answer() -> None:
    app = create_app(settings_for(f"redis://127.0.0.1:{free_port()}/0"))
    client = app.test_client()
    r = client.get("/v1/tables/" + "y" * 20)
    assert r.status_code == 503 and r.get_json()["code"] == "redis-unavailable"
    m = scrape(client)  # the scrape fails to count active tables: one more error
    assert value(m, "referee_redis_errors_total", error="ConnectionError") == 2
    assert value(m, "referee_active_tables") is None
    assert (
        value(
            m,
            "referee_requests_total",
            method="GET",
            endpoint="/v1/tables/<table_id>",
            status="503",
        )
        == 1
    )


@pytest.mark.parametrize(
    "error",
    [redis.exceptions.NoScriptError("No matching script"), redis.exceptions.ReadOnlyError("RO")],
)
def test_a_store_failing_over_is_503_not_500(own_redis: RedisProcess, error: Exception) -> None:
    # The failover test once met a 500: the limiter's script missing again
    # right after it was loaded on a SIGKILLed primary's successor.
    app = create_app(settings_for(own_redis.url))

    @app.get("/failing-over")
    def failing_over() -> None:
        raise error

    r = app.test_client().get("/failing-over")
    assert (r.status_code, r.get_json()["code"]) == (503, "redis-unavailable")
    assert r.headers["Retry-After"]


def test_active_tables_window_and_shards(own_redis: RedisProcess, tmp_path: Path) -> None:
    client = redis.Redis.from_url(own_redis.url)
    client.flushdb()  # this module's own server
    now = [1_000_000 * 60.0]
    active = ActiveTables(client, clock=lambda: now[0])
    ids = [f"table-{i:03d}-abcdefghijk" for i in range(40)]
    for table_id in ids:
        active.mark(table_id)
    active.mark(ids[0])  # twice: still one table
    assert active.count() == 40
    # The ids landed in more than one shard (each its own hash tag).
    assert len(client.keys("referee:active:*")) > 8
    now[0] += 60 * (ACTIVE_WINDOW_MINUTES - 1)
    active.mark(ids[0])
    assert active.count() == 40  # the first minute is still in the window
    now[0] += 60
    assert active.count() == 1  # only the table moved a minute ago
    assert all(0 < client.ttl(k) <= (ACTIVE_WINDOW_MINUTES + 1) * 60 for k in client.keys("*"))


def test_other_redis_errors_are_counted(own_redis: RedisProcess) -> None:
    app = create_app(settings_for(own_redis.url))
    client = app.test_client()
    table_id = "w" * 20
    redis.Redis.from_url(own_redis.url).set(table_key(table_id), "not a hash")  # WRONGTYPE
    assert client.get(f"/v1/tables/{table_id}").status_code == 500
    m = scrape(client)
    assert value(m, "referee_redis_errors_total", error="ResponseError") == 1


def test_invented_methods_and_paths_add_no_series(own_redis: RedisProcess) -> None:
    # The report: 3,000 random ten-letter methods to /v1/variants grew the
    # metrics folder from 266 KB to 18 MB (one series per method).
    import random
    import string

    client = create_app(settings_for(own_redis.url)).test_client()
    for _ in range(30):
        method = "".join(random.choice(string.ascii_uppercase) for _ in range(10))
        assert client.open("/v1/variants", method=method).status_code == 405
        assert client.get(f"/v1/{method}/{random.random()}").status_code == 404
    m = scrape(client)
    methods = {dict(labels).get("method") for (name, labels) in m if name.startswith("referee_req")}
    assert methods <= {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "OTHER"}
    endpoints = {dict(labels)["endpoint"] for (name, labels) in m if name.startswith("referee_req")}
    assert "unmatched" in endpoints and not any("/v1/" in e and "<" not in e for e in endpoints)
    other = value(m, "referee_requests_total", method="OTHER", endpoint="unmatched", status="405")
    assert other == 30
    assert (
        value(m, "referee_requests_total", method="GET", endpoint="unmatched", status="404") == 30
    )
    # Refusals time nothing: a histogram is 17 series, and refusals of every
    # route and method grew a scrape to 238 KB and 52 ms (seventh attacker).
    timed = {
        (dict(labels)["method"], dict(labels)["endpoint"])
        for (name, labels) in m
        if name == "referee_request_duration_seconds_count"
    }
    assert not {t for t in timed if t[0] == "OTHER" or t[1] == "unmatched"}, timed


def test_events_are_counted_by_game_and_type(own_redis: RedisProcess) -> None:
    from .api.test_sevens import DEAL, turn

    app = create_app(settings_for(own_redis.url))
    client = app.test_client()
    tables = TableClient(client)
    t = tables.create(4, "sevens", first_dealer=0)
    assert tables.deal(t, DEAL).status_code == 201
    for turn_no, (seat, card) in enumerate([(2, "7D"), (3, "6D")], start=1):
        assert turn(tables, t, 1, turn_no, seat, play=card).status_code == 200
    assert turn(tables, t, 1, 3, 0, **{"pass": True}).status_code == 200
    assert turn(tables, t, 1, 3, 0, **{"pass": True}).status_code == 200  # a repeat: nothing
    assert turn(tables, t, 1, 4, 1, play="KH").status_code == 422
    m = scrape(client)
    assert value(m, "referee_events_total", game="sevens", type="card-played") == 2
    assert value(m, "referee_events_total", game="sevens", type="passed") == 1
    assert value(m, "referee_events_total", game="sevens", type="round-dealt") == 1
    assert value(m, "referee_tables_created_total", variant="sevens") == 1
    ship = tables.create(4, "classic")
    assert ship.table_id
    m = scrape(client)
    assert value(m, "referee_events_total", game="my-ship-sails", type="table-created") == 1
    turn_rule = "/v1/tables/<table_id>/rounds/<int:round_no>/turns/<int:turn_no>"
    assert value(m, "referee_requests_total", method="PUT", endpoint=turn_rule, status="200") == 4


def test_may_i_moves_requests_and_answers_are_counted(own_redis: RedisProcess) -> None:
    from .api.test_may_i import answer, ask, move, new

    app = create_app(settings_for(own_redis.url))
    client = app.test_client()
    tables = TableClient(client)
    t = new(tables, may_i_window_ms=300)
    assert move(tables, t, 1, 1, decline=True).status_code == 200
    assert move(tables, t, 1, 1, decline=True).status_code == 200  # a repeat: nothing
    assert ask(client, t, 3, 1).status_code == 200
    assert ask(client, t, 3, 1).status_code == 200  # a repeat: nothing
    assert ask(client, t, 0, 1).status_code == 409  # taken: nothing written
    assert answer(client, t, 2, 1, True).status_code == 200
    time.sleep(0.5)
    # Seat 0 answers after the window: 409, but the refusal writes the
    # card given when the window closed, and those events count.
    assert answer(client, t, 0, 1, False).status_code == 409
    assert move(tables, t, 1, 2, draw=True).status_code == 200
    assert move(tables, t, 1, 3, discard="AS").status_code == 422  # not in the hand
    m = scrape(client)
    counted = {
        labels["type"]: n
        for (name, key), n in m.items()
        if name == "referee_events_total"
        for labels in [dict(key)]
        if labels.get("game") == "may-i"
    }
    assert counted == {
        "table-created": 1,
        "round-dealt": 1,
        "discard-declined": 1,
        "may-i-offered": 1,
        "may-i-asked": 1,
        "may-i-answered": 1,
        "may-i-given": 1,
        "stock-drawn": 1,
    }
    assert value(m, "referee_tables_created_total", variant="may-i") == 1
    rules = {
        "move": "/v1/tables/<table_id>/rounds/<int:round_no>/moves/<int:move_no>",
        "ask": "/v1/tables/<table_id>/rounds/<int:round_no>/may-i",
        "answer": (
            "/v1/tables/<table_id>/rounds/<int:round_no>/may-i/<int:offer_no>/answers/<int:seat>"
        ),
    }
    requests = {
        (method, what, status): value(
            m, "referee_requests_total", method=method, endpoint=rules[what], status=status
        )
        for method, what, status in [
            ("PUT", "move", "200"),
            ("PUT", "move", "422"),
            ("POST", "ask", "200"),
            ("POST", "ask", "409"),
            ("PUT", "answer", "200"),
            ("PUT", "answer", "409"),
        ]
    }
    assert requests == {
        ("PUT", "move", "200"): 3,
        ("PUT", "move", "422"): 1,
        ("POST", "ask", "200"): 2,
        ("POST", "ask", "409"): 1,
        ("PUT", "answer", "200"): 1,
        ("PUT", "answer", "409"): 1,
    }


def test_the_release_is_reported_by_the_probes_the_metrics_and_the_cli(
    own_redis: RedisProcess,
) -> None:
    """The version of pyproject.toml, as installed, and CHANGELOG.md has its entry."""
    import subprocess
    import sys
    import tomllib

    root = Path(__file__).resolve().parent.parent
    wanted = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    client = create_app(settings_for(own_redis.url)).test_client()
    assert client.get("/healthz").get_json() == {"status": "ok", "version": wanted}
    assert client.get("/readyz").get_json() == {"status": "ready", "version": wanted}
    assert value(scrape(client), "referee_build_info", version=wanted) == 1
    cli = [sys.executable, "-c", "from service.cli import main; main()", "--version"]
    assert subprocess.run(cli, capture_output=True, text=True).stdout == f"referee {wanted}\n"
    assert f"\n## {wanted}" in (root / "CHANGELOG.md").read_text()
