"""What an Idempotency-Key record holds (service/edge/recorded.py): the answer
once, compactly, with its index entry short enough for Redis's compact
sorted set; and the records of the release before still replay, and still go
with the cap and with their table."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import redis
from flask import request

from service import create_app
from service.edge import idempotency, recorded
from service.edge.auth import token_hash
from service.edge.common import RefereeBlueprint
from service.storage import idempotency as records

from ..conftest import RedisProcess, settings_for
from ..helpers import Table, TableClient, bearer
from .test_idempotency import NOT_WINNING, keyed


def old_record(
    fp: str, status: int, headers: dict[str, str], body: Any, seal: str | None = None
) -> str:
    """A record as the release before wrote it (Pending.success_record then)."""
    kept = {k: v for k, v in headers.items() if k in ("Location", "Cache-Control")}
    data: dict[str, Any] = {"fp": fp, "status": status, "headers": kept}
    text = json.dumps(body, separators=(",", ":"))
    if seal is None:
        data["body"] = text
    else:
        data["sealed"] = idempotency._fernet(seal).encrypt(text.encode()).decode()
    return "D" + json.dumps(data, separators=(",", ":"))


def fingerprint(app: Any, method: str, path: str, body: Any = None) -> str:
    """The request's fingerprint as its view asks for it: its body (if any)
    read first by the endpoint's parser."""
    with app.test_request_context(path, method=method, json=body):
        if body is not None:
            RefereeBlueprint.ARGUMENTS_PARSER.load_json(request, None)
        return idempotency._fingerprint()


def test_a_deal_is_recorded_once_deflated_with_its_location(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4)
    key = str(uuid.uuid4())
    first = tables.client.post(
        f"{t.url}/rounds", json={"hands": NOT_WINNING}, headers=keyed(t.host, key)
    )
    assert first.status_code == 201
    record_key = records.table_record_key(t.table_id, token_hash(t.host), key)
    stored = redis_client.get(record_key)
    assert stored is not None and stored[:2] == b"Dz" and stored[2:5] == b"201"
    body = json.dumps(first.get_json(), separators=(",", ":")).encode()
    assert len(stored) < len(body) / 2  # the public table, deflated; the report: 2,458 B
    answer = recorded.decode(stored)
    assert json.loads(answer.body) == first.get_json()
    assert answer.headers == {"Location": f"{t.url}/rounds/1"}
    # Its token's index names it by its digest alone: a compact sorted set.
    index = records.index_key(t.table_id, token_hash(t.host))
    assert redis_client.zrange(index, 0, -1) == [record_key.rsplit(":", 1)[1].encode()]
    assert redis_client.object("encoding", index) == b"listpack"
    again = tables.client.post(
        f"{t.url}/rounds", json={"hands": NOT_WINNING}, headers=keyed(t.host, key)
    )
    assert again.data == first.data and again.headers["Location"] == first.headers["Location"]


def test_records_of_the_release_before_replay_as_they_were(
    app: Any, tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4)
    deal_key, claim_key = str(uuid.uuid4()), str(uuid.uuid4())
    deal_path, claim_path = f"{t.url}/rounds", f"{t.url}/rounds/1/claims"
    dealt = tables.client.post(
        deal_path, json={"hands": NOT_WINNING}, headers=keyed(t.host, deal_key)
    )
    refused = tables.client.post(claim_path, headers=keyed(t.seats[0], claim_key))
    assert (dealt.status_code, refused.status_code) == (201, 422)
    # The same answers, stored as the release before stored them.
    for token, key, answer, fp in (
        (t.host, deal_key, dealt, fingerprint(app, "POST", deal_path, {"hands": NOT_WINNING})),
        (t.seats[0], claim_key, refused, fingerprint(app, "POST", claim_path)),
    ):
        record_key = records.table_record_key(t.table_id, token_hash(token), key)
        old = old_record(fp, answer.status_code, dict(answer.headers), answer.get_json())
        redis_client.set(record_key, old, keepttl=True)
    events = tables.events(t)
    again = tables.client.post(
        deal_path, json={"hands": NOT_WINNING}, headers=keyed(t.host, deal_key)
    )
    assert (again.status_code, again.data) == (201, dealt.data)
    assert again.headers["Location"] == dealt.headers["Location"]
    assert again.headers["Idempotent-Replayed"] == "true"
    claimed = tables.client.post(claim_path, headers=keyed(t.seats[0], claim_key))
    assert (claimed.status_code, claimed.data) == (422, refused.data)
    assert claimed.content_type == "application/problem+json"
    assert claimed.headers["Idempotent-Replayed"] == "true"
    assert tables.events(t) == events  # neither acted again
    # An old record still tells another request under its key.
    other = tables.client.post(deal_path, headers=keyed(t.host, deal_key))
    assert other.status_code == 422 and other.get_json()["code"] == "idempotency-key-reused"


