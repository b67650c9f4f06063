"""The deadline worker for real (RULES.md 5.3, 5.4): gunicorn and two
``referee worker`` processes on a Redis of the test's own, with persistence."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import requests

from benchmarks.processes import free_port, stop_process

from ..conftest import EVERY_EVENT, UNLIMITED, RedisProcess, Served

pytestmark = pytest.mark.timeout(300)


class WorkerProcess:
    """A ``referee worker`` on ``redis_url``; its log in ``folder``."""

    def __init__(self, redis_url: str, folder: Path, name: str, **extra: str) -> None:
        self.log = folder / f"{name}.log"
        env = {
            **os.environ,
            **{k.upper(): v for k, v in UNLIMITED.items()},
            "REDIS_URL": redis_url,
            "WORKER_HEALTH_FILE": str(folder / f"{name}.alive"),
            "WORKER_THREADS": "4",
            # The tests read whole logs from the start (the workers' commits trim it too).
            "EVENTS_KEPT": str(EVERY_EVENT),
            "WORKER_METRICS_PORT": str(free_port()),
            **extra,
        }
        self.env = env
        self._file = open(self.log, "ab")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "worker"],
            env=env,
            stdout=self._file,
            stderr=subprocess.STDOUT,
        )

    def metrics(self, *names: str) -> list[float]:
        """Samples of one scrape of its ``/metrics`` (0 for one it has not),
        e.g. ``referee_worker_moves_total{kind="default"}``."""
        port = self.env["WORKER_METRICS_PORT"]
        lines = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text.splitlines()
        found = dict(line.rsplit(" ", 1) for line in lines if not line.startswith("#"))
        return [float(found.get(name, 0.0)) for name in names]

    def alive(self) -> bool:
        """Whether it touched its health file: it follows the clock notes."""
        return Path(self.env["WORKER_HEALTH_FILE"]).exists()

    def healthy(self) -> bool:
        done = subprocess.run(
            [sys.executable, "-m", "service.cli", "worker", "--health"], env=self.env, check=False
        )
        return done.returncode == 0

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self) -> None:
        """SIGTERM (then SIGKILL after 20 s), wait for it, close its log."""
        try:
            stop_process(self.proc, 20)
        finally:
            self._file.close()


@pytest.fixture()
def stack(tmp_path: Path) -> Iterator[dict[str, Any]]:
    conf = tmp_path / "redis.conf"
    conf.write_text('appendonly yes\nappendfsync always\nsave ""\n')
    workers: list[WorkerProcess] = []  # a test may replace them: those are stopped
    with contextlib.ExitStack() as started:  # each stopped, whatever fails after it started
        server = started.enter_context(RedisProcess(tmp_path / "redis", conf=conf))
        served = started.enter_context(Served(server.url, tmp_path, EVENTS_KEPT=str(EVERY_EVENT)))
        started.callback(lambda: [w.stop() for w in workers])
        workers.extend(WorkerProcess(server.url, tmp_path, f"w{i}") for i in range(2))
        for w in workers:  # following the clock notes (health file), as in production
            _wait(w.alive, 30)
        yield {"redis": server, "served": served, "workers": workers, "tmp": tmp_path}


def _create(base: str, **body: Any) -> dict[str, Any]:
    """A table, created as a client does: a 503 (the store slow to answer on
    a busy machine: a busy run met one) is tried again after its
    ``Retry-After``, three times at most (an idempotency key makes a retry
    create one table)."""
    key = {"Idempotency-Key": str(uuid.uuid4())}
    for _ in range(3):
        r = requests.post(f"{base}/v1/tables", json=body, headers=key, timeout=10)
        if r.status_code != 503:
            break
        time.sleep(float(r.headers["Retry-After"]))
    assert r.status_code == 201, r.text
    return dict(r.json())


def _deal(base: str, created: dict[str, Any]) -> None:
    r = requests.post(
        f"{base}/v1/tables/{created['table_id']}/rounds",
        headers={"Authorization": f"Bearer {created['host_token']}"},
        timeout=10,
    )
    assert r.status_code == 201, r.text


def _events(base: str, table_id: str) -> list[dict[str, Any]]:
    """The table's whole event log, page by page."""
    found: list[dict[str, Any]] = []
    after = 0
    while True:
        r = _get(f"{base}/v1/tables/{table_id}/events?after={after}&limit=200")
        page = r.json()
        found += page["events"]
        if not page["more"]:
            return found
        after = page["next_after"]


BUSY = (429, 503)
"""What a busy service answers (its Redis pool or a limit): a client retries it."""


