"""Issue 44's per-core scaling: the same load with 1, 2… gunicorn workers.

The load is the headline one of the stream figures: 7-seat tables of My
Ship Sails, every seat passing at once and learning its new hand from its
seat stream (:func:`benchmarks.versus.service_run` with ``streams``). For
each count of workers in ``workers`` a fresh service (``WEB_CONCURRENCY``
that count, every other setting the bench's) runs ``runs`` loads against
the same store; the figures are medians: passes/s, server CPU per pass
(gunicorn + Redis) and passes/s per worker.

The store is the bench's kind of Redis, or with ``shards`` a Redis Cluster
of that many primaries on this machine (each a ``redis-server`` with the
bench's settings and ``cluster-enabled yes``; the slots spread by
``redis-cli --cluster create``), so that on a many-core box the figure per
machine takes more than one Redis core::

    python -m benchmarks.scaling --workers 1,2,4,8 --shards 3
    make bench BENCH_ARGS="--workers 1,2,4,8 --shards 3"

On 2 cores the second worker shares them with Redis and the load
generator, so 2 ÷ 1 stays well under 2: the figures say what one more
worker buys here, not what a core is worth on a bigger machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import redis

from . import measures, versus
from .processes import Gunicorn, RedisServer, free_port, gunicorn_env, redis_cli_binary
from .redis_cost import ONE_ADDRESS_ENV

WORKERS = (1, 2)
"""The worker counts measured by default (this machine has 2 cores)."""

SEATS = 7


class _Nodes:
    """What :func:`.processes.redis_cpu_seconds` reads (``info("cpu")``),
    summed over a cluster's nodes."""

    def __init__(self, clients: list[redis.Redis]) -> None:
        self.clients = clients

    def info(self, section: str) -> dict[str, float]:
        total: dict[str, float] = {"used_cpu_user": 0.0, "used_cpu_sys": 0.0}
        for client in self.clients:
            found = client.info(section)
            for key in total:
                total[key] += float(found[key])
        return total


@dataclass
class Store:
    """One Redis (``shards`` 0) or a Redis Cluster of ``shards`` primaries."""

    folder: Path
    shards: int = 0
    nodes: list[RedisServer] = field(default_factory=list)

    @property
    def url(self) -> str:
        if not self.shards:
            return self.nodes[0].url
        return "redis+cluster://" + ",".join(f"127.0.0.1:{n.port}" for n in self.nodes)

    def client(self) -> Any:
        """What the loads read Redis's CPU from."""
        if not self.shards:
            return self.nodes[0].client()
        return _Nodes([n.client() for n in self.nodes])

    def start(self) -> Store:
        if self.shards and self.shards < 3:
            raise ValueError("a Redis Cluster needs 3 primaries at least (--shards 3)")
        try:
            if not self.shards:
                self.nodes.append(RedisServer(self.folder / "redis").start())
                return self
            for i in range(self.shards):
                node = RedisServer(self.folder / f"node{i}")
                node.settings = {
                    **node.settings,
                    "cluster-enabled": "yes",
                    "cluster-config-file": "nodes.conf",
                    "cluster-port": str(free_port()),
                }
                self.nodes.append(node.start())
            ports = [f"127.0.0.1:{n.port}" for n in self.nodes]
            made = subprocess.run(
                [redis_cli_binary(), "--cluster", "create", *ports, "--cluster-replicas", "0"]
                + ["--cluster-yes"],
                capture_output=True,
                text=True,
                timeout=60,
            )
            if made.returncode != 0:
                why = made.stdout + made.stderr
                raise RuntimeError(f"redis-cli --cluster create failed:\n{why}")
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                states = [n.client().cluster("INFO").get("cluster_state") for n in self.nodes]
                if states == ["ok"] * self.shards:
                    return self
                time.sleep(0.1)
            raise RuntimeError("the cluster did not reach cluster_state:ok")
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
        self.nodes.clear()


def measure(
    folder: Path,
    env: dict[str, str],
    *,
    workers: Sequence[int] = WORKERS,
    shards: int = 0,
    tables: int = 16,
    duration: float = 10.0,
    warmup: float = 2.0,
    runs: int = 1,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """The load at each count of ``workers`` (see the module docstring):
    ``{"shards", "cores", "seats", "rows": [{"workers", "passes_per_s",
    "cpu_ms_per_pass", "passes_per_s_per_worker", "other_cpu_share",
    "client_cpu_share", "notes"}]}`` (CPU shares of the machine, and of one
    core for the load generator's)."""
    store = Store(folder / "store", shards).start()
    rows = []
    try:
        for count in workers:
            app_env = {**env, "REDIS_URL": store.url, "WEB_CONCURRENCY": str(count)}
            app = Gunicorn(
                "service.wsgi:app", app_env, folder / f"service-{count}.log", "/readyz"
            ).start()
            try:
                found = [
                    versus.service_run(
                        app, store.client(), SEATS, tables, duration, warmup, streams=True
                    )
                    for _ in range(runs)
                ]
            finally:
                app.stop()
            rate = measures.median([f["passes_per_s"] for f in found])
            rows.append(
                {
                    "workers": count,
                    "passes_per_s": rate,
                    "cpu_ms_per_pass": measures.median([f["cpu_ms_per_pass"] for f in found]),
                    "passes_per_s_per_worker": rate / count,
                    "other_cpu_share": measures.median([f["other_cpu_share"] for f in found]),
                    "client_cpu_share": measures.median([f["client_cpu_share"] for f in found]),
                    "notes": found[-1]["notes"],
                }
            )
            log(f"scaling: {count} worker(s): {rate:,.0f} passes/s")
    finally:
        store.stop()
    return {"shards": shards, "cores": os.cpu_count(), "seats": SEATS, "rows": rows}


def parse_workers(text: str) -> list[int]:
    """``"1,2,4"`` as ``[1, 2, 4]`` (each at least 1)."""
    counts = [int(part) for part in text.split(",") if part.strip()]
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError("worker counts are whole numbers ≥ 1, e.g. 1,2,4")
    return counts


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=parse_workers, default=list(WORKERS))
    parser.add_argument("--shards", type=int, default=0, help="Redis Cluster primaries (≥ 3)")
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="referee-scaling-") as tmp:
        found = measure(
            Path(tmp),
            gunicorn_env(ONE_ADDRESS_ENV),
            workers=args.workers,
            shards=args.shards,
            tables=args.tables,
            duration=args.seconds,
            runs=args.runs,
            log=lambda line: print(line, file=sys.stderr, flush=True),
        )
    json.dump(found, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
