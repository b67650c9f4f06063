"""How a real gunicorn serves: a busy port fails before claiming to serve."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from .conftest import RedisProcess, free_port


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
