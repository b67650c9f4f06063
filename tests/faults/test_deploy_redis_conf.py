"""deploy/redis.conf is a configuration redis-server accepts, with the
persistence deploy/REDIS.md requires."""

from __future__ import annotations

from pathlib import Path

import redis

from ..conftest import RedisProcess

ROOT = Path(__file__).resolve().parents[2]


def test_the_shipped_redis_conf_loads_and_persists_every_second(tmp_path: Path) -> None:
    # The file, then only where this test's server listens and keeps its data.
    conf = ROOT / "deploy" / "redis.conf"
    server = RedisProcess(tmp_path / "data", conf=conf).start()
    try:
        client = redis.Redis.from_url(server.url)
        names = (
            "appendonly",
            "appendfsync",
            "maxmemory-policy",
            "no-appendfsync-on-rewrite",
            "repl-diskless-sync-delay",
        )
        got = {k: client.config_get(k)[k] for k in names}
        assert got == {
            "appendonly": "yes",
            "appendfsync": "everysec",
            "maxmemory-policy": "noeviction",
            "no-appendfsync-on-rewrite": "no",
            "repl-diskless-sync-delay": "0",  # deploy/README, "Failovers"
        }
        client.set("k", "v")
        assert (tmp_path / "data" / "appendonlydir").exists() or (
            tmp_path / "data" / "appendonly.aof"
        ).exists()
    finally:
        server.stop()
