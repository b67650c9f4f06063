"""Open seats, join codes, the deal held until every seat is taken, a
reissued token, a seat that leaves (RULES.md 5.1), through the Flask app on
a real Redis."""

from __future__ import annotations

import json
import threading
import time
import uuid
from typing import Any

import pytest
import redis

from service import create_app
from service.edge.auth import token_hash
from service.resources import seating
from service.storage.idempotency import index_key
from tests.conftest import RedisProcess, settings_for
from tests.helpers import Table, bearer, phone_lost, snapshot
from tests.ship.test_engine import WORKED_EXAMPLE

PRESETS = ["classic", "sevens", "may-i"]


def create(client: Any, players: list[str | None], **extra: Any) -> dict[str, Any]:
    body = {"variant": "classic", "players": players, "first_dealer": 0, **extra}
    r = client.post("/v1/tables", json=body)
    assert r.status_code == 201, r.get_json()
    return r.get_json()  # type: ignore[no-any-return]


def table_of(created: dict[str, Any]) -> Table:
    return Table(created["table_id"], created["host_token"], [], created)


def join(client: Any, table_id: str, name: str, code: str | None = None, **headers: str) -> Any:
    body = {"name": name} if code is None else {"name": name, "code": code}
    return client.post(f"/v1/tables/{table_id}/join", json=body, headers=headers)


def auth_record(r: redis.Redis, table_id: str) -> dict[str, Any]:
    return json.loads(r.hget(f"referee:{{{table_id}}}:table", "a"))  # type: ignore[arg-type]


def test_a_table_of_named_seats_is_created_as_before(
    client: Any, redis_client: redis.Redis
) -> None:
    created = create(client, ["Ann", "Ben", "Cat", "Dan"])
    assert [s["seat"] for s in created["seat_tokens"]] == [0, 1, 2, 3]
    assert created["join_codes"] == []
    # h, s, when it was made (what tags its round records for good) and the
    # creator the referee's moves are charged to (RULES.md 5.4).
    assert auth_record(redis_client, created["table_id"]).keys() == {"h", "s", "c", "q"}
    assert auth_record(redis_client, created["table_id"])["q"].startswith("addr:")
    view = created["table"]
    assert view["open_seats"] == []
    assert [(s["name"], s["open"]) for s in view["seats"]] == [
        ("Ann", False),
        ("Ben", False),
        ("Cat", False),
        ("Dan", False),
    ]
    deal = client.post(
        f"/v1/tables/{created['table_id']}/rounds", headers=bearer(created["host_token"])
    )
    assert deal.status_code == 201


@pytest.mark.parametrize("variant", PRESETS)
def test_seat_codes_fill_open_seats_and_the_deal_waits_for_them(
    client: Any, redis_client: redis.Redis, variant: str
) -> None:
    created = create(client, ["Ann", None, None, "Dan"], variant=variant)
    table_id, host = created["table_id"], created["host_token"]
    assert [s["seat"] for s in created["seat_tokens"]] == [0, 3]
    codes = {c["seat"]: c["code"] for c in created["join_codes"]}
    assert set(codes) == {1, 2}
    assert created["table"]["open_seats"] == [1, 2]
    assert created["table"]["seats"][1] | {} == {**created["table"]["seats"][1], "name": None}
    # Only hashes in Redis.
    stored = json.dumps(auth_record(redis_client, table_id))
    assert all(code not in stored for code in codes.values())

    deal = client.post(f"/v1/tables/{table_id}/rounds", headers=bearer(host))
    assert deal.status_code == 409
    assert deal.get_json()["code"] == "seats-open"
    assert deal.get_json()["open_seats"] == [1, 2]

    r = join(client, table_id, "Bea", codes[2])
    assert r.status_code == 201, r.get_json()
    got = r.get_json()
    assert (got["seat"], got["name"]) == (2, "Bea")
    assert r.headers["Location"] == f"/v1/tables/{table_id}/seats/2"
    assert r.headers["Cache-Control"] == "no-store"
    assert got["table"]["open_seats"] == [1]
    assert got["table"]["seats"][2]["name"] == "Bea"
    seat_view = client.get(f"/v1/tables/{table_id}/seats/2", headers=bearer(got["token"]))
    assert seat_view.status_code == 200
    # The code is spent.
    again = join(client, table_id, "Eve", codes[2])
    assert (again.status_code, again.get_json()["code"]) == (403, "join-code-invalid")

    deal = client.post(f"/v1/tables/{table_id}/rounds", headers=bearer(host))
    assert deal.get_json()["open_seats"] == [1]
    assert join(client, table_id, "Cy", codes[1]).status_code == 201
    deal = client.post(f"/v1/tables/{table_id}/rounds", headers=bearer(host))
    assert deal.status_code == 201, deal.get_json()

    events = client.get(f"/v1/tables/{table_id}/events").get_json()["events"]
    joined = [e for e in events if e["type"] == "seat-joined"]
    assert [(e["seat"], e["name"]) for e in joined] == [(2, "Bea"), (1, "Cy")]
    assert all(set(e) == {"seq", "at_ms", "type", "seat", "name"} for e in joined)


