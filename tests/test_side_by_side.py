"""A rolling update, its contract step and its rollback (issue 21): the
previous release and this one side by side on one Redis, each request sent
at random to one of them, while tables of all three games play.

The previous release is the newest entry of CHANGELOG.md that names its
commit (``## X.Y.Z: commit <sha>``), checked out with ``git worktree add``
and served by this checkout's interpreter with the worktree first on its
path (no second install). ``REFEREE_PREVIOUS_COMMIT`` (any revision, e.g.
``HEAD~3``) overrides it. A release that predates the stored-format contract
(0.1.0, whose formats 0.2.0 no longer writes: CHANGELOG.md) cannot run side
by side; until a release with the contract is named, the first commit that
brought it stands in for it (said in the output).

Phases, each a few seconds, the tables playing on through all of them:
``old`` + ``new`` writing the previous formats (the expand step's rolling
update), ``new`` writing previous + ``new`` writing current (the contract
step's rolling update), ``new`` current alone, then back: the contract
step rolled back, the release rolled back, the old release alone.

"Exactly as a single-version run": every answer is checked against the
players' own copy of each table, played by the rules in this process (the
pure engines for Sevens and May I?, every hand's bookkeeping for My Ship
Sails): a lost acknowledged move, a pass folded into the wrong exchange or a
turn resolved otherwise shows as a disagreement. No answer may be a 500.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from benchmarks import game_moves, load
from benchmarks.processes import free_port

from .conftest import UNLIMITED, RedisProcess

ROOT = Path(__file__).resolve().parents[1]
RELEASE = re.compile(r"^## (\d+\.\d+\.\d+)\s*(?::|—|-)\s*commit ([0-9a-f]{7,40})\b", re.M)
CONTRACT = "TABLE_LAYOUT"
"""What the stored-format contract's first commit added to service/storage/store.py."""
PHASE_SECONDS = 2.5


