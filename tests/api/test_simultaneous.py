"""Passes of one exchange commute (issue 13): each seat's choice is committed
on its own, never racing the other seats for the table's version; only the
exchange's resolution is serialised. Real Redis, real gunicorn where the
concurrency is between processes."""

from __future__ import annotations

import threading
from typing import Any

import pytest
import redis

from service.storage.store import choices_key, history_key, table_key

from ..conftest import Served
from ..helpers import Table, TableClient, bearer, snapshot
from ..test_gunicorn import send


def conflicts_served(served: Served) -> float:
    """``referee_commit_conflicts_total`` summed over the served workers."""
    _, _, _ = send(served, "GET", "/readyz")
    import urllib.request

    with urllib.request.urlopen(f"{served.base}/metrics", timeout=10) as r:
        text = r.read().decode()
    line = next(x for x in text.splitlines() if x.startswith("referee_commit_conflicts_total"))
    return float(line.split()[-1])


def create_served(served: Served, seats: int) -> Table:
    body = {
        "variant": "classic",
        "players": [f"P{s}" for s in range(seats)],
        "first_dealer": 0,
        "options": {},
    }
    status, _, created = send(served, "POST", "/v1/tables", body)
    assert status == 201, created
    t = Table(
        created["table_id"], created["host_token"], [s["token"] for s in created["seat_tokens"]], {}
    )
    status, _, dealt = send(served, "POST", f"{t.url}/rounds", None, **bearer(t.host))
    assert status == 201, dealt
    return t


