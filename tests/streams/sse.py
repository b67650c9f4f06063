"""A small reader of server-sent events over real HTTP, for the tests: it
parses the WHATWG wire format (``event``, ``id``, ``data``, ``retry``) as a
browser's EventSource does, from a ``requests`` stream, in a thread."""

from __future__ import annotations

import contextlib
import json
import queue
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import requests


@dataclass(frozen=True)
class Frame:
    event: str  # "message" when unnamed, as EventSource dispatches it
    id: str | None
    data: Any
    retry: int | None = None


PRESENCE = frozenset({"seat-connected", "seat-disconnected"})
"""Presence events (RULES.md 5.5): kept apart in ``Reader.presence`` unless
the reader is made ``with_presence`` (a seat's moves make its seat connected
on every stream of the table, between the events other tests follow)."""


class Reader:
    """Reads one stream over real HTTP in a background thread; :meth:`next`
    waits for a frame."""

    def __init__(self, url: str, with_presence: bool = False, **headers: str) -> None:
        self.with_presence = with_presence
        self.response = requests.get(url, headers=headers, stream=True, timeout=(5, 60))
        self.status = self.response.status_code
        self.headers = self.response.headers
        self._start(self.response.iter_lines(decode_unicode=True))

    with_presence = False

    def _start(self, lines: Iterator[str | bytes]) -> None:
        self.presence: list[Frame] = []
        self.frames: queue.Queue[Frame | None] = queue.Queue()
        self.retry: int | None = None
        self.retries: list[int] = []  # every retry field, in the order they came
        self.last_id: str | None = None
        self._thread = threading.Thread(target=self._read, args=(lines,), daemon=True)
        self._thread.start()

    def _read(self, lines: Iterator[str | bytes]) -> None:
        event, data, id_ = "message", [], None
        try:
            for raw in lines:
                line = raw if isinstance(raw, str) else raw.decode()
                if line == "":
                    if data:
                        got = Frame(event, id_, json.loads("\n".join(data)))
                        if event in PRESENCE and not self.with_presence:
                            self.presence.append(got)
                        else:
                            self.frames.put(got)
                    event, data, id_ = "message", [], None
                    continue
                field, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if field == "event":
                    event = value
                elif field == "data":
                    data.append(value)
                elif field == "id":
                    id_ = self.last_id = value
                elif field == "retry":
                    self.retry = int(value)
                    self.retries.append(self.retry)
        except Exception:  # noqa: BLE001 - closed by the test or the server: the stream ended
            pass
        self.frames.put(None)

    def next(self, timeout: float = 10) -> Frame | None:
        """The next frame, ``None`` when the stream ended."""
        return self.frames.get(timeout=timeout)

    def until(self, event: str, timeout: float = 10) -> list[Frame]:
        """Every frame up to and including the next one named ``event``."""
        got: list[Frame] = []
        while True:
            frame = self.next(timeout)
            assert frame is not None, f"the stream ended before {event}: {got}"
            got.append(frame)
            if frame.event == event:
                return got

    def close(self) -> None:
        """Cut the connection at once (a plain close would wait for the reading
        thread's read to end, i.e. the next frame)."""
        connection = getattr(self.response.raw, "connection", None)
        sock = getattr(connection, "sock", None)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        self.response.close()


class AppReader(Reader):
    """The same, through a Flask test client (the stream runs in the reading thread)."""

    def __init__(self, client: Any, url: str, **headers: str) -> None:
        self.response = client.get(url, headers=headers, buffered=False)
        self.status = self.response.status_code
        self.headers = self.response.headers
        self._start(_lines(self.response.response))

    def close(self) -> None:
        """Nothing: the stream runs in the reading thread, which ends with it."""


def _lines(chunks: Iterator[bytes]) -> Iterator[str]:
    pending = ""
    for chunk in chunks:
        pending += chunk.decode() if isinstance(chunk, bytes) else chunk
        *done, pending = pending.split("\n")
        yield from done


class HttpClient:
    """A requests session with the Flask test client's few methods that
    tests/helpers.TableClient uses, against a real server."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.session = requests.Session()

    def _call(self, method: str, path: str, json: Any = None, headers: Any = None) -> Any:
        r = self.session.request(method, self.base + path, json=json, headers=headers, timeout=10)
        r.get_json = lambda: r.json() if r.content else None  # type: ignore[attr-defined]
        return r

    def post(self, path: str, json: Any = None, headers: Any = None) -> Any:
        return self._call("POST", path, json, headers)

    def put(self, path: str, json: Any = None, headers: Any = None) -> Any:
        return self._call("PUT", path, json, headers)

    def get(self, path: str, headers: Any = None) -> Any:
        return self._call("GET", path, None, headers)