def test_a_table_code_fills_the_open_seats_in_order(client: Any) -> None:
    created = create(client, [None, "Ben", None, None], join_codes="table")
    (code,) = created["join_codes"]
    assert code["seat"] is None
    table_id = created["table_id"]
    seats = [join(client, table_id, f"P{i}", code["code"]).get_json()["seat"] for i in range(3)]
    assert seats == [0, 2, 3]
    full = join(client, table_id, "Late", code["code"])
    assert (full.status_code, full.get_json()["code"]) == (409, "seats-full")


def test_refused_joins_change_nothing(client: Any, redis_client: redis.Redis) -> None:
    created = create(client, ["Ann", None, None, "Dan"])
    table_id = created["table_id"]
    code = created["join_codes"][0]["code"]
    t = table_of(created)
    assert join(client, table_id, "Bea", code).status_code == 201
    before = snapshot(redis_client, t)
    refused = [
        (join(client, table_id, "Eve", code), 403, "join-code-invalid"),  # spent
        (join(client, table_id, "Eve", "x" * 22), 403, "join-code-invalid"),  # wrong
        (join(client, table_id, "Eve"), 403, "join-code-required"),  # unlisted
        (join(client, table_id, "", created["join_codes"][1]["code"]), 422, "invalid-request"),
        (join(client, "nope" * 5, "Eve", code), 404, "table-not-found"),
    ]
    for r, status, problem in refused:
        assert (r.status_code, r.get_json()["code"]) == (status, problem)
    key = {"Idempotency-Key": str(uuid.uuid4())}
    r = join(client, table_id, "Eve", code, **key)
    assert r.status_code == 403
    assert snapshot(redis_client, t) == before


def test_an_expired_code_is_refused(redis_server: RedisProcess, redis_client: redis.Redis) -> None:
    app = create_app(settings_for(redis_server.url, join_code_seconds=1))
    client = app.test_client()
    created = create(client, ["Ann", None, "Cat", "Dan"])
    (code,) = created["join_codes"]
    assert code["expires_at_ms"] - created["table"]["last_event"] > 0
    time.sleep(1.2)
    before = snapshot(redis_client, table_of(created))
    r = join(client, created["table_id"], "Bea", code["code"])
    assert (r.status_code, r.get_json()["code"]) == (403, "join-code-expired")
    assert snapshot(redis_client, table_of(created)) == before
    # The host's new code works.
    issued = client.post(
        f"/v1/tables/{created['table_id']}/codes",
        json={"seat": 1},
        headers=bearer(created["host_token"]),
    )
    assert issued.status_code == 201, issued.get_json()
    assert join(client, created["table_id"], "Bea", issued.get_json()["code"]).status_code == 201


def test_a_retried_join_takes_one_seat_and_answers_the_same_token(
    client: Any, redis_client: redis.Redis
) -> None:
    created = create(client, ["Ann", None, None, "Dan"], join_codes="table")
    code = created["join_codes"][0]["code"]
    key = {"Idempotency-Key": str(uuid.uuid4())}
    first = join(client, created["table_id"], "Bea", code, **key)
    again = join(client, created["table_id"], "Bea", code, **key)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    view = client.get(f"/v1/tables/{created['table_id']}").get_json()
    assert view["open_seats"] == [2]
    token = first.get_json()["token"]
    for k in redis_client.scan_iter(match=f"*{{{created['table_id']}}}*"):
        if redis_client.type(k) == b"string":
            assert token.encode() not in redis_client.get(k)  # type: ignore[operator]
    # The join's answer (kept under no token) goes with the table.
    deleted = client.delete(
        f"/v1/tables/{created['table_id']}", headers=bearer(created["host_token"])
    )
    assert deleted.status_code == 204
    assert list(redis_client.scan_iter(match=f"*{{{created['table_id']}}}*")) == []