def _get(url: str) -> requests.Response:
    """``GET url`` as a client polls: a 429 or 503 (a busy machine, two suites
    at once; Redis just restarted) is asked again after its Retry-After (at
    most a second, 30 times); anything else but 200 fails the test, named."""
    for _ in range(30):
        answer = requests.get(url, timeout=10)
        if answer.status_code not in BUSY:
            break
        time.sleep(min(float(answer.headers.get("Retry-After", "1")), 1.0))
    assert answer.status_code == 200, (answer.status_code, answer.text)
    return answer


def _view(base: str, tid: str) -> Any:
    """The table's public view, as a client polls it (:func:`_get`)."""
    return _get(f"{base}/v1/tables/{tid}").json()


def _wait(what: Any, seconds: float = 30.0) -> Any:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = what()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("timed out waiting")


def test_a_silent_seat_is_moved_for_once_and_is_away(stack: dict[str, Any]) -> None:
    base = stack["served"].base
    created = _create(
        base,
        variant="sevens",
        players=["Ann", "Bob", "Cy"],
        first_dealer=0,
        options={"turn_timeout_ms": 400, "away_timeout_ms": 300},
    )
    tid = created["table_id"]
    view = created["table"]
    assert view["options"]["turn_timeout_ms"] == 400
    assert view["options"]["bot_delay_ms"] == 600
    assert [s["away"] for s in view["seats"]] == [False, False, False]
    _deal(base, created)
    table = _view(base, tid)
    on_turn = table["awaiting"]["seats"][0]
    deadline = table["seats"][on_turn]["until_ms"]
    assert isinstance(deadline, int)
    # Nobody moves: every seat times out in turn, each step once.
    timed = _wait(
        lambda: (
            [e for e in _events(base, tid) if e["type"] == "move-timed-out"][:3]
            if len([e for e in _events(base, tid) if e["type"] == "move-timed-out"]) >= 3
            else None
        )
    )
    assert timed[0]["seat"] == on_turn and timed[0]["at_ms"] >= deadline
    assert timed[0]["away"] is True
    steps = [e["step"] for e in timed]
    assert steps == ["r1t1", "r1t2", "r1t3"]
    moves = [e for e in _events(base, tid) if e["type"] in ("card-played", "passed")]
    turns = [e["turn"] for e in moves]
    assert turns == sorted(set(turns))  # each turn moved once, none twice
    table = _view(base, tid)
    assert table["seats"][on_turn]["away"] is True
    # Counted by the workers that made them, each once, with how late (the
    # table plays on meanwhile: between two reads of its log).
    before = len([e for e in _events(base, tid) if e["type"] == "move-timed-out"])
    names = ('referee_worker_moves_total{kind="default"}', "referee_worker_lateness_seconds_count")
    scraped = [w.metrics(*names) for w in stack["workers"]]
    after = len([e for e in _events(base, tid) if e["type"] == "move-timed-out"])
    made = sum(moves for moves, _ in scraped)
    assert 3 <= before <= made <= after
    assert [late for _, late in scraped] == [moves for moves, _ in scraped]
    # Healthy: it touches its health file once subscribed, then every 2 s.
    for _ in range(20):
        if stack["workers"][0].healthy():
            break
        time.sleep(0.5)
    assert stack["workers"][0].healthy()


def test_a_worker_killed_while_deadlines_are_due_loses_none(stack: dict[str, Any]) -> None:
    base = stack["served"].base
    created = _create(
        base,
        variant="sevens",
        players=["Ann", "Bob", "Cy"],
        first_dealer=0,
        options={"turn_timeout_ms": 1500},
    )
    tid = created["table_id"]
    _deal(base, created)
    time.sleep(1.3)  # the deadline is scheduled with both workers, now due
    stack["workers"][0].kill()
    timed = _wait(lambda: [e for e in _events(base, tid) if e["type"] == "move-timed-out"], 60)
    assert [e["step"] for e in timed][:1] == ["r1t1"]
    time.sleep(1.0)
    firsts = [
        e for e in _events(base, tid) if e["type"] == "move-timed-out" and e["step"] == "r1t1"
    ]
    assert len(firsts) == 1


def test_after_a_restart_of_redis_and_workers_deadlines_still_fire(stack: dict[str, Any]) -> None:
    base = stack["served"].base
    created = _create(
        base,
        variant="sevens",
        players=["Ann", "Bob", "Cy"],
        first_dealer=0,
        options={"turn_timeout_ms": 3000},
    )
    tid = created["table_id"]
    _deal(base, created)
    time.sleep(0.5)
    for w in stack["workers"]:
        w.kill()
        w.stop()  # closes its log: the list is replaced below
    server: RedisProcess = stack["redis"]
    port = server.port
    server.stop()
    server.port = port
    server.start()
    stack["workers"][:] = [WorkerProcess(server.url, stack["tmp"], f"again{i}") for i in range(2)]
    timed = _wait(lambda: [e for e in _events(base, tid) if e["type"] == "move-timed-out"], 60)
    assert timed[0]["step"] == "r1t1"


