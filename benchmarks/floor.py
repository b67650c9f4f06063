"""The floors: the least a Flask view on Redis can do per request.

``GET /floor`` reads one key (``FLOOR_KEY``, a string holding a blob the size
of a real table's stored state) from ``REDIS_URL`` and answers a small JSON
body. No schema, no auth, no metrics: no Flask+Redis service answering a
request that needs one Redis read can be faster than this under the same
gunicorn settings, so the service's figures are reported as ratios to it.

``PUT /floor/move/<slot>`` is the second floor, "a minimal move" (issue 13):
it parses the JSON body, reads the slot's version and state and the server's
clock in one pipelined round trip (``HMGET`` + ``TIME``), and writes a new
state of ``MOVE_BYTES`` bytes with one Lua compare-and-set (the write lands
only if the version is still the one read; a lost race reads again). Two
round trips, one atomic versioned write: what any move of a durable referee
on Redis has to do, and nothing else.

Run it as ``gunicorn -c deploy/gunicorn.conf.py 'benchmarks.floor:create_floor_app()'``.
"""

from __future__ import annotations

import os

import redis
from flask import Flask, request

DEFAULT_KEY = "bench:floor:blob"
MOVE_KEY = "bench:floor:move:{slot}"
MOVE_BYTES = 1536  # "a 1.5 KB value"

# KEYS[1] the slot's hash; ARGV: the version read, the new state, the time (ms).
# 0 when the version changed since the read (a lost race), else the new version.
CAS_SCRIPT = """
local v = redis.call('HGET', KEYS[1], 'v') or '0'
if v ~= ARGV[1] then return 0 end
local new = tonumber(v) + 1
redis.call('HSET', KEYS[1], 'v', new, 's', ARGV[2], 't', ARGV[3])
return new
"""


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
    cas = client.register_script(CAS_SCRIPT)

    @app.get("/floor")
    def floor() -> dict[str, int]:
        blob = client.get(key)
        return {"bytes": len(blob or b"")}

    @app.put("/floor/move/<int:slot>")
    def move(slot: int) -> dict[str, int]:
        body = request.get_json()
        key = MOVE_KEY.format(slot=slot)
        lost = 0
        while True:
            pipe = client.pipeline(transaction=False)
            pipe.hmget(key, "v", "s")
            pipe.time()
            (version, state), (seconds, micros) = pipe.execute()
            state = state or bytes(MOVE_BYTES)
            # A new state of the same size that depends on the old one and the move.
            new = state[1:MOVE_BYTES] + bytes([len(body) % 256 if body else 0])
            now_ms = seconds * 1000 + micros // 1000
            written = cas(keys=[key], args=[version or b"0", new, now_ms])
            if written:
                return {"version": int(written), "bytes": len(new), "lost": lost}
            lost += 1

    @app.get("/readyz")
    def ready() -> dict[str, bool]:
        return {"ready": bool(client.ping())}

    return app
