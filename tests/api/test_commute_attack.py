"""Attacks on commuting passes (issue 13 A): a worker that dies between the
choice that completes an exchange and the exchange's resolution, the history
list's bound over a long round, replacements and repeats. Real Redis."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from service import create_app
from service.storage.store import HISTORY_KEPT, choices_key, history_key, table_key

from ..conftest import settings_for
from ..helpers import TableClient, bearer, snapshot


class Died(BaseException):
    """Stands for a SIGKILL of the worker right after choose.lua answered."""


def die_after_completing_choice(
    app: Any, monkeypatch: pytest.MonkeyPatch, meanwhile: Any = None
) -> None:
    """The next choice of ``app`` that completes its step (through choose.lua:
    ``meanwhile`` runs another process's pass after its read) kills the worker."""
    store = app.extensions["referee"].store
    real = store._choose
    load = store.load

    def loaded(*args: Any, **kwargs: Any) -> Any:
        found = load(*args, **kwargs)
        monkeypatch.setattr(store, "load", load)
        if meanwhile is not None:
            meanwhile()
        return found

    monkeypatch.setattr(store, "load", loaded)

    def choose(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        if int(result[0]) == 2:
            monkeypatch.setattr(store, "_choose", real)
            raise Died
        return result

    monkeypatch.setattr(store, "_choose", choose)


def complete_and_die(
    app: Any,
    redis_server: Any,
    tables: TableClient,
    t: Any,
    picks: list[str],
    monkeypatch: pytest.MonkeyPatch,
    number: int = 1,
) -> None:
    """Seats 0, 1 pass; seat 3 reads the table, another process passes seat
    2, and seat 3's choice (choose.lua: it completes the exchange) is the
    last thing its worker does."""
    other = TableClient(create_app(settings_for(redis_server.url)).test_client())
    for seat in (0, 1):
        assert tables.pass_(t, 1, number, seat, [picks[seat]]).status_code == 200

    def meanwhile() -> None:
        assert other.pass_(t, 1, number, 2, [picks[2]]).status_code == 200

    die_after_completing_choice(app, monkeypatch, meanwhile)
    with pytest.raises(Died):
        tables.pass_(t, 1, number, 3, [picks[3]])


def test_a_worker_dying_before_the_resolution_loses_no_choice_and_heals(
    app: Any,
    client: Any,
    tables: TableClient,
    redis_client: redis.Redis,
    monkeypatch: pytest.MonkeyPatch,
    redis_server: Any,
) -> None:
    t = tables.create(4)
    tables.deal(t)
    picks = [tables.hand(t, s)[0] for s in range(4)]
    complete_and_die(app, redis_server, tables, t, picks, monkeypatch)
    # Every choice is in Redis; the views show the exchange resolved.
    assert len(redis_client.hgetall(choices_key(t.table_id))) == 4
    view = tables.public(t)
    assert view["round"]["exchanges_resolved"] == 1
    assert view["round"]["exchange"] == 2
    events = tables.events(t)
    assert view["last_event"] == events[-1]["seq"]
    # The next exchange's pass commits the resolution first, in order.
    nxt = tables.hand(t, 0)[0]
    assert picks[3] in tables.hand(t, 0)
    assert tables.pass_(t, 1, 2, 0, [nxt]).status_code == 200
    events = tables.events(t)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    kinds = [(e["type"], e.get("exchange")) for e in events if e["type"] != "round-dealt"]
    assert kinds[-2:] == [("exchange-resolved", 1), ("pass-chosen", 2)]
    assert redis_client.lrange(history_key(t.table_id), 0, -1) == [
        f"r1x1:{'|'.join(picks)}".encode()
    ]
    # The dead request's retry answers as the first would have.
    again = tables.pass_(t, 1, 1, 3, [picks[3]])
    assert again.status_code == 200 and again.get_json()["resolved"] is True


def test_a_retry_of_the_dead_completing_pass_is_answered_resolved_and_the_next_move_stores_it(
    app: Any,
    client: Any,
    tables: TableClient,
    redis_client: redis.Redis,
    monkeypatch: pytest.MonkeyPatch,
    redis_server: Any,
) -> None:
    t = tables.create(4, max_exchanges=1)
    tables.deal(t)
    picks = [tables.hand(t, s)[0] for s in range(4)]
    complete_and_die(app, redis_server, tables, t, picks, monkeypatch)
    assert tables.public(t)["round"]["status"] == "over"
    shown = tables.events(t)
    # The retry changes nothing (a repeat): the resolution is due, shown by
    # every read, and stored by the next write.
    before = snapshot(redis_client, t)
    again = tables.pass_(t, 1, 1, 3, [picks[3]])
    assert again.status_code == 200, again.get_json()
    body = again.get_json()
    assert body["resolved"] is True and body["round_status"] == "over"
    assert snapshot(redis_client, t) == before
    kinds = [e["type"] for e in tables.events(t)]
    assert "exchange-resolved" in kinds and kinds.count("exchange-resolved") == 1
    assert tables.events(t) == shown
    assert tables.pass_(t, 1, 1, 3, [picks[3]]).get_json() == body
    assert tables.deal(t).status_code == 201
    assert tables.events(t)[: len(shown)] == shown
    assert redis_client.hget(table_key(t.table_id), "k") == b"r2x1"
    assert redis_client.exists(choices_key(t.table_id)) == 0


def test_a_replacement_after_a_dead_completing_pass_is_too_late(
    app: Any,
    client: Any,
    tables: TableClient,
    redis_client: redis.Redis,
    monkeypatch: pytest.MonkeyPatch,
    redis_server: Any,
) -> None:
    t = tables.create(4)
    tables.deal(t)
    hands = [tables.hand(t, s) for s in range(4)]
    picks = [h[0] for h in hands]
    complete_and_die(app, redis_server, tables, t, picks, monkeypatch)
    before = snapshot(redis_client, t)
    late = tables.pass_(t, 1, 1, 0, [hands[0][1]])
    assert late.status_code == 409 and late.get_json()["code"] == "stale-exchange"
    # The refusal stored nothing; every read shows the resolution made of
    # the choices made, which the next accepted move stores.
    assert snapshot(redis_client, t) == before
    assert picks[3] in tables.hand(t, 0)
    assert tables.pass_(t, 1, 2, 0, [picks[3]]).status_code == 200
    assert redis_client.lrange(history_key(t.table_id), 0, -1) == [
        f"r1x1:{'|'.join(picks)}".encode()
    ]


def test_the_history_of_an_endless_round_stays_bounded(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    """A round with no exchange limit keeps only its newest HISTORY_KEPT
    exchanges in the history: a repeat of one of them is answered alike, an
    older one is stale (409) and changes nothing."""
    t = tables.create(4, declaration="manual", max_exchanges=None)
    assert tables.deal(t).status_code == 201
    sizes: dict[int, int] = {}
    sent: dict[int, list[str]] = {}
    for number in range(1, HISTORY_KEPT + 31):
        for seat in range(4):
            card = tables.hand(t, seat)[0]
            if seat == 0:
                sent[number] = [card]
            assert tables.pass_(t, 1, number, seat, [card]).status_code == 200
        if number in (HISTORY_KEPT, HISTORY_KEPT + 30):
            sizes[number] = int(redis_client.llen(history_key(t.table_id)))
    assert sizes == {HISTORY_KEPT: HISTORY_KEPT, HISTORY_KEPT + 30: HISTORY_KEPT}
    assert tables.public(t)["round"]["exchanges_resolved"] == HISTORY_KEPT + 30
    kept = 31  # the oldest exchange still kept
    again = tables.pass_(t, 1, kept, 0, sent[kept])
    assert again.status_code == 200 and again.get_json()["resolved"] is True
    before = snapshot(redis_client, t)
    gone = tables.pass_(t, 1, kept - 1, 0, sent[kept - 1])
    assert (gone.status_code, gone.get_json()["code"]) == (409, "stale-exchange")
    assert snapshot(redis_client, t) == before


@pytest.mark.parametrize("trial", range(6))
def test_replacements_racing_the_completing_pass_through_gunicorn(
    served: Any, redis_client: redis.Redis, trial: int
) -> None:
    """Seat 0 replaces its pass again and again (one client, in order) while
    seat 3's pass completes the exchange in another worker: the exchange
    passes seat 0's last choice that was answered as a pending one; every
    later different choice is too late (409), a later same one is answered
    as resolved."""
    import random
    import threading

    from ..test_gunicorn import send
    from .test_simultaneous import create_served, hand_served

    t = create_served(served, 4)
    hands = [hand_served(served, t, s) for s in range(4)]
    for seat in (0, 1, 2):
        status, _, body = send(
            served,
            "PUT",
            f"{t.url}/rounds/1/exchanges/1/passes/{seat}",
            {"cards": [hands[seat][0]]},
            **bearer(t.seats[seat]),
        )
        assert status == 200, body
    answers: list[tuple[str, int, Any]] = []
    go = threading.Barrier(2)

    def replace() -> None:
        go.wait()
        for i in range(40):
            card = hands[0][1 + i % 3]
            status, _, body = send(
                served,
                "PUT",
                f"{t.url}/rounds/1/exchanges/1/passes/0",
                {"cards": [card]},
                **bearer(t.seats[0]),
            )
            answers.append((card, status, body))

    def complete() -> None:
        go.wait()
        import time

        time.sleep(random.Random(trial).uniform(0, 0.05))
        status, _, body = send(
            served,
            "PUT",
            f"{t.url}/rounds/1/exchanges/1/passes/3",
            {"cards": [hands[3][0]]},
            **bearer(t.seats[3]),
        )
        assert status == 200 and body["resolved"] is True, body

    threads = [threading.Thread(target=replace), threading.Thread(target=complete)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    received = hand_served(served, t, 1)
    passed = [c for c in hands[0][:4] if c in received]
    assert len(passed) == 1
    pending = [card for card, status, body in answers if status == 200 and not body["resolved"]]
    expected = pending[-1] if pending else hands[0][0]
    assert passed[0] == expected, answers
    late = False
    for card, status, body in answers:
        if status == 200 and body["resolved"]:
            late = True
            assert card == expected
        elif status == 409:
            late = True
            assert body["code"] == "stale-exchange" and card != expected
            assert set(body) >= {"current_round", "current_exchange"}
        else:
            assert status == 200 and not late, answers
    status, _, page = send(served, "GET", f"{t.url}/events?after=0&limit=1000")
    events = page["events"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert [e["type"] for e in events].count("pass-chosen") == 4
    assert redis_client.lrange(history_key(t.table_id), 0, -1) == [
        f"r1x1:{expected}|{hands[1][0]}|{hands[2][0]}|{hands[3][0]}".encode()
    ]


def test_passes_survive_workers_killed_mid_exchange(served: Any, redis_client: redis.Redis) -> None:
    """Four seats on each of three tables pass through six exchanges at once,
    each resending its very request until answered, while gunicorn workers
    are SIGKILLed: every exchange resolves once with the passes answered,
    cards are conserved, the log's seqs run on and name each pass once."""
    import os
    import random
    import signal
    import threading
    import time

    from ..test_gunicorn import send, send_until_answered

    exchanges = 6
    made = []
    for _ in range(3):
        body = {
            "variant": "classic",
            "players": ["a", "b", "c", "d"],
            "first_dealer": 0,
            "options": {"declaration": "manual", "max_exchanges": None},
        }
        status, _, created = send(served, "POST", "/v1/tables", body)
        assert status == 201, created
        tid = created["table_id"]
        tokens = [s["token"] for s in created["seat_tokens"]]
        status, _, _ = send(
            served, "POST", f"/v1/tables/{tid}/rounds", None, **bearer(created["host_token"])
        )
        assert status == 201
        made.append((tid, tokens))
    sent: dict[tuple[str, int, int], str] = {}
    errors: list[BaseException] = []

    def seat_client(tid: str, tokens: list[str], seat: int) -> None:
        try:
            for number in range(1, exchanges + 1):
                for _ in range(2000):
                    status, _, view = send_until_answered(
                        served,
                        "GET",
                        f"/v1/tables/{tid}/seats/{seat}",
                        None,
                        **bearer(tokens[seat]),
                    )
                    assert status == 200, view
                    if view["exchange"] == number:
                        break
                    time.sleep(0.005)
                card = view["hand"][number % len(view["hand"])]
                sent[tid, number, seat] = card
                status, _, answer = send_until_answered(
                    served,
                    "PUT",
                    f"/v1/tables/{tid}/rounds/1/exchanges/{number}/passes/{seat}",
                    {"cards": [card]},
                    **bearer(tokens[seat]),
                )
                assert status == 200, (number, seat, answer)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [
        threading.Thread(target=seat_client, args=(tid, tokens, s))
        for tid, tokens in made
        for s in range(4)
    ]
    for thread in threads:
        thread.start()
    killed = 0
    rng = random.Random(7)
    while any(t.is_alive() for t in threads) and killed < 6:
        time.sleep(rng.uniform(0.02, 0.1))
        workers = served.workers()
        if workers:
            try:
                os.kill(rng.choice(workers), signal.SIGKILL)
            except ProcessLookupError:
                continue  # it ended between the listing and the kill: pick again
            killed += 1
    for thread in threads:
        thread.join(120)
    assert errors == []
    assert killed >= 2
    for tid, tokens in made:
        status, _, view = send_until_answered(served, "GET", f"/v1/tables/{tid}", None)
        assert view["round"]["exchanges_resolved"] == exchanges
        # A pass moves the resolution of a dead worker's exchange in first.
        status, _, page = send_until_answered(
            served, "GET", f"/v1/tables/{tid}/events?after=0&limit=1000", None
        )
        events = page["events"]
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        chosen = [(e["exchange"], e["seat"]) for e in events if e["type"] == "pass-chosen"]
        assert sorted(chosen) == [(n, s) for n in range(1, exchanges + 1) for s in range(4)]
        history = redis_client.lrange(history_key(tid), 0, -1)
        resolved = [e["exchange"] for e in events if e["type"] == "exchange-resolved"]
        # The last exchange's resolution may still wait for the next move.
        assert resolved in (list(range(1, exchanges + 1)), list(range(1, exchanges)))
        assert history[: len(resolved)] == [
            f"r1x{n}:{'|'.join(sent[tid, n, s] for s in range(4))}".encode() for n in resolved
        ]
        hands = [
            send_until_answered(
                served, "GET", f"/v1/tables/{tid}/seats/{s}", None, **bearer(tokens[s])
            )[2]["hand"]
            for s in range(4)
        ]
        assert len({c for h in hands for c in h}) == 28 and all(len(h) == 7 for h in hands)


def expire_at(r: redis.Redis, key: str) -> int:
    """The key's absolute expiry, ms since the epoch."""
    return int(r.execute_command("PEXPIRETIME", key))  # type: ignore[no-untyped-call]


def test_the_new_keys_expire_with_the_table_and_an_expired_table_stays_gone(
    redis_server: Any, redis_client: redis.Redis
) -> None:
    import time
    from dataclasses import replace

    app = create_app(replace(settings_for(redis_server.url), table_ttl_seconds=2))
    tables = TableClient(app.test_client())
    t = tables.create(4)
    tables.deal(t)
    hands = [tables.hand(t, s) for s in range(4)]
    for seat in range(4):
        assert tables.pass_(t, 1, 1, seat, [hands[seat][0]]).status_code == 200
    assert tables.pass_(t, 1, 2, 0, [tables.hand(t, 0)[0]]).status_code == 200
    keys = [table_key(t.table_id), choices_key(t.table_id), history_key(t.table_id)]
    expiry = {k: expire_at(redis_client, k) for k in keys}
    assert all(v > 0 for v in expiry.values()), expiry
    assert max(expiry.values()) - min(expiry.values()) <= 5, expiry
    # A refused claim logs an event and buys the table no time (issue 39 L7).
    time.sleep(0.05)
    assert tables.claim(t, 1, 1).status_code == 422
    assert {k: expire_at(redis_client, k) for k in keys} == expiry
    # A move does: every key's expiry moves with it.
    assert tables.pass_(t, 1, 2, 1, [tables.hand(t, 1)[0]]).status_code == 200
    moved = {k: expire_at(redis_client, k) for k in keys}
    assert all(moved[k] > expiry[k] for k in keys)
    assert max(moved.values()) - min(moved.values()) <= 5, moved
    time.sleep(2.2)
    assert list(redis_client.scan_iter(match=f"*{{{t.table_id}}}*")) == []
    late = tables.pass_(t, 1, 2, 2, [hands[2][1]])
    assert late.status_code in (401, 404)
    assert list(redis_client.scan_iter(match=f"*{{{t.table_id}}}*")) == []


def test_a_duplicate_of_the_completing_pass_in_flight_is_answered_as_resolved(
    app: Any,
    tables: TableClient,
    redis_server: Any,
    redis_client: redis.Redis,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seat 0's pass is sent twice (a phone resends it): both copies read the
    table while seat 1 had not chosen; seat 1 chooses; the first copy's
    choice completes the exchange and its worker dies before resolving it;
    then the second copy's choice finds the very same choice there. The
    exchange is complete: the copy is answered as resolved, with the hand
    after it, as any later repeat is (not as a pending choice still waiting
    for seat 1, which has chosen)."""
    t = tables.create(4)
    tables.deal(t)
    picks = [tables.hand(t, s)[0] for s in range(4)]
    for seat in (2, 3):
        assert tables.pass_(t, 1, 1, seat, [picks[seat]]).status_code == 200
    second = create_app(settings_for(redis_server.url))
    other = TableClient(create_app(settings_for(redis_server.url)).test_client())

    def first_copy() -> None:
        def meanwhile() -> None:
            assert other.pass_(t, 1, 1, 1, [picks[1]]).status_code == 200

        die_after_completing_choice(app, monkeypatch, meanwhile)
        with pytest.raises(Died):
            tables.pass_(t, 1, 1, 0, [picks[0]])

    die_after_completing_choice(second, monkeypatch, first_copy)
    copy = TableClient(second.test_client()).pass_(t, 1, 1, 0, [picks[0]])
    assert len(redis_client.hgetall(choices_key(t.table_id))) in (0, 4)
    later = tables.pass_(t, 1, 1, 0, [picks[0]])
    assert later.status_code == 200 and later.get_json()["resolved"] is True
    assert copy.status_code == 200
    assert copy.get_json() == later.get_json()


@pytest.mark.own_app  # reads the app's metrics
def test_the_metrics_count_the_pass_of_a_choice_that_completed_its_exchange(
    app: Any,
    client: Any,
    tables: TableClient,
    redis_server: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A choice whose choose.lua call completes the exchange wrote its
    ``pass-chosen`` event there; the request counts it with the resolution's."""
    from ..test_metrics import scrape, value

    t = tables.create(4)
    tables.deal(t)
    picks = [tables.hand(t, s)[0] for s in range(4)]
    other = TableClient(create_app(settings_for(redis_server.url)).test_client())
    for seat in (0, 1):
        assert tables.pass_(t, 1, 1, seat, [picks[seat]]).status_code == 200
    store = app.extensions["referee"].store
    load = store.load

    def loaded(*args: Any, **kwargs: Any) -> Any:
        found = load(*args, **kwargs)
        monkeypatch.setattr(store, "load", load)
        assert other.pass_(t, 1, 1, 2, [picks[2]]).status_code == 200
        return found

    monkeypatch.setattr(store, "load", loaded)
    done = tables.pass_(t, 1, 1, 3, [picks[3]])
    assert done.status_code == 200 and done.get_json()["resolved"] is True
    m = scrape(client)
    # Seats 0, 1 and 3 chose through this app (seat 2 through the other).
    assert value(m, "referee_events_total", game="my-ship-sails", type="pass-chosen") == 3
    assert value(m, "referee_events_total", game="my-ship-sails", type="exchange-resolved") == 1


def test_a_frozen_table_mid_exchange_takes_a_replacement_and_racing_last_passes(
    app: Any,
    tables: TableClient,
    redis_server: Any,
    redis_client: redis.Redis,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The previous release kept exchange 2's choices (seat 0: TC, seat 2: JC)
    in the state: seat 0 replaces its choice, then seats 1 and 3 pass at once
    (two processes); the exchange passes the replacement."""
    from ..storage.test_frozen_tables import restore

    t, _ = restore(redis_client, "classic_mid_exchange", "frozen-classic-attack1")
    assert tables.pass_(t, 1, 2, 0, ["JS"]).status_code == 200
    assert redis_client.hgetall(choices_key(t.table_id)) == {b"0": b"JS", b"2": b"JC"}
    assert redis_client.hget(table_key(t.table_id), "k") == b"r1x2"
    picks = {s: tables.hand(t, s)[0] for s in (1, 3)}
    other = TableClient(create_app(settings_for(redis_server.url)).test_client())
    store = app.extensions["referee"].store
    load = store.load

    def loaded(*args: Any, **kwargs: Any) -> Any:
        found = load(*args, **kwargs)
        monkeypatch.setattr(store, "load", load)
        assert other.pass_(t, 1, 2, 3, [picks[3]]).status_code == 200
        return found

    monkeypatch.setattr(store, "load", loaded)
    done = tables.pass_(t, 1, 2, 1, [picks[1]])
    assert done.status_code == 200 and done.get_json()["resolved"] is True
    assert redis_client.lrange(history_key(t.table_id), 0, -1) == [
        f"r1x2:JS|{picks[1]}|JC|{picks[3]}".encode()
    ]
    assert "JS" in tables.hand(t, 1) and "TC" in tables.hand(t, 0)
    stale = tables.pass_(t, 1, 2, 0, ["TC"])
    assert stale.status_code == 409 and stale.get_json()["code"] == "stale-exchange"
    again = tables.pass_(t, 1, 2, 0, ["JS"])
    assert again.status_code == 200 and again.get_json()["resolved"] is True
    events = tables.events(t)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    chosen = [(e["exchange"], e["seat"]) for e in events if e["type"] == "pass-chosen"]
    assert chosen[-4:] == [(2, 0), (2, 2), (2, 3), (2, 1)]


def card_leaves(value: Any) -> set[str]:
    """Every string in a JSON answer that is a card code."""
    from service.games.cards import CardError, parse_card

    if isinstance(value, dict):
        return set().union(*(card_leaves(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(card_leaves(v) for v in value)) if value else set()
    if isinstance(value, str) and 2 <= len(value) <= 3:
        try:
            return {parse_card(value)}
        except CardError:
            return set()
    return set()


@pytest.mark.parametrize("variant", ["classic", "foster", "ochse"])
def test_no_answer_to_a_seat_names_another_seats_pending_pass(
    tables: TableClient, client: Any, variant: str
) -> None:
    """Whatever a seat asks while others' passes are pending (views, events,
    its own passes, refused passes and claims), no card in the answers is
    one of another seat's hand."""
    t = tables.create(4, variant)
    assert tables.deal(t).status_code == 201
    view = tables.public(t)
    choosers = view["round"]["waiting_for"]
    me = choosers[-1]
    others = [s for s in choosers if s != me]
    hands = {s: tables.hand(t, s) for s in range(4)}
    for seat in others:
        assert tables.pass_(t, 1, 1, seat, hands[seat][:1]).status_code == 200
    hidden = {c for s in range(4) if s != me for c in hands[s]}
    mine = set(hands[me])
    seen: list[Any] = []
    token = bearer(t.seats[me])
    seen.append(client.get(t.url).get_json())
    seen.append(client.get(f"{t.url}/seats/{me}", headers=token).get_json())
    seen.append(client.get(f"{t.url}/events?after=0&limit=1000").get_json())
    seen.append(tables.pass_(t, 1, 2, me, hands[me][:1]).get_json())
    seen.append(tables.pass_(t, 1, 1, me, ["XX"]).get_json())
    claimed = tables.claim(t, 1, me)
    if claimed.status_code != 200:  # a valid Foster claim shows every hand (RULES.md 2.9)
        seen.append(claimed.get_json())
    for seat in others:
        seen.append(client.get(f"{t.url}/seats/{seat}", headers=token).get_json())
        seen.append(tables.pass_(t, 1, 1, seat, hands[seat][:1], token=t.seats[me]).get_json())
    leaked = set().union(*(card_leaves(body) for body in seen)) - mine
    assert leaked & hidden == set(), leaked


def test_a_deal_after_a_dead_resolution_starts_the_new_rounds_history_empty(
    app: Any,
    tables: TableClient,
    redis_server: Any,
    redis_client: redis.Redis,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The completing pass of a round's last exchange dies before its
    resolution; the views show the round over, the host deals the next one
    (its commit resolves the old exchange first). Round 2's history holds
    round 2's exchanges only, and its older passes are repeated alike."""
    t = tables.create(4, max_exchanges=2)
    tables.deal(t)
    first = [tables.hand(t, s)[0] for s in range(4)]
    for seat in range(4):
        assert tables.pass_(t, 1, 1, seat, [first[seat]]).status_code == 200
    picks = [tables.hand(t, s)[0] for s in range(4)]
    complete_and_die(app, redis_server, tables, t, picks, monkeypatch, number=2)
    assert tables.public(t)["round"]["status"] == "over"
    assert tables.deal(t).status_code == 201
    sent = []
    for number in (1, 2):
        sent.append([tables.hand(t, s)[0] for s in range(4)])
        for seat in range(4):
            assert tables.pass_(t, 2, number, seat, [sent[-1][seat]]).status_code == 200
    again = tables.pass_(t, 2, 1, 2, [sent[0][2]])
    assert again.status_code == 200 and again.get_json()["resolved"] is True, again.get_json()
    assert redis_client.lrange(history_key(t.table_id), 0, -1) == [
        f"r2x{n}:{'|'.join(sent[n - 1])}".encode() for n in (1, 2)
    ]
    kinds = [e["type"] for e in tables.events(t)]
    assert kinds.count("exchange-resolved") == 4


@pytest.mark.own_app  # reads the app's metrics
def test_the_metrics_count_no_pass_a_duplicate_request_did_not_write(
    app: Any,
    client: Any,
    tables: TableClient,
    redis_server: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seat 0's first pass sent twice, the copies read the table before
    either chose: one writes ``pass-chosen``, the other finds the choice
    there and writes nothing, so counts nothing."""
    from ..test_metrics import scrape, value

    t = tables.create(4)
    tables.deal(t)
    card = tables.hand(t, 0)[0]
    other = TableClient(create_app(settings_for(redis_server.url)).test_client())
    store = app.extensions["referee"].store
    load = store.load

    def loaded(*args: Any, **kwargs: Any) -> Any:
        found = load(*args, **kwargs)
        monkeypatch.setattr(store, "load", load)
        assert other.pass_(t, 1, 1, 0, [card]).status_code == 200
        return found

    monkeypatch.setattr(store, "load", loaded)
    copy = tables.pass_(t, 1, 1, 0, [card])
    assert copy.status_code == 200 and copy.get_json()["resolved"] is False
    assert [e["type"] for e in tables.events(t)].count("pass-chosen") == 1
    m = scrape(client)
    assert value(m, "referee_events_total", game="my-ship-sails", type="pass-chosen") in (0, None)


def test_a_swap_whose_second_choice_lands_through_choose_lua_resolves_once(
    app: Any,
    tables: TableClient,
    redis_server: Any,
    redis_client: redis.Redis,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Foster: the two seats of a swap choose at once (two processes); the
    swap resolves once, the cards change hands, the log names each once."""
    t = tables.create(4, "foster")
    assert tables.deal(t).status_code == 201
    a, b = tables.public(t)["round"]["waiting_for"]
    hands = {s: tables.hand(t, s) for s in range(4)}
    other = TableClient(create_app(settings_for(redis_server.url)).test_client())
    store = app.extensions["referee"].store
    load = store.load

    def loaded(*args: Any, **kwargs: Any) -> Any:
        found = load(*args, **kwargs)
        monkeypatch.setattr(store, "load", load)
        assert other.pass_(t, 1, 1, a, hands[a][:1]).status_code == 200
        return found

    monkeypatch.setattr(store, "load", loaded)
    done = tables.pass_(t, 1, 1, b, hands[b][:1])
    assert done.status_code == 200 and done.get_json()["resolved"] is True
    assert hands[a][0] in tables.hand(t, b) and hands[b][0] in tables.hand(t, a)
    kinds = [(e["type"], e.get("seat")) for e in tables.events(t)]
    assert kinds.count(("exchange-resolved", None)) == 1
    assert sorted(int(s) for k, s in kinds if k == "pass-chosen" and s is not None) == sorted(
        [a, b]
    )
    assert redis_client.exists(choices_key(t.table_id)) == 0
    again = other.pass_(t, 1, 1, a, hands[a][:1])
    assert again.status_code == 200 and again.get_json()["resolved"] is True


def test_the_host_finishing_between_the_completing_choice_and_its_resolution(
    app: Any,
    tables: TableClient,
    redis_server: Any,
    redis_client: redis.Redis,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The host ends the match right after the last choice is stored and
    before its resolution commits: the finish sees the exchange complete
    (it resolves first), and the last pass is answered as resolved."""
    t = tables.create(4)
    tables.deal(t)
    picks = [tables.hand(t, s)[0] for s in range(4)]
    other_app = create_app(settings_for(redis_server.url))
    other = other_app.test_client()
    for seat in (0, 1):
        assert tables.pass_(t, 1, 1, seat, [picks[seat]]).status_code == 200
    store = app.extensions["referee"].store
    real, load = store._choose, store.load

    def choose(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        if int(result[0]) == 2:
            monkeypatch.setattr(store, "_choose", real)
            ended = other.post(f"{t.url}/finish", headers=bearer(t.host))
            assert ended.status_code == 200, ended.get_json()
        return result

    def loaded(*args: Any, **kwargs: Any) -> Any:
        found = load(*args, **kwargs)
        monkeypatch.setattr(store, "load", load)
        assert TableClient(other).pass_(t, 1, 1, 2, [picks[2]]).status_code == 200
        return found

    monkeypatch.setattr(store, "_choose", choose)
    monkeypatch.setattr(store, "load", loaded)
    last = tables.pass_(t, 1, 1, 3, [picks[3]])
    assert last.status_code == 200, last.get_json()
    assert last.get_json()["resolved"] is True
    assert picks[3] in tables.hand(t, 0)
    kinds = [e["type"] for e in tables.events(t)]
    assert kinds.count("exchange-resolved") == 1
    assert kinds.index("exchange-resolved") < len(kinds) - 1
    assert redis_client.lrange(history_key(t.table_id), 0, -1) == [
        f"r1x1:{'|'.join(picks)}".encode()
    ]


def test_the_table_deleted_between_the_completing_choice_and_its_resolution(
    app: Any,
    tables: TableClient,
    redis_server: Any,
    redis_client: redis.Redis,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The host deletes the table right after the last choice is stored:
    the last pass is answered 404 and no key of the table comes back."""
    t = tables.create(4)
    tables.deal(t)
    picks = [tables.hand(t, s)[0] for s in range(4)]
    other = create_app(settings_for(redis_server.url)).test_client()
    for seat in (0, 1):
        assert tables.pass_(t, 1, 1, seat, [picks[seat]]).status_code == 200
    store = app.extensions["referee"].store
    real, load = store._choose, store.load

    def choose(*args: Any, **kwargs: Any) -> Any:
        result = real(*args, **kwargs)
        if int(result[0]) == 2:
            monkeypatch.setattr(store, "_choose", real)
            assert other.delete(t.url, headers=bearer(t.host)).status_code == 204
        return result

    def loaded(*args: Any, **kwargs: Any) -> Any:
        found = load(*args, **kwargs)
        monkeypatch.setattr(store, "load", load)
        assert TableClient(other).pass_(t, 1, 1, 2, [picks[2]]).status_code == 200
        return found

    monkeypatch.setattr(store, "_choose", choose)
    monkeypatch.setattr(store, "load", loaded)
    last = tables.pass_(t, 1, 1, 3, [picks[3]])
    assert last.status_code in (401, 404), last.get_json()
    assert list(redis_client.scan_iter(match=f"*{{{t.table_id}}}*")) == []
