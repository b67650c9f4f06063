"""A commit publishes the page its streams read after it (``commit.lua``,
``choose.lua``: issue 44), so that no process's streams read the table
again: with a stream on every seat and a public one, a whole exchange (three
choices, then the last with its resolution, in one gunicorn of two
workers) reaches every stream with no read of the event log, and every
stream gets exactly what a read would give (the event log and each seat's
view). And when a window closes by the clock, the streams of a process
share one read. A real gunicorn serves the streams; Redis's ``MONITOR`` sees
every command, those run inside the scripts included."""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import redis

from service.games import VARIANTS
from service.storage.loading import script_text
from service.storage.store import KEY_PREFIX
from service.streams.follow import PAGE
from service.streams.hub import Hub, feed_channel

from ..api.test_may_i import ask, move, new
from ..conftest import RedisProcess, Served
from ..helpers import WORKED_HANDS, Table, TableClient, bearer
from .sse import HttpClient, Reader

EVENTS_SHA = hashlib.sha1(script_text("events.lua").encode()).hexdigest()


@pytest.fixture(scope="module")
def served(
    redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    service = Served(redis_server.url, tmp_path_factory.mktemp("published-pages"))
    yield service
    service.stop()


class Monitor:
    """Every command Redis runs while it is on (a thread reading ``MONITOR``),
    from its making to the end of its ``with`` block."""

    def __init__(self, url: str) -> None:
        self.commands: list[str] = []
        self._client = redis.Redis.from_url(url)
        self._monitor = self._client.monitor()
        self._connection = self._monitor.__enter__()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stopped.is_set():
            try:
                self.commands.append(self._connection.next_command()["command"])
            except (redis.RedisError, OSError, ValueError):
                return

    def stop(self) -> list[str]:
        self._stopped.set()
        self._client.execute_command("PING")  # one more line: the thread looks again
        self._thread.join(5)
        self._monitor.__exit__(None, None, None)
        self._client.close()
        return self.commands

    def __enter__(self) -> Monitor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def every_stream(base: str, t: Table) -> list[Reader]:
    """A stream on each of ``t``'s 4 seats, then a public one."""
    seats = [Reader(f"{base}{t.url}/seats/{s}/stream", **bearer(t.seats[s])) for s in range(4)]
    return [*seats, Reader(f"{base}{t.url}/stream")]


def last_seq(reader: Reader, seq: int) -> list[Any]:
    """The frames ``reader`` gets up to the event numbered ``seq``."""
    got = []
    while True:
        frame = reader.next()
        assert frame is not None, f"the stream ended before event {seq}: {got}"
        got.append(frame)
        if frame.event == "message" and frame.data["seq"] == seq:
            return got


def test_a_commit_reaches_every_stream_with_no_read(
    served: Served, redis_server: RedisProcess
) -> None:
    http = HttpClient(served.base)
    tables = TableClient(http)
    t = tables.create(4, variant="mein-schiff")
    assert tables.deal(t, WORKED_HANDS).status_code == 201
    readers = every_stream(served.base, t)
    try:
        last = tables.public(t)["last_event"]
        for reader in readers:
            last_seq(reader, last)
        for reader in readers[:4]:
            reader.until("seat")
        frames: list[list[Any]] = [[] for _ in readers]
        with Monitor(redis_server.url) as monitor:
            for seat, card in enumerate(["4S", "9C", "8D", "9H"]):
                assert tables.pass_(t, 1, 1, seat, [card]).status_code == 200
                last = tables.public(t)["last_event"]
                for reader, got in zip(readers, frames, strict=True):
                    got += last_seq(reader, last)
            for seat, reader in enumerate(readers[:4]):
                frames[seat] += reader.until("seat")
        commands = monitor.commands
    finally:
        for reader in readers:
            reader.close()
    assert tables.public(t)["round"]["exchange"] == 2
    # Every commit was published, and no stream read the log after it.
    published = [c for c in commands if f"{{{t.table_id}}}:page" in c and "PUBLISH" in c]
    # Three choices (choose.lua), the last with the resolution (commit.lua).
    assert len(published) == 4
    read = [c for c in commands if EVENTS_SHA in c and t.table_id in c]
    assert read == []
    # What the streams got is what a read gives.
    log = tables.events(t, 0)
    for got in frames:
        events = [f.data for f in got if f.event == "message"]
        assert events == [e for e in log if e["seq"] > events[0]["seq"] - 1]
        assert events[-1]["seq"] == log[-1]["seq"]
    for seat in range(4):
        views = [f.data for f in frames[seat] if f.event == "seat"]
        shown = http.get(f"{t.url}/seats/{seat}", headers=bearer(t.seats[seat])).json()
        assert views[-1]["hand"] == shown["hand"] and views[-1]["last_event"] == log[-1]["seq"]


def test_the_hub_keeps_the_newest_page_of_a_held_wake(redis_server: RedisProcess) -> None:
    """A page wakes a table's streams with it, and its commit's feed
    announcement then goes by; commits within the coalescing spell are
    told as one wake with the newest page, unless a commit without one
    (an older release's) came after it: then the streams read."""
    hub = Hub(redis.Redis.from_url(redis_server.url), coalesce=1.0)
    pages, feed = f"{KEY_PREFIX}:{{T}}:page", feed_channel("T")

    def page(after: int, count: int) -> str:
        return json.dumps([after, [count, 1, "state"]])

    try:
        with hub.follow("T") as waiter:
            hub.announce_page(pages, page(2, 3), 100.0)
            assert waiter.wait(0) and hub.page("T", 2) == [3, 1, "state"]
            hub.announce_feed(feed, 3, 100.0)  # the same commit's
            assert not waiter.wait(0) and hub.page("T", 2) == [3, 1, "state"]
            hub.announce_page(pages, page(3, 5), 100.5)  # held
            hub.announce_feed(feed, 5, 100.5)
            assert not waiter.wait(0)
            hub.flush(101.0)
            assert waiter.wait(0) and hub.page("T", 3) == [5, 1, "state"]
            assert hub.page("T", 2) is None
            hub.announce_page(pages, page(5, 6), 101.5)  # held
            hub.announce_feed(feed, 6, 101.5)
            hub.announce_feed(feed, 7, 101.6)  # held: a commit with no page
            hub.flush(102.0)
            assert waiter.wait(0) and hub.page("T", 5) is None and hub.page("T", 6) is None
            hub.announce_feed(feed, 8, 103.0)  # a feed alone still wakes them
            assert waiter.wait(0) and hub.page("T", 7) is None
    finally:
        hub.stop()


@pytest.fixture(scope="module")
def one_worker(
    redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    service = Served(redis_server.url, tmp_path_factory.mktemp("one-worker"), WEB_CONCURRENCY="1")
    yield service
    service.stop()


def test_the_streams_of_a_process_read_once_when_a_window_closes(
    one_worker: Served, redis_server: RedisProcess
) -> None:
    """Nobody writes when a May I? window closes: every stream of the table
    wakes at that instant and reads (the event is in the reads from then
    on). The streams of one process in the same state share that read."""
    http = HttpClient(one_worker.base)
    tables = TableClient(http)
    t = new(tables, may_i_window_ms=1_000)
    readers = every_stream(one_worker.base, t)
    try:
        for reader in readers[:4]:
            reader.until("seat")
        with Monitor(redis_server.url) as monitor:
            assert move(tables, t, 1, 1, decline=True).status_code == 200
            assert ask(http, t, 3, 1).status_code == 200
            asked = tables.public(t)["last_event"]
            for reader in readers:
                last_seq(reader, asked)
            closed = [last_seq(reader, asked + 1)[-1].data for reader in readers]
        commands = monitor.commands
    finally:
        for reader in readers:
            reader.close()
    assert tables.public(t)["round"]["step"] == "stock"
    assert closed == [tables.events(t, asked)[0]] * len(readers)
    read = [c for c in commands if EVENTS_SHA in c and t.table_id in c]
    assert len(read) == 1, read


def test_a_commit_publishes_a_page_only_while_a_stream_follows_its_table(
    served: Served, redis_server: RedisProcess
) -> None:
    """A table nobody streams costs Redis no page: its commits announce their
    count alone; a stream on any seat (up to the most seats a game has, which
    page.lua knows) or a public one, and they publish their pages."""
    most = max(preset.max_players for _, preset in VARIANTS.values())
    assert f"local STREAM_SEATS = {most} " in script_text("commit.lua")
    assert f"local PAGE = {PAGE} " in script_text("commit.lua")  # a stream's page
    tables = TableClient(HttpClient(served.base))
    t = tables.create(4, variant="mein-schiff")
    with Monitor(redis_server.url) as monitor:
        assert tables.deal(t, WORKED_HANDS).status_code == 201
        assert tables.pass_(t, 1, 1, 0, ["4S"]).status_code == 200
    kinds = published(monitor.commands, t.table_id)
    assert "page" not in kinds and kinds.count("feed") >= 2  # the deal, the pass (a seat seen)
    reader = Reader(f"{served.base}{t.url}/seats/3/stream", **bearer(t.seats[3]))
    try:
        reader.until("seat")
        with Monitor(redis_server.url) as monitor:
            assert tables.pass_(t, 1, 1, 1, ["9C"]).status_code == 200
    finally:
        reader.close()
    kinds = published(monitor.commands, t.table_id)
    assert kinds.count("page") == 1 and kinds[kinds.index("page") + 1] == "feed"


def published(commands: list[str], table_id: str) -> list[str]:
    """The channels (``feed``, ``page``…) of the table's publications among ``commands``."""
    mine = [c for c in commands if c.startswith(f"PUBLISH {KEY_PREFIX}:{{{table_id}}}:")]
    return [c.split()[1].rsplit(":", 1)[1] for c in mine]
