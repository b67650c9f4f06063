"""A deal's secret never shows before its round is over (RULES.md 5.2): not
in any answer, event, stream, log line, error or metric of a real gunicorn,
while seats seed, the round is dealt and played and moves are refused;
once the round is over its record shows it, and the next deal's stays hidden."""

from __future__ import annotations

import hmac
import http.client
import json
import time

import redis

from service.storage.store import deal_key, moves_key, table_key

from .conftest import Served
from .test_gunicorn import send

WORKED = [
    ["AH", "KH", "8H", "5H", "2H", "QC", "4S"],
    ["3C", "4C", "5C", "6C", "7C", "8C", "9C"],
    ["2D", "3D", "4D", "5D", "6D", "7D", "8D"],
    ["9H", "JH", "2S", "3S", "5S", "6S", "7S"],
]


def raw(served: Served, path: str, seconds: float = 1.0) -> str:
    """A stream's bytes for ``seconds`` (or any answer's text)."""
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=seconds)
    connection.request("GET", path)
    response = connection.getresponse()
    got = b""
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            chunk = response.read1(65536)
            if not chunk:
                break
            got += chunk
    except TimeoutError:
        pass
    finally:
        connection.close()
    return got.decode(errors="replace")


def test_no_secret_shows_before_its_round_is_over(
    served: Served, redis_client: redis.Redis
) -> None:
    body = {"variant": "classic", "players": ["A", "B", "C", "D"], "first_dealer": 0}
    status, _, created = send(served, "POST", "/v1/tables", body)
    assert status == 201
    tid, host = created["table_id"], created["host_token"]
    tokens = [s["token"] for s in created["seat_tokens"]]
    url = f"/v1/tables/{tid}"
    seen: list[str] = [json.dumps(created)]

    def call(method: str, path: str, payload: object = None, token: str | None = None) -> int:
        headers = {} if token is None else {"Authorization": f"Bearer {token}"}
        code, got, answer = send(served, method, path, payload, **headers)
        seen.append(json.dumps([got, answer]))
        return code

    first = json.loads(redis_client.get(deal_key(tid)))["secret"]
    for seat, token in enumerate(tokens):
        assert call("PUT", f"{url}/next-deal/seeds/{seat}", {"seed": f"s{seat}"}, token) == 200
    assert call("PUT", f"{url}/next-deal/seeds/0", {"seed": ""}, tokens[0]) == 422
    assert call("PUT", f"{url}/next-deal/seeds/1", {"seed": "x"}, tokens[0]) == 403
    assert call("GET", f"{url}/next-deal") == 200
    assert call("POST", f"{url}/rounds", None, host) == 201
    second = json.loads(redis_client.get(deal_key(tid)))["secret"]
    assert json.loads(redis_client.lindex(moves_key(tid), 1))["x"] == first
    hand = send(served, "GET", f"{url}/seats/0", Authorization=f"Bearer {tokens[0]}")[2]["hand"]
    assert call("PUT", f"{url}/rounds/1/exchanges/1/passes/0", {"cards": hand[:1]}, tokens[0])
    assert call("POST", f"{url}/rounds/1/claims", None, tokens[1]) == 422
    assert call("POST", f"{url}/rounds", None, host) == 409
    assert call("GET", f"{url}/rounds/1/record") == 409
    for path in (url, f"{url}/events?after=0", f"{url}/rounds", f"{url}/rounds/1", "/metrics"):
        seen.append(raw(served, path))
    seen.append(raw(served, f"{url}/stream"))
    log = served.log.read_text()
    everything = "\n".join(seen) + log
    # The round's chain key (the table hash's h, derived from the secret) neither.
    chain_key = redis_client.hget(table_key(tid), "h").decode().split(" ")[3]
    derived = hmac.new(bytes.fromhex(first), b"card-referee/moves/v2", "sha256")
    assert chain_key == derived.hexdigest()
    for secret in (first, second, chain_key):
        assert secret not in everything
        assert secret.upper() not in everything
    assert created["table"]["next_deal"]["commitment"] in everything  # it is public

    # Once the round is over its record shows its secret, not the next one's.
    status, _, _ = send(served, "POST", f"{url}/finish", None, Authorization=f"Bearer {host}")
    assert status == 200
    t2 = send(served, "POST", "/v1/tables", {**body, "variant": "mein-schiff"})[2]
    url2 = f"/v1/tables/{t2['table_id']}"
    hosted = {"Authorization": f"Bearer {t2['host_token']}"}
    assert send(served, "POST", f"{url2}/rounds", {"hands": WORKED}, **hosted)[0] == 201
    for seat in range(4):
        token = {"Authorization": f"Bearer {t2['seat_tokens'][seat]['token']}"}
        card = ["4S", "9C", "8D", "9H"][seat]
        assert (
            send(
                served,
                "PUT",
                f"{url2}/rounds/1/exchanges/1/passes/{seat}",
                {"cards": [card]},
                **token,
            )[0]
            == 200
        )
    for seat in range(4):
        token = {"Authorization": f"Bearer {t2['seat_tokens'][seat]['token']}"}
        card = ["QC", "4S", "9C", "JH"][seat]
        assert (
            send(
                served,
                "PUT",
                f"{url2}/rounds/1/exchanges/2/passes/{seat}",
                {"cards": [card]},
                **token,
            )[0]
            == 200
        )
    token = {"Authorization": f"Bearer {t2['seat_tokens'][0]['token']}"}
    assert send(served, "POST", f"{url2}/rounds/1/claims", None, **token)[0] == 200
    status, _, rec = send(served, "GET", f"{url2}/rounds/1/record")
    assert status == 200 and rec["submitted"] is True
    after = json.loads(redis_client.get(deal_key(t2["table_id"])))["secret"]
    assert rec["proof"]["secret"] != after and after not in json.dumps(rec)
