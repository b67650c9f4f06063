"""Every list of problems an answer carries is cut at 50, with the total
(service/edge/problems.py: ``errors``/``errors_total`` of problem+json and the
checks' ``problems``/``problems_total``)."""

from __future__ import annotations

import json
from typing import Any

import redis

from ..helpers import TableClient, bearer, snapshot
from .test_idempotency import NOT_WINNING

BAD = ["XX"] * 26  # a hand as long as any deal gives, every card invalid
HUGE = ["XX"] * 9000  # the report: 9,000 invalid cards in a 54 KB anonymous body


def test_a_deal_check_of_104_bad_cards_lists_50_problems(client: Any) -> None:
    body = json.dumps({"variant": "classic", "players": 4, "hands": [BAD] * 4})
    r = client.post("/v1/checks/deal", data=body, content_type="application/json")
    assert r.status_code == 200, r.get_data()[:300]
    answer = r.get_json()
    assert answer["valid"] is False
    assert len(answer["problems"]) == 50
    assert answer["problems_total"] > 104
    assert len(r.get_data()) < 20_000


def test_a_deal_check_of_9000_bad_cards_is_refused_by_the_bound(client: Any) -> None:
    # The report's body (1.42 MB of problems once): a hand past any deck.
    body = json.dumps({"variant": "classic", "players": 4, "hands": [HUGE, [], [], []]})
    assert len(body) < 64 * 1024
    r = client.post("/v1/checks/deal", data=body, content_type="application/json")
    assert r.status_code == 422 and r.get_json()["code"] == "invalid-request"
    assert [e["pointer"] for e in r.get_json()["errors"]] == ["/hands/0"]
    assert len(r.get_data()) < 2_000


def test_a_deal_of_104_bad_cards_answers_50_errors(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4)
    before = snapshot(redis_client, t)
    r = tables.deal(t, [BAD] * 4)
    assert r.status_code == 422
    problem = r.get_json()
    assert problem["code"] == "deal-invalid"
    assert len(problem["errors"]) == 50 and problem["errors_total"] > 104
    assert len(r.get_data()) < 20_000
    assert snapshot(redis_client, t) == before


def test_a_body_with_9000_invalid_values_answers_its_length(tables: TableClient) -> None:
    t = tables.create(4)
    tables.deal(t, NOT_WINNING)
    r = tables.client.put(
        f"{t.url}/rounds/1/exchanges/1/passes/0",
        json={"cards": [1] * 9000},  # not strings, and past any pass: its length is read first
        headers=bearer(t.seats[0]),
    )
    assert r.status_code == 422
    problem = r.get_json()
    assert problem["errors"] == [{"pointer": "/cards", "detail": "Longer than maximum length 26."}]
    assert problem["errors_total"] == 1


def test_260_invalid_values_answer_50_errors_of_64(client: Any) -> None:
    # Ten hands of 26 values that are not cards: 8 reported a hand, of the
    # first 8 hands (issue 39).
    body = {"variant": "classic", "players": 4, "hands": [[1] * 26] * 10}
    r = client.post("/v1/checks/deal", json=body)
    assert r.status_code == 422
    problem = r.get_json()
    assert len(problem["errors"]) == 50 and problem["errors_total"] == 64
    assert problem["detail"].endswith("; and 61 more")  # three named, the rest counted
    assert len(r.get_data()) < 20_000


def test_an_exchange_check_of_many_bad_cards_answers_50_errors(client: Any) -> None:
    hands = [["XX"] * 26] * 2 + [[], []]  # as many as the full deck holds
    body = {"variant": "classic", "hands": hands, "passes": [["AH"]] * 4}
    r = client.post("/v1/checks/exchange", json=body)
    assert r.status_code == 422
    assert len(r.get_json()["errors"]) == 50 and r.get_json()["errors_total"] > 50


def test_a_short_list_is_whole_with_its_total(client: Any) -> None:
    r = client.post("/v1/tables", json={"players": ["a"], "first_dealer": 5})
    assert r.status_code == 422
    problem = r.get_json()
    assert problem["errors_total"] == len(problem["errors"]) >= 1


def test_an_answer_clips_each_pointer_it_echoes(client: Any) -> None:
    # Fourteenth attacker: fifty lone surrogates under a 32,000-letter name made
    # a 19 MB answer to a 64 KiB body, each pointer (twice) repeating the name.
    name = "\u00e9" * 32_000
    body = '{"' + name + '": [' + ",".join(['"\\udc00"'] * 50) + "]}"
    r = client.post("/v1/checks/claim", data=body.encode(), content_type="application/json")
    assert r.status_code == 422
    problem = r.get_json()
    assert len(problem["errors"]) == 50 and problem["errors_total"] == 50
    first = problem["errors"][0]["pointer"]
    assert len(first) == 120 and first == "/" + name[:118] + "\u2026"
    assert len(r.get_data()) < 120_000  # the body is 64 KiB: no more than its size again
    # A short pointer is whole.
    r = client.post("/v1/checks/claim", data=b'{"a": ["\\udc00"]}', content_type="application/json")
    assert [e["pointer"] for e in r.get_json()["errors"]] == ["/a/0"]
