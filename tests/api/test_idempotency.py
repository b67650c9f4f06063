"""Idempotency-Key on every POST (IETF httpapi draft), and retried passes.

A retry of a request whose answer was lost is the same request sent again:
these tests send it again and check that nothing acted twice.
"""

from __future__ import annotations

import json
import secrets
import threading
import uuid
from typing import Any

import pytest
import redis

from service.games.ship import engine
from service.storage import idempotency as records

from ..helpers import Table, TableClient, bearer, snapshot
from .test_play import WINNING_AT_DEAL

NOT_WINNING = [
    ["AH", "KH", "QH", "JH", "TH", "9H", "8D"],
    ["AS", "KS", "QS", "JS", "TS", "9S", "8H"],
    ["AD", "KD", "QD", "JD", "TD", "9D", "8S"],
    ["AC", "KC", "QC", "JC", "TC", "9C", "8C"],
]


def keyed(token: str | None, key: str) -> dict[str, str]:
    headers = {"Idempotency-Key": key}
    if token:
        headers.update(bearer(token))
    return headers


def event_types(tables: TableClient, t: Table) -> list[str]:
    return [e["type"] for e in tables.events(t)]


def test_a_retried_refused_claim_is_answered_alike_and_logged_once(tables: TableClient) -> None:
    t = tables.create(4)
    tables.deal(t, NOT_WINNING)
    key = str(uuid.uuid4())
    url = f"{t.url}/rounds/1/claims"
    first = tables.client.post(url, headers=keyed(t.seats[0], key))
    again = tables.client.post(url, headers=keyed(t.seats[0], key))
    assert first.status_code == again.status_code == 422
    assert first.get_json() == again.get_json()
    assert first.get_json()["code"] == "claim-not-winning"
    assert "Idempotent-Replayed" not in first.headers
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.content_type == "application/problem+json"
    assert event_types(tables, t).count("claim-rejected") == 1
    # Without a key the same claim is a new claim, logged again (RULES.md 2.6).
    tables.claim(t, 1, 0)
    assert event_types(tables, t).count("claim-rejected") == 2


def test_a_retried_deal_gets_the_first_answer_and_deals_once(tables: TableClient) -> None:
    t = tables.create(4)
    key = str(uuid.uuid4())
    url = f"{t.url}/rounds"
    first = tables.client.post(url, json={"hands": WINNING_AT_DEAL}, headers=keyed(t.host, key))
    events_after_first = tables.events(t)
    again = tables.client.post(url, json={"hands": WINNING_AT_DEAL}, headers=keyed(t.host, key))
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.get_json() == first.get_json()
    assert again.headers["Location"] == first.headers["Location"] == f"{t.url}/rounds/1"
    assert tables.events(t) == events_after_first
    assert event_types(tables, t).count("round-dealt") == 1
    # A deal without the key is a new request: refused, the round is in play.
    assert tables.deal(t).status_code == 409


def test_a_retried_finish_is_answered_alike(tables: TableClient) -> None:
    t = tables.create(4, match={"open": True})
    key = str(uuid.uuid4())
    first = tables.client.post(f"{t.url}/finish", headers=keyed(t.host, key))
    again = tables.client.post(f"{t.url}/finish", headers=keyed(t.host, key))
    assert first.status_code == again.status_code == 200
    assert first.get_json() == again.get_json()
    assert first.get_json()["match"]["status"] == "finished"
    assert event_types(tables, t).count("match-finished") == 1


def test_the_same_key_with_another_body_is_422_and_acts_not(tables: TableClient) -> None:
    t = tables.create(4)
    key = str(uuid.uuid4())
    url = f"{t.url}/rounds"
    assert tables.client.post(url, json={}, headers=keyed(t.host, key)).status_code == 201
    other = tables.client.post(url, json={"hands": WINNING_AT_DEAL}, headers=keyed(t.host, key))
    assert other.status_code == 422
    assert other.get_json()["code"] == "idempotency-key-reused"
    assert event_types(tables, t).count("round-dealt") == 1
    # The same key on another path is another request too.
    moved = tables.client.post(f"{t.url}/finish", headers=keyed(t.host, key))
    assert moved.status_code == 422 and moved.get_json()["code"] == "idempotency-key-reused"


def test_keys_belong_to_the_token_they_came_with(tables: TableClient) -> None:
    t = tables.create(4)
    tables.deal(t, WINNING_AT_DEAL)
    key = str(uuid.uuid4())
    url = f"{t.url}/rounds/1/claims"
    refused = tables.client.post(url, headers=keyed(t.seats[1], key))
    assert refused.status_code == 422  # seat 1 holds no seven of a suit
    won = tables.client.post(url, headers=keyed(t.seats[0], key))
    assert won.status_code == 200 and won.get_json()["accepted"] is True
    assert "Idempotent-Replayed" not in won.headers


