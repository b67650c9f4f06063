"""A worker process's budget of requests per client address
(:mod:`service.budgets`): the bucket, and the app's refusal of an address
over its limit over every instance emptying it (issue 39, fourth attacker)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator

import pytest

from service import budgets, create_app
from service.addresses import address_key

from .conftest import RedisProcess, settings_for


def test_a_bucket_lets_its_amount_through_then_refills_at_its_rate() -> None:
    budget = budgets.Budget(3, 1.0)
    assert [budget.take("a", 10.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert budget.take("a", 10.0) == pytest.approx(1 / 3)
    assert budget.take("b", 10.0) == 0.0  # another address, its own
    assert budget.take("a", 10.0 + 1 / 3) == 0.0  # one token came back
    budget.cool("a", 2.0, 20.0)
    assert budget.take("a", 20.0) == pytest.approx(2.0)
    assert budget.take("a", 21.0) == pytest.approx(1.0)
    assert budget.take("a", 22.0) == 0.0


def test_a_refusal_logs_once_a_second_per_address() -> None:
    logged = budgets.LogThrottle()
    assert logged.due("a", 5.0) is True
    assert logged.due("a", 5.9) is False
    assert logged.due("b", 5.2) is True
    assert logged.due("a", 6.0) is True


def test_a_dear_request_costs_what_it_took_and_its_floor_at_least(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The seventh attacker: /metrics grew to 52 ms a rendering, flooded at 20.
    monkeypatch.setitem(budgets.COSTS, "/metrics", budgets.FLOORS["/metrics"])
    assert budgets.FLOORS["/metrics"] == 20.0
    budgets.price("/metrics", 0.001)  # 1 ms: its floor, 20 requests' worth
    assert budgets.COSTS["/metrics"] == 20.0
    budgets.price("/metrics", 0.052)
    assert budgets.COSTS["/metrics"] == pytest.approx(208.0)
    # More than the budget: it needs a full one and leaves a debt of the
    # rest (the ninth attacker's 60 ms renderings, 1.6 to 1.9 a second at a
    # cost capped at the budget): the next waits 2.08 s, not 1.
    budget = budgets.Budget(100, 1.0)
    assert budget.take("a", 0.0, budgets.COSTS["/metrics"]) == 0.0
    assert budget.take("a", 0.0, budgets.COSTS["/metrics"]) == pytest.approx(2.08)
    assert budget.take("a", 0.0) == pytest.approx(1.09)  # any request waits for the debt


def test_a_path_is_priced_as_the_app_routes_it() -> None:
    # The eighth attacker's //metrics and /%6Detrics skipped the price.
    for spelt in ("/metrics", "//metrics", "/%6Detrics", "/%2F/metrics", "///%6detrics"):
        assert budgets.routed(spelt) == "/metrics", spelt
    assert budgets.routed("/v1/tables/a%20b") == "/v1/tables/a b"


def test_a_dear_request_costs_more_of_the_budget() -> None:
    budget = budgets.Budget(100, 1.0)
    assert [budget.take("a", 0.0, 20.0) for _ in range(5)] == [0.0] * 5
    assert budget.take("a", 0.0, 20.0) == pytest.approx(0.2)  # 20 tokens at 100 a second
    assert budget.take("a", 0.0) == pytest.approx(0.01)  # nothing left for any request
    small = budgets.Budget(5, 1.0)  # a budget smaller than the cost: all of it, and a debt
    assert small.take("a", 0.0, 20.0) == 0.0 and small.take("a", 0.0) == pytest.approx(3.2)


@pytest.fixture()
def installed() -> Iterator[budgets.Budget]:
    budget = budgets.Budget(1000, 1.0)
    budgets.install(budget)
    try:
        yield budget
    finally:
        budgets.install(None)


@pytest.mark.parametrize("limit", ["rate_limit_per_address", "rate_limit_anonymous"])
def test_the_apps_refusal_of_an_address_empties_its_budget_here(
    redis_server: RedisProcess, installed: budgets.Budget, limit: str
) -> None:
    app = create_app(settings_for(redis_server.url, **{limit: "3/minute"}))
    # An address of each run's own: the counters are Redis's, over the runs.
    n = uuid.uuid4().int
    address, neighbour = f"10.98.{n % 250}.{n // 250 % 250}", f"10.97.{n % 250}.1"
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = neighbour
    assert [client.get("/v1/variants").status_code for _ in range(3)] == [200] * 3
    assert installed.take(address_key(address), time.monotonic()) == 0.0  # not refused yet
    refused = client.get("/v1/variants")
    assert refused.status_code == 429
    wait = installed.take(address_key(address), time.monotonic())
    # Refused here until the app's Retry-After (up to a minute), not the bucket's.
    assert int(refused.headers["Retry-After"]) - 1 <= wait <= int(refused.headers["Retry-After"])
    assert installed.take(address_key(neighbour), time.monotonic()) == 0.0
    assert other.get("/v1/variants").status_code == 200


def test_one_tokens_refusal_leaves_its_address_alone(
    redis_server: RedisProcess, installed: budgets.Budget
) -> None:
    app = create_app(settings_for(redis_server.url, rate_limit_per_token="2/minute"))
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = address = f"10.96.{uuid.uuid4().int % 250}.3"
    body = {"variant": "classic", "players": ["Ann", "Ben", "Cy", "Di"], "first_dealer": 0}
    made = client.post("/v1/tables", json=body).get_json()
    seat = {"Authorization": f"Bearer {made['seat_tokens'][0]['token']}"}
    url = f"/v1/tables/{made['table_id']}/seats/0"
    statuses = [client.get(url, headers=seat).status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    assert installed.take(address_key(address), time.monotonic()) == 0.0


def test_a_budget_forgets_full_buckets_past_its_addresses(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budgets.Budget, "MAX_ADDRESSES", 4)
    budget = budgets.Budget(10, 1.0)
    for i in range(4):
        budget.take(f"a{i}", 0.0)
    budget.cool("x", 5.0, 0.5)  # a fifth address: the four, full again by now, go
    assert set(budget.buckets) == {"x"}
    # Many addresses all waiting: past the cap, the newest half is kept (an
    # address forgotten while it waits is still the app's limit's).
    for i in range(10):
        budget.cool(f"c{i}", 5.0, 1.0)
        assert len(budget.buckets) <= 4 and f"c{i}" in budget.buckets
    for new in ("y", "z"):  # all full again by then: gone at the cap
        budget.take(new, 30.0)
    assert set(budget.buckets) == {"y", "z"}
