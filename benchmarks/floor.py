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

``PUT /floor/turn/<slot>`` and ``GET /floor/stream/<slot>/<seat>`` are the
third floor, "a minimal move with its delivery" (issue 18): the minimal move
whose compare-and-set also ``PUBLISH``es the new version and state on the
slot's channel, and a seat's server-sent event stream. Each worker process
has one ``PSUBSCRIBE`` (:class:`FloorHub`) that wakes the streams of the
slot; the state comes in the message (no read after a commit), and each
stream writes one frame: the version and the seat's part of the state
(``SEAT_BYTES`` of it, as hex). What any referee that pushes each move to
every seat of a table through Redis, from any worker, has to do, and nothing
else: no event log, no rules, no views, no auth, no lost message to make up.

Run it as ``gunicorn -c deploy/gunicorn.conf.py 'benchmarks.floor:create_floor_app()'``.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import redis
from flask import Flask, Response, request

from service.storage.client import connect

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

FEED = "bench:floor:feed:"
"""The channel of a slot is ``FEED`` and its number."""

# The same, announcing ``<new version>:<new state>`` on the channel ARGV[4].
CAS_PUBLISH_SCRIPT = CAS_SCRIPT.replace(
    "return new", "redis.call('PUBLISH', ARGV[4], new .. ':' .. ARGV[2])\nreturn new"
)

SEAT_BYTES = 64
"""A seat's part of the state in its frame (128 hex digits: a hand's text)."""

HEARTBEAT_SECONDS = 15.0


class FloorHub:
    """One ``PSUBSCRIBE`` per worker process for every slot's channel: the
    newest version and state of each slot, and per slot an event that each
    commit sets and replaces (its streams wait on it with no timer of their
    own: a heartbeat thread sets every slot's every ``HEARTBEAT_SECONDS``)."""

    def __init__(self, client: redis.Redis) -> None:
        self.client = client
        self.lock = threading.Lock()
        self.states: dict[int, tuple[int, bytes]] = {}
        self.changed: dict[int, threading.Event] = {}
        self.started = False

    def start(self) -> None:
        with self.lock:
            if not self.started:
                self.started = True
                threading.Thread(target=self._run, daemon=True).start()
                threading.Thread(target=self._beat, daemon=True).start()

    def _wake(self, slot: int) -> None:
        """Wake the slot's streams; later waits take a new event (under the lock)."""
        old = self.changed.get(slot)
        self.changed[slot] = threading.Event()
        if old is not None:
            old.set()

    def _beat(self) -> None:
        while True:
            time.sleep(HEARTBEAT_SECONDS)
            with self.lock:
                for slot in list(self.changed):
                    self._wake(slot)

    def _run(self) -> None:
        pubsub = self.client.pubsub(ignore_subscribe_messages=True)
        pubsub.psubscribe(FEED + "*")
        for message in pubsub.listen():  # type: ignore[no-untyped-call]
            slot = int(message["channel"][len(FEED) :])
            version, _, state = message["data"].partition(b":")
            with self.lock:
                self.states[slot] = (int(version), state)
                self._wake(slot)

    def wait(self, slot: int, seen: int) -> tuple[int, bytes]:
        """The slot's newest version and state once its version is past
        ``seen`` (or at the next heartbeat, whatever they are)."""
        with self.lock:
            state = self.states.get(slot, (0, b""))
            if state[0] > seen:
                return state
            event = self.changed.get(slot)
            if event is None:
                event = self.changed[slot] = threading.Event()
        event.wait()
        return self.states.get(slot, (0, b""))


def create_floor_app(url: str | None = None, key: str | None = None) -> Flask:
    """The floor app on Redis ``url`` (default ``REDIS_URL``), reading ``key``
    (default ``FLOOR_KEY``)."""
    url = url or os.environ["REDIS_URL"]
    key = key or os.environ.get("FLOOR_KEY", DEFAULT_KEY)
    # The service's own client (timeouts, retry, its quick check of a pooled connection).
    timeout = float(os.environ.get("REDIS_TIMEOUT_SECONDS", "2.0"))
    client = connect(url, timeout)
    assert isinstance(client, redis.Redis)
    app = Flask(__name__)
    cas = client.register_script(CAS_SCRIPT)
    cas_publish = client.register_script(CAS_PUBLISH_SCRIPT)
    hub = FloorHub(client)

    @app.get("/floor")
    def floor() -> dict[str, int]:
        blob = client.get(key)
        return {"bytes": len(blob or b"")}

    @app.put("/floor/move/<int:slot>")
    def move(slot: int) -> dict[str, int]:
        return _move(slot, cas, [])

    @app.put("/floor/turn/<int:slot>")
    def turn(slot: int) -> dict[str, int]:
        return _move(slot, cas_publish, [FEED + str(slot)])

    @app.get("/floor/stream/<int:slot>/<int:seat>")
    def stream(slot: int, seat: int) -> Response:
        hub.start()

        def frames() -> Iterator[str]:
            yield "retry: 2000\n\n"
            seen = 0
            while True:
                newest, state = hub.wait(slot, seen)
                if newest <= seen:
                    yield ": heartbeat\n\n"
                    continue
                seen = newest
                part = state[seat * SEAT_BYTES : (seat + 1) * SEAT_BYTES].hex()
                data = json.dumps({"version": seen, "seat": seat, "hand": part})
                yield f"event: seat\nid: {seen}\ndata: {data}\n\n"

        headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
        return Response(frames(), mimetype="text/event-stream", headers=headers)

    def _move(slot: int, script: Any, extra: list[str]) -> dict[str, int]:
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
            written = script(keys=[key], args=[version or b"0", new, now_ms, *extra])
            if written:
                return {"version": int(written), "bytes": len(new), "lost": lost}
            lost += 1

    @app.get("/readyz")
    def ready() -> dict[str, bool]:
        return {"ready": bool(client.ping())}

    return app