def git(*args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def previous_release() -> tuple[str, str]:
    """The commit to run as the previous release and why it is that one."""
    try:
        if git("rev-parse", "--is-shallow-repository") == "true":
            pytest.skip("a shallow clone: the previous release's commit is not in its history")
    except (subprocess.CalledProcessError, FileNotFoundError):
        pytest.skip("no git history here (not a clone): the previous release cannot be checked out")
    override = os.environ.get("REFEREE_PREVIOUS_COMMIT")
    if override:
        return git("rev-parse", override), f"REFEREE_PREVIOUS_COMMIT={override}"
    found = RELEASE.search((ROOT / "CHANGELOG.md").read_text())
    assert found, "CHANGELOG.md names no release's commit (## X.Y.Z: commit <sha>)"
    version, commit = found.groups()
    try:
        commit = git("rev-parse", "--verify", f"{commit}^{{commit}}")
    except subprocess.CalledProcessError:
        pytest.skip(f"release {version}'s commit {commit} is not in this clone's history")
    store = "service/storage/store.py"
    has = subprocess.run(["git", "-C", str(ROOT), "grep", "-q", CONTRACT, commit, "--", store])
    if has.returncode:
        first = git("log", "--reverse", "--format=%H", "-S", CONTRACT, "--", store)
        assert first, "no commit brings the stored-format contract"
        return first.split()[0], (
            f"release {version} predates the stored-format contract; the contract's first "
            "commit stands in for the previous release"
        )
    return commit, f"release {version}"


@pytest.fixture(scope="module")
def previous(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    commit, why = previous_release()
    folder = tmp_path_factory.mktemp("previous") / "tree"
    git("worktree", "add", "--detach", str(folder), commit)
    try:
        yield folder, f"{why}: {commit[:12]}"
    finally:
        git("worktree", "remove", "--force", str(folder))


class Server:
    """``referee serve`` (one gunicorn worker) from ``source`` (a checkout)."""

    def __init__(self, source: Path, redis_url: str, log: Path, **env: str) -> None:
        self.port = free_port()
        environment = {
            **os.environ,
            "PYTHONPATH": str(source),
            "REDIS_URL": redis_url,
            "PORT": str(self.port),
            "WEB_CONCURRENCY": "1",
            "EVENTS_KEPT": "1000",
            **{k.upper(): v for k, v in UNLIMITED.items()},
            **env,
        }
        environment.pop("PROMETHEUS_MULTIPROC_DIR", None)
        with open(log, "ab") as out:  # the child keeps its own copy
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "service.cli", "serve"],
                cwd=source,
                env=environment,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        for _ in range(600):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/readyz", timeout=2):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"referee serve from {source} did not become ready; see {log}")

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(30)


class Router:
    """An HTTP proxy that sends each request to one of ``backends`` at
    random (the Service of a rolling update); ``statuses`` counts answers."""

    def __init__(self) -> None:
        self.backends: list[int] = []
        self.statuses: dict[int, int] = {}
        self.lock = threading.Lock()
        router = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                port = random.choice(router.backends)
                upstream = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                headers = {k: v for k, v in self.headers.items() if k.lower() != "connection"}
                upstream.request(self.command, self.path, body=body, headers=headers)
                answer = upstream.getresponse()
                data = answer.read()
                with router.lock:
                    router.statuses[answer.status] = router.statuses.get(answer.status, 0) + 1
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() not in ("connection", "transfer-encoding", "content-length"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                upstream.close()

            do_GET = do_POST = do_PUT = do_DELETE = _any  # noqa: N815

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_previous_and_this_release_side_by_side_through_contract_and_rollback(
    tmp_path: Path, previous: tuple[Path, str]
) -> None:
    source, why = previous
    print(f"\nprevious release: {why}")
    redis_server = RedisProcess(tmp_path / "redis").start()
    servers: list[Server] = []
    router = Router()
    try:
        old = Server(source, redis_server.url, tmp_path / "old.log")
        servers.append(old)
        url = redis_server.url
        expand = Server(ROOT, url, tmp_path / "expand.log", STORED_FORMAT="previous")
        servers.append(expand)
        contract = Server(ROOT, url, tmp_path / "contract.log", STORED_FORMAT="current")
        servers.append(contract)
        phases = [
            [old, expand],  # the release rolls out, writing the previous formats
            [expand, contract],  # the contract step rolls out
            [contract],
            [contract, expand],  # the contract step rolled back
            [expand, old],  # the release rolled back
            [old],
        ]
        router.backends = [s.port for s in phases[0]]
        seconds = PHASE_SECONDS * len(phases)
        found: dict[str, Any] = {}

        def ship() -> None:
            found["ship"] = asyncio.run(
                load.run("service", router.base, 8, seconds, 0.0, 2, 3, seed=21)
            )

        def game(name: str) -> None:
            found[name] = game_moves.measure(
                router.base, name, 4, 2, seconds, warmup=0.0, seed=21, window_ms=300
            )

        threads = [threading.Thread(target=ship)] + [
            threading.Thread(target=game, args=(g,)) for g in ("sevens", "may-i")
        ]
        for t in threads:
            t.start()
        for phase in phases[1:]:
            time.sleep(PHASE_SECONDS)
            router.backends = [s.port for s in phase]
        for t in threads:
            t.join(120)
    finally:
        router.close()
        for s in servers:
            s.stop()
        redis_server.stop()
    print({k: {"notes": v["notes"], "errors": v.get("errors")} for k, v in found.items()})
    print("answers by status:", router.statuses)
    assert 500 not in router.statuses and 503 not in router.statuses, router.statuses
    ship_run = found["ship"]
    assert ship_run["notes"]["exchanges"] > 0 and ship_run["notes"]["tables played"] >= 2
    bad = ("differs", "did not resolve", "abandoned", "failed", "answered", "one side")
    assert not [n for n in ship_run["notes"] if any(b in n for b in bad)], ship_run["notes"]
    for name in ("sevens", "may-i"):
        run = found[name]
        assert run["moves"] > 0
        assert not [n for n in run["notes"] if any(b in n for b in bad)], run["notes"]
        assert set(run["errors"]) <= {"ask 409 may-i-closed", "answer 409 may-i-closed"}, run


def _send(port: int, method: str, path: str, body: Any = None, token: str = "") -> Any:
    """One request to the server on ``port``; its status and JSON body."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body)
    connection.request(method, path, body=data, headers=headers)
    answer = connection.getresponse()
    raw = answer.read()
    connection.close()
    return answer.status, json.loads(raw) if raw else None


def test_a_round_played_across_an_update_from_a_release_without_records_says_what_it_misses(
    tmp_path: Path, previous: tuple[Path, str]
) -> None:
    # Issue 41: turns alternating between the previous release (which keeps
    # no round record) and this one; the record must say that moves are
    # missing, and verify and replay name the gap (exit 4), never a
    # MISMATCH that reads like tampering.
    import redis as redis_py

    from service.games import codec
    from service.games.sevens import players as sevens_players
    from service.storage.store import choices_key, table_key

    source, why = previous
    print(f"\nprevious release: {why}")
    redis_server = RedisProcess(tmp_path / "redis").start()
    servers: list[Server] = []
    client = redis_py.Redis.from_url(redis_server.url)
    rng = random.Random(41)
    try:
        old = Server(source, redis_server.url, tmp_path / "old.log")
        servers.append(old)
        new = Server(ROOT, redis_server.url, tmp_path / "new.log")
        servers.append(new)
        records = {}
        for variant, options in (("sevens", {}), ("classic", {"max_exchanges": 3})):
            body = {
                "variant": variant,
                "players": ["A", "B", "C", "D", "E"],
                "first_dealer": 0,
                "options": options,
            }
            status, created = _send(new.port, "POST", "/v1/tables", body)
            assert status == 201, created
            tid, host = created["table_id"], created["host_token"]
            seats = [s["token"] for s in created["seat_tokens"]]
            url = f"/v1/tables/{tid}"
            status, _ = _send(new.port, "POST", f"{url}/rounds", None, host)
            assert status == 201
            for step in range(400):
                port = (old if step % 2 else new).port  # every other move by 0.2.0
                table = codec.decode(client.hget(table_key(tid), "s"))
                pending = client.hgetall(choices_key(tid))
                if pending:
                    table = codec.fold_choices(table, {int(k): v for k, v in pending.items()})
                rnd = table.round
                if table.played >= 1:
                    break
                if variant == "sevens":
                    seat = rnd.on_turn
                    move = sevens_players.bot(table, seat, rng)
                    sent = (
                        {"pass": True}
                        if move["action"] == "pass"
                        else {"play": move["card"], "last_card": move.get("last_card", False)}
                    )
                    path = f"{url}/rounds/1/turns/{rnd.turn}"
                else:
                    seat = next(s for s in rnd.exchange.waiting_for)
                    sent = {"cards": [rng.choice(rnd.hands[seat])]}
                    path = f"{url}/rounds/1/exchanges/{rnd.exchange.number}/passes/{seat}"
                status, answer = _send(port, "PUT", path, sent, seats[seat])
                assert status == 200, (step, answer)
            status, rec = _send(new.port, "GET", f"{url}/rounds/1/record")
            assert status == 200, rec
            records[variant] = rec
    finally:
        for s in servers:
            s.stop()
        redis_server.stop()
    for variant, rec in records.items():
        assert rec["complete"] is False and rec["missing"], (variant, rec["missing"])
        if variant == "classic":
            assert any(gap["seats"] for gap in rec["missing"]), rec["missing"]
        for command in ("verify", "replay"):
            done = subprocess.run(
                [sys.executable, "-m", "service.cli", command, "-"],
                input=json.dumps(rec),
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert done.returncode == 4, (variant, command, done.stdout, done.stderr)
            assert done.stdout.startswith("INCOMPLETE") and "MISMATCH" not in done.stdout
            assert "a release that keeps no record" in done.stdout, done.stdout
