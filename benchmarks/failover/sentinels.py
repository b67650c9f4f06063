"""The Redis set of the failover drills: a primary, two replicas and three
Sentinels on this machine, failed over on demand."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import redis

from ..processes import RedisServer, free_port, production_redis_settings

SENTINEL = shutil.which("redis-sentinel")

DOWN_AFTER_MS = 1000
"""The Sentinels' ``down-after-milliseconds`` (their default is 30 s): a
dead primary is failed over about this long after it died."""


class RedisSet:
    """A primary, two replicas and three Sentinels watching ``mymaster``,
    each on a free port with its files in ``folder``."""

    def __init__(self, folder: Path, down_after_ms: int = DOWN_AFTER_MS) -> None:
        if SENTINEL is None:
            raise RuntimeError("needs redis-sentinel (apt-get install redis-sentinel)")
        self.folder = folder
        self.down_after_ms = down_after_ms
        settings = production_redis_settings()
        self.nodes = [RedisServer(folder / "node0", settings=dict(settings))]
        primary = self.nodes[0].port
        for i in (1, 2):
            follow = {**settings, "replicaof": f"127.0.0.1 {primary}"}
            self.nodes.append(RedisServer(folder / f"node{i}", settings=follow))
        self.sentinel_ports = [free_port() for _ in range(3)]
        self.sentinels: list[subprocess.Popen[bytes]] = []
        self._clients: dict[int, redis.Redis] = {}

    def ask(self, port: int) -> Any:
        """A client of the server (a Sentinel or a node) on ``port``, kept
        until :meth:`stop`."""
        if port not in self._clients:
            self._clients[port] = redis.Redis(port=port, socket_timeout=1)
        return self._clients[port]

    def start(self) -> RedisSet:
        for node in self.nodes:
            node.start()
        self.wait_replicas(2, 30)
        for port in self.sentinel_ports:
            conf = self.folder / f"sentinel-{port}.conf"
            conf.write_text(
                f"port {port}\nbind 127.0.0.1\ndir {self.folder}\n"
                f"sentinel monitor mymaster 127.0.0.1 {self.nodes[0].port} 2\n"
                f"sentinel down-after-milliseconds mymaster {self.down_after_ms}\n"
                f"sentinel failover-timeout mymaster {max(4000, 4 * self.down_after_ms)}\n"
                "sentinel parallel-syncs mymaster 2\n"
            )
            with open(self.folder / f"sentinel-{port}.log", "ab") as log:
                self.sentinels.append(
                    subprocess.Popen([str(SENTINEL), str(conf)], stdout=log, stderr=log)
                )
        deadline = time.monotonic() + 30
        for port in self.sentinel_ports:  # each has found both replicas
            ask = self.ask(port)
            while True:
                try:
                    state: Any = ask.sentinel_master("mymaster")
                    if int(state["num-slaves"]) == 2:
                        break
                except (redis.ConnectionError, redis.ResponseError):
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"sentinel {port} did not see the replicas")
                time.sleep(0.05)
        return self

    @property
    def url(self) -> str:
        """The service's ``REDIS_URL``."""
        hosts = ",".join(f"127.0.0.1:{p}" for p in self.sentinel_ports)
        return f"redis+sentinel://{hosts}/mymaster"

    def named(self) -> set[int]:
        """The primary's port as each Sentinel that answers names it."""
        found = set()
        for port in self.sentinel_ports:
            try:
                named: Any = self.ask(port).sentinel_get_master_addr_by_name("mymaster")
                found.add(int(named[1]))
            except (redis.RedisError, TypeError):
                continue
        return found

    def primary(self) -> RedisServer:
        """The node every Sentinel names (waits until they agree)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            named = self.named()
            if len(named) == 1:
                port = named.pop()
                return next(n for n in self.nodes if n.port == port)
            time.sleep(0.05)
        raise RuntimeError("the Sentinels do not agree on a primary")

    def wait_replicas(self, count: int, timeout: float) -> None:
        """Until the primary (by the Sentinels once they run) has ``count``
        replicas online at its own offset, and is the only master."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            primary = self.primary() if self.sentinels else self.nodes[0]
            try:
                info = self.ask(primary.port).info("replication")
                online = [
                    v
                    for k, v in info.items()
                    if k.startswith("slave") and isinstance(v, dict) and v["state"] == "online"
                ]
                roles = [
                    self.ask(node.port).info("replication")["role"]
                    for node in self.nodes
                    if node.proc is not None
                ]
                masters = roles.count("master")
                if (
                    len(online) >= count
                    and masters == 1
                    and (not self.sentinels or self._settled(count))
                ):
                    return
            except redis.RedisError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"the primary did not get {count} replicas in {timeout} s")

    def _settled(self, count: int) -> bool:
        """Whether every Sentinel sees ``count`` replicas that say they are
        replicas, linked to their master: a Sentinel that last read a
        promoted replica's role before (it reads a replica's every 10 s)
        may make it a replica again during the next failover, which then
        fails (the Sentinels name a primary that is none, until they fail
        it over again, some 25 s later)."""
        for port in self.sentinel_ports:
            replicas: Any = self.ask(port).sentinel_slaves("mymaster")
            fine = [
                r
                for r in replicas
                if r["role-reported"] == "slave"
                and r["master-link-status"] == "ok"
                and not (r["is_sdown"] or r["is_disconnected"])
            ]
            if len(fine) < count:
                return False
        return True

    def failover(self) -> int:
        """``SENTINEL FAILOVER mymaster`` (a planned failover); returns the old primary's port."""
        before = self.primary().port
        self.ask(self.sentinel_ports[0]).execute_command("SENTINEL", "FAILOVER", "mymaster")
        return before

    def kill_primary(self) -> int:
        """SIGKILL the primary; returns its port."""
        primary = self.primary()
        assert primary.proc is not None
        primary.proc.kill()
        primary.proc.wait()
        primary.proc = None
        return primary.port

    def restart(self, port: int) -> None:
        """Start the node on ``port`` again (with its append-only file):
        the Sentinels make it a replica of the new primary."""
        node = next(n for n in self.nodes if n.port == port)
        node.settings.pop("replicaof", None)
        node.start()

    def wait_switched(self, before: int, timeout: float = 60) -> int:
        """Until every Sentinel names another primary than ``before``; returns it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            named = self.named()
            if len(named) == 1 and before not in named:
                return named.pop()
            time.sleep(0.05)
        raise RuntimeError("no failover")

    def stop(self) -> None:
        for client in self._clients.values():
            client.close()
        for proc in self.sentinels:
            proc.terminate()
            proc.wait(10)
        for node in self.nodes:
            node.stop()