def test_a_creation_recorded_by_the_release_before_replays(
    app: Any, client: Any, redis_client: redis.Redis
) -> None:
    body = {"players": ["Ann", "Ben", "Cat", "Dan"], "first_dealer": 0}
    key = str(uuid.uuid4())
    first = client.post("/v1/tables", json=body, headers={"Idempotency-Key": key})
    assert first.status_code == 201
    fp = fingerprint(app, "POST", "/v1/tables", body)
    old = old_record(fp, 201, dict(first.headers), first.get_json(), seal=key)
    redis_client.set(records.create_record_key(key), old, keepttl=True)
    again = client.post("/v1/tables", json=body, headers={"Idempotency-Key": key})
    assert (again.status_code, again.data) == (201, first.data)
    assert again.headers["Location"] == first.headers["Location"]
    assert again.headers["Cache-Control"] == "no-store"
    # And the new record is sealed too: no token in Redis.
    client.post("/v1/tables", json=body, headers={"Idempotency-Key": (fresh := str(uuid.uuid4()))})
    stored = redis_client.get(records.create_record_key(fresh))
    assert stored is not None and stored[:2] == b"Ds"


def test_old_index_entries_still_go_with_the_cap_and_the_table(
    redis_server: RedisProcess, redis_client: redis.Redis
) -> None:
    app = create_app(settings_for(redis_server.url, idempotency_records_per_token=2))
    tables = TableClient(app.test_client())
    t = tables.create(4)
    tables.deal(t, NOT_WINNING)

    def claim(seat: int, key: str) -> int:
        r = tables.client.post(f"{t.url}/rounds/1/claims", headers=keyed(t.seats[seat], key))
        return int(r.status_code)

    # Seat 0's index holds an entry of the release before (the full key name).
    old_key = records.table_record_key(t.table_id, token_hash(t.seats[0]), "an-old-key-0000001")
    index = records.index_key(t.table_id, token_hash(t.seats[0]))
    redis_client.set(old_key, 'D{"fp":"x","status":422,"headers":{},"body":"{}"}', ex=3600)
    redis_client.zadd(index, {old_key: time.time() * 1000 - 1000})
    assert claim(0, str(uuid.uuid4())) == 422
    assert redis_client.exists(old_key) == 1
    assert claim(0, str(uuid.uuid4())) == 422  # the third: the oldest, the old one, goes
    assert redis_client.exists(old_key) == 0 and redis_client.zcard(index) == 2
    # Seat 1's old entry goes with the table.
    old_key = records.table_record_key(t.table_id, token_hash(t.seats[1]), "an-old-key-0000002")
    redis_client.set(old_key, 'D{"fp":"x","status":422,"headers":{},"body":"{}"}', ex=3600)
    redis_client.zadd(records.index_key(t.table_id, token_hash(t.seats[1])), {old_key: 1.0})
    assert tables.client.delete(t.url, headers=bearer(t.host)).status_code == 204
    assert redis_client.exists(old_key) == 0
    left = list(redis_client.scan_iter(match=f"referee:{{{t.table_id}}}*"))
    assert left == []


def test_a_may_i_move_record_costs_a_fraction_of_its_answer(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t: Table = tables.create(4, "may-i", first_dealer=0)
    assert tables.deal(t).status_code == 201
    seat = tables.public(t)["round"]["on_turn"]
    key = str(uuid.uuid4())
    r = tables.client.put(
        f"{t.url}/rounds/1/moves/1", json={"take_discard": True}, headers=keyed(t.seats[seat], key)
    )
    assert r.status_code == 200
    stored = redis_client.get(records.table_record_key(t.table_id, token_hash(t.seats[seat]), key))
    assert stored is not None
    assert b'\\"' not in stored  # no JSON inside a JSON string
    assert len(stored) < len(r.data) * 0.7
    assert json.loads(recorded.decode(stored).body) == r.get_json()
