"""The gunicorn worker classes the service runs: gunicorn's own, changed in twelve ways.

- **Errors gunicorn answers itself** (a request line over ``limit_request_line``,
  a malformed header, headers too large): RFC 9457 ``application/problem+json``
  with an ``X-Request-Id`` and a JSON log line of that id, like every answer of
  the app, instead of gunicorn's ``text/html`` page, and with the app's CORS
  headers (``CORS_ORIGINS``; :func:`service.edge.cors.error_page_headers`).
- **Ctrl-C** (SIGINT, or SIGQUIT) stops a worker at once. gunicorn's own
  handler ends with ``sys.exit``, which waits for every thread: one thread
  blocked on a stalled client kept the worker alive until the master's
  SIGKILL at ``graceful_timeout`` (20 s), logged as "Perhaps out of memory?".
- **Streams** take at most half of the connections a worker serves at once
  (``service.edge.stream_caps``): a worker full of streams still answers.
- **Connections per client address** (gevent;
  :class:`~service.connection_limits.Connections`): at
  most ``CONNECTIONS_PER_ADDRESS`` open at once from one address (an IPv6
  address's /64) in each worker process, never more than a quarter of its
  connections; the next is answered 429 ``too-many-connections`` at once
  and closed, before anything of it is read. Off behind a proxy
  (``TRUSTED_PROXIES``: every connection is the proxy's; its own
  ``limit_conn`` counts the clients).
- **A bound on a request's head** (gevent;
  :class:`~service.connection_limits.ReadDeadline`): 40 KiB at most
  (``HEAD_MAX``; gunicorn's own limits allow 800 KB), else 431
  ``headers-too-large``, read in pieces of 16 KiB so that gunicorn's parser,
  which rescans its whole buffer at each read, parses a head in a few reads.
- **A deadline for reading a request** (gevent;
  :class:`~service.connection_limits.ReadDeadline`): its
  head and body must arrive within ``REQUEST_READ_TIMEOUT_SECONDS`` of its
  first byte, else 408 ``request-timeout`` and the connection is closed
  (gevent's worker had no bound on a body sent a byte at a time). An open
  event stream reads nothing: the deadline never ends it.
- **A deadline for writing an answer** (gevent;
  :class:`~service.connection_limits.ReadDeadline`): a write that makes no
  progress for ``RESPONSE_WRITE_TIMEOUT_SECONDS`` (a client reading nothing)
  closes the connection, an open event stream's too. Clients that
  pipelined large answers and read nothing held their connections and
  send buffers for good (100 of them, 55.6 MB).
- **A budget of requests per client address** (gevent, without
  ``TRUSTED_PROXIES``; :class:`~service.budgets.Budget`): each
  process lets ``RATE_LIMIT_PER_ADDRESS`` requests of an address through
  to the app, probes included; the next is answered 429 ``rate-limited``
  by the worker (no app, no Redis, a log line a second per address),
  its connection waits out the refill (a second at most) and closes. The
  app's own limit (Redis, every instance) refused a flood too, but each
  refusal was a whole request: 50 keep-alive connections got 1,300
  answers a second and others waited seconds (issue 39, fourth attacker).
- **Keep-alive connections take turns** (gevent): after each request of a
  connection its greenlet yields to the others, and a connection closes
  after ``REQUESTS_PER_CONNECTION`` requests (its last answer says
  ``Connection: close``). Pipelined requests are read from gunicorn's
  buffer without a wait, so one connection pipelining thousands of
  ``GET /healthz`` kept its worker to itself until it was done: two such
  connections silenced an instance for the whole flood (issue 39).
- **A body the app did not read ends its connection** (gevent:
  :func:`closing_unread_bodies`; gthread closes after the answer): gunicorn
  would read and discard all of its declared length first.
- **A chunked request body is never parsed**: the app refuses it (411
  ``length-required``) before reading it, and its connection closes after
  that answer instead of gunicorn reading the body at the next request
  (:func:`close_after_chunked`; issue 39, eleventh attacker: 1-byte chunks
  cost 4 microseconds a byte).
- **SIGTERM** (graceful): a worker ends its open event streams at once
  (each asks its client to reconnect, to another instance), ends the
  connections still open when its grace ends a little before the master's
  own deadline, and says so, so the master never has to SIGKILL it.

``GUNICORN_WORKER_CLASS`` picks one of :data:`CLASSES` by its gunicorn name
(``gevent``, ``gthread``, ``sync``); see ``service/gunicorn_settings.py``.
"""

