"""How a real gunicorn serves, without a proxy in front: slow clients do not
starve the others, gunicorn's own errors are problem+json, Ctrl-C with a
stalled client stops at once, a busy port fails before claiming to serve."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import RedisProcess, Served, free_port

SLOW_CLIENTS = 24  # three times the threads of the reported set-up (2 x 4)
TRICKLE_SECONDS = 20.0  # how long each slow client keeps trickling, at most


def raw(port: int, data: bytes, timeout: float = 5.0) -> tuple[int, dict[str, str], bytes]:
    """Send ``data`` on a fresh connection; read the whole answer (the server closes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        sock.sendall(data)
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


def healthz(port: int, timeout: float) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=timeout) as r:
            return r.status == 200
    except OSError:
        return False


@pytest.fixture()
def slow_served(redis_server: RedisProcess, tmp_path: Path) -> Iterator[Served]:
    # The report's set-up (2 processes; 4 threads each under gthread), no proxy in front.
    service = Served(redis_server.url, tmp_path, WEB_CONCURRENCY="2", GUNICORN_THREADS="4")
    yield service
    service.stop()


def test_slow_clients_do_not_block_healthz(slow_served: Served) -> None:
    stop = threading.Event()
    begun = threading.Semaphore(0)  # released by each client once its first bytes are sent

    def trickle(number: int) -> None:
        """Headers begun (or a body announced), then one byte a second: a slowloris."""
        start = (
            b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: "
            if number % 2
            else b"POST /v1/checks/deal HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
            b"\r\nContent-Length: 100\r\n\r\n "
        )
        try:
            with socket.create_connection(("127.0.0.1", slow_served.port), timeout=5) as sock:
                sock.sendall(start)
                begun.release()
                deadline = time.monotonic() + TRICKLE_SECONDS
                while time.monotonic() < deadline and not stop.wait(1.0):
                    sock.sendall(b"a")
        except OSError:
            begun.release()  # the server may close a slow connection: that is fine too

    clients = [
        threading.Thread(target=trickle, args=(n,), daemon=True) for n in range(SLOW_CLIENTS)
    ]
    try:
        for client in clients:  # one at a time, so that every worker takes its share
            client.start()
            time.sleep(0.05)
        for _ in clients:  # every slow client has connected and sent its first bytes
            assert begun.acquire(timeout=30), "a slow client did not begin"
        started = time.monotonic()
        served = False
        while not served and time.monotonic() - started < TRICKLE_SECONDS - 5:
            served = healthz(slow_served.port, timeout=2)
        assert served, "/healthz was not answered while slow clients held connections"
        assert any(c.is_alive() for c in clients), "the slow clients finished first"
    finally:
        stop.set()
        for client in clients:
            client.join(10)


def test_gunicorns_own_errors_are_problem_json(served: Served) -> None:
    long_line = b"GET /" + b"a" * 5000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    bad_header = b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n"
    many_headers = b"GET /healthz HTTP/1.1\r\n" + b"X-N: y\r\n" * 120 + b"\r\n"
    for request, status in ((long_line, 414), (bad_header, 400), (many_headers, 431)):
        got, headers, body = raw(served.port, request)
        assert got == status
        assert headers["content-type"] == "application/problem+json"
        assert re.fullmatch(r"[0-9a-f]{32}", headers["x-request-id"])
        problem = json.loads(body)
        assert problem["status"] == status and problem["code"] and problem["detail"]
        assert int(headers["content-length"]) == len(body)
    text = served.logged(f'"request_id": "{headers["x-request-id"]}"')
    logged = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert any(r.get("request_id") == headers["x-request-id"] for r in logged)


def test_ctrl_c_with_a_stalled_client_stops_at_once(
    redis_server: RedisProcess, tmp_path: Path
) -> None:
    service = Served(redis_server.url, tmp_path, WEB_CONCURRENCY="2")
    stalled = socket.socket()
    try:
        stalled.settimeout(5)
        stalled.connect(("127.0.0.1", service.port))
        stalled.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Stalled: ")
        time.sleep(0.5)
        # Ctrl-C: the terminal sends SIGINT to the master and its workers.
        for pid in (service.proc.pid, *service.workers()):
            os.kill(pid, signal.SIGINT)
        started = time.monotonic()
        try:
            service.proc.wait(8)
        except subprocess.TimeoutExpired:
            pytest.fail("referee serve did not stop within 8 s of Ctrl-C")
        took = time.monotonic() - started
    finally:
        stalled.close()
        if service.proc.poll() is None:
            service.proc.kill()
        service.stop()
    log = service.log.read_text()
    assert took < 5, took
    assert "out of memory" not in log.lower()
    assert "SIGKILL" not in log


def test_a_busy_port_fails_before_claiming_to_serve(redis_server: RedisProcess) -> None:
    port = free_port()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen()
        env = {**os.environ, "REDIS_URL": redis_server.url, "PORT": str(port)}
        done = subprocess.run(
            [sys.executable, "-m", "service.cli", "serve"],
            env=env,
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert done.returncode != 0
    output = done.stdout + done.stderr
    assert '"serving"' not in output
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and f"127.0.0.1:{port}" in lines[0] and "in use" in lines[0], output


@pytest.mark.parametrize("worker_class", ["gevent", "gthread"])
def test_sigterm_with_a_stalled_client_ends_without_sigkill(
    redis_server: RedisProcess, tmp_path: Path, worker_class: str
) -> None:
    service = Served(
        redis_server.url,
        tmp_path,
        WEB_CONCURRENCY="1",
        GUNICORN_WORKER_CLASS=worker_class,
        GUNICORN_GRACEFUL_TIMEOUT="4",
    )
    stalled = socket.socket()
    try:  # a body announced and never sent: the request is in flight
        stalled.settimeout(5)
        stalled.connect(("127.0.0.1", service.port))
        stalled.sendall(
            b"POST /v1/checks/deal HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 50\r\n\r\n{"
        )
        time.sleep(0.5)
        service.proc.send_signal(signal.SIGTERM)
        assert service.proc.wait(15) == 0
    finally:
        stalled.close()
        if service.proc.poll() is None:
            service.proc.kill()
        service.stop()
    log = service.log.read_text()
    assert "out of memory" not in log.lower() and "SIGKILL" not in log
    assert "graceful timeout" in log.lower()  # it says why it ended the connection


def test_make_says_what_it_installs() -> None:
    makefile = (Path(__file__).resolve().parent.parent / "Makefile").read_text()
    installs = [line for line in makefile.splitlines() if "pip install" in line]
    assert installs and not any("--quiet" in line or " -q" in line for line in installs)
    for target in (".installed:", ".installed-dev:", ".installed-bench:"):
        recipe = makefile.split(target, 1)[1].split("\n\n", 1)[0]
        assert "@echo" in recipe, target
