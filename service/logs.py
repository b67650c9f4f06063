"""Structured logs: one JSON object per line, each with the request's id.

Every request gets an id: the caller's ``X-Request-Id`` when it is a short
token of safe characters, else a fresh one; the response carries it back in
``X-Request-Id``. One access line is logged per request (method, path, status,
duration). Nothing logged ever holds a token (they travel only in the
``Authorization`` header, which is never logged), a body, or a card: only the
members listed in :data:`ACCESS_FIELDS` and the messages the service writes.
"""

from __future__ import annotations

import logging
import re
import sys
import time
import uuid
from typing import Any, TextIO

from flask import Flask, Response, g, has_request_context, request
from pythonjsonlogger.json import JsonFormatter

LOGGER = "referee"
REQUEST_ID_HEADER = "X-Request-Id"
_SAFE_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")
"""A client's request id (``fullmatch``: ``$`` would let a trailing newline in)."""
ACCESS_FIELDS = ("request_id", "method", "path", "status", "duration_ms")
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"

logger = logging.getLogger(LOGGER)


class RequestIdFilter(logging.Filter):
    """Adds ``request_id`` to every record logged during a request."""

    def filter(self, record: logging.LogRecord) -> bool:
        if has_request_context() and not hasattr(record, "request_id"):
            record.request_id = g.get("request_id")
        return True


_QUOTED = re.compile(r"""(['"]).*\1""", re.S)
_QUERY = re.compile(r"\?\S*")


def without_client_text(text: str) -> str:
    """``text`` without what a client sent in it: gunicorn's messages quote the
    request line, header name or version it could not parse (``'…'``, from the
    first quote to the last: its quotes nest) and name the URI of a request
    that failed with its query string; either may hold a stream ticket, or a
    token sent where no token belongs. What remains says what was wrong."""
    return _QUERY.sub("?…", _QUOTED.sub("'…'", text))


class _Formatter(JsonFormatter):
    def format(self, record: logging.LogRecord) -> str:
        # gunicorn's own lines may quote what the client sent (see above); the
        # service's never do, and cost nothing more.
        if record.name.startswith("gunicorn"):
            message = record.getMessage()
            cleaned = without_client_text(message)
            if cleaned != message:
                record.msg, record.args = cleaned, None
        return super().format(record)


def json_formatter() -> logging.Formatter:
    """The formatter of every log line: JSON, ``timestamp`` in ISO 8601;
    gunicorn's lines without what a client sent (:func:`without_client_text`)."""
    return _Formatter(LOG_FORMAT, rename_fields={"asctime": "time", "levelname": "level"})


def configure(stream: TextIO | None = None, level: int = logging.INFO) -> None:
    """Send the service's logs (``referee``) to ``stream`` (stderr) as JSON
    lines; once per process."""
    if any(getattr(h, "_referee", False) for h in logger.handlers):
        return
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(json_formatter())
    handler.addFilter(RequestIdFilter())
    handler._referee = True  # type: ignore[attr-defined]
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False


QUIET_PROBES = frozenset({"health.Health", "health.Ready"})
"""Endpoints whose successful answers get no access line (``/healthz``,
``/readyz``); their failures do."""


def init_app(app: Flask) -> None:
    """Give every request an id, return it in ``X-Request-Id``, log an access
    line (not for a successful probe: :data:`QUIET_PROBES`)."""

    # Each hook looks the request and g up once (a context-variable lookup each).
    @app.before_request
    def _start() -> None:
        given = request.headers.get(REQUEST_ID_HEADER, "")
        here = g._get_current_object()
        here.request_id = given if _SAFE_ID.fullmatch(given) else uuid.uuid4().hex
        here.started = time.perf_counter()

    @app.after_request
    def _finish(response: Response) -> Response:
        here = g._get_current_object()
        req = request._get_current_object()  # type: ignore[attr-defined]
        request_id = here.get("request_id") or uuid.uuid4().hex
        response.headers[REQUEST_ID_HEADER] = request_id
        started = here.get("started")
        fields: dict[str, Any] = {
            "request_id": request_id,
            "method": req.method,
            "path": req.path,  # never the query string, never a header
            "status": response.status_code,
            "duration_ms": round((time.perf_counter() - started) * 1000, 1) if started else None,
        }
        # A probe that succeeds says nothing new, and every few seconds (a
        # flood of /healthz logged 200 KB/s): the metrics count it.
        if response.status_code >= 400 or req.endpoint not in QUIET_PROBES:
            logger.info("request", extra=fields)
        return response