def test_a_retry_while_the_first_runs_is_409(app: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    tables = TableClient(app.test_client())
    t = tables.create(4)
    tables.deal(t, NOT_WINNING)
    inside, release = threading.Event(), threading.Event()
    real_claim = engine.claim

    def slow_claim(*args: Any, **kwargs: Any) -> Any:
        inside.set()
        release.wait(10)  # the first request holds its key here, mid-move
        return real_claim(*args, **kwargs)

    monkeypatch.setattr(engine, "claim", slow_claim)
    key = str(uuid.uuid4())
    url = f"{t.url}/rounds/1/claims"
    answers: list[Any] = []
    first = threading.Thread(
        target=lambda: answers.append(app.test_client().post(url, headers=keyed(t.seats[0], key)))
    )
    first.start()
    assert inside.wait(10)
    during = app.test_client().post(url, headers=keyed(t.seats[0], key))
    release.set()
    first.join(10)
    assert during.status_code == 409
    assert during.get_json()["code"] == "idempotency-key-in-use"
    assert during.headers["Retry-After"] == "1"
    assert answers[0].status_code == 422
    after = app.test_client().post(url, headers=keyed(t.seats[0], key))
    assert after.get_json() == answers[0].get_json()
    assert event_types(tables, t).count("claim-rejected") == 1


def test_a_refusal_before_the_rules_frees_the_key(tables: TableClient) -> None:
    t = tables.create(4)
    tables.deal(t, WINNING_AT_DEAL)
    key = str(uuid.uuid4())
    url = f"{t.url}/rounds/1/claims"
    assert tables.client.post(url, headers=keyed(t.host, key)).status_code == 403
    # The host's token holds no answer under this key: the same request runs again.
    assert tables.client.post(url, headers=keyed(t.host, key)).status_code == 403
    assert tables.client.post(url, headers=keyed(t.seats[0], key)).status_code == 200


def test_a_move_of_another_game_keeps_nothing_under_its_key(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    # Issue 39, fourth attacker (L2): a claim at a Sevens table, 404
    # move-not-in-game, was kept 24 hours; docs/api.md: a 404 keeps nothing.
    t = tables.create(4, "sevens")
    assert tables.deal(t).status_code == 201
    before = snapshot(redis_client, t)
    key, url = str(uuid.uuid4()), f"{t.url}/rounds/1/claims"
    for _ in range(2):
        r = tables.client.post(url, headers=keyed(t.seats[0], key))
        assert (r.status_code, r.get_json()["code"]) == (404, "move-not-in-game")
        assert "Idempotent-Replayed" not in r.headers
    assert snapshot(redis_client, t) == before


@pytest.mark.parametrize("key", ["short", "x" * 256, "caf\u00e9-caf\u00e9-caf\u00e9-caf\u00e9", ""])
def test_malformed_keys_are_400(tables: TableClient, key: str) -> None:
    t = tables.create(4)
    r = tables.client.post(f"{t.url}/rounds", headers=keyed(t.host, key))
    assert r.status_code == 400 and r.get_json()["code"] == "idempotency-key-invalid"
    assert tables.public(t)["round"] is None


def test_a_quoted_key_is_the_same_key(tables: TableClient) -> None:
    t = tables.create(4)
    key = str(uuid.uuid4())
    first = tables.client.post(f"{t.url}/rounds", headers=keyed(t.host, key))
    again = tables.client.post(f"{t.url}/rounds", headers=keyed(t.host, f'"{key}"'))
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()


def test_records_live_in_the_table_hash_tag_for_24_hours(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4)
    key = str(uuid.uuid4())
    tables.client.post(f"{t.url}/rounds", headers=keyed(t.host, key))
    stored = redis_client.keys(f"referee:{{{t.table_id}}}:idem:*")
    assert len(stored) == 1
    assert 24 * 3600 - 5 <= redis_client.ttl(stored[0]) <= 24 * 3600
    assert key.encode() not in stored[0] and t.host.encode() not in redis_client.get(stored[0])


def test_a_retried_creation_gets_the_same_table_and_redis_holds_no_token(
    client: Any, redis_client: redis.Redis
) -> None:
    body = {"players": ["Ann", "Ben", "Cat", "Dan"], "first_dealer": 0}
    key = str(uuid.uuid4())
    tables_before = len(redis_client.keys("referee:{*}:table"))
    first = client.post("/v1/tables", json=body, headers={"Idempotency-Key": key})
    again = client.post("/v1/tables", json=body, headers={"Idempotency-Key": key})
    assert len(redis_client.keys("referee:{*}:table")) == tables_before + 1
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.get_json() == first.get_json()
    assert again.headers["Location"] == first.headers["Location"]
    assert again.headers["Idempotent-Replayed"] == "true"
    table_id = first.get_json()["table_id"]
    tokens = [
        first.get_json()["host_token"],
        *(s["token"] for s in first.get_json()["seat_tokens"]),
    ]
    record = redis_client.get(records.create_record_key(key))
    assert record is not None and redis_client.ttl(records.create_record_key(key)) >= 24 * 3600 - 5
    everything = (
        b"".join(redis_client.dump(k) or b"" for k in redis_client.keys(f"*{table_id}*") + [record])
        + record
    )
    for token in tokens:
        assert token.encode() not in everything
    # A different body under the same key is refused; a new key makes a new table.
    other = client.post("/v1/tables", json={**body, "first_dealer": 1}, headers={
        "Idempotency-Key": key})  # fmt: skip
    assert other.status_code == 422 and other.get_json()["code"] == "idempotency-key-reused"
    fresh = client.post("/v1/tables", json=body, headers={"Idempotency-Key": str(uuid.uuid4())})
    assert fresh.get_json()["table_id"] != table_id


def test_a_retried_pass_after_a_lost_answer_never_moves_a_second_card(
    tables: TableClient,
) -> None:
    t = tables.create(4)
    tables.deal(t, NOT_WINNING)
    hands = [tables.hand(t, s) for s in range(4)]
    picks = [h[-1] for h in hands]
    first = [tables.pass_(t, 1, 1, s, [picks[s]]) for s in range(4)]
    assert [r.get_json()["resolved"] for r in first] == [False, False, False, True]
    after = [tables.hand(t, s) for s in range(4)]
    events = tables.events(t)
    for seat in range(4):  # each answer "lost": the seat sends its pass again
        again = tables.pass_(t, 1, 1, seat, [picks[seat]])
        assert again.status_code == 200
        assert again.get_json()["resolved"] is True
        assert again.get_json()["hand"] == after[seat]
    assert [tables.hand(t, s) for s in range(4)] == after
    assert tables.events(t) == events
    for seat in range(4):  # exactly one card left each hand and one arrived
        assert len(set(hands[seat]) - set(after[seat])) == 1
        assert picks[seat] not in after[seat]


def test_the_same_json_serialised_anew_is_the_same_request(tables: TableClient) -> None:
    # A client that builds the body again on a retry (key order, spacing) must
    # get the replay, not 422; a body with another value is another request.
    key = str(uuid.uuid4())
    first = b'{"variant": "foster", "players": ["A", "B", "C"], "first_dealer": 0}'
    again = b'{"first_dealer":0,"players":["A","B","C"],"variant":"foster"}'
    other = b'{"first_dealer":1,"players":["A","B","C"],"variant":"foster"}'
    send = {"headers": {"Idempotency-Key": key}, "content_type": "application/json"}
    created = tables.client.post("/v1/tables", data=first, **send)
    replayed = tables.client.post("/v1/tables", data=again, **send)
    assert created.status_code == replayed.status_code == 201
    assert replayed.headers["Idempotent-Replayed"] == "true"
    assert replayed.get_json()["table_id"] == created.get_json()["table_id"]
    reused = tables.client.post("/v1/tables", data=other, **send)
    assert reused.status_code == 422 and reused.get_json()["code"] == "idempotency-key-reused"


def test_a_deal_with_a_body_nested_too_deep_is_400_and_frees_its_key(tables: TableClient) -> None:
    # Well-formed JSON, too deep for the parser, to a call that reads its body,
    # with a key: both the key's fingerprint and the body parser meet it.
    # 3,000 deep: fewer arrays than a body may hold (CONTAINER_BYTES), more
    # levels than the parser reads.
    t = tables.create(4)
    depth = 3_000
    deep = '{"hands": ' + "[" * depth + "]" * depth + "}"
    assert len(deep) < 64 * 1024  # not a 413
    json.loads('{"hands": ' + "[" * 500 + "]" * 500 + "}")  # well-formed, only deep
    key = str(uuid.uuid4())
    r = tables.client.post(
        f"{t.url}/rounds", data=deep, content_type="application/json", headers=keyed(t.host, key)
    )
    assert r.status_code == 400, r.get_json()
    assert r.get_json()["code"] == "malformed-request"
    assert "deep" in r.get_json()["detail"]
    assert tables.public(t)["round"] is None
    # Refused before the rules: nothing recorded, the key runs the next request.
    r = tables.client.post(f"{t.url}/rounds", json={}, headers=keyed(t.host, key))
    assert r.status_code == 201, r.get_json()


def test_a_retried_creation_of_a_deleted_table_is_404_not_its_tokens(client: Any) -> None:
    body = {"players": ["Ann", "Ben", "Cat", "Dan"], "first_dealer": 0}
    key = {"Idempotency-Key": str(uuid.uuid4())}
    first = client.post("/v1/tables", json=body, headers=key)
    assert first.status_code == 201
    created = first.get_json()
    gone = client.delete(first.headers["Location"], headers=bearer(created["host_token"]))
    assert gone.status_code == 204
    again = client.post("/v1/tables", json=body, headers=key)
    assert again.status_code == 404, again.get_json()
    assert again.get_json()["code"] == "table-not-found"
    text = again.get_data(as_text=True)
    assert created["host_token"] not in text and created["table_id"] not in text
    # A refused creation made no table: its retry still gets the refusal.
    refused = {"players": ["Ann"], "first_dealer": 0}
    key = {"Idempotency-Key": str(uuid.uuid4())}
    assert client.post("/v1/tables", json=refused, headers=key).status_code == 422


def test_a_retried_move_on_a_deleted_table_is_answered_as_the_table_is_now(
    tables: TableClient,
) -> None:
    t = tables.create(4)
    key = {"Idempotency-Key": str(uuid.uuid4()), **bearer(t.host)}
    first = tables.client.post(f"{t.url}/rounds", headers=key)
    assert first.status_code == 201
    assert tables.client.delete(t.url, headers=bearer(t.host)).status_code == 204
    again = tables.client.post(f"{t.url}/rounds", headers=key)
    # As without a key: a call that needs a token, on a table that is not there.
    assert again.status_code == 401, again.get_json()
    assert again.get_json()["code"] == "token-unknown"


def test_a_body_the_endpoint_takes_not_is_neither_read_nor_part_of_its_request(
    tables: TableClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 39, eighteenth attacker: a key's check parsed the body of an
    endpoint that takes none (``…/finish``, ``…/token``, ``…/leave``), 14 to
    16 ms for 64 KiB of numbers, before the token was checked (a made-up one
    paid it too) and past the bound on a body's arrays for one not sent as
    JSON. Such a body is no part of the request now: never parsed, and a
    retry with another one is the same request. A body the endpoint reads
    is read once, key or not."""
    t = tables.create(4, match={"open": True})
    floats = "[" + ",".join(["5e-324"] * 9000) + "]"
    nested = ("[" * 30 + "]" * 30) * 1000  # 30,000 lists
    assert len(floats) < 64 * 1024 and len(nested) < 64 * 1024
    parsed: list[str] = []
    loads = json.loads

    def spy(text: Any, *args: Any, **kwargs: Any) -> Any:
        parsed.append(text)
        return loads(text, *args, **kwargs)

    monkeypatch.setattr(json, "loads", spy)
    finish = f"{t.url}/finish"
    stranger = bearer(secrets.token_urlsafe(32))
    for body, kind in ((floats, "application/json"), (nested, "text/plain")):
        headers = {**stranger, "Idempotency-Key": str(uuid.uuid4())}
        r = tables.client.post(finish, data=body, content_type=kind, headers=headers)
        assert r.status_code == 401, r.get_json()
    key = str(uuid.uuid4())
    first = tables.client.post(
        finish, data=floats, content_type="application/json", headers=keyed(t.host, key)
    )
    again = tables.client.post(finish, headers=keyed(t.host, key))
    assert first.status_code == again.status_code == 200, again.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert [text for text in parsed if text in (floats, nested)] == []
    # A deal's body: read once with its key, and part of its request.
    dealt = tables.create(4)
    body = json.dumps({"hands": NOT_WINNING})
    key = str(uuid.uuid4())
    r = tables.client.post(
        f"{dealt.url}/rounds",
        data=body,
        content_type="application/json",
        headers=keyed(dealt.host, key),
    )
    assert r.status_code == 201, r.get_json()
    assert parsed.count(body) == 1
    r = tables.client.post(f"{dealt.url}/rounds", headers=keyed(dealt.host, key))
    assert r.status_code == 422 and r.get_json()["code"] == "idempotency-key-reused"
