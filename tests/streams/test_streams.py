"""Server-sent event streams through a real gunicorn with two workers and a
real Redis: every event once and in order, from whichever worker committed
it; resuming with Last-Event-ID; events-gone for a cursor the log lost or
reused; a seat's stream with its view after each commit, by token and by a
single-use ticket; no ticket in any log line."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from service.streams.follow import event_id

from ..conftest import EVERY_EVENT, RedisProcess, Served
from ..helpers import WORKED_HANDS, Table, TableClient, bearer, play_worked_round
from .sse import Frame, HttpClient, Reader


@pytest.fixture(scope="module")
def streaming(
    redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """A gunicorn with two workers, short heartbeats, every event kept."""
    service = Served(
        redis_server.url,
        tmp_path_factory.mktemp("streams"),
        EVENTS_KEPT=str(EVERY_EVENT),
        STREAM_HEARTBEAT_SECONDS="1",
        STREAM_LIFETIME_SECONDS="30",
    )
    yield service
    service.stop()


def worked_table(served: Served) -> tuple[TableClient, Table]:
    tables = TableClient(HttpClient(served.base))
    return tables, tables.create(variant="mein-schiff")


def events_of(frames: list[Frame]) -> list[dict]:
    return [f.data for f in frames if f.event == "message"]


def test_the_public_stream_carries_every_event_once_in_order(streaming: Served) -> None:
    tables, t = worked_table(streaming)
    reader = Reader(f"{streaming.base}{t.url}/stream")
    assert reader.status == 200
    assert reader.headers["Content-Type"].startswith("text/event-stream")
    assert reader.headers["X-Accel-Buffering"] == "no"
    play_worked_round(tables, t, 1, early_claim=True)
    log = tables.events(t)
    got: list[Frame] = []
    while len(events_of(got)) < len(log):
        frame = reader.next()
        assert frame is not None
        got.append(frame)
    reader.close()
    assert events_of(got) == log  # each event once, in order, as the JSON log has it
    assert [f.id for f in got if f.event == "message"] == [event_id(e) for e in log]
    assert reader.retry == 2000


def test_a_stream_resumes_after_last_event_id_and_heartbeats(streaming: Served) -> None:
    tables, t = worked_table(streaming)
    tables.deal(t, WORKED_HANDS)
    assert tables.pass_(t, 1, 1, 0, ["4S"]).status_code == 200
    log = tables.events(t)
    assert [e["type"] for e in log] == ["table-created", "round-dealt", "pass-chosen"]
    reader = Reader(
        f"{streaming.base}{t.url}/stream?after=0", **{"Last-Event-ID": event_id(log[0])}
    )
    frames = reader.until("heartbeat")
    reader.close()
    assert events_of(frames) == log[1:]  # the header wins over ?after=0
    assert frames[-1].id == event_id(log[-1]) and frames[-1].data == {"last_event": log[-1]["seq"]}


def test_a_cursor_the_log_does_not_hold_is_told_with_a_200(streaming: Served) -> None:
    tables, t = worked_table(streaming)
    tables.deal(t, WORKED_HANDS)
    log = tables.events(t)
    last = log[-1]["seq"]
    for cursor in (f"{last + 5}", f"{log[1]['seq']}.00000000"):  # past the end; a reused seq
        reader = Reader(f"{streaming.base}{t.url}/stream", **{"Last-Event-ID": cursor})
        assert reader.status == 200
        frame = reader.next()
        reader.close()
        assert frame == Frame("events-gone", str(last), {"oldest_seq": 1, "last_event": last})


def test_a_seat_stream_sends_its_view_after_each_commit(streaming: Served) -> None:
    tables, t = worked_table(streaming)
    tables.deal(t, WORKED_HANDS)
    reader = Reader(f"{streaming.base}{t.url}/seats/0/stream", **bearer(t.seats[0]))
    first = reader.until("seat")[-1]
    assert sorted(first.data["hand"]) == sorted(WORKED_HANDS[0])
    for seat, card in enumerate(["4S", "9C", "8D", "9H"]):
        assert tables.pass_(t, 1, 1, seat, [card]).status_code == 200
    # After the exchange resolved: the seat's new hand, with nobody asking for it.
    while True:
        frame = reader.until("seat")[-1]
        if "9H" in frame.data["hand"]:
            break
    reader.close()
    assert "4S" not in frame.data["hand"]
    assert frame.data["hand"] == tables.hand(t, 0)
    for other in WORKED_HANDS[1:]:  # no card of another seat's hand
        assert not set(other) - {"9H"} & set(str(frame.data))


def test_a_ticket_opens_a_seat_stream_once(streaming: Served) -> None:
    tables, t = worked_table(streaming)
    tables.deal(t, WORKED_HANDS)
    refused = requests.post(f"{streaming.base}{t.url}/seats/1/tickets", headers=bearer(t.seats[0]))
    assert refused.status_code == 403
    got = requests.post(f"{streaming.base}{t.url}/seats/0/tickets", headers=bearer(t.seats[0]))
    assert got.status_code == 200
    ticket = got.json()
    assert ticket["expires_in"] == 60
    reader = Reader(streaming.base + ticket["stream"])
    assert reader.until("seat")[-1].data["seat"] == 0
    reader.close()
    first = requests.get(streaming.base + ticket["stream"], timeout=5)  # a spent ticket
    assert first.status_code == 401 and first.json()["code"] == "ticket-invalid"
    # What an EventSource's reconnect sends: the same URL with Last-Event-ID.
    again = Reader(streaming.base + ticket["stream"], **{"Last-Event-ID": "3"})
    assert again.status == 200
    frame = again.next()
    assert frame is not None and frame.event == "ticket-invalid"
    assert again.retry == 3_600_000
    assert again.next() is None  # the stream ended
    other = requests.get(f"{streaming.base}{t.url}/seats/1/stream?ticket={ticket['ticket']}")
    assert other.status_code == 401
    assert ticket["ticket"] not in streaming.log.read_text()


def test_a_stream_of_no_table_is_404_and_a_bad_cursor_422(streaming: Served) -> None:
    missing = requests.get(f"{streaming.base}/v1/tables/{'x' * 24}/stream", timeout=5)
    assert missing.status_code == 404
    assert missing.headers["Content-Type"] == "application/problem+json"
    tables, t = worked_table(streaming)
    bad = requests.get(f"{streaming.base}{t.url}/stream", headers={"Last-Event-ID": "x"}, timeout=5)
    assert bad.status_code == 422 and bad.json()["code"] == "cursor-invalid"


def test_a_deleted_table_ends_its_streams(streaming: Served) -> None:
    tables, t = worked_table(streaming)
    reader = Reader(f"{streaming.base}{t.url}/seats/2/stream", **bearer(t.seats[2]))
    reader.until("seat")
    assert requests.delete(f"{streaming.base}{t.url}", headers=bearer(t.host)).status_code == 204
    assert reader.until("table-deleted")[-1].data == {"table": t.table_id}
    assert reader.next() is None
    assert reader.retry == 3_600_000


@pytest.fixture(scope="module")
def quiet(redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """Heartbeats a minute apart: what a stream gets sooner came by itself."""
    service = Served(
        redis_server.url,
        tmp_path_factory.mktemp("streams-quiet"),
        EVENTS_KEPT=str(EVERY_EVENT),
        STREAM_HEARTBEAT_SECONDS="60",
    )
    yield service
    service.stop()


def test_a_lapsed_may_i_window_reaches_the_stream_with_nobody_calling(quiet: Served) -> None:
    http = HttpClient(quiet.base)
    body = {"variant": "may-i", "players": ["A", "B", "C"], "first_dealer": 0,
            "options": {"may_i_window_ms": 400}}  # fmt: skip
    created = http.post("/v1/tables", json=body).json()
    url, host = f"/v1/tables/{created['table_id']}", bearer(created["host_token"])
    dealt = http.post(f"{url}/rounds", headers=host).json()
    on_turn = dealt["table"]["round"]["on_turn"]
    token = bearer(created["seat_tokens"][on_turn]["token"])
    reader = Reader(f"{quiet.base}{url}/stream")
    assert [reader.next().data["type"] for _ in range(2)] == ["table-created", "round-dealt"]  # type: ignore[union-attr]
    declined = http.put(f"{url}/rounds/1/moves/1", json={"decline": True}, headers=token)
    assert declined.status_code == 200, declined.json()
    types: list[str] = []
    while "may-i-lapsed" not in types:
        frame = reader.next(timeout=20)  # far below the heartbeat's minute
        assert frame is not None and frame.event == "message", frame
        types.append(frame.data["type"])
    reader.close()
    print(types)
    assert types == ["discard-declined", "may-i-offered", "may-i-lapsed"]


def test_a_resolution_nobody_wrote_reaches_the_stream(
    quiet: Served, redis_server: RedisProcess
) -> None:
    """The last pass of an exchange written (choose.lua's effect) and its
    worker gone before the resolution: the stream still gets it."""
    import redis

    from service.storage.store import choices_key

    tables, t = worked_table(quiet)
    tables.deal(t, WORKED_HANDS)
    reader = Reader(f"{quiet.base}{t.url}/stream")
    for seat, card in enumerate(["4S", "9C", "8D"]):
        assert tables.pass_(t, 1, 1, seat, [card]).status_code == 200
    r = redis.Redis.from_url(redis_server.url)
    r.hset(choices_key(t.table_id), "3", "9H")
    r.publish(f"referee:{{{t.table_id}}}:feed", 0)  # what choose.lua announces
    types: list[str] = []
    while "exchange-resolved" not in types:
        frame = reader.next(timeout=20)
        assert frame is not None, types
        types.append(frame.data["type"])
    reader.close()
    print(types)
    assert types == ["table-created", "round-dealt", *["pass-chosen"] * 3, "exchange-resolved"]


def test_sigterm_ends_the_streams_asking_clients_back_soon(
    redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> None:
    # A grace of 60 s: a stream that ends well within it was ended by the
    # drain (which says when to come back), not cut when the grace ran out.
    # Each wait is for the stream's next event, with a deadline a busy machine
    # meets (a queue's 10 and 15 s were not always enough); it is stopped
    # however the test ends.
    folder = tmp_path_factory.mktemp("streams-term")
    with Served(redis_server.url, folder, GUNICORN_GRACEFUL_TIMEOUT="60") as service:
        tables, t = worked_table(service)
        reader = Reader(f"{service.base}{t.url}/stream")
        assert reader.next(timeout=60).data["type"] == "table-created"  # type: ignore[union-attr]
        asked = time.monotonic()
        service.proc.terminate()  # gunicorn's graceful stop, as Kubernetes sends it
        assert reader.next(timeout=60) is None  # the stream ended...
        assert time.monotonic() - asked < 30  # ... by the drain, not at the grace's end
        assert reader.retries == [2000, 2000]  # the drain's own frame: come back in 2 s


def test_a_reissued_token_closes_the_seats_stream_and_its_tickets(streaming: Served) -> None:
    # Before the deal: while a round is in play a connected seat's token is
    # not reissued (RULES.md 5.1: host powers show no card).
    tables, t = worked_table(streaming)
    got = requests.post(f"{streaming.base}{t.url}/seats/1/tickets", headers=bearer(t.seats[1]))
    ticket = got.json()
    reader = Reader(f"{streaming.base}{t.url}/seats/1/stream", **bearer(t.seats[1]))
    reader.until("seat")
    new = requests.post(f"{streaming.base}{t.url}/seats/1/token", headers=bearer(t.host))
    assert new.status_code == 201, new.json()
    assert reader.until("seat-closed")[-1].data == {"table": t.table_id}
    assert reader.next() is None
    # A ticket taken with the old token opens nothing any more.
    spent = requests.get(streaming.base + ticket["stream"], timeout=5)
    assert spent.status_code == 401 and spent.json()["code"] == "ticket-invalid"


def test_the_streams_of_a_table_share_a_read_per_announced_commit(redis_client: Any) -> None:
    """Seven seat streams of one table read it once per commit in a process,
    and the next commit's announcement makes them read again."""
    from service.streams.hub import Hub

    hub = Hub(redis_client)
    reads: list[int] = []

    def read() -> int:
        reads.append(len(reads))
        return len(reads)

    with hub.follow("t1"), hub.follow("t2"):
        # Once subscribed: the subscription's confirmation wakes every stream.
        assert hub.subscribed.wait(10)
        assert [hub.shared("t1", "load", read) for _ in range(7)] == [1] * 7
        hub.publish("t2", 5)  # another table's commit
        assert hub.shared("t1", "load", read) == 1
        hub.publish("t1", 6)
        assert [hub.shared("t1", "load", read) for _ in range(7)] == [2] * 7
        assert hub.shared("t1", "other", read) == 3  # another key reads for itself
    assert hub.streams == 0 and hub.shared("t1", "load", read) == 4  # nobody follows: no cache
    hub.stop()


def test_a_subscription_made_again_reads_afresh(tmp_path: Any) -> None:
    """A commit announced while a process's subscription was down is lost;
    once subscribed again the Hub wakes every stream, and their reads must
    not be the ones shared before (a seat stream would keep the view it had
    before the commit, e.g. its hand before an exchange resolved, until the
    next commit or heartbeat)."""
    import redis as redis_py

    from service.streams.hub import Hub

    own = RedisProcess(tmp_path / "redis").start()
    client = redis_py.Redis.from_url(own.url)
    hub = Hub(client)
    try:
        reads: list[int] = []

        def read() -> int:
            reads.append(len(reads))
            return len(reads)

        with hub.follow("t1") as waiter:
            assert hub.subscribed.wait(10)
            hub.publish("t1", 3)
            assert waiter.wait(1) and hub.shared("t1", "load", read) == 1
            hub.subscribed.clear()
            client.client_kill_filter(_type="pubsub")  # Redis dropped the subscription
            assert hub.subscribed.wait(10) and waiter.wait(10)  # subscribed again: woken
            assert hub.shared("t1", "load", read) == 2  # read afresh, not the shared 1
    finally:
        hub.stop()
        own.stop()


def test_a_burst_of_commits_wakes_the_streams_once_more_at_the_end_of_the_window(
    redis_client: Any,
) -> None:
    """A commit after a quiet spell wakes a table's streams at once; the
    commits that follow within the window wake them once, at its end (one
    read for a burst of passes), never not at all; a deletion at once."""
    from service.streams.hub import Hub, feed_channel

    hub = Hub(redis_client, coalesce=0.004)
    # Stopped before its thread starts: no subscription, whose start wakes
    # every stream (a CI run on a busy machine subscribed mid-test).
    hub.stop()
    channel = feed_channel("t1")
    with hub.follow("t1") as waiter, hub.follow("t2") as other:
        assert not hub.subscribed.wait(0.05)
        hub.announce(channel, 1, 10.0)
        assert waiter.wait(0)
        hub.announce(channel, 2, 10.001)
        hub.announce(channel, 3, 10.002)
        assert not waiter.wait(0)  # held
        assert hub.flush(10.003) == pytest.approx(0.001)
        assert not waiter.wait(0)
        assert hub.flush(10.004) is None
        assert waiter.wait(0)  # the burst's second and third commits, once
        assert hub.flush(10.010) is None and not waiter.wait(0)
        hub.announce(channel, 4, 10.005)  # within the window of the last wake: held
        hub.announce(channel, -1, 10.006)  # deleted: at once, the held one with it
        assert waiter.gone and waiter.wait(0)
        assert hub.flush(10.1) is None and not waiter.wait(0)
        hub.announce(feed_channel("t9"), 1, 10.0)  # nobody here follows it
        assert not other.wait(0)


def test_streams_of_one_seat_share_its_view_only_under_the_same_token(redis_client: Any) -> None:
    """Two streams of seat 1 in one process, one opened with a token since
    reissued: the old holder's stream must never be handed the view the new
    holder's rendered (its cards), nor the new one the old one's refusal,
    whichever reads first."""
    from service.streams.follow import Follower, Read
    from service.streams.hub import Hub

    hub = Hub(redis_client)
    view = {"seat": 1, "hand": ["AS", "KH"]}

    def follower(holder: str) -> Follower:
        shown = (lambda _: view) if holder == "new" else (lambda _: None)
        return Follower(None, hub, "t1", 1, 1, shown, 1, holder)  # type: ignore[arg-type]

    with hub.follow("t1"):
        for first, then in (("new", "old"), ("old", "new")):
            hub.publish("t1", 5)  # a new read for each order
            read = Read("", 5, None, table=None)  # type: ignore[arg-type]
            found = {h: follower(h)._seat_frame(read, True) for h in (first, then)}
            assert found == {"new": '{"hand":["AS","KH"],"seat":1}', "old": None}
    hub.stop()
