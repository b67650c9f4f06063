"""Fan-out through a real gunicorn and a real Redis (issue 39, "fan-out is
cheap"): a commit's frames are rendered once per process for the public
and once per seat, however many streams of the table are open, and every
stream of one audience is written the same frames; a seat's view reaches
that seat's streams only."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import requests

from ..conftest import EVERY_EVENT, RedisProcess, Served
from ..helpers import Table, TableClient, bearer
from .sse import Frame, HttpClient, Reader

SEATS = 4
MOVES = 5


@pytest.fixture(scope="module")
def one_worker(
    redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """One worker process (its counters are the process's), no heartbeat
    within the test (a heartbeat's read is a stream's own)."""
    service = Served(
        redis_server.url,
        tmp_path_factory.mktemp("fanout"),
        WEB_CONCURRENCY="1",
        EVENTS_KEPT=str(EVERY_EVENT),
        STREAM_HEARTBEAT_SECONDS="120",
        STREAM_LIFETIME_SECONDS="300",
    )
    yield service
    service.stop()


def renders(served: Served) -> dict[str, float]:
    """``referee_stream_renders_total`` by audience, from ``/metrics``."""
    text = requests.get(f"{served.base}/metrics", timeout=10).text
    found = re.findall(r'^referee_stream_renders_total\{audience="(\w+)"\} (\S+)$', text, re.M)
    return {audience: float(value) for audience, value in found}


class Audiences:
    """A Sevens table and its streams by audience (``None``: public)."""

    def __init__(self, served: Served) -> None:
        self.base = served.base
        self.http = HttpClient(served.base)
        self.tables = TableClient(self.http)
        self.t: Table = self.tables.create(SEATS, "sevens", first_dealer=0)
        assert self.tables.deal(self.t).status_code == 201
        self.readers: dict[int | None, list[Reader]] = {a: [] for a in (None, *range(SEATS))}
        self.frames: dict[Reader, list[Frame]] = {}

    def open(self, each: int) -> None:
        """``each`` more streams for the public and for every seat."""
        url = self.base + self.t.url
        for audience in self.readers:
            for _ in range(each):
                if audience is None:
                    reader = Reader(f"{url}/stream")
                else:
                    token = bearer(self.t.seats[audience])
                    reader = Reader(f"{url}/seats/{audience}/stream", **token)
                assert reader.status == 200
                self.readers[audience].append(reader)
                self.frames[reader] = []

    def settle(self) -> None:
        """Every stream's frames up to the log's last event (a seat's: its
        view as of that event)."""
        last = self.tables.public(self.t)["last_event"]
        for audience, readers in self.readers.items():
            for reader in readers:
                got = self.frames[reader]
                while not any(reached(f, audience) >= last for f in got[-2:]):
                    frame = reader.next(timeout=20)
                    assert frame is not None, f"a stream of {audience} ended"
                    got.append(frame)

    def move(self) -> None:
        """The seat on turn plays a card it may play, else passes."""
        rnd = self.tables.public(self.t)["round"]
        seat = rnd["on_turn"]
        view = self.http.get(f"{self.t.url}/seats/{seat}", headers=bearer(self.t.seats[seat]))
        mine = view.json()
        move: dict[str, Any] = {"play": mine["playable"][0]} if mine["playable"] else {"pass": True}
        url = f"{self.t.url}/rounds/{rnd['number']}/turns/{rnd['turn']}"
        played = self.http.put(url, json=move, headers=bearer(self.t.seats[seat]))
        assert played.status_code == 200, played.json()

    def close(self) -> None:
        for readers in self.readers.values():
            for reader in readers:
                reader.close()


def reached(frame: Frame, audience: int | None) -> int:
    """The last event a stream has sent with ``frame`` (0: not known)."""
    if audience is None and frame.event == "message":
        return int(frame.data["seq"])
    if audience is not None and frame.event == "seat":
        return int(frame.data["last_event"])
    return 0


def test_a_commit_is_rendered_once_per_audience_however_many_streams(
    one_worker: Served,
) -> None:
    table = Audiences(one_worker)
    try:
        counted: list[dict[str, float]] = []
        for each in (1, 3):  # 5 streams of the table, then 15
            table.open(each if not counted else each - 1)
            table.settle()
            table.move()  # every open stream has read this process's last wake
            table.settle()
            before = renders(one_worker)
            marks = {r: len(f) for r, f in table.frames.items()}
            for _ in range(MOVES):
                table.move()
                table.settle()
            after = renders(one_worker)
            counted.append({a: after.get(a, 0) - before.get(a, 0) for a in ("public", "seat")})
            # Every stream of one audience was written the same frames.
            for audience, readers in table.readers.items():
                sent = [table.frames[r][marks[r] :] for r in readers]
                assert all(s == sent[0] for s in sent), audience
                assert sum(f.event == "message" for f in sent[0]) >= MOVES
        # One rendering a commit for the public, one per seat, for 5 streams as for 15.
        assert counted == [{"public": MOVES, "seat": SEATS * MOVES}] * 2
        for seat in range(SEATS):  # each seat's view went to that seat's streams only
            hand = table.tables.hand(table.t, seat)
            for reader in table.readers[seat]:
                views = [f.data for f in table.frames[reader] if f.event == "seat"]
                assert views and all(v["seat"] == seat for v in views)
                assert views[-1]["hand"] == hand
        for reader in table.readers[None]:
            assert not any(f.event == "seat" for f in table.frames[reader])
    finally:
        table.close()


def test_a_seat_connected_within_a_burst_of_commits_is_told(redis_client: Any) -> None:
    """A seat's connection (the feed's count 0) and a commit right after it,
    within the window of a wake: the one wake they share at its end must
    read presence too (the commit's count alone hid the seat-connected
    frame until the next heartbeat)."""
    from service.streams.hub import PRESENCE, Hub, feed_channel

    hub = Hub(redis_client, coalesce=0.004)
    hub.stop()  # no thread: announcements by hand
    channel = feed_channel("t1")
    with hub.follow("t1") as waiter:
        hub.announce(channel, 5, 10.0)
        assert waiter.wait(0) and not waiter.presence
        hub.announce(channel, PRESENCE, 10.001)  # held: within the window
        hub.announce(channel, 6, 10.002)
        assert hub.flush(10.004) is None
        assert waiter.wait(0) and waiter.presence
        waiter.presence = False
        hub.announce(channel, 7, 10.005)  # held; then a commit: no presence to read
        assert hub.flush(10.008) is None
        assert waiter.wait(0) and not waiter.presence
