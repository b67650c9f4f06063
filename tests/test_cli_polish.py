"""The ``referee`` command's small promises (issue 42): ``referee keys`` never
starts a Redis of its own (its keys would be unknown to the service);
``referee verify`` and ``replay`` say what went wrong, the service's own
problem for an HTTP error, with an exit status of its own, and their
``--help`` says what they check; ``referee worker`` logs JSON lines as
``referee serve`` does; and the benchmarks' imports are all installed by
``pip install -e '.[bench]'`` (``make bench`` on a fresh clone)."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path

import redis
import requests

from service.storage.client_keys import KEYS_HASH

from .conftest import RedisProcess, Served
from .worker.test_worker import WorkerProcess

ROOT = Path(__file__).resolve().parents[1]


def referee(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "PYTHONPATH")}
    environment.update(env, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "service.cli", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_keys_from_another_folder_starts_no_redis(tmp_path: Path) -> None:
    done = referee("keys", "list", cwd=tmp_path)
    try:
        assert done.returncode == 2, done.stdout + done.stderr
        assert "no Redis" in done.stderr and "REDIS_URL" in done.stderr
        assert str(tmp_path / "referee-data") in done.stderr
        assert list(tmp_path.iterdir()) == []  # no data folder, no socket, no server
    finally:  # an older `referee keys` left its embedded Redis running: stop it
        socket = tmp_path / "referee-data" / "redis.sock"
        if socket.exists():
            redis.Redis(unix_socket_path=str(socket)).shutdown(nosave=True)


def test_keys_use_the_embedded_redis_that_serve_runs(tmp_path: Path) -> None:
    from service.storage.embedded import system_first_redis_server

    data = tmp_path / "referee-data"  # where `referee serve` keeps its embedded Redis
    data.mkdir()
    socket = data / "redis.sock"
    server = subprocess.Popen(
        [system_first_redis_server(), "--port", "0", "--unixsocket", str(socket),
         "--dir", str(data), "--save", ""],
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 10
        while not socket.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        made = referee("keys", "create", "front", cwd=tmp_path)
        assert made.returncode == 0, made.stderr
        listed = referee("keys", "list", cwd=tmp_path)
        assert listed.stdout.startswith("front\t"), listed.stdout + listed.stderr
        assert (
            redis.Redis(unix_socket_path=str(socket)).exists(KEYS_HASH) == 1
        )  # in the service's own Redis
    finally:
        server.terminate()
        server.wait(10)


def test_verify_and_replay_print_the_services_problem(served: Served, tmp_path: Path) -> None:
    created = requests.post(
        f"{served.base}/v1/tables", json={"players": ["A", "B", "C", "D"]}, timeout=10
    ).json()
    url = f"{served.base}/v1/tables/{created['table_id']}"
    host = {"Authorization": f"Bearer {created['host_token']}"}
    assert requests.post(f"{url}/rounds", headers=host, timeout=10).status_code == 201
    for command in ("verify", "replay"):
        played = referee(command, f"{url}/rounds/1/record")
        assert played.returncode == 5, played.stderr
        assert played.stderr.startswith(
            f"referee {command}: {url}/rounds/1/record answered 409: round-not-over: "
        ), played.stderr
    gone = referee("verify", f"{url}/rounds/9/record")
    assert (gone.returncode, "answered 404: round-not-found: " in gone.stderr) == (5, True)
    nobody = referee("verify", "http://127.0.0.1:9/v1/tables/x/rounds/1/record")
    assert nobody.returncode == 5 and "cannot reach http://127.0.0.1:9/" in nobody.stderr
    missing = referee("replay", str(tmp_path / "none.json"))
    assert missing.returncode == 5 and "No such file or directory" in missing.stderr
    (tmp_path / "other.json").write_text(json.dumps({"table_id": "x"}))
    other = referee("verify", str(tmp_path / "other.json"))
    assert other.returncode == 2, other.stderr
    assert "not a round record: it has no member 'proof'" in other.stderr
    assert "Error" not in other.stderr + nobody.stderr + gone.stderr  # no exception's repr


def test_verify_and_replay_say_what_they_check() -> None:
    for command, words in (("verify", "commitment"), ("replay", "every move")):
        shown = referee(command, "--help").stdout
        assert words in shown.split("positional arguments")[0], shown
        assert "Exit status: 0 it matches; 1 it does not" in " ".join(shown.split())


def test_the_worker_logs_json_lines(redis_server: RedisProcess, tmp_path: Path) -> None:
    worker = WorkerProcess(redis_server.url, tmp_path, "worker")
    try:
        deadline = time.monotonic() + 30
        while not worker.alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert worker.alive(), worker.log.read_text()
    finally:
        worker.stop()
    lines = [line for line in worker.log.read_text().splitlines() if line.strip()]
    assert lines, "the worker logged nothing"
    for line in lines:
        record = json.loads(line)  # every line, as `referee serve` writes them
        assert {"time", "level", "name", "message"} <= set(record), line


def test_the_bench_extra_installs_what_the_benchmarks_import() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [*project["dependencies"], *project["optional-dependencies"]["bench"]]
    named = {r.split(";")[0].split("[")[0].split(">")[0].split("<")[0].split("=")[0].strip().lower()
             for r in wanted}  # fmt: skip
    imported: set[str] = set()
    for path in (ROOT / "benchmarks").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported.add(node.module.split(".")[0])
    owners = packages_distributions()
    ours = {"service", "benchmarks", "tests"}
    third_party = {
        m for m in imported if m in owners and m not in sys.stdlib_module_names and m not in ours
    }
    missing = {m: owners[m] for m in third_party if not {d.lower() for d in owners[m]} & named}
    assert missing == {}, "imported by benchmarks/ but not in the bench extra"
