"""The Redis store: atomic commits under real concurrency, expiry, the codec."""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from typing import Any

import pytest
import redis
from hypothesis import given, settings

from service import create_app
from service.games.codec import decode, encode
from service.storage.store import all_keys, deal_key, moves_key, presence_key

from ..conftest import EVERY_EVENT, RedisProcess, settings_for
from ..helpers import TableClient, bearer, snapshot
from ..ship.test_invariants import GAMES, play_randomly


def test_seven_seats_passing_at_once_resolve_each_exchange_exactly_once(
    app: Any, redis_server: RedisProcess
) -> None:
    """Seven threads pass at the same moment, 50 times, each through its own
    app (its own store, as in its own process: one process's moves on a table
    take turns, so only separate stores race on the version)."""
    apps = [create_app(settings_for(redis_server.url, events_kept=EVERY_EVENT)) for _ in range(7)]
    tables = TableClient(apps[0].test_client())
    t = tables.create(7, "classic")
    assert tables.deal(t).status_code == 201
    start_cards = sorted(c for s in range(7) for c in tables.hand(t, s))
    exchanges = 50
    barrier = threading.Barrier(7)
    failures: list[Any] = []
    resolved_by: Counter[int] = Counter()

    def seat_player(seat: int) -> None:
        client = apps[seat].test_client()
        rng = random.Random(seat)
        for number in range(1, exchanges + 1):
            hand = client.get(f"{t.url}/seats/{seat}", headers=bearer(t.seats[seat])).get_json()[
                "hand"
            ]
            card = rng.choice(hand)
            barrier.wait()  # everyone submits at the same moment
            r = client.put(
                f"{t.url}/rounds/1/exchanges/{number}/passes/{seat}",
                json={"cards": [card]},
                headers=bearer(t.seats[seat]),
            )
            if r.status_code != 200:
                failures.append((seat, number, r.status_code, r.get_json()))
                barrier.abort()
                return
            if r.get_json()["resolved"]:
                resolved_by[number] += 1
            barrier.wait()  # the exchange has resolved for everyone before the next read

    threads = [threading.Thread(target=seat_player, args=(s,)) for s in range(7)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert failures == []
    events = tables.events(t)
    resolved = [e["exchange"] for e in events if e["type"] == "exchange-resolved"]
    assert resolved == list(range(1, exchanges + 1))
    # Exactly one seat's answer per exchange says it resolved the exchange.
    assert resolved_by == Counter(dict.fromkeys(range(1, exchanges + 1), 1))
    chosen = Counter(e["exchange"] for e in events if e["type"] == "pass-chosen")
    assert set(chosen.values()) == {7} and len(chosen) == exchanges
    view = tables.public(t)
    assert view["round"]["exchanges_resolved"] == exchanges
    assert sorted(c for s in range(7) for c in tables.hand(t, s)) == start_cards
    assert all(len(tables.hand(t, s)) == 7 for s in range(7))


def test_every_key_of_a_table_shares_one_hash_tag_and_expires(
    tables: TableClient, redis_client: redis.Redis, app: Any
) -> None:
    t = tables.create(4)
    tables.deal(t)
    assert tables.pass_(t, 1, 1, 0, [tables.hand(t, 0)[0]]).status_code == 200
    # The history holds nothing before an exchange resolves; seat 0 was seen (RULES.md 5.5).
    # The deal's proof and the round's record (deal_key, moves_key) since the deal.
    keys = [
        *all_keys(t.table_id)[:3],
        presence_key(t.table_id),
        deal_key(t.table_id),
        moves_key(t.table_id),
    ]
    assert sorted(k.decode() for k in redis_client.keys(f"*{t.table_id}*")) == sorted(keys)
    assert {k[k.index("{") : k.index("}") + 1] for k in keys} == {"{" + t.table_id + "}"}
    ttl = app.extensions["referee"].settings.table_ttl_seconds
    for key in keys:
        assert ttl - 5 <= redis_client.ttl(key) <= ttl


def test_expired_table_is_gone(app: Any, redis_client: redis.Redis) -> None:
    from service import create_app
    from service.config import Settings

    short = create_app(
        Settings(redis_url=app.extensions["referee"].settings.redis_url, table_ttl_seconds=1)
    )
    tables = TableClient(short.test_client())
    t = tables.create(4)
    assert 0 < redis_client.pttl(all_keys(t.table_id)[0]) <= 1000
    import time

    time.sleep(1.2)
    assert redis_client.keys(f"*{t.table_id}*") == []
    assert short.test_client().get(t.url).status_code == 404


@settings(max_examples=40, deadline=None)
@given(**GAMES)
def test_codec_round_trips_every_state_of_random_games(
    seed: int, preset: str, declaration: str, max_exchanges: int | None
) -> None:
    for table, _deck in play_randomly(seed, preset, declaration, max_exchanges):
        assert decode(encode(table)) == table


def test_a_move_whose_answer_is_recorded_already_writes_nothing(
    app: Any, redis_client: redis.Redis
) -> None:
    """The answer and the move are one commit: a record found there stops the move."""
    from service.storage.store import AlreadyRecorded, Record

    tables = TableClient(app.test_client())
    t = tables.create(4)
    store = app.extensions["referee"].store
    record_key = f"referee:{{{t.table_id}}}:idem:test"
    redis_client.set(record_key, 'D{"fp":"x"}')
    before = snapshot(redis_client, t)  # the record too: it must stay as it is
    from service.games.ship import engine

    move = lambda loaded: engine.finish(loaded.table, loaded.now_ms)  # noqa: E731
    record = Record(record_key, 60, lambda loaded, change: b'D{"fp":"y"}')
    try:
        store.apply(t.table_id, move, record)
    except AlreadyRecorded as done:
        assert done.record == b'D{"fp":"x"}'
    else:
        raise AssertionError("the move ran although its answer was recorded")
    assert snapshot(redis_client, t) == before
    redis_client.delete(record_key)
    store.apply(t.table_id, move, record)  # now it runs, and records in the same commit
    assert redis_client.get(record_key) == b'D{"fp":"y"}'
    assert tables.public(t)["match"]["status"] == "abandoned"


def conflicts(app: Any) -> float:
    """The app's ``referee_commit_conflicts_total``."""
    text = app.test_client().get("/metrics").get_data(as_text=True)
    line = next(x for x in text.splitlines() if x.startswith("referee_commit_conflicts_total"))
    return float(line.split()[-1])


def play_simultaneous_exchanges(apps: list[Any], exchanges: int) -> None:
    """Seven seats, seat ``s`` through ``apps[s]``, pass at the same moment."""
    tables = TableClient(apps[0].test_client())
    t = tables.create(7, "classic")
    tables.deal(t)
    answers: list[int] = []

    def put(seat: int, number: int, card: str, barrier: threading.Barrier) -> None:
        barrier.wait()
        r = (
            apps[seat]
            .test_client()
            .put(
                f"{t.url}/rounds/1/exchanges/{number}/passes/{seat}",
                json={"cards": [card]},
                headers=bearer(t.seats[seat]),
            )
        )
        answers.append(r.status_code)

    for number in range(1, exchanges + 1):
        barrier = threading.Barrier(7)
        threads = [
            threading.Thread(target=put, args=(s, number, tables.hand(t, s)[0], barrier))
            for s in range(7)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    assert answers == [200] * 7 * exchanges
    assert tables.public(t)["round"]["exchanges_resolved"] == exchanges


def test_one_process_moves_on_a_table_take_turns(redis_server: RedisProcess) -> None:
    app = create_app(settings_for(redis_server.url))
    play_simultaneous_exchanges([app] * 7, 15)
    assert conflicts(app) == 0


def test_passes_of_separate_processes_commute_and_lose_no_race(
    redis_server: RedisProcess,
) -> None:
    # Each seat's choice is its own field: only the exchange's resolution
    # takes the version, once (issue 13).
    apps = [create_app(settings_for(redis_server.url)) for _ in range(7)]
    play_simultaneous_exchanges(apps, 15)
    assert sum(conflicts(a) for a in apps) == 0


TWO_WINNERS = [
    ["AS", "KS", "QS", "JS", "TS", "9S", "2S"], ["AH", "KH", "QH", "JH", "TH", "9H", "3H"],
    ["2D", "3D", "4D", "5D", "6D", "7D", "8C"], ["2C", "3C", "4C", "5C", "6C", "7C", "8D"],
]  # fmt: skip


def test_claims_of_separate_processes_race_and_the_losers_are_counted(
    redis_server: RedisProcess,
) -> None:
    # Two winning seats claim at once through two processes, many times: one
    # commit wins each race, the other runs again and is counted.
    apps = [create_app(settings_for(redis_server.url)) for _ in range(2)]
    host = TableClient(apps[0].test_client())
    for _ in range(10):
        t = host.create(4, "mein-schiff")
        assert host.deal(t, TWO_WINNERS).status_code == 201
        barrier = threading.Barrier(2)
        codes: list[int] = []

        def claim(seat: int, t: Any = t, barrier: Any = barrier, codes: Any = codes) -> None:
            barrier.wait()
            codes.append(TableClient(apps[seat].test_client()).claim(t, 1, seat).status_code)

        threads = [threading.Thread(target=claim, args=(s,)) for s in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert sorted(codes) == [200, 409]
    assert sum(conflicts(a) for a in apps) > 0


@pytest.mark.own_app  # changes its app's store
def test_a_move_does_not_wait_long_behind_a_stuck_turn(app: Any) -> None:
    # Another table's slow Redis call may hold the same stripe: the move goes
    # on without its turn after turn_wait_seconds (the version check suffices).
    store = app.extensions["referee"].store
    store.turn_wait_seconds = 0.2
    tables = TableClient(app.test_client())
    t = tables.create(4, "classic")
    tables.deal(t)
    stuck = store._turns[hash(t.table_id) % len(store._turns)]
    assert stuck.acquire()
    try:
        started = time.monotonic()
        r = tables.pass_(t, 1, 1, 0, [tables.hand(t, 0)[0]])
        waited = time.monotonic() - started
    finally:
        stuck.release()
    assert r.status_code == 200 and 0.2 <= waited < 2


@pytest.mark.own_app  # changes its app's store
def test_a_read_made_while_a_move_takes_its_turn_is_not_used(app: Any) -> None:
    # The worst interleaving for a prefetched read: a move of this process
    # takes its turn just after the read saw the turn free, and commits after
    # the read. The read must count as stale, so no race is lost.
    from service.games.ship import engine

    tables = TableClient(app.test_client())
    t = tables.create(4, "classic")
    tables.deal(t)
    hands = [tables.hand(t, s) for s in range(4)]
    store = app.extensions["referee"].store
    stripe = store._stripe(t.table_id)
    turn = store._turns[stripe]
    in_move, go = threading.Event(), threading.Event()

    def first_move(loaded: Any) -> Any:
        in_move.set()
        go.wait(5)
        return engine.choose_pass(loaded.table, 1, 1, 1, [hands[1][0]], loaded.now_ms)

    class TurnTakenRightAfterTheCheck:
        def __init__(self) -> None:
            self.checked = False

        def acquire(self, *args: Any, **kwargs: Any) -> bool:
            return turn.acquire(*args, **kwargs)

        def release(self) -> None:
            turn.release()

        def locked(self) -> bool:
            seen = turn.locked()
            if not self.checked:
                self.checked = True
                threading.Thread(target=store.apply, args=(t.table_id, first_move)).start()
                in_move.wait(5)
            return seen

    store._turns[stripe] = TurnTakenRightAfterTheCheck()
    lost: list[int] = []
    store.on_conflict = lambda: lost.append(1)
    pipe = store.client.pipeline(transaction=False)
    read = store.queue_load(pipe, t.table_id)(pipe.execute())
    go.set()
    loaded, _ = store.apply(
        t.table_id,
        lambda loaded: engine.choose_pass(loaded.table, 1, 1, 0, [hands[0][0]], loaded.now_ms),
        prefetched=read,
    )
    # The first move's choice was committed between (it moves the event count, not the version).
    assert int(read.replies[0][1]) == loaded.event_count - 1
    assert lost == []


@pytest.mark.own_app  # changes its app's store
def test_a_choice_commits_its_idempotency_record_in_the_same_script(
    app: Any, redis_client: redis.Redis, redis_server: RedisProcess
) -> None:
    """choose.lua writes a choice and its answer's record together, or
    nothing when the record is held; the choice that completes the exchange
    records the answer of its resolution (also when it learns it completed
    the exchange only from the script: another process chose meanwhile)."""
    from service.games.ship import engine
    from service.storage.store import AlreadyRecorded, Record, choices_key

    tables = TableClient(app.test_client())
    t = tables.create(4)
    tables.deal(t)
    hands = [tables.hand(t, s) for s in range(4)]
    store = app.extensions["referee"].store

    def move(seat: int) -> Any:
        return lambda loaded: engine.choose_pass(
            loaded.table, 1, 1, seat, [hands[seat][0]], loaded.now_ms
        )

    def answer(loaded: Any, change: Any) -> str:
        return "D" + json.dumps({"resolved": change.outcome["resolved"]}, separators=(",", ":"))

    key = f"referee:{{{t.table_id}}}:idem:choice"
    redis_client.set(key, 'D{"fp":"x"}')
    before = snapshot(redis_client, t)
    with pytest.raises(AlreadyRecorded):
        store.apply(t.table_id, move(0), Record(key, 60, answer))
    assert snapshot(redis_client, t) == before
    redis_client.delete(key)
    store.apply(t.table_id, move(0), Record(key, 60, answer))
    assert redis_client.get(key) == b'D{"resolved":false}'
    assert redis_client.hgetall(choices_key(t.table_id)) == {b"0": hands[0][0].encode()}
    store.apply(t.table_id, move(1))
    # Seat 3 reads the table; seat 2 chooses through another process; seat
    # 3's choice, made on its read, completes the exchange in the script.
    pipe = store.client.pipeline(transaction=False)
    read = store.queue_load(pipe, t.table_id)(pipe.execute())
    other = create_app(settings_for(redis_server.url)).extensions["referee"].store
    other.apply(t.table_id, move(2))
    last = f"referee:{{{t.table_id}}}:idem:last"
    statuses: list[int] = []
    write_choice = store._write_choice

    store._write_choice = lambda *args: _told(statuses, write_choice, *args)
    _, change = store.apply(t.table_id, move(3), Record(last, 60, answer), prefetched=read)
    assert statuses == [2]  # the script said it completed the exchange
    assert change.outcome["resolved"] is True
    assert redis_client.get(last) == b'D{"resolved":true}'
    assert tables.public(t)["round"]["exchanges_resolved"] == 1
    assert redis_client.exists(choices_key(t.table_id)) == 0


def _told(statuses: list[int], write_choice: Any, *args: Any) -> Any:
    """``write_choice``'s answer, its status noted in ``statuses``."""
    result = write_choice(*args)
    statuses.append(result[0])
    return result