def hand_served(served: Served, t: Table, seat: int) -> list[str]:
    status, _, view = send(served, "GET", f"{t.url}/seats/{seat}", **bearer(t.seats[seat]))
    assert status == 200, view
    return view["hand"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("table", [1, 2, 3])
def test_seven_seats_passing_at_once_through_gunicorn_never_lose_a_race(
    served: Served, redis_client: redis.Redis, table: int
) -> None:
    """Seven clients pass at the same moment through two gunicorn workers,
    five exchanges (what the log keeps by default, 48 events, holds whole)."""
    t = create_served(served, 7)
    exchanges = 5
    conflicts_before = conflicts_served(served)
    cards = sorted(c for s in range(7) for c in hand_served(served, t, s))
    answers: list[tuple[int, int, int, bool]] = []
    failures: list[Any] = []
    for number in range(1, exchanges + 1):
        picks = [hand_served(served, t, s)[number % 7] for s in range(7)]
        barrier = threading.Barrier(7)

        def put(
            seat: int, number: int = number, picks: list[str] = picks, b: Any = barrier
        ) -> None:
            b.wait()
            try:
                status, _, body = send(
                    served,
                    "PUT",
                    f"{t.url}/rounds/1/exchanges/{number}/passes/{seat}",
                    {"cards": [picks[seat]]},
                    **bearer(t.seats[seat]),
                )
            except Exception as error:  # noqa: BLE001 - reported below
                failures.append(error)
                return
            answers.append((number, seat, status, bool(body.get("resolved"))))

        threads = [threading.Thread(target=put, args=(s,)) for s in range(7)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
    assert failures == []
    assert sorted((n, s, code) for n, s, code, _ in answers) == [
        (n, s, 200) for n in range(1, exchanges + 1) for s in range(7)
    ]
    # Exactly one answer per exchange is the one whose choice completed it.
    resolved = sorted(n for n, _, _, done in answers if done)
    assert resolved == list(range(1, exchanges + 1))
    assert conflicts_served(served) == conflicts_before
    status, _, page = send(served, "GET", f"{t.url}/events?after=0&limit=1000")
    events = page["events"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    passing = [e for e in events if e["type"] in ("pass-chosen", "exchange-resolved")]
    expected: list[tuple[str, int]] = []
    for number in range(1, exchanges + 1):
        expected += [("pass-chosen", number)] * 7 + [("exchange-resolved", number)]
    assert [(e["type"], e["exchange"]) for e in passing] == expected
    for number in range(1, exchanges + 1):
        seats = [e["seat"] for e in passing if e["exchange"] == number and "seat" in e]
        assert sorted(seats) == list(range(7))
    assert sorted(c for s in range(7) for c in hand_served(served, t, s)) == cards
    status, _, view = send(served, "GET", t.url)
    assert view["round"]["exchanges_resolved"] == exchanges
    assert view["round"]["exchange"] == exchanges + 1
    assert view["last_event"] == len(events)
    assert redis_client.exists(choices_key(t.table_id)) == 0
    assert redis_client.hget(table_key(t.table_id), "k") == f"r1x{exchanges + 1}".encode()


def test_a_pending_choice_shows_in_the_views_and_moves_the_etag(
    tables: TableClient, client: Any, redis_client: redis.Redis
) -> None:
    t = tables.create(4)
    tables.deal(t)
    first = client.get(t.url)
    version = redis_client.hget(table_key(t.table_id), "v")
    card = tables.hand(t, 2)[0]
    assert tables.pass_(t, 1, 1, 2, [card]).status_code == 200
    # The choice took no version: it is kept beside the state.
    assert redis_client.hget(table_key(t.table_id), "v") == version
    assert redis_client.hgetall(choices_key(t.table_id)) == {b"2": card.encode()}
    second = client.get(t.url)
    assert second.headers["ETag"] != first.headers["ETag"]
    view = second.get_json()
    assert [s["chosen"] for s in view["seats"]] == [False, False, True, False]
    assert view["round"]["waiting_for"] == [0, 1, 3]
    assert view["last_event"] == first.get_json()["last_event"] + 1
    seat = client.get(f"{t.url}/seats/2", headers=bearer(t.seats[2])).get_json()
    assert seat["pending"] == [card] and seat["to_choose"] is False
    assert client.get(t.url, headers={"If-None-Match": second.headers["ETag"]}).status_code == 304


def test_a_seat_replaces_its_choice_until_the_last_chooser_has_chosen(
    tables: TableClient, client: Any, redis_client: redis.Redis
) -> None:
    t = tables.create(4)
    tables.deal(t)
    hands = [tables.hand(t, s) for s in range(4)]
    assert tables.pass_(t, 1, 1, 0, [hands[0][0]]).status_code == 200
    log = len(tables.events(t))
    replaced = tables.pass_(t, 1, 1, 0, [hands[0][1]])
    assert replaced.status_code == 200 and replaced.get_json()["cards"] == [hands[0][1]]
    assert len(tables.events(t)) == log  # the public already knows seat 0 has chosen
    assert redis_client.hget(choices_key(t.table_id), "0") == hands[0][1].encode()
    for seat in (1, 2, 3):
        r = tables.pass_(t, 1, 1, seat, [hands[seat][0]])
        assert r.status_code == 200 and r.get_json()["resolved"] is (seat == 3)
    assert hands[0][1] in tables.hand(t, 1) and hands[0][0] in tables.hand(t, 0)
    # Once resolved, a different pass of that exchange is too late.
    late = tables.pass_(t, 1, 1, 0, [hands[0][0]])
    assert late.status_code == 409 and late.get_json()["code"] == "stale-exchange"


def test_repeated_passes_are_answered_alike_without_a_write(
    tables: TableClient, client: Any, redis_client: redis.Redis
) -> None:
    t = tables.create(4)
    tables.deal(t)
    sent: dict[int, list[list[str]]] = {}
    answers: dict[tuple[int, int], Any] = {}
    for number in range(1, 6):
        sent[number] = [[tables.hand(t, s)[0]] for s in range(4)]
        for seat in range(4):
            r = tables.pass_(t, 1, number, seat, sent[number][seat])
            assert r.status_code == 200
            answers[number, seat] = r.get_json()
    # The current exchange, half chosen: seat 1 repeats its choice.
    sent[6] = [[tables.hand(t, s)[0]] for s in range(4)]
    first = tables.pass_(t, 1, 6, 1, sent[6][1])
    before = snapshot(redis_client, t)
    again = tables.pass_(t, 1, 6, 1, sent[6][1])
    assert again.status_code == 200 and again.get_json() == first.get_json()
    keyed = client.put(
        f"{t.url}/rounds/1/exchanges/6/passes/1",
        json={"cards": sent[6][1]},
        headers={**bearer(t.seats[1]), "Idempotency-Key": "repeat-of-a-pass-0001"},
    )
    assert keyed.status_code == 200 and keyed.get_json() == first.get_json()
    # The last resolved exchange and an older one: answered as resolved, with
    # the hand as it is now; nothing is written.
    for number in (5, 2, 1):
        for seat in range(4):
            r = tables.pass_(t, 1, number, seat, sent[number][seat])
            assert r.status_code == 200, (number, seat, r.get_json())
            body = r.get_json()
            assert body["resolved"] is True and body["cards"] == sent[number][seat]
            assert body["exchange"] == number and body["hand"] == tables.hand(t, seat)
    r = client.put(
        f"{t.url}/rounds/1/exchanges/2/passes/3",
        json={"cards": sent[2][3]},
        headers={**bearer(t.seats[3]), "Idempotency-Key": "repeat-of-a-pass-0002"},
    )
    assert r.status_code == 200 and r.get_json()["resolved"] is True
    assert snapshot(redis_client, t) == before
    # Not what was passed then: refused, as a pass of a past exchange.
    other = [c for c in tables.hand(t, 0) if c != sent[2][0][0]][:1]
    stale = tables.pass_(t, 1, 2, 0, other)
    assert stale.status_code == 409 and stale.get_json()["code"] == "stale-exchange"
    assert snapshot(redis_client, t) == before


def test_refused_passes_change_nothing_in_redis(
    tables: TableClient, client: Any, redis_client: redis.Redis
) -> None:
    t = tables.create(4)
    tables.deal(t)
    hands = [tables.hand(t, s) for s in range(4)]
    assert tables.pass_(t, 1, 1, 0, [hands[0][0]]).status_code == 200
    before = snapshot(redis_client, t)
    refused = [
        (tables.pass_(t, 1, 1, 1, [hands[0][1]]), 422),  # not in seat 1's hand
        (tables.pass_(t, 1, 1, 1, hands[1][:2]), 422),  # two cards
        (tables.pass_(t, 1, 1, 1, ["XX"]), 422),
        (tables.pass_(t, 1, 2, 1, [hands[1][0]]), 409),  # not the current exchange
        (tables.pass_(t, 2, 1, 1, [hands[1][0]]), 409),  # not the current round
        (tables.pass_(t, 1, 1, 1, [hands[1][0]], token=t.seats[2]), 403),
        (tables.pass_(t, 1, 1, 1, [hands[1][0]], token=t.host), 403),
        (tables.pass_(t, 1, 1, 7, [hands[1][0]], token=t.seats[1]), 404),
    ]
    for answer, status in refused:
        assert answer.status_code == status, answer.get_json()
    assert snapshot(redis_client, t) == before


def test_a_claim_racing_passes_leaves_a_consistent_state(app: Any, redis_server: Any) -> None:
    """Seat 0 holds a winning hand and claims while seats 1-3 pass, each
    through its own app (as its own process), many times: every pass that
    was answered 200 was logged before the claim, every later one is 409
    ``round-over``, and no choice is left behind."""
    from service import create_app

    from ..conftest import settings_for
    from .test_play import WINNING_AT_DEAL

    apps = [create_app(settings_for(redis_server.url)) for _ in range(4)]
    host = TableClient(apps[0].test_client())
    r = redis.Redis.from_url(redis_server.url)
    for _ in range(8):
        t = host.create(4, "classic")
        assert host.deal(t, WINNING_AT_DEAL).status_code == 201
        barrier = threading.Barrier(4)
        codes: dict[int, Any] = {}

        def act(seat: int, t: Table = t, barrier: Any = barrier, codes: Any = codes) -> None:
            mine = TableClient(apps[seat].test_client())
            barrier.wait()
            if seat == 0:
                codes[0] = mine.claim(t, 1, 0)
            else:
                codes[seat] = mine.pass_(t, 1, 1, seat, [WINNING_AT_DEAL[seat][0]])

        threads = [threading.Thread(target=act, args=(s,)) for s in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert codes[0].status_code == 200 and codes[0].get_json()["result"]["winners"] == [0]
        events = host.events(t)
        claim_at = next(i for i, e in enumerate(events) if e["type"] == "claim-accepted")
        chosen = [e["seat"] for e in events if e["type"] == "pass-chosen"]
        assert all(e["type"] != "pass-chosen" for e in events[claim_at:])
        passed = sorted(s for s in (1, 2, 3) if codes[s].status_code == 200)
        assert sorted(chosen) == passed
        for s in (1, 2, 3):
            if codes[s].status_code != 200:
                assert codes[s].status_code == 409
                assert codes[s].get_json()["code"] == "round-over"
        assert "exchange-resolved" not in [e["type"] for e in events]
        assert [host.hand(t, s) for s in range(4)] == [sorted_hand(h) for h in WINNING_AT_DEAL]
        assert r.exists(choices_key(t.table_id)) == 0
        assert r.hget(table_key(t.table_id), "k") == b""


def test_a_claim_racing_the_last_pass_sees_the_exchange_or_cancels_it(
    app: Any, redis_server: Any
) -> None:
    """Every seat passes and seat 0 (seven hearts, passing a heart) claims at
    the same moment, each through its own app: either the claim commits
    first (the exchange never resolves: a pass answered 200 was logged
    before it, a later one is 409) or the exchange resolves first and the
    claim is judged on the new hands (six hearts: refused). Never a logged
    pass answered 409, never a resolution after the claim."""
    from service import create_app

    from ..conftest import settings_for
    from .test_play import WINNING_AT_DEAL

    apps = [create_app(settings_for(redis_server.url)) for _ in range(5)]
    host = TableClient(apps[0].test_client())
    outcomes = set()
    for _ in range(12):
        t = host.create(4, "classic", claim_window_ms=0)
        assert host.deal(t, WINNING_AT_DEAL).status_code == 201
        barrier = threading.Barrier(5)
        codes: dict[int, Any] = {}

        def act(who: int, t: Table = t, barrier: Any = barrier, codes: Any = codes) -> None:
            mine = TableClient(apps[who].test_client())
            barrier.wait()
            if who == 4:
                codes[who] = mine.claim(t, 1, 0)
            else:
                codes[who] = mine.pass_(t, 1, 1, who, [WINNING_AT_DEAL[who][0]])

        threads = [threading.Thread(target=act, args=(w,)) for w in range(5)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        events = host.events(t)
        types = [e["type"] for e in events]
        chosen = sorted(e["seat"] for e in events if e["type"] == "pass-chosen")
        assert chosen == sorted(s for s in range(4) if codes[s].status_code == 200)
        if codes[4].status_code == 200:
            outcomes.add("claim first")
            assert "exchange-resolved" not in types
            claim_at = types.index("claim-accepted")
            assert "pass-chosen" not in types[claim_at:]
            for s in range(4):
                if codes[s].status_code != 200:
                    assert codes[s].get_json()["code"] == "round-over"
        else:
            outcomes.add("exchange first")
            assert codes[4].status_code == 422
            assert [codes[s].status_code for s in range(4)] == [200] * 4
            assert types.index("exchange-resolved") < types.index("claim-rejected")
            assert host.public(t)["round"]["exchanges_resolved"] == 1
        # Cancelled, or resolved: no choice is pending either way.
        assert redis.Redis.from_url(redis_server.url).exists(choices_key(t.table_id)) == 0
    assert outcomes  # which came first is up to the scheduler


def sorted_hand(hand: list[str]) -> list[str]:
    from service.games.cards import sort_cards

    return list(sort_cards(hand))


def test_the_history_keeps_the_round_and_is_reset_by_each_deal(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4, max_exchanges=2)
    tables.deal(t)
    sent = []
    for number in (1, 2):
        sent.append([tables.hand(t, s)[0] for s in range(4)])
        for seat in range(4):
            assert tables.pass_(t, 1, number, seat, [sent[-1][seat]]).status_code == 200
    assert tables.public(t)["last_result"]["settled_by"] == "void"
    # Kept for the round's record until the next deal, expiring with the table.
    kept = redis_client.lrange(history_key(t.table_id), 0, -1)
    assert kept == [f"r1x{n}:{'|'.join(sent[n - 1])}".encode() for n in (1, 2)]
    ttl = redis_client.ttl(table_key(t.table_id))
    assert ttl - 2 <= redis_client.ttl(history_key(t.table_id)) <= ttl
    # The round is over: its passes are still repeated alike, the first too.
    for number in (1, 2):
        again = tables.pass_(t, 1, number, 2, [sent[number - 1][2]])
        assert again.status_code == 200 and again.get_json()["round_status"] == "over"
    assert tables.deal(t).status_code == 201
    assert redis_client.exists(history_key(t.table_id)) == 0
    card = tables.hand(t, 0)[0]
    for seat in range(4):
        assert tables.pass_(t, 2, 1, seat, [tables.hand(t, seat)[0]]).status_code == 200
    assert redis_client.lrange(history_key(t.table_id), 0, -1)[0].startswith(
        f"r2x1:{card}".encode()
    )
    # A repeat of round 1's passes is of a past round now.
    stale = tables.pass_(t, 1, 1, 0, [sent[0][0]])
    assert stale.status_code == 409 and stale.get_json()["code"] == "stale-round"


def test_the_stored_state_does_not_grow_with_the_exchanges_of_a_round(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(7)
    tables.deal(t)
    sizes = {}
    for number in range(1, 31):
        for seat in range(7):
            card = tables.hand(t, seat)[number % 7]
            assert tables.pass_(t, 1, number, seat, [card]).status_code == 200
        if number in (1, 30):
            sizes[number] = len(redis_client.hget(table_key(t.table_id), "s"))
    assert tables.public(t)["round"]["exchanges_resolved"] == 30
    # Only digits of counts grow; fmt 2 added about 16 bytes per exchange.
    assert sizes[30] - sizes[1] <= 8, sizes
    assert redis_client.llen(history_key(t.table_id)) == 30


def test_deleting_a_table_removes_its_choices_and_history(
    tables: TableClient, client: Any, redis_client: redis.Redis
) -> None:
    t = tables.create(4)
    tables.deal(t)
    for seat in range(4):
        assert tables.pass_(t, 1, 1, seat, [tables.hand(t, seat)[0]]).status_code == 200
    assert tables.pass_(t, 1, 2, 0, [tables.hand(t, 0)[0]]).status_code == 200
    assert redis_client.exists(choices_key(t.table_id), history_key(t.table_id)) == 2
    assert client.delete(t.url, headers=bearer(t.host)).status_code == 204
    assert list(redis_client.scan_iter(match=f"*{{{t.table_id}}}*")) == []
