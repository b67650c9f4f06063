"""A worker process's budget of requests per client address
(:mod:`service.budgets`): the bucket, and the app's refusal of an address
over its limit over every instance emptying it (issue 39, fourth attacker)."""

from __future__ import annotations

import time
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


def test_a_refusal_logs_once_per_address_and_wait() -> None:
    budget = budgets.Budget(1, 1.0)
    assert budget.first_refusal("a", 5.0, 0.5) is True
    assert budget.first_refusal("a", 5.2, 0.3) is False
    assert budget.first_refusal("b", 5.2, 0.3) is True
    assert budget.first_refusal("a", 5.5, 0.5) is True


@pytest.fixture()
def installed() -> Iterator[budgets.Budget]:
    budget = budgets.Budget(1000, 1.0)
    budgets.install(budget)
    try:
        yield budget
    finally:
        budgets.install(None)


def test_the_apps_refusal_of_an_address_empties_its_budget_here(
    redis_server: RedisProcess, installed: budgets.Budget
) -> None:
    app = create_app(settings_for(redis_server.url, rate_limit_per_address="3/minute"))
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = "10.99.1.7"
    other = app.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.99.1.8"
    assert [client.get("/v1/variants").status_code for _ in range(3)] == [200] * 3
    assert installed.take(address_key("10.99.1.7"), time.monotonic()) == 0.0  # not refused yet
    refused = client.get("/v1/variants")
    assert refused.status_code == 429
    wait = installed.take(address_key("10.99.1.7"), time.monotonic())
    # Refused here until the app's Retry-After (up to a minute), not the bucket's.
    assert int(refused.headers["Retry-After"]) - 1 <= wait <= int(refused.headers["Retry-After"])
    assert installed.take(address_key("10.99.1.8"), time.monotonic()) == 0.0
    assert other.get("/v1/variants").status_code == 200
