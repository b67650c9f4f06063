"""RFC 9457 problem details: every error the service answers.

A problem body is ``{"type", "title", "status", "detail", "code", "errors"?,
...extra}`` with media type ``application/problem+json``. ``code`` is stable and
machine-readable; ``errors`` lists ``{"pointer", "detail"}`` for body fields
(RFC 6901 JSON pointers) or ``{"parameter", "detail"}`` for query, path and
header parameters. ``errors`` lists at most :data:`MAX_LISTED` of them, the
first ones; ``errors_total`` says how many there were (a 54 KB body of 9,000
bad cards once answered 1.4 MB of errors). Every list of problems an answer
carries is cut the same way (:func:`capped`: the checks' ``problems`` with
``problems_total``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from http import HTTPStatus
from typing import Any, TypeVar

from flask import Flask, Response, json
from werkzeug.exceptions import HTTPException

from ..games.errors import RULES_OF_CODE, Kind, RuleViolation
from . import rules_links

PROBLEM_JSON = "application/problem+json"
TYPE_BASE = "/problems/"
"""Problem ``type`` URIs are this absolute path plus the code: the service serves
the code's page there (:mod:`.problem_pages`)."""

MAX_LISTED = 50
"""The most problems one answer lists (``errors``, ``problems``)."""

MAX_TEXT = 120
"""The most characters of one error's ``pointer`` or ``parameter`` in an
answer (longer: cut, with ``…``). A pointer repeats its members' names,
which the caller wrote: fifty pointers under a 32,000-letter name made a
19 MB answer to a 64 KiB body (issue 39, fourteenth attacker). An error's
``detail`` is the service's own sentence."""

DETAIL_NAMES = 3
"""The most errors an ``invalid-request``'s ``detail`` names (the rest are
counted; ``errors`` lists them): fifty in the detail repeated the whole list
(a 1.8 KB body answered 19 KB; issue 39, fifteenth attacker)."""

ECHOED = frozenset(("pointer", "parameter"))
"""The members of an error that echo what the caller sent."""

T = TypeVar("T")


def clipped(text: str) -> str:
    """``text`` cut to :data:`MAX_TEXT` characters (its last one ``…``)."""
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def capped(items: Sequence[T]) -> tuple[list[T], int]:
    """The first :data:`MAX_LISTED` of ``items`` and how many there are in all."""
    return list(items[:MAX_LISTED]), len(items)


STATUS_OF_KIND = {Kind.INVALID: 422, Kind.CONFLICT: 409, Kind.NOT_FOUND: 404}