from __future__ import annotations

import contextlib
import html
import json
import logging
import math
import os
import re
import socket
import sys
import time
import uuid
import warnings
from typing import Any

from gunicorn.glogging import Logger as _Logger
from gunicorn.http.body import ChunkedReader, LengthReader
from gunicorn.workers.gthread import ThreadWorker as _ThreadWorker
from gunicorn.workers.sync import SyncWorker as _SyncWorker
from werkzeug.exceptions import RequestTimeout

from . import budgets
from .addresses import peer_key
from .budgets import Budget
from .connection_limits import Connections, ReadDeadline
from .logs import without_client_text

CLASSES = {
    "gevent": "service.workers.GeventWorker",
    "gthread": "service.workers.ThreadWorker",
    "sync": "service.workers.SyncWorker",
}
"""gunicorn's name of a worker class -> the service's version of it."""

GRACE_MARGIN_SECONDS = 3
"""A stopping worker gives up this long before the master's SIGKILL deadline
(gevent's worker takes up to 2 s more to stop its last connections)."""

_CODES = {
    400: "malformed-request",
    403: "forbidden",
    408: "request-timeout",
    414: "request-line-too-long",
    417: "expectation-failed",
    431: "headers-too-large",
    500: "internal-error",
    501: "not-implemented",
}
"""The problem ``code`` of each status gunicorn answers by itself."""

_STATUS_LINE = re.compile(rb"HTTP/1\.[01] (\d{3}) ([^\r\n]*)")


class _Captured:
    """Stands in for the client's socket while gunicorn writes its error page."""

    def __init__(self) -> None:
        self.data = b""

    def gettimeout(self) -> float:
        return 0.0

    def setblocking(self, flag: bool) -> None:
        pass

    def sendall(self, data: bytes) -> None:
        self.data += bytes(data)

    def send(self, data: bytes) -> int:
        self.data += bytes(data)
        return len(data)


def problem_answer(
    page: bytes, request_id: str, headers: list[tuple[str, str]] | None = None
) -> tuple[bytes, int]:
    """gunicorn's HTML error answer ``page`` as a problem+json answer, and its
    status; ``headers`` (name, value) are added (the CORS headers)."""
    status_line = _STATUS_LINE.fullmatch(page.partition(b"\r\n")[0])
    status = int(status_line.group(1)) if status_line else 500
    reason = status_line.group(2).decode("latin-1") if status_line else "Internal Server Error"
    # gunicorn's page is "<h1>reason</h1>message</body>": the message is the detail.
    message = page.partition(b"</h1>")[2].partition(b"</body>")[0].strip()
    # Never what the client sent (it may hold a ticket or a token): see logs.
    detail = without_client_text(html.unescape(message.decode("latin-1")))
    return problem_bytes(status, reason, detail, request_id, headers), status


def problem_bytes(
    status: int,
    reason: str,
    detail: str,
    request_id: str,
    headers: list[tuple[str, str]] | None = None,
    code: str | None = None,
) -> bytes:
    """A whole HTTP/1.1 answer (``Connection: close``) whose body is the
    problem+json of ``status`` (``code``: by default the status's, :data:`_CODES`)."""
    code = code or _CODES.get(status, "http-error")
    body = json.dumps(
        {
            "type": f"/problems/{code}",
            "title": reason,
            "status": status,
            "detail": detail or f"{reason}.",
            "code": code,
        }
    ).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\n"
        "Connection: close\r\n"
        "Content-Type: application/problem+json\r\n"
        f"Content-Length: {len(body)}\r\n"
        f"X-Request-Id: {request_id}\r\n"
        + "".join(f"{name}: {value}\r\n" for name, value in headers or ())
        + "\r\n"
    )
    return head.encode("latin-1") + body