@pytest.mark.parametrize(
    ("variant", "options"),
    [
        ("sevens", {}),
        ("classic", {"match": {"deals": 1}, "max_exchanges": 300}),
        ("may-i", {"may_i_window_ms": 100}),
    ],
)
def test_one_person_and_three_bots_play_a_match_to_its_end(
    stack: dict[str, Any], variant: str, options: dict[str, Any]
) -> None:
    base = stack["served"].base
    if variant == "sevens":
        options = {"match": {"deals": 1}}
    # random May I? players seldom go out: basic ones there.
    last = {"bot": "basic" if variant == "may-i" else "random"}
    created = _create(
        base,
        variant=variant,
        players=["Ann", {"bot": "basic"}, {"bot": "basic"}, last],
        first_dealer=0,
        # Nobody attends: without a higher unattended_moves the table would
        # pause after a thousand of the referee's moves (test below).
        options={
            **options,
            "bot_delay_ms": 0,
            "turn_timeout_ms": 100,
            "away_timeout_ms": 0,
            "unattended_moves": 10_000,
        },
    )
    tid = created["table_id"]
    assert [t["seat"] for t in created["seat_tokens"]] == [0]
    kinds = [s["bot"] for s in created["table"]["seats"]]
    assert kinds == [None, "basic", "basic", last["bot"]]
    limit = 280 if variant == "may-i" else 90

    def over() -> Any:
        view = _view(base, tid)
        if view["match"]["status"] != "in-progress":
            return view
        if view["awaiting"]["action"] == "deal":
            _deal(base, created)
        return None

    # Ann stays silent: her clock plays for her, the bots for themselves.
    view = _wait(over, limit)
    assert view["match"]["status"] in ("won", "abandoned", "finished")
    assert view["rounds_played"] >= 1
    # Every round's record holds the bots' and the clock's moves: it replays.
    for number in range(1, view["rounds_played"] + 1):
        record = requests.get(f"{base}/v1/tables/{tid}/rounds/{number}/record", timeout=10)
        assert record.status_code == 200, record.text
        moves = record.json()["moves"]
        assert {m["seat"] for m in moves if "seat" in m} >= {1, 2, 3}, moves[:5]
        # The referee's moves say so (RULES.md 5.2): Ann's clock, the bots.
        by = {(m.get("seat"), m["by"]) for m in moves if m["by"] != "referee"}
        assert {s for s, kind in by if kind == "bot"} >= {1, 2}, by
        assert (0, "default") in by and (0, "seat") not in by, by
        body = json.dumps({"record": record.json()}).encode()
        checked = requests.post(
            f"{base}/v1/checks/deal-proof",
            data=body,
            headers={"Content-Type": "application/json"},
            timeout=30,
        )
        # A long round's record (300 My Ship Sails exchanges with their
        # links) is over 64 KiB: the check takes up to 1 MiB.
        # A May I? round whose stock ran out was rebuilt: those are checked too.
        rebuilt = bool(record.json()["proof"].get("reshuffles"))
        expected = {
            "valid": True,
            "problems": [],
            "checked": [
                "commitment",
                "starting-deck",
                "deal-order",
                *(["rebuilt-stock-orders"] if rebuilt else []),
                "table",
                "deal",
                *(["rebuilt-stock-piles"] if rebuilt else []),
                "chain",
                "moves",
                "result",
            ],
            "unchecked": [],
            "submitted": False,
            "incomplete": [],
        }
        assert checked.json() == expected, (
            number,
            len(body),
            checked.text,
        )