class Problem(Exception):
    """An error answer: ``status`` (HTTP), ``code`` (stable), ``detail`` (a
    sentence), ``errors`` (per field), ``extra`` (more members of the body),
    ``headers`` (such as ``Retry-After``)."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        errors: list[dict[str, str]] | None = None,
        extra: Mapping[str, Any] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.errors = errors
        self.extra = dict(extra or {})
        self.headers = dict(headers or {})

    @classmethod
    def from_violation(cls, violation: RuleViolation) -> Problem:
        """The answer to a refused move, with ``rules``: the rules page that
        explains the refusal (the index of the games' pages when the code is
        not one game's)."""
        page, _, anchor = RULES_OF_CODE.get(violation.code, "").partition("#")
        rules = rules_links.served(page, anchor) if page else None
        return cls(
            STATUS_OF_KIND[violation.kind],
            violation.code,
            violation.detail,
            [{"pointer": e.pointer, "detail": e.detail} for e in violation.errors] or None,
            {"rules": rules or "/docs/rules/", **violation.extra},
        )

    def body(self) -> dict[str, Any]:
        """The problem details object."""
        body: dict[str, Any] = {
            "type": TYPE_BASE + self.code,
            "title": HTTPStatus(self.status).phrase,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }
        body.update(self.extra)
        if self.errors:
            listed, body["errors_total"] = capped(self.errors)
            body["errors"] = [
                {k: clipped(v) if k in ECHOED else v for k, v in e.items()} for e in listed
            ]
        return body

    def response(self) -> Response:
        """The problem as a Flask response."""
        response = Response(json.dumps(self.body()), status=self.status, mimetype=PROBLEM_JSON)
        for name, value in self.headers.items():
            response.headers[name] = value
        return response


def _flatten(messages: Any, prefix: str) -> list[tuple[str, str]]:
    """webargs/marshmallow nested messages as (pointer, message) pairs."""
    if isinstance(messages, Mapping):
        pairs: list[tuple[str, str]] = []
        for key, value in messages.items():
            segment = (
                "" if key == "_schema" else "/" + str(key).replace("~", "~0").replace("/", "~1")
            )
            pairs.extend(_flatten(value, prefix + segment))
        return pairs
    if isinstance(messages, list | tuple):
        if all(isinstance(m, str) for m in messages):
            return [(prefix, m) for m in messages]
        return [p for m in messages for p in _flatten(m, prefix)]
    return [(prefix, str(messages))]


def validation_errors(messages: Mapping[str, Any]) -> list[dict[str, str]]:
    """Turn webargs' ``{"json": {...}, "query": {...}}`` into problem ``errors``."""
    errors: list[dict[str, str]] = []
    for location, inner in messages.items():
        for path, message in _flatten(inner, ""):
            if location == "json":
                errors.append({"pointer": path, "detail": message})
            else:
                errors.append({"parameter": f"{location}:{path.lstrip('/')}", "detail": message})
    return errors


_CODES_OF_STATUS = {
    400: "malformed-request",
    401: "unauthorized",
    403: "forbidden",
    404: "not-found",
    405: "method-not-allowed",
    406: "not-acceptable",
    408: "request-timeout",
    409: "conflict",
    412: "precondition-failed",
    413: "body-too-large",
    415: "unsupported-media-type",
    422: "invalid-request",
    428: "precondition-required",
    500: "internal-error",
}


def http_exception_problem(error: HTTPException) -> Problem:
    """A werkzeug/webargs HTTP error as a problem, keeping its headers (``Allow``)."""
    problem = _problem_of(error)
    kept = {k: v for k, v in error.get_headers() if k.lower() != "content-type"}
    problem.headers = {**kept, **problem.headers}
    return problem


def invalid_request(errors: list[dict[str, str]]) -> Problem:
    """422 ``invalid-request`` for ``errors`` (each ``{"pointer" or
    "parameter", "detail"}``), its detail naming the first
    :data:`DETAIL_NAMES` of them: what the schemas refuse, and a handler's
    checks that need the token first."""
    named = errors[:DETAIL_NAMES]
    detail = "The request has invalid values: " + "; ".join(
        f"{clipped(e.get('pointer') or e.get('parameter') or '/')}: {e['detail']}" for e in named
    )
    if len(errors) > len(named):
        detail += f"; and {len(errors) - len(named)} more"
    return Problem(422, "invalid-request", detail, errors)


def _problem_of(error: HTTPException) -> Problem:
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    messages = data.get("messages") or data.get("errors")
    if status == 422 and messages:
        return invalid_request(validation_errors(messages))
    if status == 400:
        detail = data.get("message") or "The request body is not valid JSON."
        where = validation_errors(messages) if isinstance(messages, Mapping) else None
        return Problem(400, "malformed-request", str(detail), where)
    detail = data.get("message") or error.description or HTTPStatus(status).phrase
    return Problem(status, _CODES_OF_STATUS.get(status, "http-error"), str(detail))


def register(app: Flask) -> None:
    """Answer every error of ``app`` as problem+json (bad input never gives a 500)."""

    @app.errorhandler(Problem)
    def _problem(problem: Problem) -> Response:
        return problem.response()

    @app.errorhandler(RuleViolation)
    def _violation(violation: RuleViolation) -> Response:
        return Problem.from_violation(violation).response()
