"""What Idempotency-Key records may keep: at most IDEMPOTENCY_RECORDS_PER_TOKEN
per token and table (the oldest go, in the commit that writes a new one), and
nothing once the table is deleted."""

from __future__ import annotations

import uuid
from typing import Any

import redis

from service import create_app

from ..conftest import RedisProcess, settings_for
from ..helpers import Table, TableClient, bearer
from .test_idempotency import NOT_WINNING, keyed

CAP = 5


def capped_tables(redis_server: RedisProcess) -> TableClient:
    app = create_app(settings_for(redis_server.url, idempotency_records_per_token=CAP))
    return TableClient(app.test_client())


def records(r: redis.Redis, t: Table) -> list[bytes]:
    return list(r.scan_iter(match=f"referee:{{{t.table_id}}}:idem:*", count=1000))


def tagged(r: redis.Redis, t: Table) -> list[bytes]:
    return list(r.scan_iter(match=f"*{{{t.table_id}}}*", count=1000))


def claim(tables: TableClient, t: Table, seat: int, key: str) -> Any:
    return tables.client.post(f"{t.url}/rounds/1/claims", headers=keyed(t.seats[seat], key))


def test_a_new_key_per_claim_keeps_at_most_the_cap(
    redis_server: RedisProcess, redis_client: redis.Redis
) -> None:
    # The report: a new Idempotency-Key on every POST …/claims stored ~650 B
    # each, for 24 h.
    tables = capped_tables(redis_server)
    t = tables.create(4)
    tables.deal(t, NOT_WINNING)
    keys = [str(uuid.uuid4()) for _ in range(40)]
    for key in keys:
        assert claim(tables, t, 0, key).status_code == 422
    assert len(records(redis_client, t)) == CAP
    indexes = list(redis_client.scan_iter(match=f"referee:{{{t.table_id}}}:idem-index:*"))
    assert len(indexes) == 1 and redis_client.zcard(indexes[0]) == CAP
    assert 24 * 3600 - 5 <= redis_client.ttl(indexes[0]) <= 24 * 3600
    # The newest answers still replay; the oldest are gone (a retry runs again).
    newest = claim(tables, t, 0, keys[-1])
    assert newest.status_code == 422 and newest.headers.get("Idempotent-Replayed") == "true"
    oldest = claim(tables, t, 0, keys[0])
    assert oldest.status_code == 422 and "Idempotent-Replayed" not in oldest.headers
    assert len(records(redis_client, t)) == CAP


def test_refusals_recorded_apart_from_a_commit_keep_at_most_the_cap(
    redis_server: RedisProcess, redis_client: redis.Redis
) -> None:
    tables = capped_tables(redis_server)
    t = tables.create(4)
    tables.deal(t, NOT_WINNING)
    for _ in range(20):  # 409 round-in-play: a refusal that writes nothing
        r = tables.client.post(f"{t.url}/rounds", headers=keyed(t.host, str(uuid.uuid4())))
        assert r.status_code == 409
    assert len(records(redis_client, t)) == CAP


def test_one_tokens_flood_evicts_none_of_another_tokens_answers(
    redis_server: RedisProcess, redis_client: redis.Redis
) -> None:
    tables = capped_tables(redis_server)
    t = tables.create(4)
    tables.deal(t, NOT_WINNING)
    mine = str(uuid.uuid4())
    assert claim(tables, t, 1, mine).status_code == 422
    for _ in range(3 * CAP):
        claim(tables, t, 0, str(uuid.uuid4()))
    again = claim(tables, t, 1, mine)
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert len(records(redis_client, t)) == CAP + 1


def test_deleting_a_table_deletes_every_record_it_had(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    # The report: every record survived DELETE of the table.
    key = str(uuid.uuid4())
    body = {"players": ["a", "b", "c", "d"], "first_dealer": 0}
    created = tables.client.post("/v1/tables", json=body, headers={"Idempotency-Key": key})
    assert created.status_code == 201
    data = created.get_json()
    t = Table(data["table_id"], data["host_token"], [s["token"] for s in data["seat_tokens"]], data)
    r = tables.client.post(
        f"{t.url}/rounds", json={"hands": NOT_WINNING}, headers=keyed(t.host, key)
    )
    assert r.status_code == 201
    for seat in range(4):  # seats 0 to 2 are refused, seat 3 wins
        assert claim(tables, t, seat, str(uuid.uuid4())).status_code in (200, 422)
    assert len(records(redis_client, t)) == 6
    assert tables.client.delete(t.url, headers=bearer(t.host)).status_code == 204
    # Only the creation's answer stays (one per table, sealed with its key, until
    # it expires): a retry of the creation is answered as the table is now.
    left = tagged(redis_client, t)
    assert [k.rsplit(b":", 1)[-1] for k in left] == [b"create"]
    assert 0 < redis_client.ttl(left[0]) <= 24 * 3600
    again = tables.client.post("/v1/tables", json=body, headers={"Idempotency-Key": key})
    assert again.status_code == 404 and again.get_json()["code"] == "table-not-found"
    assert tagged(redis_client, t) == left  # and makes no second table


def test_refused_requests_leave_the_table_and_its_records_as_they_were(
    redis_server: RedisProcess, redis_client: redis.Redis
) -> None:
    from ..helpers import snapshot
    from .test_limits import client_at

    app = create_app(
        settings_for(
            redis_server.url, rate_limit_per_token="3/minute", rate_limit_anonymous="1000/minute"
        )
    )
    tables = TableClient(client_at(app, f"10.77.{uuid.uuid4().int % 250}.1"))
    t = tables.create(4)
    first = tables.client.post(
        f"{t.url}/rounds", json={"hands": NOT_WINNING}, headers=keyed(t.host, str(uuid.uuid4()))
    )
    assert first.status_code == 201
    assert claim(tables, t, 0, str(uuid.uuid4())).status_code == 422  # a record, an event
    before = snapshot(redis_client, t)
    assert any(b":idem-index:" in k.encode() for k in before)
    huge = '{"hands": [[' + "9" * 5000 + "]]}"
    refused = [
        # a bearer value that is no token of the table (401), keyed
        tables.client.post(f"{t.url}/rounds/1/claims", headers=keyed("junk", str(uuid.uuid4()))),
        # an integer past 4,300 digits (400), keyed
        tables.client.post(
            f"{t.url}/rounds",
            data=huge,
            content_type="application/json",
            headers=keyed(t.host, str(uuid.uuid4())),
        ),
        # a body over 64 KiB (413), keyed
        tables.client.post(
            f"{t.url}/rounds",
            data=" " * (65 * 1024),
            content_type="application/json",
            headers=keyed(t.host, str(uuid.uuid4())),
        ),
    ]
    assert [r.status_code for r in refused] == [401, 400, 413]
    # Seat 0's token: 3 requests a minute, the claim above and these two.
    tables.client.get(f"{t.url}/seats/0", headers=bearer(t.seats[0]))
    tables.client.get(f"{t.url}/seats/0", headers=bearer(t.seats[0]))
    limited = claim(tables, t, 0, str(uuid.uuid4()))
    assert limited.status_code == 429
    assert snapshot(redis_client, t) == before