def test_exactly_one_of_racing_joins_takes_the_last_seat(
    redis_server: RedisProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two apps: two processes' worth of turn locks, so the race is Redis's;
    # a slow join keeps every racer's read before the first commit.
    join_now = seating.join

    def slow_join(*args: Any) -> Any:
        time.sleep(0.05)
        return join_now(*args)

    monkeypatch.setattr(seating, "join", slow_join)
    apps = [create_app(settings_for(redis_server.url)) for _ in range(2)]
    created = create(apps[0].test_client(), ["Ann", "Ben", "Cat", None], join_codes="table")
    code = created["join_codes"][0]["code"]
    results: list[Any] = []
    start = threading.Barrier(8)

    def racer(number: int) -> None:
        client = apps[number % 2].test_client()
        start.wait()
        r = join(client, created["table_id"], f"P{number}", code)
        results.append((r.status_code, r.get_json()))

    threads = [threading.Thread(target=racer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [body for status, body in results if status == 201]
    assert len(winners) == 1
    assert sorted(status for status, _ in results) == [201] + [409] * 7
    assert {body["code"] for status, body in results if status == 409} == {"seats-full"}
    view = apps[1].test_client().get(f"/v1/tables/{created['table_id']}").get_json()
    assert view["seats"][3]["name"] == winners[0]["name"]


def test_reissue_locks_the_old_token_out(client: Any, redis_client: redis.Redis) -> None:
    created = create(client, ["Ann", "Ben", "Cat", "Dan"])
    table_id, host = created["table_id"], created["host_token"]
    old = created["seat_tokens"][1]["token"]
    url = f"/v1/tables/{table_id}/seats/1"
    # A keyed move of the old token: its answer is kept, until the reissue.
    assert client.post(f"/v1/tables/{table_id}/rounds", headers=bearer(host)).status_code == 201
    keyed = {**bearer(old), "Idempotency-Key": str(uuid.uuid4())}
    claim = client.post(f"/v1/tables/{table_id}/rounds/1/claims", headers=keyed)
    assert claim.status_code == 422
    index = index_key(table_id, token_hash(old))
    (member,) = redis_client.zrange(index, 0, -1)  # a record, named by its key's last part
    record = f"referee:{{{table_id}}}:idem:{member.decode()}"
    assert redis_client.exists(record)
    assert client.post(f"{url}/token", headers=bearer(old)).status_code == 403  # host only
    r = client.post(f"{url}/token", headers=bearer(host))
    assert r.status_code == 201, r.get_json()
    new = r.get_json()["token"]
    assert (r.get_json()["seat"], r.get_json()["name"]) == (1, "Ben")
    assert client.get(url, headers=bearer(old)).get_json()["code"] == "token-unknown"
    assert client.get(url, headers=bearer(new)).status_code == 200
    assert redis_client.exists(index, record) == 0
    events = client.get(f"/v1/tables/{table_id}/events").get_json()["events"]
    assert events[-1] == {**events[-1], "type": "token-reissued", "seat": 1, "name": "Ben"}
    assert set(events[-1]) == {"seq", "at_ms", "type", "seat", "name"}
    opened = create(client, ["Ann", None, "Cat", "Dan"])
    r = client.post(
        f"/v1/tables/{opened['table_id']}/seats/1/token", headers=bearer(opened["host_token"])
    )
    assert (r.status_code, r.get_json()["code"]) == (409, "seat-open")


def test_a_seat_that_leaves_before_the_deal_opens_again(
    client: Any, redis_client: redis.Redis
) -> None:
    created = create(client, ["Ann", None, "Cat", "Dan"], join_codes="table")
    table_id, host = created["table_id"], created["host_token"]
    code = created["join_codes"][0]["code"]
    bea = join(client, table_id, "Bea", code).get_json()
    url = f"/v1/tables/{table_id}/seats/1"
    cat = created["seat_tokens"][1]["token"]
    r = client.post(f"{url}/leave", headers=bearer(cat))
    assert (r.status_code, r.get_json()["code"]) == (403, "wrong-seat")
    r = client.post(f"{url}/leave", headers=bearer(bea["token"]))
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["open_seats"] == [1]
    assert client.get(url, headers=bearer(bea["token"])).status_code == 401
    again = client.post(f"{url}/leave", headers=bearer(host))
    assert (again.status_code, again.get_json()["code"]) == (409, "seat-open")
    # The table code fills it again, and the deal then goes ahead.
    assert join(client, table_id, "Dee", code).get_json()["seat"] == 1
    assert client.post(f"/v1/tables/{table_id}/rounds", headers=bearer(host)).status_code == 201
    before = snapshot(redis_client, table_of(created))
    late = client.post(f"/v1/tables/{table_id}/seats/0/leave", headers=bearer(host))
    assert (late.status_code, late.get_json()["code"]) == (409, "table-dealt")
    assert snapshot(redis_client, table_of(created)) == before
    events = client.get(f"/v1/tables/{table_id}/events").get_json()["events"]
    left = [e for e in events if e["type"] == "seat-left"]
    assert [(e["seat"], e["name"]) for e in left] == [(1, "Bea")]


def test_a_new_seat_code_replaces_the_old_one(client: Any) -> None:
    created = create(client, ["Ann", None, "Cat", "Dan"])
    table_id, host = created["table_id"], created["host_token"]
    old = created["join_codes"][0]["code"]
    issued = client.post(f"/v1/tables/{table_id}/codes", json={"seat": 1}, headers=bearer(host))
    assert issued.status_code == 201
    assert issued.headers["Cache-Control"] == "no-store"
    r = join(client, table_id, "Bea", old)
    assert r.get_json()["code"] == "join-code-invalid"
    taken = client.post(f"/v1/tables/{table_id}/codes", json={"seat": 0}, headers=bearer(host))
    assert (taken.status_code, taken.get_json()["code"]) == (409, "seat-taken")
    assert join(client, table_id, "Bea", issued.get_json()["code"]).status_code == 201


def test_no_view_or_event_shows_a_code_or_a_token(client: Any, redis_client: redis.Redis) -> None:
    created = create(client, ["Ann", None, None, "Dan"], listed=True)
    table_id, host = created["table_id"], created["host_token"]
    secrets = [host, *(s["token"] for s in created["seat_tokens"])]
    secrets += [c["code"] for c in created["join_codes"]]
    joined = join(client, table_id, "Bea", created["join_codes"][0]["code"]).get_json()
    secrets.append(joined["token"])
    joined2 = join(client, table_id, "Cy").get_json()  # listed: no code needed
    secrets.append(joined2["token"])
    phone_lost(redis_client, table_id, 1)  # Bea joined just now: connected
    reissued = client.post(f"/v1/tables/{table_id}/seats/1/token", headers=bearer(host)).get_json()
    secrets.append(reissued["token"])
    answers = [
        client.get(f"/v1/tables/{table_id}").get_data(as_text=True),
        client.get(f"/v1/tables/{table_id}/events").get_data(as_text=True),
        client.get("/v1/lobby").get_data(as_text=True),
        json.dumps(joined["table"]),
        json.dumps(reissued["table"]),
    ]
    for text in answers:
        for secret in secrets:
            assert secret not in text


def test_joins_count_on_their_own_creation_sized_limit(redis_server: RedisProcess) -> None:
    app = create_app(settings_for(redis_server.url, rate_limit_tables="3/minute"))
    client = app.test_client()
    address = {"REMOTE_ADDR": f"10.9.{uuid.uuid4().int % 250}.7"}
    body = {"variant": "classic", "players": ["Ann", None, None, None], "first_dealer": 0}
    created = client.post("/v1/tables", json={**body, "listed": True}, environ_base=address)
    table_id = created.get_json()["table_id"]
    statuses = [
        client.post(
            f"/v1/tables/{table_id}/join", json={"name": f"P{i}"}, environ_base=address
        ).status_code
        for i in range(4)
    ]
    assert statuses == [201, 201, 201, 429]  # the fourth is over the limit, not seats-full
    # Creations have a counter of their own: this address may still create two.
    assert client.post("/v1/tables", json=body, environ_base=address).status_code == 201


def test_refused_seat_changes_of_the_host_change_nothing(
    client: Any, redis_client: redis.Redis
) -> None:
    created = create(client, ["Ann", None, "Cat", "Dan"])
    table_id, host = created["table_id"], created["host_token"]
    t = table_of(created)
    before = snapshot(redis_client, t)
    cat = bearer(created["seat_tokens"][1]["token"])
    refused = [
        (client.post(f"/v1/tables/{table_id}/seats/1/token", headers=bearer(host)), "seat-open"),
        (client.post(f"/v1/tables/{table_id}/seats/2/token", headers=cat), "host-only"),
        (
            client.post(f"/v1/tables/{table_id}/seats/9/token", headers=bearer(host)),
            "seat-not-found",
        ),
        (
            client.post(f"/v1/tables/{table_id}/codes", json={"seat": 2}, headers=bearer(host)),
            "seat-taken",
        ),
        (client.post(f"/v1/tables/{table_id}/codes", json={}, headers=cat), "host-only"),
        (client.post(f"/v1/tables/{table_id}/seats/1/leave", headers=bearer(host)), "seat-open"),
        (client.post(f"/v1/tables/{table_id}/seats/3/leave", headers=cat), "wrong-seat"),
    ]
    for r, problem in refused:
        assert r.get_json()["code"] == problem
    assert snapshot(redis_client, t) == before


def test_a_retried_reissue_answers_the_same_new_token(
    client: Any, redis_client: redis.Redis
) -> None:
    created = create(client, ["Ann", "Ben", "Cat", "Dan"])
    table_id, host = created["table_id"], created["host_token"]
    keyed = {**bearer(host), "Idempotency-Key": str(uuid.uuid4())}
    first = client.post(f"/v1/tables/{table_id}/seats/2/token", headers=keyed)
    again = client.post(f"/v1/tables/{table_id}/seats/2/token", headers=keyed)
    assert first.status_code == again.status_code == 201
    assert again.headers["Idempotent-Replayed"] == "true"
    token = first.get_json()["token"]
    assert again.get_json()["token"] == token
    assert client.get(f"/v1/tables/{table_id}/seats/2", headers=bearer(token)).status_code == 200
    events = client.get(f"/v1/tables/{table_id}/events").get_json()["events"]
    assert [e["type"] for e in events].count("token-reissued") == 1
    for k in redis_client.scan_iter(match=f"*{{{table_id}}}*"):
        if redis_client.type(k) == b"string":
            assert token.encode() not in redis_client.get(k)  # type: ignore[operator]


def test_refused_joins_with_made_up_tokens_keep_one_bounded_scope(
    client: Any, redis_client: redis.Redis
) -> None:
    # A join needs no token: whatever Authorization it carries, its answers
    # are kept under its caller's scope (here one address), capped, and
    # deleted with the table; a made-up bearer value per request opened a
    # scope of its own each time.
    created = create(client, ["Ann", "Ben", "Cy", None], listed=True)
    table_id = created["table_id"]
    assert join(client, table_id, "Dan").status_code == 201
    for i in range(40):
        r = join(client, table_id, "Eve", Authorization=f"Bearer junk{i}",
                 **{"Idempotency-Key": str(uuid.uuid4())})  # fmt: skip
        assert (r.status_code, r.get_json()["code"]) == (409, "seats-full"), r.get_json()
    kept = [k for k in redis_client.scan_iter(match=f"referee:{{{table_id}}}:idem*", count=1000)]
    records = [k for k in kept if b":idem:" in k]
    assert len(records) == 32, len(records)  # IDEMPOTENCY_RECORDS_PER_TOKEN, of one scope
    # The address's index, and the table's index of such indexes.
    assert len([k for k in kept if b":idem-index:" in k]) == 2
    host = {"Authorization": f"Bearer {created['host_token']}"}
    assert client.delete(f"/v1/tables/{table_id}", headers=host).status_code == 204
    assert list(redis_client.scan_iter(match=f"referee:{{{table_id}}}:*", count=1000)) == []


def test_strangers_cannot_evict_a_joiners_saved_answer(
    app: Any, client: Any, redis_client: redis.Redis
) -> None:
    # Joins carry no token: their Idempotency-Key answers were all kept
    # under one scope per table, capped at 32, so 32 strangers' refused
    # joins evicted a joiner's answer, and the joiner's retry then got
    # another (409 seats-full for the 201 it was given). Each caller (its
    # client address, or client key) now keeps its own 32.
    from tests.api.test_limits import client_at

    joiner, stranger = client_at(app, "10.39.1.1"), client_at(app, "10.39.2.2")
    created = create(client, ["Ann", "Ben", None, None], listed=True)
    table_id = created["table_id"]
    key = {"Idempotency-Key": str(uuid.uuid4())}
    first = join(joiner, table_id, "Cy", **key)
    assert first.status_code == 201, first.get_json()
    assert join(client, table_id, "Dan").status_code == 201  # the table is full
    for _ in range(40):
        r = join(stranger, table_id, "Eve", **{"Idempotency-Key": str(uuid.uuid4())})
        assert (r.status_code, r.get_json()["code"]) == (409, "seats-full")
    again = join(joiner, table_id, "Cy", **key)
    assert again.status_code == 201, again.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json()
    kept = list(redis_client.scan_iter(match=f"referee:{{{table_id}}}:idem:*", count=1000))
    assert len(kept) == 1 + 32  # the joiner's, and the stranger's newest 32
    host = {"Authorization": f"Bearer {created['host_token']}"}
    assert client.delete(f"/v1/tables/{table_id}", headers=host).status_code == 204
    assert list(redis_client.scan_iter(match=f"referee:{{{table_id}}}:*", count=1000)) == []


@pytest.mark.parametrize("how", ["seat code", "table code", "lobby"])
def test_the_host_deals_no_hands_of_its_choosing_to_a_joined_seat(
    client: Any, redis_client: redis.Redis, how: str
) -> None:
    # The sixth attacker: strangers from the lobby took the seats, and the
    # host dealt them hands it wrote, so it knew every card (RULES.md 5.1).
    extra: dict[str, Any] = {
        "seat code": {},
        "table code": {"join_codes": "table"},
        "lobby": {"listed": True},
    }[how]
    # (The worked example is a deal of the full deck: "circle".)
    created = create(client, ["Ann", None, "Cat", "Dan"], variant="circle", **extra)
    table_id, host = created["table_id"], created["host_token"]
    code = None if how == "lobby" else created["join_codes"][0]["code"]
    assert join(client, table_id, "Bea", code).status_code == 201
    before = snapshot(redis_client, table_of(created))
    url = f"/v1/tables/{table_id}/rounds"
    chosen = client.post(url, json={"hands": WORKED_EXAMPLE}, headers=bearer(host))
    assert chosen.status_code == 409, chosen.get_json()
    assert chosen.get_json()["code"] == "submitted-deal-refused"
    assert "RULES.md 5.1" in chosen.get_json()["detail"]
    assert snapshot(redis_client, table_of(created)) == before
    # The referee's shuffle deals them, as ever.
    shuffled = client.post(url, json={"hands": None}, headers=bearer(host))
    assert shuffled.status_code == 201, shuffled.get_json()


@pytest.mark.parametrize("players", [["Ann", "Ben", "Cat", "Dan"], ["Ann", "Ben", None, None]])
def test_named_seats_and_bots_take_the_hosts_deal(client: Any, players: list[str | None]) -> None:
    # Its creator holds every person's token, and could read every hand
    # anyway; bots take the open seats (a walk-through's submitted deal).
    created = create(client, players, variant="circle")
    table_id, host = created["table_id"], created["host_token"]
    for seat in (2, 3) if None in players else ():
        bot = client.post(
            f"/v1/tables/{table_id}/seats/{seat}/bot", json={"kind": "basic"}, headers=bearer(host)
        )
        assert bot.status_code == 200, bot.get_json()
    url = f"/v1/tables/{table_id}/rounds"
    dealt = client.post(url, json={"hands": WORKED_EXAMPLE}, headers=bearer(host))
    assert dealt.status_code == 201, dealt.get_json()
    seat = client.get(
        f"/v1/tables/{table_id}/seats/1", headers=bearer(created["seat_tokens"][1]["token"])
    ).get_json()
    assert sorted(seat["hand"]) == sorted(WORKED_EXAMPLE[1])


def test_a_seat_left_and_joined_again_takes_no_hands_of_the_hosts_choosing(
    client: Any,
) -> None:
    created = create(client, ["Ann", "Ben", "Cat", "Dan"], variant="circle")
    table_id, host = created["table_id"], created["host_token"]
    ben = created["seat_tokens"][1]["token"]
    left = client.post(f"/v1/tables/{table_id}/seats/1/leave", headers=bearer(ben))
    assert left.status_code == 200, left.get_json()
    code = client.post(f"/v1/tables/{table_id}/codes", json={"seat": 1}, headers=bearer(host))
    assert code.status_code == 201, code.get_json()
    assert join(client, table_id, "Bea", code.get_json()["code"]).status_code == 201
    chosen = client.post(
        f"/v1/tables/{table_id}/rounds", json={"hands": WORKED_EXAMPLE}, headers=bearer(host)
    )
    assert (chosen.status_code, chosen.get_json()["code"]) == (409, "submitted-deal-refused")


def test_between_rounds_a_joined_players_connected_seat_is_not_taken_from_it(
    client: Any, redis_client: redis.Redis
) -> None:
    # The seventh attacker: strangers joined from the lobby, the host reissued
    # their tokens before the deal and read every hand with them (RULES.md 5.1).
    created = create(client, ["Ann", None, "Cat", "Dan"], listed=True)
    table_id, host = created["table_id"], created["host_token"]
    assert join(client, table_id, "Bea").status_code == 201
    url = f"/v1/tables/{table_id}/seats/1"
    # Her join is her first write: connected at once (the eighth attacker's
    # host, watching for seat-joined, reissued before her next request).
    before = snapshot(redis_client, table_of(created), presence=True)
    taken = client.post(f"{url}/token", headers=bearer(host))
    assert (taken.status_code, taken.get_json()["code"]) == (409, "seat-connected")
    assert snapshot(redis_client, table_of(created), presence=True) == before
    # Nor before the join's presence is written: the join itself counts
    # (the ninth attacker's reissue raced that write and won 13 of 14).
    redis_client.hdel(f"referee:{{{table_id}}}:presence", "1")
    raced = client.post(f"{url}/token", headers=bearer(host))
    assert (raced.status_code, raced.get_json()["code"]) == (409, "seat-connected")
    # Seen 16 s ago: past the 15 s window, but a process writes a seat at
    # most every 5 s, so her last request may be newer: still hers.
    phone_lost(redis_client, table_id, 1, ago_ms=16_000)
    late = client.post(f"{url}/token", headers=bearer(host))
    assert (late.status_code, late.get_json()["code"]) == (409, "seat-connected")
    # Her phone is lost: the seat is hers again through the host, and the
    # round dealt next shows it reissued from its start.
    phone_lost(redis_client, table_id, 1, ago_ms=21_000)
    again = client.post(f"{url}/token", headers=bearer(host))
    assert again.status_code == 201, again.get_json()
    assert client.post(f"/v1/tables/{table_id}/rounds", headers=bearer(host)).status_code == 201
    seats = client.get(f"/v1/tables/{table_id}").get_json()["seats"]
    assert [s["reissued"] for s in seats] == [False, True, False, False]


def test_a_reissued_seat_stays_marked_to_the_matchs_end() -> None:
    # The host may keep the token it was given (eighth attacker: marked for
    # one round, the seat passed for its player's in the next).
    record = seating.mark_reissued({"h": "x"}, 2, 1)
    marked = [seating.reissued_seats(record, {"round": {"number": n}}) for n in (1, 2, 5)]
    assert marked == [frozenset(), {1}, {1}]
    record = seating.mark_reissued(record, 4, 3)  # a later one keeps the earlier's start
    assert record["x"] == [2, [1, 3]]
    assert seating.reissued_seats(record, {"round": None}) == frozenset()


def test_between_rounds_a_named_seat_is_the_hosts_to_hand_on(client: Any) -> None:
    # Every token was the creator's: handing a seat on (its device still on)
    # shows the host nothing it could not read already.
    created = create(client, ["Ann", "Ben", "Cat", "Dan"])
    table_id, host = created["table_id"], created["host_token"]
    ben = created["seat_tokens"][1]["token"]
    url = f"/v1/tables/{table_id}/seats/1"
    assert client.get(url, headers=bearer(ben)).status_code == 200
    assert client.post(f"{url}/token", headers=bearer(host)).status_code == 201
