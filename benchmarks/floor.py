"""The floor: the least a Flask view on Redis can do per request.

``GET /floor`` reads one key (``FLOOR_KEY``, a string holding a blob the size
of a real table's stored state) from ``REDIS_URL`` and answers a small JSON
body. No schema, no auth, no metrics: no Flask+Redis service answering a
request that needs one Redis read can be faster than this under the same
gunicorn settings, so the service's figures are reported as ratios to it.

Run it as ``gunicorn -c deploy/gunicorn.conf.py 'benchmarks.floor:create_floor_app()'``.
"""

from __future__ import annotations

import os

import redis
from flask import Flask

DEFAULT_KEY = "bench:floor:blob"


def create_floor_app(url: str | None = None, key: str | None = None) -> Flask:
    """The floor app on Redis ``url`` (default ``REDIS_URL``), reading ``key``
    (default ``FLOOR_KEY``)."""
    url = url or os.environ["REDIS_URL"]
    key = key or os.environ.get("FLOOR_KEY", DEFAULT_KEY)
    # The service's client settings (service.storage.client.connect): same timeouts.
    timeout = float(os.environ.get("REDIS_TIMEOUT_SECONDS", "2.0"))
    client = redis.Redis.from_url(
        url, socket_timeout=timeout, socket_connect_timeout=timeout, health_check_interval=30
    )
    app = Flask(__name__)

    @app.get("/floor")
    def floor() -> dict[str, int]:
        blob = client.get(key)
        return {"bytes": len(blob or b"")}

    @app.get("/readyz")
    def ready() -> dict[str, bool]:
        return {"ready": bool(client.ping())}

    return app
