"""The failover part of ``make bench``: each drill on a Redis set and a
gunicorn of its own, and a pass's time one at a time behind the Sentinels."""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .drills import drill
from .report import rows
from .sentinels import RedisSet

WAIT_ENV = {"REDIS_WAIT_TIMEOUT_MS": "300", "REDIS_TIMEOUT_SECONDS": "0.5"}
"""The service's settings for the drills, beside ``REDIS_WAIT_REPLICAS``."""


def one_at_a_time(url: str, rounds: int = 4, seats: int = 7) -> dict[str, float]:
    """A pass's median time (ms, in this process, one request at a time)
    behind the Sentinels of ``url`` with ``REDIS_WAIT_REPLICAS`` 0, 1 and
    ``all`` (both replicas), over ``rounds`` rounds of each, alternated."""
    from service import create_app
    from service.config import Settings

    from .. import redis_cost
    from ..replicas import pass_times

    apps = {}
    for wait in ("0", "1", "all"):
        settings = Settings.from_env(
            {**redis_cost.ONE_ADDRESS_ENV, **WAIT_ENV},
            redis_url=url,
            table_ttl_seconds=3600,
            redis_wait_replicas=wait,
        )
        apps[wait] = create_app(settings).test_client()
    times = pass_times(apps, rounds, seats)
    for client in apps.values():
        watch = client.application.extensions["referee"].store.acknowledgement.watch
        if watch is not None:
            watch.stop()
    return {name: statistics.median(found) for name, found in times.items()}


def measure(
    folder: Path, env: dict[str, str], log: Callable[[str], None], quick: bool = False
) -> dict[str, Any]:
    """The drills of the module docstring with ``REDIS_WAIT_REPLICAS=all``
    (and, unless ``quick``, the planned one with ``1``, the setting advised
    before), each on a Redis set and a gunicorn of its own; and a pass's
    time one at a time with each setting. ``quick``: one failover of each
    kind, not two."""
    from ..processes import Gunicorn
    from ..redis_cost import ONE_ADDRESS_ENV

    found: dict[str, Any] = {}
    drills = [("all", "manual"), ("all", "kill")] + ([] if quick else [("1", "manual")])
    for wait, kind in drills:
        name = f"{kind}/{wait}"
        log(f"failover: 2 x {'SENTINEL FAILOVER' if kind == 'manual' else 'SIGKILL'}, "
            f"REDIS_WAIT_REPLICAS={wait}, six tables…")  # fmt: skip
        redis_set = RedisSet(folder / name.replace("/", "-")).start()
        try:
            if "sequential" not in found:
                found["sequential"] = one_at_a_time(redis_set.url, rounds=2 if quick else 4)
            service_env = {
                **env,
                **ONE_ADDRESS_ENV,
                **WAIT_ENV,
                "REDIS_URL": redis_set.url,
                "REDIS_WAIT_REPLICAS": wait,
            }
            log_file = folder / f"service-{name.replace('/', '-')}.log"
            service = Gunicorn("service.wsgi:app", service_env, log_file, "/readyz").start()
            try:
                result = drill(
                    redis_set,
                    service.base,
                    kind,
                    times=1 if quick else 2,
                    play_s=2.0 if quick else 4.0,
                )
            finally:
                service.stop()
        finally:
            redis_set.stop()
        found[name] = result.to_json()
        log(
            f"failover {name}: {result.acknowledged} acknowledged, {result.lost} lost; refused "
            + ", ".join(f"{f.refused_s:.1f} s" for f in result.failovers)
        )
    return found


def main() -> None:  # pragma: no cover - a person's run
    """``python -m benchmarks.failover [--quick]``: this part alone; prints the figures."""
    import sys
    import tempfile

    from ..processes import gunicorn_env

    with tempfile.TemporaryDirectory() as tmp:
        found = measure(Path(tmp), gunicorn_env(), print, quick="--quick" in sys.argv)
    print(json.dumps(found, indent=1))
    for name, value in rows({"failover": found}):
        print(f"{name}: {value}")
