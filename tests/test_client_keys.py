"""Client keys through the real ``referee keys`` command and a real gunicorn
with two workers: a key's quotas hold where the anonymous ones refuse (the
same address), an unknown key is 401 ``client-key-unknown``, a revoked key
is refused at once by every worker, tables are counted per key name, and
the key reaches no log line, metric, counter name or error body."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import redis

from service.storage.client_keys import KEYS_HASH, digest

from .conftest import RedisProcess, Served
from .test_gunicorn import send as send_one

ADDRESS = "198.51.100.23"
BODY = {"players": ["A", "B", "C", "D"], "first_dealer": 0}


def keys(redis_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``referee keys …`` as an operator runs it."""
    return subprocess.run(
        [sys.executable, "-m", "service.cli", "keys", *args],
        env={**os.environ, "REDIS_URL": redis_url},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def send(
    served: Served,
    method: str,
    path: str,
    key: str | None = None,
    body: Any = None,
    address: str = ADDRESS,
) -> tuple[int, dict[str, str], Any]:
    headers = {"X-Forwarded-For": address}
    if key is not None:
        headers["Referee-Client-Key"] = key
    return send_one(served, method, path, body, **headers)


@pytest.fixture(scope="module")
def limited(redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory) -> Any:
    service = Served(
        redis_server.url,
        Path(tmp_path_factory.mktemp("client-keys")),
        TRUSTED_PROXIES="1",
        RATE_LIMIT_TABLES="2/hour",
        RATE_LIMIT_PER_ADDRESS="3/hour",
        RATE_LIMIT_ANONYMOUS="1000/hour",
        RATE_LIMIT_PER_TOKEN="1000/hour",
    )
    yield service
    service.stop()


def test_a_keys_quotas_hold_where_the_anonymous_ones_refuse(
    limited: Served, redis_server: RedisProcess, redis_client: redis.Redis
) -> None:
    made = keys(redis_server.url, "create", "front-one", "--tables-per-minute", "5")
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip()
    assert key.startswith("ck_") and len(key) == 46 and key not in made.stderr
    again = keys(redis_server.url, "create", "front-one")
    assert again.returncode == 2 and "exists" in again.stderr
    # Anonymous, from the address: two tables, then 429.
    anonymous = [send(limited, "POST", "/v1/tables", body=BODY)[0] for _ in range(3)]
    assert anonymous == [201, 201, 429]
    # The same address with the key: the key's five tables a minute, then its own 429.
    keyed = [send(limited, "POST", "/v1/tables", key, BODY) for _ in range(6)]
    assert [k[0] for k in keyed] == [201] * 5 + [429]
    assert keyed[-1][2]["code"] == "rate-limited" and "5 per 1 minute" in keyed[-1][2]["detail"]
    # The address's bound of every request (3 an hour) no longer holds the key either.
    reads = [send(limited, "GET", "/v1/variants", key)[0] for _ in range(15)]
    assert reads == [200] * 15
    assert send(limited, "GET", "/v1/variants")[0] == 429  # without it, the address is spent
    # Counted per key name in the metrics; the key is nowhere.
    with urllib.request.urlopen(f"{limited.base}/metrics", timeout=10) as scraped:
        metrics = scraped.read().decode()
    assert 'referee_client_tables_created_total{client="front-one"} 5.0' in metrics
    assert key not in metrics and digest(key) not in metrics
    # (Other tests' keys may count on the same Redis: only this key's are asked for.)
    counters = [k.decode() for k in redis_client.scan_iter(match="LIMITS*client*", count=1000)]
    assert [k for k in counters if "front-one" in k] and not [k for k in counters if key in k]
    assert key.encode() not in b"".join(redis_client.hgetall(KEYS_HASH).values())
    listed = keys(redis_server.url, "list")
    assert listed.returncode == 0 and "front-one\ttables-per-minute=5" in listed.stdout
    assert key not in listed.stdout


def test_unknown_and_revoked_keys_are_refused_by_every_worker(
    limited: Served, redis_server: RedisProcess
) -> None:
    made = keys(redis_server.url, "create", "front-two")
    key = made.stdout.strip()
    assert [send(limited, "GET", "/v1/variants", key)[0] for _ in range(8)] == [200] * 8
    made_up = "ck_" + "A" * 43
    status, headers, body = send(limited, "GET", "/v1/variants", made_up, address="203.0.113.9")
    assert (status, body["code"]) == (401, "client-key-unknown")
    assert headers["Content-Type"] == "application/problem+json"
    assert made_up not in str(body)
    assert keys(redis_server.url, "revoke", "front-two").returncode == 0
    # Every request after the revocation, on whichever of the two workers, is refused
    # (each counts on its address as a caller without a key: three an hour here).
    refused = [
        send(limited, "GET", "/v1/variants", key, address=f"203.0.113.{20 + i // 3}")
        for i in range(12)
    ]
    assert [(s, b["code"]) for s, _, b in refused] == [(401, "client-key-unknown")] * 12
    assert send(limited, "GET", "/v1/variants", key, address="203.0.113.20")[0] == 429
    assert all(key not in str(b) for _, _, b in refused)
    assert "front-two" not in keys(redis_server.url, "list").stdout
    assert keys(redis_server.url, "revoke", "front-two").returncode == 1
    log = limited.log.read_text()
    for secret in (key, made_up):
        assert secret not in log
