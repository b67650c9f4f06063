"""Faults found by attacking the worker's clock notes and buckets (RULES.md
5.3: a deadline fires, at most once, and a move that arrived first wins).
Each test failed on the release that added the buckets (20729f1)."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import dramatiq
import pytest
import redis

from service import create_app
from service.storage.store import table_key
from service.worker import moves, run
from service.worker.due import (
    BUCKET_MS,
    HORIZON_MS,
    LEASE_MS,
    DueIndex,
    bucket_of,
    shard_of,
    target,
)
from service.worker.jobs import NAMESPACE
from service.worker.run import Worker

from ..conftest import RedisProcess, settings_for
from ..helpers import WORKED_HANDS, TableClient
from ..sevens.common import full_deal
from .test_worker import WorkerProcess, _wait

pytestmark = pytest.mark.timeout(120)


@pytest.mark.parametrize("ahead_ms", [60_001, 61_000, 90_000, 119_000])
@pytest.mark.parametrize("into_minute_ms", [500, 20_500, 45_000])
def test_a_deadline_just_past_the_horizon_is_not_looked_at_after_it(
    ahead_ms: int, into_minute_ms: int
) -> None:
    # A 90 s turn clock noted 20.5 s into a minute went to the minute past
    # the horizon, 29.5 s after its deadline: the default move came that late.
    now = 999_999_960_000 + into_minute_ms  # a minute starts at 999_999_960_000
    at = now + ahead_ms
    assert at - now > HORIZON_MS
    assert target(at, now) <= bucket_of(at)


def test_a_send_that_failed_leaves_its_bucket_to_be_claimed_again(
    redis_server: RedisProcess,
) -> None:
    # The jobs Redis drops the connection between the claim and the
    # dramatiq send (or the worker is killed there): the bucket was marked
    # sent and no job ever looked at it, nor at any table noted into it.
    worker = Worker(settings_for(redis_server.url))
    try:
        table = next(t for t in (f"lost{i}" for i in range(100)) if shard_of(t) == 1)
        now = worker.now_ms()
        bucket, shard = worker.index.add(table, now + 50, now)

        def blip(*_: Any) -> None:
            raise redis.ConnectionError("jobs Redis went away")

        # (The session's Redis may hold other tests' buckets, due too.)
        claimed, _ = worker.index.claim(bucket)
        assert (bucket, shard) in claimed
        with pytest.raises(redis.ConnectionError):
            blip(bucket, shard)  # the send that never happened
        assert (bucket, shard) not in worker.index.claim(bucket)[0]  # leased
        # Once its lease is over, it is claimed again: its job is sent then.
        again, _ = worker.index.claim(bucket + LEASE_MS)
        assert (bucket, shard) in again
        assert worker.index.take(bucket, shard, bucket + LEASE_MS) == [table]
    finally:
        worker._pool.shutdown(wait=False)


def test_a_near_deadline_is_not_held_behind_far_buckets_jobs(
    redis_server: RedisProcess, redis_client: redis.Redis
) -> None:
    # dramatiq fetches delayed messages in the order sent, at most
    # worker_threads * 1000 at a time: more buckets than that pending in the
    # next minute (12,000 exist: 3,000 buckets of 4 shards) and a bucket due
    # in 300 ms waits until the first of them falls due.
    settings = settings_for(redis_server.url, worker_threads=1)
    worker = Worker(settings)
    for key in redis_client.scan_iter("referee-jobs*"):
        redis_client.delete(key)
    looked: dict[str, int] = {}

    def look(table_id: str) -> None:
        looked.setdefault(table_id, worker.now_ms())

    worker.look = look  # type: ignore[method-assign]
    consumer = dramatiq.Worker(worker.broker, worker_threads=1, worker_timeout=50)
    consumer.start()
    dispatcher = threading.Thread(target=worker.dispatch, daemon=True)
    dispatcher.start()
    try:
        ids: dict[int, str] = {}
        for i in range(100):
            ids.setdefault(shard_of(f"far{i}"), f"far{i}")
        now = worker.now_ms()
        for i in range(1_050):  # 1,050 buckets and shards due 20-25 s from now
            worker.note(ids[i % 4], now + 20_000 + (i // 4) * BUCKET_MS)
        time.sleep(1.0)
        start = worker.now_ms()
        worker.note("near", start + 300)
        end = time.monotonic() + 5.0
        while "near" not in looked and time.monotonic() < end:
            time.sleep(0.05)
        assert looked.get("near", 10**15) - start < 2_000
    finally:
        worker._stopped.set()
        worker._wake.set()
        dispatcher.join(5)
        consumer.stop(timeout=1_000)
        worker._pool.shutdown(wait=False)
        for key in redis_client.scan_iter("referee-jobs*"):
            redis_client.delete(key)


def test_a_default_pass_does_not_replace_the_pass_its_seat_made_first(
    redis_server: RedisProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seat 0 passes QC itself after its deadline, while a look that read the
    # table before that pass commits seat 0's default pass (4S, basic's):
    # choose.lua replaces seat 0's pass (the step is not complete), marks it
    # away, and writes no move-timed-out. RULES.md 5.3: the move that
    # arrived first wins.
    client = create_app(settings_for(redis_server.url)).test_client()
    tables = TableClient(client)
    t = tables.create(variant="mein-schiff", turn_timeout_ms=100, away_timeout_ms=60_000)
    assert tables.deal(t, WORKED_HANDS).status_code == 201
    assert tables.pass_(t, 1, 1, 1, ["9C"]).status_code == 200
    assert tables.pass_(t, 1, 1, 2, ["8D"]).status_code == 200
    time.sleep(0.2)  # seats 0 and 3 are past their deadline
    real = moves.deadline_move
    raced: list[int] = []

    def racing(loaded: Any, key: str, seat: int) -> Any:
        change = real(loaded, key, seat)
        if seat == 0 and not raced:
            raced.append(tables.pass_(t, 1, 1, 0, ["QC"]).status_code)
        return change

    monkeypatch.setattr(run, "deadline_move", racing)
    worker = Worker(settings_for(redis_server.url))
    try:
        worker.look(t.table_id)  # seat 0's default (raced), then seat 3's
    finally:
        worker._pool.shutdown(wait=False)
    assert raced == [200]
    timed = [e["seat"] for e in tables.events(t) if e["type"] == "move-timed-out"]
    received = tables.hand(t, 1)
    away = tables.public(t)["seats"][0]["away"]
    # Seat 1 receives seat 0's pass; seat 0 moved itself: not away, not timed out.
    assert ("QC" in received, 0 in timed, away) == (True, False, False), (received, timed, away)


def test_a_redis_restart_under_running_workers_loses_no_deadline(tmp_path: Path) -> None:
    # Redis restarts (append-only file, fsync always: it loses nothing) while
    # the workers run. dramatiq's consumer meets the connection error and
    # drops the delayed messages it held in memory; Redis still lists them
    # as held by that worker, which stays alive and beats, so none is ever
    # handed to another. redis-py re-subscribes the clock notes by itself:
    # no sweep runs either. The deadline never fires; the worker stays healthy.
    folder = tmp_path
    conf = folder / "redis.conf"
    conf.write_text('appendonly yes\nappendfsync always\nsave ""\n')
    server = RedisProcess(folder / "redis", conf=conf).start()
    worker = WorkerProcess(server.url, folder, "w0")
    try:
        _wait(worker.alive, 30)
        client = create_app(settings_for(server.url)).test_client()
        tables = TableClient(client)
        t = tables.create(["A", "B", "C"], variant="sevens", first_dealer=0, turn_timeout_ms=6_000)
        assert tables.deal(t).status_code == 201
        time.sleep(1.0)  # its bucket's job is sent and held by the worker
        port = server.port
        server.stop()
        time.sleep(2.0)  # a restart or failover takes seconds
        server.port = port
        server.start()
        client = create_app(settings_for(server.url)).test_client()
        tables = TableClient(client)

        def timed_out() -> list[dict[str, Any]]:
            return [e for e in tables.events(t) if e["type"] == "move-timed-out"]

        _wait(timed_out, 25)
    finally:
        worker.stop()
        server.stop()


def test_the_move_that_resumes_a_paused_table_notes_it(
    redis_server: RedisProcess, redis_client: redis.Redis
) -> None:
    # The commit that clears u computed its clock note from the control it
    # read (u at the limit: paused, so no deadline): it published none, and
    # no worker looked at the table again until some later commit. Here Ann
    # resumes a paused table by her own move: Ben, after her, is away, whose
    # default move a paused table does not make, and a resumed one does: a
    # worker must hear of it.
    client = create_app(settings_for(redis_server.url)).test_client()
    made = client.post(
        "/v1/tables",
        json={
            "variant": "sevens",
            "players": ["Ann", "Ben", {"bot": "basic"}, {"bot": "basic"}],
            "first_dealer": 3,
            "options": {"unattended_moves": 10, "turn_timeout_ms": 100},
        },
    ).get_json()
    tid, host = made["table_id"], {"Authorization": f"Bearer {made['host_token']}"}
    hands = full_deal("sevens", 4, 3, {0: ["7D"]})  # Ann opens (RULES.md 3.4)
    dealt = client.post(f"/v1/tables/{tid}/rounds", json={"hands": hands}, headers=host)
    assert dealt.status_code == 201, dealt.get_json()
    view = client.get(f"/v1/tables/{tid}").get_json()
    assert view["round"]["on_turn"] == 0
    # The referee made ten moves in a row; Ben timed out in them.
    redis_client.hset(table_key(tid), mapping={"u": 10, "y": "1"})
    assert client.get(f"/v1/tables/{tid}").get_json()["clock_paused"] is True
    pubsub = redis_client.pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe(f"referee:{{{tid}}}:clock")
    try:
        time.sleep(0.1)
        # A join code is no act of play: it resumes nothing, and says nothing.
        assert client.post(f"/v1/tables/{tid}/codes", json={}, headers=host).status_code == 201
        assert client.get(f"/v1/tables/{tid}").get_json()["clock_paused"] is True
        ann = {"Authorization": f"Bearer {made['seat_tokens'][0]['token']}"}
        mine = client.get(f"/v1/tables/{tid}/seats/0", headers=ann).get_json()
        move = {"play": mine["playable"][0]} if mine["playable"] else {"pass": True}
        turn = f"/v1/tables/{tid}/rounds/1/turns/{view['round']['turn']}"
        assert client.put(turn, json=move, headers=ann).status_code == 200
        resumed = client.get(f"/v1/tables/{tid}").get_json()
        assert resumed["clock_paused"] is False
        note = None
        end = time.monotonic() + 2.0
        while note is None and time.monotonic() < end:
            note = pubsub.get_message(timeout=0.1)
        assert note is not None, "the resumed table's bot is due, and no worker is told"
        assert resumed["seats"][1]["away"] is True
        assert int(note["data"]) == resumed["seats"][1]["until_ms"]
    finally:
        pubsub.close()


def test_the_deadlines_of_a_bucket_a_dead_worker_claimed_fire_within_ten_seconds(
    tmp_path: Path,
) -> None:
    # A worker SIGKILLed between its claim of a bucket and the send of the
    # bucket's job left the bucket leased for 30 s: its deadlines fired 30 s
    # late. Here the bucket is claimed as that worker claimed it, at its end
    # (DueIndex.claim), and never sent; the worker that runs fires it within
    # 10 s (RULES.md 5.3).
    server = RedisProcess(tmp_path / "redis").start()
    worker = WorkerProcess(server.url, tmp_path, "w0")
    jobs = redis.Redis.from_url(server.url)
    try:
        _wait(worker.alive, 30)
        tables = TableClient(create_app(settings_for(server.url)).test_client())
        t = tables.create(["A", "B", "C"], variant="sevens", first_dealer=0, turn_timeout_ms=2_000)
        assert tables.deal(t).status_code == 201
        view = tables.public(t)
        due = view["seats"][view["awaiting"]["seats"][0]]["until_ms"]
        bucket, shard = bucket_of(due), shard_of(t.table_id)
        _wait(lambda: jobs.sismember(f"{NAMESPACE}:due:{bucket}:{shard}", t.table_id), 10)
        claimed, _ = DueIndex(jobs, NAMESPACE).claim(bucket)  # the dead worker's claim
        assert (bucket, shard) in claimed

        def timed_out() -> list[dict[str, Any]]:
            return [e for e in tables.events(t) if e["type"] == "move-timed-out"]

        _wait(timed_out, 15)
        late_ms = timed_out()[0]["at_ms"] - due
        assert late_ms <= 10_000, late_ms
    finally:
        worker.stop()
        jobs.close()
        server.stop()
