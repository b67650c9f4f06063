"""The free ports the tests and the benchmark start their servers on
(benchmarks/processes.py): below the kernel's ephemeral range, so that no
client connection or bind to port 0 is given one before its server binds
it, and from a block of its own for each pytest-xdist worker. A worker's
metrics port once went so to another process (EADDRINUSE) in CI."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.processes import _port_block, free_port

RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
pytestmark = pytest.mark.skipif(not RANGE.exists(), reason="reads Linux's ephemeral range")


def ports(worker: str, count: str, calls: int = 3) -> list[int]:
    """What ``calls`` calls of free_port() give in a process that is
    pytest-xdist worker ``worker`` of ``count``."""
    code = (
        f"from benchmarks.processes import free_port; print([free_port() for _ in range({calls})])"
    )
    env = {"PYTEST_XDIST_WORKER": worker, "PYTEST_XDIST_WORKER_COUNT": count, "PATH": ""}
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, cwd=root, capture_output=True, text=True, check=True
    )
    return [int(p) for p in done.stdout.strip("[]\n").split(", ")]


def test_ports_lie_below_the_ephemeral_range_in_a_block_per_worker() -> None:
    low = int(RANGE.read_text().split()[0])
    found = {w: ports(f"gw{w}", "4") for w in range(4)}
    blocks = [
        set(range(low - 12_000 + w * 3_000, low - 12_000 + (w + 1) * 3_000)) for w in range(4)
    ]
    for w, got in found.items():
        assert set(got) <= blocks[w], (w, got)
        assert len(set(got)) == 3  # one after the other: never the same twice running
    assert max(ports("gw0", "1", 1)) < low  # alone: the whole room below the range


def test_a_port_something_listens_on_is_never_given() -> None:
    block = _port_block()
    assert block is not None
    given = free_port()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", given + 1 if given + 1 in block else block[0]))
        taken.listen()
        held = taken.getsockname()[1]
        assert held not in {free_port() for _ in range(len(block) + 1)}
