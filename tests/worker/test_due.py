"""The worker's clock notes and buckets (service.worker.due), on a real Redis:
a commit says when the worker must look at its table (a table without a
clock says nothing), a bucket is claimed once its end comes and again until
its job is done, a bucket whose job started takes no more tables, and a far
deadline holds nothing for a day."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from service import create_app
from service.worker import due
from service.worker.due import BUCKET_MS, HORIZON_MS, DueIndex, shard_of, target
from service.worker.run import Worker

from ..conftest import RedisProcess, settings_for


@pytest.fixture()
def notes(redis_server: RedisProcess) -> Iterator[Any]:
    """Every clock note published from now on, as (table id, instant) pairs."""
    pubsub = redis.Redis.from_url(redis_server.url).pubsub(ignore_subscribe_messages=True)
    pubsub.psubscribe("referee:*:clock")
    seen: list[tuple[str, int]] = []

    def read() -> list[tuple[str, int]]:
        end = time.monotonic() + 0.3  # None is also an ignored subscribe message
        while time.monotonic() < end:
            message = pubsub.get_message(timeout=0.05)
            if message is not None:
                channel = message["channel"].decode()
                seen.append((channel.split("{", 1)[1].split("}", 1)[0], int(message["data"])))
        return seen

    yield read
    pubsub.close()


def _made(client: Any, **options: Any) -> dict[str, Any]:
    body = {"variant": "sevens", "players": ["A", "B", "C", "D"], "first_dealer": 0,
            "options": options}  # fmt: skip
    made = client.post("/v1/tables", json=body).get_json()
    host = {"Authorization": f"Bearer {made['host_token']}"}
    assert client.post(f"/v1/tables/{made['table_id']}/rounds", json={}, headers=host).status_code
    return dict(made)


def test_a_commit_notes_its_first_deadline_and_a_table_without_a_clock_nothing(
    redis_server: RedisProcess, notes: Any
) -> None:
    client = create_app(settings_for(redis_server.url)).test_client()
    clocked = _made(client, turn_timeout_ms=30_000)
    plain = _made(client)
    view = client.get(f"/v1/tables/{clocked['table_id']}").get_json()
    on_turn = view["round"]["on_turn"]
    assert notes() == [(clocked["table_id"], view["seats"][on_turn]["until_ms"])]
    # The seat on turn of the table without a clock moves: no note.
    view = client.get(f"/v1/tables/{plain['table_id']}").get_json()
    seat = view["round"]["on_turn"]
    token = {"Authorization": f"Bearer {plain['seat_tokens'][seat]['token']}"}
    mine = client.get(f"/v1/tables/{plain['table_id']}/seats/{seat}", headers=token).get_json()
    move = {"play": mine["playable"][0]} if mine["playable"] else {"pass": True}
    turn = f"/v1/tables/{plain['table_id']}/rounds/1/turns/{view['round']['turn']}"
    assert client.put(turn, json=move, headers=token).status_code == 200
    assert [n for n in notes() if n[0] == plain["table_id"]] == []


def test_a_bucket_is_claimed_once_its_end_comes_and_again_until_its_job_is_done(
    redis_client: redis.Redis,
) -> None:
    index = DueIndex(redis_client, "test-due")
    # Two tables of one shard, due in one bucket.
    tables = [t for t in (f"t{i}" for i in range(100)) if shard_of(t) == 0][:3]
    now = 1_000_000_000_000
    bucket = target(now + 5_000, now)
    assert index.add(tables[0], now + 5_000, now) == (bucket, 0)
    assert index.add(tables[1], now + 5_000, now) == (bucket, 0)
    assert index.add(tables[0], now + 5_000, now) == (bucket, 0)  # again: nothing more
    assert index.claim(now) == ([], bucket)  # not yet: the first pending ends then
    claimed, _ = index.claim(bucket)
    assert claimed == [(bucket, 0)]
    assert index.claim(bucket)[0] == []  # leased to the one who claimed it
    # Its job lost (a worker killed before it sent it): claimed again after the lease.
    assert index.claim(bucket + due.LEASE_MS)[0] == [(bucket, 0)]
    assert index.take(bucket, 0, bucket) == sorted(tables[:2])
    # Its job has started: a table due in it goes to the next bucket.
    assert index.add(tables[2], now + 5_000, now) == (bucket + BUCKET_MS, 0)
    index.done(bucket, 0)
    assert index.take(bucket, 0, bucket) == []  # a second delivery finds nothing left
    claimed, first = index.claim(bucket + 2 * due.LEASE_MS)
    assert claimed == [(bucket + BUCKET_MS, 0)] and first is not None  # only the later one
    life = redis_client.pttl(f"test-due:due:{bucket + BUCKET_MS}:0")
    assert 5_000 + due.KEEP_MS - 100 < life <= 5_000 + 2 * BUCKET_MS + due.KEEP_MS


def test_an_instant_past_the_horizon_is_looked_at_once_a_minute() -> None:
    now = 1_000_000_012_345
    day = target(now + 86_400_000, now)
    assert day % 60_000 == 0 and now + HORIZON_MS <= day < now + HORIZON_MS + 60_000
    # Every step of a day's clock within that minute: one bucket, none held for a day.
    assert {target(now + 86_400_000 + step, now + step) for step in range(0, 30_000, 997)} <= {
        day,
        day + 60_000,
    }
    assert target(now + 30_000, now) == now + 30_000 + (-(now + 30_000)) % BUCKET_MS
    # An instant that has come goes at least one bucket ahead (its own may be running).
    assert target(now - 5_000, now) > now


TIMEOUT_MS = 1_500


def test_a_look_makes_the_move_whose_deadline_passed_and_notes_the_next(
    redis_server: RedisProcess, redis_client: redis.Redis
) -> None:
    client = create_app(settings_for(redis_server.url)).test_client()
    # The next seat's deadline comes TIMEOUT after the second look: under a
    # loaded machine 300 ms passed before the checks after it ran, and another
    # test's worker on the session Redis had claimed and done its bucket.
    made = _made(client, turn_timeout_ms=TIMEOUT_MS, away_timeout_ms=60_000)
    table_id = made["table_id"]
    worker = Worker(settings_for(redis_server.url))
    try:
        worker.look(table_id)  # not due yet: only noted
        events = client.get(f"/v1/tables/{table_id}/events").get_json()["events"]
        assert [e for e in events if e["type"] == "move-timed-out"] == []
        time.sleep(TIMEOUT_MS / 1000 + 0.05)
        worker.look(table_id)
        events = client.get(f"/v1/tables/{table_id}/events").get_json()["events"]
        timed = [e for e in events if e["type"] == "move-timed-out"]
        assert [(e["step"], e["away"]) for e in timed] == [("r1t1", True)]
        view = client.get(f"/v1/tables/{table_id}").get_json()
        until = view["seats"][view["round"]["on_turn"]]["until_ms"]
        # The next seat's deadline, in its bucket, pending.
        bucket = target(until, until - TIMEOUT_MS)
        pending = redis_client.zscore("referee-jobs:due-pending", f"{bucket}:{shard_of(table_id)}")
        assert pending == bucket
        held = redis_client.smembers(f"referee-jobs:due:{bucket}:{shard_of(table_id)}")
        assert held == {table_id.encode()}
        worker.look(table_id)  # again at once: nothing more
        events = client.get(f"/v1/tables/{table_id}/events").get_json()["events"]
        assert len([e for e in events if e["type"] == "move-timed-out"]) == 1
    finally:
        worker._pool.shutdown(wait=False)