class _Referee:
    """What the service changes in each of gunicorn's worker classes."""

    # Supplied by gunicorn's Worker.
    wsgi: Any
    alive: bool
    cfg: Any
    log: Any
    pid: int

    def connections_served(self) -> int:
        """How many connections this worker serves at once (sync: one)."""
        return 1

    connections: Connections | None = None
    """Connections per client address (None: not counted)."""
    read_seconds: float = 0.0
    """``REQUEST_READ_TIMEOUT_SECONDS`` (0: no deadline)."""
    requests_per_connection: int = 0
    """``REQUESTS_PER_CONNECTION`` (0: no cap)."""
    write_seconds: float = 0.0
    """``RESPONSE_WRITE_TIMEOUT_SECONDS`` (0: no deadline)."""
    send_buffer: int = 0
    """``SOCKET_SEND_BUFFER_BYTES`` (0: the kernel's)."""
    retry_after: int = 2
    budget: Budget | None = None
    """Requests per client address before the app (gevent; None: off)."""
    refusals_logged: budgets.LogThrottle
    keeps_budget = False
    """Whether the class asks :attr:`budget` before each request (gevent's)."""

    def init_process(self) -> None:
        # Streams may take half of what the worker serves at once, so that a
        # worker full of streams still answers health checks and requests.
        from .config import Settings
        from .edge import stream_caps

        served = self.connections_served()
        stream_caps.set_worker_connections(served)
        settings = Settings.from_env()
        self.read_seconds = settings.request_read_timeout_seconds
        self.requests_per_connection = settings.requests_per_connection
        self.write_seconds = settings.response_write_timeout_seconds
        self.send_buffer = settings.socket_send_buffer_bytes
        self.retry_after = settings.retry_after_seconds
        # Behind a proxy every connection is the proxy's: it counts the clients.
        if settings.connections_per_address and not settings.trusted_proxies:
            cap = max(1, min(settings.connections_per_address, served // 4))
            self.connections = Connections(cap)
        if self.keeps_budget and not settings.trusted_proxies:
            from limits import parse

            item = parse(settings.rate_limit_per_address)
            self.budget = Budget(item.amount, item.get_expiry())
            budgets.install(self.budget)
        self.refusals_logged = budgets.LogThrottle()
        super().init_process()  # type: ignore[misc]

    def log_refusal(self, key: str, request_id: str, req: Any, why: str) -> None:
        """The access line of a 429 the worker gave ``key``'s address itself
        (``why``), at most one a second per address whatever the refusal."""
        if self.refusals_logged.due(key, time.monotonic()):
            read = {} if req is None else {"method": req.method, "path": req.path}
            self.log.info(
                "request",
                extra={
                    "request_id": request_id,
                    **read,
                    "status": 429,
                    "answered_by": "gunicorn",
                    "refused": f"{why}; its refusals are logged at most once a second",
                },
            )

    def refuse_connection(self, client: Any, addr: Any) -> None:
        """429 ``too-many-connections`` to a connection over its address's
        cap (from ``addr``), before reading anything of it; then close it."""
        request_id = uuid.uuid4().hex
        assert self.connections is not None
        answer = problem_bytes(
            429,
            "Too Many Requests",
            f"This address holds {self.connections.per_address} open connections to this "
            "process already (CONNECTIONS_PER_ADDRESS): close one, or retry later.",
            request_id,
            [("Retry-After", str(self.retry_after))],
            "too-many-connections",
        )
        self.log_refusal(peer_key(addr), request_id, None, "over the address's connections")
        try:
            client.settimeout(1.0)  # a small answer: the socket's buffer takes it
            client.sendall(answer)
            _drain(client)
        except OSError:  # the client is gone
            pass
        finally:
            with contextlib.suppress(OSError):
                client.close()

    def refuse_over_budget(self, req: Any, sock: Any, key: str, wait: float) -> None:
        """429 ``rate-limited`` to a request of an address over its budget
        (:class:`~service.budgets.Budget`), before the app: no
        Redis, a log line a second per address at most, ``Connection: close``."""
        assert self.budget is not None
        request_id = uuid.uuid4().hex
        answer = problem_bytes(
            429,
            "Too Many Requests",
            f"This address sent more than {self.budget.amount:g} requests to this process "
            "within RATE_LIMIT_PER_ADDRESS's period: retry after Retry-After.",
            request_id,
            [
                ("Retry-After", str(max(budgets.HOLD_SECONDS, math.ceil(wait)))),
                *self._cors_headers(req, None),
            ],
            "rate-limited",
        )
        self.log_refusal(key, request_id, req, "over the address's budget")
        with contextlib.suppress(OSError):  # the client is gone: nothing to tell it
            sock.sendall(answer)

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        # gunicorn picks the status and logs; its page is rewritten as problem+json.
        request_id = uuid.uuid4().hex
        if isinstance(exc, RequestTimeout):  # the head did not arrive in time
            status = 408
            answer = problem_bytes(
                status,
                "Request Timeout",
                str(exc.description),
                request_id,
                self._cors_headers(req, exc),
            )
        else:
            captured = _Captured()
            super().handle_error(req, captured, addr, exc)  # type: ignore[misc]
            answer, status = problem_answer(captured.data, request_id, self._cors_headers(req, exc))
        self.log.info(
            "request",
            extra={
                "request_id": request_id,
                "method": getattr(req, "method", None),
                "path": getattr(req, "path", None),
                "status": status,
                "answered_by": "gunicorn",
            },
        )
        try:
            client.settimeout(5.0)  # a client that reads nothing does not hold us
            client.sendall(answer)
        except Exception:  # noqa: BLE001 - the client is gone: nothing to tell it
            self.log.debug("Failed to send error message.")

    def _cors_headers(self, req: Any, exc: BaseException | None) -> list[tuple[str, str]]:
        """The app's CORS headers for this answer (see ``service.edge.cors``)."""
        from .edge.cors import error_page_headers

        # An invalid Content-Length or Transfer-Encoding: gunicorn read the
        # headers, and its exception holds them.
        req = req or getattr(exc, "req", None)
        read = getattr(req, "headers", None)
        try:
            app = getattr(self.wsgi, "__wrapped__", self.wsgi)  # the Flask app
            return error_page_headers(app, read, getattr(req, "method", None))
        except Exception:  # noqa: BLE001 - the error answer goes out without them
            self.log.exception("CORS headers of an error answer")
            return []

    def handle_exit(self, sig: int, frame: Any) -> None:
        # SIGTERM: the open event streams end now, asking their clients to come
        # back soon (to another instance), instead of holding the grace.
        super().handle_exit(sig, frame)  # type: ignore[misc]
        # Looked up, not imported: a SIGTERM while the worker still loads the
        # app may land in the middle of that import (a partial module, and
        # an ImportError here is a boot failure that halts the master); a
        # worker whose hub module is not loaded has no stream to end.
        hub = sys.modules.get(f"{__package__}.streams.hub")
        close_streams = getattr(hub, "close_streams", None)
        if close_streams is not None:
            close_streams()

    def handle_quit(self, sig: int, frame: Any) -> None:
        # Ctrl-C: stop now. Every move is one atomic commit in Redis, so a
        # request cut here either committed or left nothing behind.
        self.alive = False
        self.cfg.worker_int(self)
        self.log.info("Worker stopping at once (pid: %s)", self.pid)
        _flush_and_exit(0)

    def _stop_in_grace(self, run: Any, open_connections: Any) -> None:
        """Run ``run`` with the grace shortened by the margin; then exit,
        ending the connections still open (``open_connections()`` of them)."""
        graceful = self.cfg.graceful_timeout
        self.cfg.set("graceful_timeout", max(graceful - GRACE_MARGIN_SECONDS, 1))
        run()
        left = open_connections()
        if left:
            self.log.warning(
                "Worker graceful timeout (pid: %s): closing %s connection(s) still open",
                self.pid,
                left,
            )
            _flush_and_exit(0)


def _drain(sock: Any) -> None:
    """Read what the client sent already (a body, pipelined requests: 64 KiB
    at most, without waiting) and say we are done writing, so that closing
    sends a FIN, not a reset that could discard our answer on its side."""
    raw = getattr(sock, "_sock", sock)  # under ReadDeadline: the socket itself
    with contextlib.suppress(OSError):
        raw.settimeout(0.0)  # gevent's recv would wait for more otherwise
        raw.shutdown(socket.SHUT_WR)
        for _ in range(16):
            if not raw.recv(4096, socket.MSG_DONTWAIT):
                break


LINGER_SECONDS = 2.0
LINGER_BYTES = 4 * 1024 * 1024


def linger(sock: Any) -> None:
    """Say we are done writing, then read and drop what the client still
    sends, for :data:`LINGER_SECONDS` and :data:`LINGER_BYTES` at most, until it
    closes its end: closing with unread bytes sends a reset, which can discard
    our answer on the client's side before it reads it (issue 39, thirteenth
    attacker: a 5 MB upload lost its 413 three times in three). nginx's
    ``lingering_close`` does the same."""
    raw = getattr(sock, "_sock", sock)  # under ReadDeadline: the socket itself
    with contextlib.suppress(OSError):
        raw.shutdown(socket.SHUT_WR)
        ends = time.monotonic() + LINGER_SECONDS
        dropped = 0
        while dropped < LINGER_BYTES:
            left = ends - time.monotonic()
            if left <= 0:
                break
            raw.settimeout(left)
            got = raw.recv(65536)
            if not got:
                break
            dropped += len(got)


def _flush_and_exit(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # exiting anyway
            stream.flush()
    os._exit(code)


class Logger(_Logger):  # type: ignore[misc]
    """gunicorn's logger, which builds no access line that nobody logs.

    gunicorn decides whether to build its access line (``atoms``: a dict of
    every request and response header, a ``strftime``) before
    ``logconfig_dict`` is applied, so with the service's settings, whose
    ``gunicorn.access`` logs nothing (the app logs its own access line), it
    built one per request and dropped it. Decided again here once the
    configuration is in place: built only when ``gunicorn.access`` would
    write an INFO line somewhere."""

    def setup(self, cfg: Any) -> None:
        super().setup(cfg)
        access = self.access_log
        if not (access.isEnabledFor(logging.INFO) and access.hasHandlers()):
            self._access_log_enabled = False


def body_unread(req: Any) -> bool:
    """Whether ``req`` (gunicorn's request) has body bytes the app left unread."""
    reader = getattr(getattr(req, "body", None), "reader", None)
    return isinstance(reader, LengthReader) and reader.length > 0


def closing_unread_bodies(app: Any) -> Any:
    """``app`` whose answer says ``Connection: close``, and ends its
    connection, when it leaves the request's body unread (a 401, a 404, a 413
    answered before the body): gunicorn would read and discard the whole
    declared ``Content-Length`` before the connection's next request, up to
    its read deadline, serving no other connection while the bytes kept
    coming (issue 39, twelfth attacker: 2 GB declared, two connections left
    another address no answer in 10 s). gevent's worker only: its socket
    (:class:`ReadDeadline`) knows the request."""

    def wsgi(environ: dict[str, Any], start_response: Any) -> Any:
        def start(status: str, headers: Any, exc_info: Any = None) -> Any:
            req = getattr(environ.get("gunicorn.socket"), "request", None)
            if req is not None and body_unread(req):
                req.must_close = True  # gunicorn writes "Connection: close"
            return start_response(status, headers, exc_info)

        return app(environ, start)

    wsgi.__wrapped__ = app  # type: ignore[attr-defined]
    return wsgi


def close_after_chunked(req: Any) -> None:
    """A request with a chunked body closes its connection after its answer:
    the app refuses it unread (411, :func:`service.edge.inputs.guard_body`),
    and gunicorn would otherwise parse it, chunk by chunk, before the
    connection's next request (1-byte chunks: 250 ms for 64 KiB)."""
    if isinstance(getattr(getattr(req, "body", None), "reader", None), ChunkedReader):
        req.must_close = True


class ThreadWorker(_Referee, _ThreadWorker):  # type: ignore[misc]
    """gunicorn's ``gthread``: a thread per request being read or served."""

    def connections_served(self) -> int:
        return int(self.cfg.threads)

    def handle_request(self, req: Any, conn: Any) -> Any:
        close_after_chunked(req)
        keep = super().handle_request(req, conn)
        return keep and not body_unread(req)  # see closing_unread_bodies

    def run(self) -> None:
        self._stop_in_grace(super().run, lambda: self.nr_conns)


class SyncWorker(_Referee, _SyncWorker):  # type: ignore[misc]
    """gunicorn's ``sync``: one request at a time; only behind a buffering proxy."""


def _gevent_worker() -> type:
    import gevent
    from gunicorn.workers.ggevent import GeventWorker as _GeventWorker

    class GeventWorker(_Referee, _GeventWorker):  # type: ignore[misc]
        """gunicorn's ``gevent``: a greenlet per connection (``worker_connections``)."""

        keeps_budget = True

        def connections_served(self) -> int:
            return int(self.worker_connections)

        def patch(self) -> None:
            from gevent import monkey

            # The master imported ssl (redis-py does) before this fork; redis-py
            # makes its SSL contexts when it connects, after the patch, so the
            # warning about it does not apply (and would be a non-JSON line).
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", monkey.MonkeyPatchWarning)
                super().patch()

        def handle(self, listener: Any, client: Any, addr: Any) -> None:
            # Counted at accept (the caps of the module docstring).
            counted = self.connections
            key = None
            if counted is not None:
                key = counted.take(addr)
                if key is None:
                    self.refuse_connection(client, addr)
                    return
            try:
                if self.send_buffer > 0:
                    # Unread answers wait here, bounded, and meet the write
                    # deadline (the kernel's own grows to 4 MB a connection).
                    client.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.send_buffer)
                # Every connection: its head's bound holds with no deadline set.
                client = ReadDeadline(client, self.read_seconds, self.write_seconds)
                super().handle(listener, client, addr)
            finally:
                if key is not None and counted is not None:
                    counted.give(key)

        def handle_request(self, listener_name: Any, req: Any, sock: Any, addr: Any) -> None:
            budget = self.budget
            if budget is not None:
                key = peer_key(addr)
                cost = budgets.COSTS.get(budgets.routed(getattr(req, "path", "")), 1.0)
                wait = budget.take(key, time.monotonic(), cost)
                if wait > 0:
                    # Answered without the app, a second late (holding
                    # nothing but the connection's place), then closed: each
                    # connection of a flood costs a parse and a write a
                    # second, and the address's connections are capped
                    # (issue 39, sixth attacker: answered at once, 20
                    # connections got 1,100 refusals a second, and others
                    # waited behind them).
                    gevent.sleep(budgets.HOLD_SECONDS)
                    self.refuse_over_budget(req, sock, key, wait)
                    _drain(sock)
                    raise StopIteration("over its address's budget")
            if isinstance(sock, ReadDeadline):
                sock.request = req
            close_after_chunked(req)
            cap = self.requests_per_connection
            if cap and req.req_number >= cap:
                req.must_close = True  # its answer says "Connection: close"
            try:
                super().handle_request(listener_name, req, sock, addr)
            except StopIteration:
                # Answered, closing (closing_unread_bodies): the client gets its
                # answer, unless it is the one that stopped sending (408).
                if body_unread(req) and not getattr(sock, "expired", False):
                    linger(sock)
                raise
            finally:
                if isinstance(sock, ReadDeadline):
                    sock.next_request()
            # The connection's next request may be in the buffer already
            # (pipelined): the other connections' turn first. sleep(0), not
            # idle(): idle() waits until the loop has nothing else pending,
            # which a busy worker may never reach, so every keep-alive
            # client waited on the others (the attacker's 4 x 500 /healthz:
            # others' /readyz p99 450 ms with sleep(0), 110 ms with idle(),
            # 5.7 to 16 s with neither).
            gevent.sleep(0)

        def load_wsgi(self) -> None:
            super().load_wsgi()
            self.wsgi = closing_unread_bodies(self.wsgi)

        def handle_quit(self, sig: int, frame: Any) -> None:
            _Referee.handle_quit(self, sig, frame)

        def run(self) -> None:
            # gevent's run ends the connections left at the end of its grace.
            self._stop_in_grace(super().run, lambda: 0)

    return GeventWorker


def __getattr__(name: str) -> Any:
    # gevent is imported only when its worker class is asked for.
    if name == "GeventWorker":
        return _gevent_worker()
    raise AttributeError(name)
