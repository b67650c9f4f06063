"""A real gunicorn: one address is bounded by RATE_LIMIT_PER_ADDRESS whatever
tokens it holds (issue 24: ten tables a minute of eight seats gave one
address 90 tokens, and 365 authenticated reads in a second, never a 429)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import redis

from .conftest import RedisProcess, Served
from .test_gunicorn import send as send_one

PER_ADDRESS = 40


def send(
    served: Served, method: str, path: str, address: str, token: str | None = None, body: Any = None
) -> tuple[int, dict[str, str], Any]:
    """One request from client ``address`` (through ``X-Forwarded-For``)."""
    headers = {"X-Forwarded-For": address}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return send_one(served, method, path, body, **headers)


@pytest.fixture(scope="module")
def limited(redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory) -> Any:
    service = Served(
        redis_server.url,
        Path(tmp_path_factory.mktemp("address-limit")),
        TRUSTED_PROXIES="1",
        RATE_LIMIT_PER_ADDRESS=f"{PER_ADDRESS}/minute",
        RATE_LIMIT_PER_TOKEN="1000/minute",
        RATE_LIMIT_ANONYMOUS="1000/minute",
        RATE_LIMIT_TABLES="1000/minute",
    )
    yield service
    service.stop()


def test_many_tokens_from_one_address_share_its_bound(
    limited: Served, redis_client: redis.Redis
) -> None:
    address = "198.51.100.7"
    players = {"players": [f"P{i}" for i in range(7)], "first_dealer": 0}
    tables = []
    for _ in range(6):  # 6 requests, 42 seat tokens
        status, _, created = send(limited, "POST", "/v1/tables", address, body=players)
        assert status == 201, created
        tables.append(created)
    tokens = [(t["table_id"], s["seat"], s["token"]) for t in tables for s in t["seat_tokens"]]
    answers = []
    for table_id, seat, token in tokens:  # each token reads once: none is near its own limit
        status, headers, body = send(
            limited, "GET", f"/v1/tables/{table_id}/seats/{seat}", address, token
        )
        answers.append((status, headers, body))
    allowed = PER_ADDRESS - 6  # the creations counted too
    assert [a[0] for a in answers] == [200] * allowed + [429] * (len(tokens) - allowed)
    status, headers, body = answers[-1]
    assert headers["Content-Type"] == "application/problem+json"
    assert body["code"] == "rate-limited" and f"{PER_ADDRESS} per 1 minute" in body["detail"]
    assert 1 <= int(headers["Retry-After"]) <= 60
    # Anonymous requests and the host's are bounded by it too; another address is not.
    assert send(limited, "GET", "/v1/variants", address)[0] == 429
    host, first = tables[0]["host_token"], tables[0]["table_id"]
    assert send(limited, "POST", f"/v1/tables/{first}/rounds", address, host)[0] == 429
    assert redis_client.hget(f"referee:{{{first}}}:table", "v") == b"1"  # nothing dealt
    other = "198.51.100.8"
    table_id, seat, token = tokens[-1]
    assert send(limited, "GET", f"/v1/tables/{table_id}/seats/{seat}", other, token)[0] == 200
    assert send(limited, "GET", "/v1/variants", other)[0] == 200


@pytest.mark.parametrize(
    "forms",
    [
        [f"198.51.100.20:{1000 + i}" for i in range(PER_ADDRESS + 5)],
        [f"[2001:db8:20::1]:{1000 + i}" for i in range(PER_ADDRESS + 5)],
        [f"unknown-{i}" for i in range(PER_ADDRESS + 5)],
    ],
    ids=["ipv4-port", "ipv6-port", "junk"],
)
def test_forwarded_forms_share_their_address_budget(limited: Served, forms: list[str]) -> None:
    # Issue 39 (second attacker, M): each port, and each junk text, was a
    # fresh quota key. The port is dropped; junk shares one key.
    statuses = [send(limited, "GET", "/v1/variants", form)[0] for form in forms]
    assert statuses == [200] * PER_ADDRESS + [429] * 5, statuses
