"""Input every request must meet before a view reads it (service/edge/inputs.py):
ASCII digits only, bodies up to 64 KiB however framed, JSON numbers Python can
hold. Each refusal leaves the table's keys as they were."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
import redis

from ..helpers import Table, TableClient, bearer, snapshot
from .test_idempotency import NOT_WINNING

HUGE = "9" * 5000  # past Python's 4,300-digit int-string limit


def chunked(client: Any, method: str, url: str, body: bytes, **headers: str) -> Any:
    """``body`` sent with no Content-Length, as a server that terminates a
    chunked stream (gunicorn, werkzeug's) hands it to the app."""
    return client.open(
        url,
        method=method,
        input_stream=io.BytesIO(body),
        content_type="application/json",
        headers=headers,
        environ_overrides={"wsgi.input_terminated": True, "HTTP_TRANSFER_ENCODING": "chunked"},
    )


def test_a_query_number_in_other_digits_is_422(tables: TableClient) -> None:
    t = tables.create(4)
    r = tables.client.get(f"{t.url}/events?after=\u0661\u0662")  # Arabic-Indic 12
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["errors"][0]["parameter"] == "query:after"
    r = tables.client.get(f"{t.url}/events?limit=\u0661")
    assert r.status_code == 422
    assert tables.client.get(f"{t.url}/events?after=1").status_code == 200


def test_a_query_number_of_5000_digits_is_422_not_500(tables: TableClient) -> None:
    t = tables.create(4)
    r = tables.client.get(f"{t.url}/events?after={HUGE}")
    assert r.status_code == 422


def test_a_path_number_in_other_digits_is_404(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4)
    assert tables.deal(t, NOT_WINNING).status_code == 201
    before = snapshot(redis_client, t)
    assert tables.client.get(f"{t.url}/rounds/\u0661").status_code == 404
    r = tables.client.put(
        f"{t.url}/rounds/\u0661/exchanges/\u0661/passes/\u0660",
        json={"cards": ["8D"]},
        headers=bearer(t.seats[0]),
    )
    assert r.status_code == 404
    r = tables.client.get(f"{t.url}/seats/\u0660", headers=bearer(t.seats[0]))
    assert r.status_code == 404
    assert snapshot(redis_client, t) == before
    assert tables.client.get(f"{t.url}/rounds/1").status_code == 200


def test_the_spec_still_says_path_numbers_are_integers(client: Any) -> None:
    spec = client.get("/openapi.json").get_json()
    path = "/v1/tables/{table_id}/rounds/{round_no}"
    params = spec["paths"][path]["parameters"]
    assert {p["name"]: p["schema"]["type"] for p in params}["round_no"] == "integer"


def _huge_int_bodies(t: Table) -> list[tuple[str, str, str, str | None]]:
    huge_deal = json.dumps({"hands": [["AH"]]}).replace('"AH"', HUGE)
    return [
        ("POST", "/v1/tables", f'{{"players": ["a", "b"], "first_dealer": {HUGE}}}', None),
        ("POST", f"{t.url}/rounds", huge_deal, t.host),
        ("POST", f"{t.url}/rounds", f'{{"hands": [], "x": {HUGE}}}', t.host),
        (
            "PUT",
            f"{t.url}/rounds/1/exchanges/1/passes/0",
            f'{{"cards": [{HUGE}]}}',
            t.seats[0],
        ),
        ("POST", "/v1/checks/deal", f'{{"players": 4, "hands": [[{HUGE}]]}}', None),
        ("POST", "/v1/checks/claim", f'{{"players": {HUGE}, "hand": []}}', None),
        ("POST", "/v1/checks/exchange", f'{{"hands": [], "dealer": {HUGE}}}', None),
    ]


def test_a_json_integer_of_5000_digits_is_400_in_every_body(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4)
    assert tables.deal(t, NOT_WINNING).status_code == 201
    before = snapshot(redis_client, t)
    for method, url, body, token in _huge_int_bodies(t):
        headers = bearer(token) if token else {}
        r = tables.client.open(
            url, method=method, data=body, content_type="application/json", headers=headers
        )
        assert r.status_code == 400, (url, r.status_code, r.get_data()[:200])
        assert r.content_type == "application/problem+json"
        assert r.get_json()["code"] == "malformed-request"
    assert snapshot(redis_client, t) == before


@pytest.mark.parametrize("size", [100, 64 * 1024 + 1])
def test_a_chunked_body_is_411_unread_and_changes_nothing(
    tables: TableClient, redis_client: redis.Redis, size: int
) -> None:
    # Issue 39, eleventh attacker: each chunk costs gunicorn some microseconds
    # whatever its size, so 64 KiB in 1-byte chunks cost 250 ms. RFC 9112 6.3:
    # a server may refuse a body without a Content-Length (411).
    t = tables.create(4)
    before = snapshot(redis_client, t)
    made = set(redis_client.scan_iter(match="referee:{*}:table", count=1000))
    hands = json.dumps({"hands": NOT_WINNING}).encode()
    body = hands + b" " * (size - len(hands))
    create = json.dumps({"players": ["a", "b", "c", "d"]}).encode()
    for r in (
        chunked(tables.client, "POST", f"{t.url}/rounds", body, Authorization=f"Bearer {t.host}"),
        chunked(tables.client, "POST", "/v1/tables", create),
        chunked(tables.client, "POST", "/v1/checks/deal", create),
    ):
        assert r.status_code == 411, r.get_json()
        assert r.content_type == "application/problem+json"
        assert r.get_json()["code"] == "length-required"
        assert "Content-Length" in r.get_json()["detail"]
    assert snapshot(redis_client, t) == before
    assert set(redis_client.scan_iter(match="referee:{*}:table", count=1000)) == made


def test_a_lone_surrogate_anywhere_in_a_body_is_422_and_changes_nothing(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    # A seed of "\ud800x" was stored, answered 500, and every later deal of
    # the table was 500 (its hash needs the seed's UTF-8, which has none).
    t = tables.create(4, variant="sevens")
    before = snapshot(redis_client, t)
    sent = [
        ("PUT", f"{t.url}/next-deal/seeds/0", '{"seed": "\\ud800x"}', t.seats[0], "/seed"),
        ("POST", f"{t.url}/join", '{"name": "x", "code": "\\udfff"}', None, "/code"),
        ("POST", "/v1/checks/deal-proof", '{"proof": {"\\udc00": 1}}', None, "/proof/\udc00"),
        ("PUT", f"{t.url}/next-deal", '{"require_seeds": "\\ud83d"}', t.host, "/require_seeds"),
    ]
    for method, url, body, token, pointer in sent:
        headers = bearer(token) if token else {}
        r = tables.client.open(
            url, method=method, data=body, content_type="application/json", headers=headers
        )
        assert r.status_code == 422, (url, r.get_json())
        assert r.get_json()["errors"][0]["pointer"] == pointer, r.get_json()
    assert snapshot(redis_client, t) == before
    # A body in UTF-16 or UTF-32 (which json.loads reads too, and where no
    # surrogate's escape is ASCII) is 400 (issue 39, sixteenth attacker: its
    # lone surrogate was stored, and every deal of the table was a 500).
    seed = '{"seed": "x\\udfff"}'
    for encoding in ("utf-16", "utf-16-le", "utf-32", "utf-32-be"):
        r = tables.client.put(
            f"{t.url}/next-deal/seeds/0", data=seed.encode(encoding),
            content_type="application/json", headers=bearer(t.seats[0]),
        )  # fmt: skip
        assert r.status_code == 400, (encoding, r.get_json())
        assert r.get_json()["code"] == "malformed-request"
    assert snapshot(redis_client, t) == before
    # A surrogate pair is one character: the seed is taken, and the deal too.
    paired = '{"seed": "\\ud83d\\ude00 and text"}'
    r = tables.client.put(
        f"{t.url}/next-deal/seeds/0", data=paired, content_type="application/json",
        headers=bearer(t.seats[0]),
    )  # fmt: skip
    assert r.status_code == 200, r.get_json()
    assert tables.deal(t).status_code == 201