def test_the_worker_stores_what_falls_due_with_nobody_calling(stack: dict[str, Any]) -> None:
    """A closed claim window's end and an exchange whose resolver died are
    written to Redis by a worker, not only computed by every read (issue 19)."""
    from service import create_app
    from service.games.codec import decode_event
    from service.games.ship import engine
    from service.storage.store import RESOLVE_GRACE_MS, events_key

    from ..conftest import settings_for
    from ..helpers import WORKED_HANDS, TableClient
    from ..streams.sse import HttpClient

    r = redis.Redis.from_url(stack["redis"].url)

    def stored(table_id: str) -> list[str]:
        return [decode_event(e)["type"] for e in r.lrange(events_key(table_id), 0, -1)]

    tables = TableClient(HttpClient(stack["served"].base))
    # A claim window nobody calls after.
    t = tables.create(variant="mein-schiff", claim_window_ms=300)
    assert tables.deal(t, WORKED_HANDS).status_code == 201
    for exchange, passes in enumerate([["4S", "9C", "8D", "9H"], ["QC", "4S", "9C", "JH"]], 1):
        for seat, card in enumerate(passes):
            assert tables.pass_(t, 1, exchange, seat, [card]).status_code == 200
    claimed = tables.claim(t, 1, 0)
    assert claimed.status_code == 200, claimed.json()
    _wait(lambda: stored(t.table_id)[-1] == "round-won", 10)
    assert stored(t.table_id)[-2] == "claim-accepted"
    # The pass that completed an exchange, written by choose.lua from a read
    # made before another seat's pass; its request dies before the resolution.
    store = create_app(settings_for(stack["redis"].url)).extensions["referee"].store
    t = tables.create(variant="mein-schiff")
    assert tables.deal(t, WORKED_HANDS).status_code == 201
    for seat, card in enumerate(["4S", "9C"]):
        assert tables.pass_(t, 1, 1, seat, [card]).status_code == 200
    loaded = store.load(t.table_id)
    assert tables.pass_(t, 1, 1, 2, ["8D"]).status_code == 200
    done = engine.choose_pass(loaded.table, 1, 1, 3, ["9H"], loaded.now_ms, lambda _: None)
    assert store._write_choice(t.table_id, loaded, done, None)[0] == 2  # complete
    assert stored(t.table_id)[-1] == "pass-chosen"
    # The choice's note brings a worker RESOLVE_GRACE_MS on (or any look sooner).
    _wait(lambda: stored(t.table_id)[-1] == "exchange-resolved", 10 + RESOLVE_GRACE_MS / 1000)
    assert stored(t.table_id)[-5:] == ["pass-chosen"] * 4 + ["exchange-resolved"]


def test_a_table_nobody_attends_pauses_and_a_persons_move_resumes_it(
    stack: dict[str, Any],
) -> None:
    """After ``unattended_moves`` moves in a row that the referee made, an
    away person gets no default move (the table waits on that seat) and a
    table of bots only stops; the person's own move resumes it."""
    base = stack["served"].base
    clock = {"bot_delay_ms": 0, "turn_timeout_ms": 100, "away_timeout_ms": 0}
    created = _create(
        base,
        variant="sevens",
        players=["Ann", {"bot": "basic"}, {"bot": "basic"}, {"bot": "basic"}],
        first_dealer=0,
        options={"match": {"deals": 1}, "unattended_moves": 12, **clock},
    )
    tid = created["table_id"]
    assert created["table"]["options"]["unattended_moves"] == 12
    assert created["table"]["clock_paused"] is False
    _deal(base, created)
    paused = _wait(lambda: [e for e in _events(base, tid) if e["type"] == "clock-paused"], 30)
    assert [e["moves"] for e in paused] == [12]
    # The bots play on to Ann's turn, and the table waits for her.
    view = _wait(lambda: (v := _view(base, tid))["round"]["on_turn"] == 0 and v)
    assert view["clock_paused"] is True and view["seats"][0]["until_ms"] is None
    moves = len(_events(base, tid))
    time.sleep(0.6)  # many deadlines of 100 ms and bots of 0 ms: none fires
    assert len(_events(base, tid)) == moves
    # Ann moves herself: back, and the clock and the bots go on.
    token = {"Authorization": f"Bearer {created['seat_tokens'][0]['token']}"}
    mine = requests.get(f"{base}/v1/tables/{tid}/seats/0", headers=token, timeout=10).json()
    body = {"play": mine["playable"][0]} if mine["playable"] else {"pass": True}
    turn = view["round"]["turn"]
    r = requests.put(f"{base}/v1/tables/{tid}/rounds/1/turns/{turn}", json=body, headers=token,
                     timeout=10)  # fmt: skip
    assert r.status_code == 200, r.text
    assert _view(base, tid)["clock_paused"] is False
    # ...until the referee has made 12 moves in a row again.
    again = _wait(
        lambda: (p := [e for e in _events(base, tid) if e["type"] == "clock-paused"])[1:] and p
    )
    assert [e["moves"] for e in again] == [12, 12]
    # A table of bots only stops.
    created = _create(
        base,
        variant="sevens",
        players=[{"bot": "basic"}] * 4,
        first_dealer=0,
        options={"match": {"deals": 1}, "unattended_moves": 10, **clock},
    )
    tid = created["table_id"]
    _deal(base, created)
    _wait(lambda: [e for e in _events(base, tid) if e["type"] == "clock-paused"], 30)
    moves = len(_events(base, tid))
    time.sleep(0.6)
    assert len(_events(base, tid)) == moves
    view = _view(base, tid)
    assert view["clock_paused"] is True
    assert view["match"]["status"] == "in-progress"
    assert [s["until_ms"] for s in view["seats"]] == [None] * 4
