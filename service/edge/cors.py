"""Calls from web pages on other origins (CORS), answered by flask-cors.

``CORS_ORIGINS`` (see :mod:`service.config`) names the origins whose pages may
call the API (``http://localhost:*``: that loopback host on any port); unset,
no answer carries an ``Access-Control-*`` header and browsers let no other
origin read any answer. Set, every answer of the app
(2xx, problem+json 4xx/5xx, 404, 405, 429, 503) to a request whose ``Origin``
is allowed carries:

- ``Access-Control-Allow-Origin``: that origin (``*`` with ``CORS_ORIGINS=*``);
  with a list of origins every answer has ``Vary: Origin``;
- ``Access-Control-Expose-Headers``: :data:`EXPOSED_HEADERS`, the headers a
  client reads (``Content-Type`` and ``Cache-Control`` are readable anyway).

A preflight (``OPTIONS`` with ``Access-Control-Request-Method``) is answered
200 with ``Access-Control-Allow-Methods`` (:data:`METHODS`),
``Access-Control-Allow-Headers`` (those it asked for among
:data:`ALLOWED_HEADERS`) and ``Access-Control-Max-Age``
(:data:`MAX_AGE_SECONDS`). No request with credentials (cookies) is ever
allowed: the API's tokens travel in ``Authorization``, which needs none. A
preflight is counted by no rate limit and reads nothing from Redis
(:mod:`.limits` lets ``OPTIONS`` through). An origin not allowed gets no
``Access-Control-*`` header at all, so the browser refuses the call.

gunicorn's own error answers (:mod:`service.workers`) carry the same headers,
from :func:`error_page_headers`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response
from flask_cors import CORS
from flask_cors.core import get_cors_headers, get_cors_options
from werkzeug.datastructures import Headers

from ..config import Settings

ALLOWED_HEADERS = (
    "Authorization",
    "Cache-Control",
    "Content-Type",
    "Idempotency-Key",
    "If-Match",
    "If-None-Match",
    "Last-Event-ID",
    "Referee-Client-Key",
    "X-Request-Id",
)
"""Request headers a page may send: those the API reads (a client key is a
front end's server's; it is allowed here so that a page served by that
server through a proxy of its own is not refused either), and
``Cache-Control``, which fetch-based EventSource clients send with a
stream's request (the API ignores it)."""

EXPOSED_HEADERS = (
    "Allow",
    "ETag",
    "Idempotent-Replayed",
    "Location",
    "Retry-After",
    "WWW-Authenticate",
    "X-Request-Id",
)
"""Response headers the API sets that a page must be able to read."""

METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT")
"""The methods the API's routes take."""

MAX_AGE_SECONDS = 7200
"""How long a browser may reuse a preflight's answer (Chromium's ceiling)."""

EXTENSION = "referee_cors"


@dataclass(frozen=True, slots=True)
class Policy:
    """The CORS answers of one app: flask-cors's computed options, and the
    origin an answer can name when the request's headers were never read."""

    options: Any  # flask_cors.core._ComputedCorsOptions (private type)
    unread_origin: str | None


def cors_options(origins: tuple[str, ...]) -> dict[str, Any]:
    """flask-cors's options for ``CORS_ORIGINS`` ``origins`` (validated by
    :func:`service.config.check_origins`)."""
    wildcard = origins == ("*",)
    return {
        # An exact, case-insensitive match of each origin: as a plain string
        # flask-cors would take "http://[::1]:8080" for a regex.
        "origins": "*" if wildcard else [_exactly(origin) for origin in origins],
        "send_wildcard": wildcard,
        "supports_credentials": False,
        "methods": list(METHODS),
        "allow_headers": list(ALLOWED_HEADERS),
        "expose_headers": list(EXPOSED_HEADERS),
        "max_age": MAX_AGE_SECONDS,
        # No Origin, no CORS headers (flask-cors would otherwise list every origin).
        "always_send": False,
        # Its after_request sees every answer, errors included (Flask runs it
        # after each error handler); wrapping the handlers would do it twice.
        "intercept_exceptions": False,
        "vary_header": False,  # init_app's own, on every answer (flask-cors: on some)
    }


def _exactly(origin: str) -> re.Pattern[str]:
    if origin.endswith(":*"):  # a loopback host on any port (service.config)
        return re.compile(re.escape(origin[:-2]) + r"(?::[0-9]{1,5})?\Z", re.IGNORECASE)
    return re.compile(re.escape(origin) + r"\Z", re.IGNORECASE)


def init_app(app: Flask, settings: Settings) -> None:
    """Answer cross-origin calls from ``settings.cors_origins`` (nothing when
    none): register it first, so that its ``after_request`` runs last, on
    every header the other hooks set."""
    origins = settings.cors_origins
    if not origins:
        return
    options = cors_options(origins)
    CORS(app, **options)
    # One allowed origin (or all) can be named without reading the request.
    named = len(origins) == 1 and not origins[0].endswith(":*")
    unread = "*" if origins == ("*",) else origins[0] if named else None
    app.extensions[EXTENSION] = Policy(get_cors_options(app, options), unread)
    if origins != ("*",):

        @app.after_request
        def _vary(response: Response) -> Response:
            # Every answer depends on the Origin (an answer to a request with
            # none has no Access-Control-Allow-Origin): a cache must not hand
            # one origin's answer to another, nor a curl's to a browser.
            response.vary.add("Origin")
            return response


def error_page_headers(
    app: Any, request_headers: Iterable[tuple[str, str]] | None, method: str | None
) -> list[tuple[str, str]]:
    """The CORS headers of an answer gunicorn makes itself, to a request whose
    headers are ``request_headers`` (None: gunicorn stopped before reading them,
    at a request line too long or headers too large) and method ``method``;
    ``app`` is the worker's WSGI app. Unread headers: with ``CORS_ORIGINS=*``
    or one origin that origin is named (a page on another origin is refused by
    its browser anyway); with several, none can be, and the answer has none."""
    policy: Policy | None = getattr(app, "extensions", {}).get(EXTENSION)
    if policy is None:
        return []
    headers = Headers(list(request_headers or ()))
    if request_headers is None:
        if policy.unread_origin is None:
            return []
        headers["Origin"] = policy.unread_origin
    found = get_cors_headers(policy.options, headers, (method or "GET").upper())
    return [(name, str(value)) for name, value in found.items(multi=True)]
