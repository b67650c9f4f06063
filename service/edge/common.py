"""What every blueprint shares: the referee's resources, the clock, documented errors."""

from __future__ import annotations

import hashlib
import json
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from inspect import iscoroutinefunction
from typing import Any, TypeVar

import marshmallow as ma
from flask import Flask, Request, Response, current_app, request
from flask_smorest import Blueprint
from flask_smorest.utils import deepupdate
from webargs.core import missing
from webargs.flaskparser import FlaskParser, is_json_request

from ..config import Settings
from ..storage.idempotency import IdempotencyStore
from ..storage.store import TableStore
from .inputs import load_json
from .json_answers import CompactJSONProvider
from .problems import PROBLEM_JSON, Problem

F = TypeVar("F", bound=Callable[..., Any])

TABLE_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
"""A table id's form (``fullmatch``: ``$`` would let a trailing newline in)."""

ERROR_TEXT = {
    400: "The body is not valid JSON, or the `Idempotency-Key` header is malformed.",
    401: "No token, a malformed one, or one that is not this table's (or a "
    "`Referee-Client-Key` this service did not issue: `client-key-unknown`).",
    403: "Another seat's token, or a seat's token where the host's is needed (or the reverse).",
    404: "No such table (or seat, or round).",
    411: "A body sent chunked (`Transfer-Encoding`): send it with a `Content-Length`.",
    412: "`If-None-Match` matches the table's current `ETag` (or is `*`): the table is as "
    "the caller last saw it, so the request was not carried out.",
    409: "The move does not fit the table's phase or its current round/exchange numbers.",
    410: "Events after `after` are no longer kept, or `after` is past the last event: re-read "
    "the table, then read on from its `last_event`.",
    413: "The body is larger than 64 KiB (a round record to check: 1 MiB).",
    415: "A body that is not `application/json`.",
    422: "Invalid values, or a move the rules forbid; `errors` says where.",
    429: "Over a rate limit; retry after `Retry-After` seconds.",
    503: "Redis is unreachable, the table is too contended, a newer release stored it, or "
    "replicas have not confirmed the move; retry after `Retry-After` seconds.",
}


@dataclass
class Referee:
    """Per-app resources: settings, the table store, the idempotency records
    and the random source."""

    settings: Settings
    store: TableStore
    idempotency: IdempotencyStore
    rng: random.SystemRandom


def referee() -> Referee:
    """The current app's :class:`Referee`."""
    return current_app.extensions["referee"]  # type: ignore[no-any-return]


def now_ms() -> int:
    """Wall-clock milliseconds since the epoch (claim windows are wall-clock)."""
    return int(time.time() * 1000)


def no_table() -> Problem:
    """The 404 for a table that does not exist (or no longer does)."""
    return Problem(404, "table-not-found", "There is no table with this id.")


def check_table_id(table_id: str) -> None:
    """404 for ids that cannot be ours, before they reach Redis."""
    if not TABLE_ID.fullmatch(table_id):
        raise no_table()


class RefereeFlask(Flask):
    """Flask, remembering which functions are coroutines, its answers'
    JSON written by orjson (:class:`CompactJSONProvider`).

    Flask asks :meth:`ensure_sync` of every hook and view on every request,
    and ``inspect.iscoroutinefunction`` walks the function each time (about
    a dozen times per request here). The answer never changes for a
    function, so it is kept, per function (a bound method by its function:
    a view's method is bound anew on every request). At most
    :data:`SYNC_CACHE_SIZE` functions are kept; others are asked each time."""

    SYNC_CACHE_SIZE = 1024
    json_provider_class = CompactJSONProvider

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._is_coroutine: dict[Any, bool] = {}

    def ensure_sync(self, func: Callable[..., Any]) -> Callable[..., Any]:
        key = getattr(func, "__func__", func)
        is_coroutine = self._is_coroutine.get(key)
        if is_coroutine is None:
            is_coroutine = iscoroutinefunction(func)
            if len(self._is_coroutine) < self.SYNC_CACHE_SIZE:
                self._is_coroutine[key] = is_coroutine
        return self.async_to_sync(func) if is_coroutine else func


FastLoad = Callable[[Any], "dict[str, Any] | None"]

FAST_BODIES: dict[type[ma.Schema], FastLoad] = {}
"""Schema class -> a loader of its usual bodies (see :func:`fast_body`)."""


def fast_body(schema: type[ma.Schema]) -> Callable[[FastLoad], FastLoad]:
    """Register ``load(json_value)`` as the fast path of ``schema``'s bodies:
    it returns exactly what ``schema().load`` returns for the bodies it
    recognises (the usual, valid ones), and ``None`` for every other body,
    which then takes webargs' and marshmallow's full path with its errors.
    The spec is unchanged: the schema documents the body as before."""

    def register(load: FastLoad) -> FastLoad:
        FAST_BODIES[schema] = load
        return load

    return register


_FLAT_TYPES: dict[type[ma.fields.Field[Any]], type] = {
    ma.fields.Integer: int,
    ma.fields.String: str,
    ma.fields.Boolean: bool,
}


@cache
def schema_of(schema: type[ma.Schema]) -> ma.Schema:
    """One instance of ``schema`` (made once, shared by every request, as
    flask-smorest's own are): a new instance builds its nested schemas
    again (issue 44)."""
    return schema()


def fast_dumping(schema: ma.Schema) -> ma.Schema:
    """``schema`` (an instance) with a ``dump`` that skips marshmallow's
    field-by-field walk for an answer that is already what it would dump:
    a dict whose values have exactly their fields' types (``int``, ``str``,
    ``bool``, ``None``, or a list or tuple of ``str`` or ``int`` for a
    ``List``), which is answered as a copy with the schema's keys (lists as
    lists). Anything else takes marshmallow's own ``dump``. Only for flat
    schemas of those fields, without hooks or renamed keys (``ValueError``
    otherwise); the spec is the schema's, unchanged."""
    checks: dict[str, tuple[type, bool]] = {}  # name -> (type, is a list)
    if schema._hooks["pre_dump"] or schema._hooks["post_dump"] or schema.many:
        raise ValueError(f"{type(schema).__name__} has dump hooks or many=True")
    for name, field in schema.dump_fields.items():
        is_list = type(field) is ma.fields.List
        inner = field.inner if is_list else field  # type: ignore[attr-defined]
        kind = _FLAT_TYPES.get(type(inner))
        plain = all(
            f.data_key is None and f.attribute is None and f.dump_default is ma.missing
            for f in (field, inner)
        )
        if kind is None or not plain or getattr(inner, "as_string", False):
            raise ValueError(f"{type(schema).__name__}.{name} is not a flat field")
        checks[name] = (kind, is_list)
    full = schema.dump

    def dump(obj: Any, *, many: bool | None = None) -> Any:
        if many is None and type(obj) is dict:
            done: dict[str, Any] = {}
            for name, (kind, is_list) in checks.items():
                if name not in obj:
                    continue
                value = obj[name]
                if value is None:
                    done[name] = None
                elif not is_list and type(value) is kind:
                    done[name] = value
                elif is_list and type(value) in (list, tuple):
                    if not all(type(item) is kind for item in value):
                        return full(obj)
                    done[name] = list(value)
                else:
                    return full(obj)
            return done
        return full(obj, many=many)

    schema.dump = dump  # type: ignore[method-assign]
    return schema


_PARSED = "referee.json"
"""The WSGI environ's key of a request's parsed body (:meth:`BodyParser._raw_load_json`)."""

UNREAD = object()
"""What :func:`parsed_body` gives for a request whose endpoint read no body."""


def parsed_body() -> Any:
    """The request's body as its endpoint's parser read it (once:
    :class:`BodyParser`): its JSON value, webargs' ``missing`` for an empty
    one, or :data:`UNREAD` when the endpoint reads no body (nor was one
    read yet: call it from a view, after its arguments are parsed)."""
    return request.environ.get(_PARSED, UNREAD)


class BodyParser(FlaskParser):
    """webargs' parser, stricter about the body it is given: a body that is not
    JSON is 415 rather than ignored (a submitted deal sent as a form must not
    become a shuffled deal), and JSON nested too deep for the parser is 400
    rather than a RecursionError, and so is a number Python cannot hold
    (:func:`.inputs.load_json`). The body is parsed once, here; a schema with
    a fast path (:func:`fast_body`) takes it for the bodies it recognises."""

    def parse(self, argmap: Any, req: Request | None = None, **kwargs: Any) -> Any:
        fast = FAST_BODIES.get(type(argmap))
        if fast is not None and kwargs.get("location") == "json" and not kwargs.get("validate"):
            request_ = req if req is not None else self.get_default_request()
            try:
                data = self._raw_load_json(request_)
            except json.JSONDecodeError:  # webargs' full path answers it (400)
                data = missing
            if data is not missing:
                loaded = fast(data)
                if loaded is not None:
                    return loaded
        return super().parse(argmap, req, **kwargs)

    def _raw_load_json(self, req: Request) -> Any:
        # Parsed once a request: the fast path, webargs' full path and its
        # error handling each asked again (three parses of a refused body).
        found = req.environ.get(_PARSED, UNREAD)
        if found is UNREAD:
            found = req.environ[_PARSED] = self._load_body(req)
        return found

    def _load_body(self, req: Request) -> Any:
        data = req.get_data(cache=True)  # over MAX_CONTENT_LENGTH: 413
        if not is_json_request(req):
            if data:
                raise Problem(
                    415,
                    "unsupported-media-type",
                    "Send the body as JSON with 'Content-Type: application/json'.",
                )
            return missing
        try:
            return load_json(data)
        except RecursionError:
            raise Problem(
                400, "malformed-request", "The request body is nested too deep."
            ) from None


CACHE_REVALIDATE = "no-cache"
"""``Cache-Control`` of a view with an ETag: a cache may keep it but must ask
again (``If-None-Match``) before each use: a table changes with every move."""


def none_match(etag: str) -> bool:
    """Whether the request's ``If-None-Match`` matches ``etag`` (RFC 9110 13.1.2:
    a list of entity tags or ``*``, compared weakly, so ``W/"x"`` matches ``"x"``)."""
    return request.if_none_match.contains_weak(etag)


class RefereeBlueprint(Blueprint):  # type: ignore[misc]
    """flask-smorest's Blueprint with :class:`BodyParser`, and conditional GETs
    as RFC 9110 has them: ``If-None-Match`` compared weakly, over a list or
    ``*``; the 304 carries the ``ETag``, ``Cache-Control`` and ``Vary`` the 200
    would have (flask-smorest compares strongly and answers a bare 304)."""

    ARGUMENTS_PARSER = BodyParser()

    # flask-smorest's doc() and alt_response() only document: each wraps the
    # view in a function that calls it through ``ensure_sync`` (a proxy lookup
    # and a coroutine check per layer, about ten layers per view). The view
    # keeps the documentation they build and is called directly.
    @staticmethod
    def doc(**kwargs: Any) -> Callable[[F], F]:
        return _documenting_only(Blueprint.doc(**kwargs))

    def alt_response(self, *args: Any, **kwargs: Any) -> Callable[[F], F]:
        return _documenting_only(super().alt_response(*args, **kwargs))

    def _check_not_modified(self, etag: str) -> None:
        """Decided in :meth:`_set_etag_in_response`, once the 200 is built."""

    def _set_etag_in_response(self, response: Response) -> None:
        super()._set_etag_in_response(response)
        if request.method in ("GET", "HEAD") and response.status_code == 200:
            response.headers.setdefault("Cache-Control", CACHE_REVALIDATE)
            not_modified(response)


def not_modified(response: Response) -> Response:
    """``response`` (a 200 with an ``ETag``) turned into a 304 where
    :func:`none_match` names its tag: no body, the same ``ETag``,
    ``Cache-Control`` and ``Vary`` (RFC 9110 15.4.5); unchanged otherwise."""
    etag, _ = response.get_etag()
    if etag is not None and none_match(etag):
        response.status_code = 304
        response.set_data(b"")
        for name in ("Content-Type", "Content-Length"):
            response.headers.pop(name, None)
    return response


_FROZEN: dict[str, tuple[bytes, str]] = {}


def frozen(name: str, build: Callable[[], bytes], cache_control: str) -> Response:
    """The JSON answer ``build()`` renders, rendered once per process under
    ``name``, with a strong ``ETag`` of its content and ``cache_control``;
    304 when ``If-None-Match`` names it (:func:`not_modified`). For pages that
    depend on the code alone and cost more to render than a probe: a flood of
    them from one address within its request budget held every worker
    (issue 39, sixth attacker's H2)."""
    found = _FROZEN.get(name)
    if found is None:
        body = build()
        found = _FROZEN[name] = (body, hashlib.sha256(body).hexdigest()[:32])
    body, etag = found
    answer = Response(body, 200, mimetype="application/json")
    answer.set_etag(etag)
    answer.headers["Cache-Control"] = cache_control
    return not_modified(answer)


def _documenting_only(decorator: Callable[[F], F]) -> Callable[[F], F]:
    """``decorator``'s documentation (``_apidoc``) put on the view itself,
    without the call-through wrapper it adds (our views are not coroutines).

    flask-smorest's documenting decorators deep-copy the documentation
    gathered so far (marshmallow schemas and all) each time, to spare the
    wrapped function's: about 0.3 s of every process's start for the views'
    eight or so answers each. Here the decorator documents a view with none
    gathered, and its entry is added to the view's own, as it adds it."""

    def apply(func: F) -> F:
        if iscoroutinefunction(func):
            return decorator(func)
        held = func.__dict__.pop("_apidoc", None)
        try:
            fresh = decorator(func)._apidoc  # type: ignore[attr-defined]
        finally:
            if held is not None:
                func._apidoc = held  # type: ignore[attr-defined]
        func._apidoc = _with_doc(held or {}, fresh)  # type: ignore[attr-defined]
        return func

    return apply


def _with_doc(held: dict[str, Any], fresh: dict[str, Any]) -> dict[str, Any]:
    """``held`` with ``fresh`` (what ``doc()`` or ``alt_response()`` wrote
    on a view with no documentation yet) added as flask-smorest adds it: the
    manual documentation updated (``deepupdate``), each status's answers and
    the success statuses appended."""
    for key, value in fresh.items():
        if key == "manual_doc":
            held["manual_doc"] = deepupdate(held.get("manual_doc", {}), value)
        elif key == "response" and set(value) == {"responses"}:
            answers = held.setdefault("response", {}).setdefault("responses", {})
            for status, docs in value["responses"].items():
                answers.setdefault(status, []).extend(docs)
        elif key == "success_status_codes":
            held.setdefault(key, []).extend(value)
        else:  # nothing these two decorators write
            raise ValueError(f"undocumented flask-smorest documentation key {key!r}")
    return held


def documented(blp: Blueprint, *statuses: int) -> Callable[[F], F]:
    """Document the problem+json answers ``statuses`` (and always 429 and 503)
    on a view; a view that reads a body (400) also answers 411, 413 and 415."""
    body = {411, 413, 415} if 400 in statuses else set()

    def decorate(func: F) -> F:
        for status in sorted({*statuses, *body, 429, 503}):
            func = blp.alt_response(
                status,
                # By reference (flask-smorest registers ERROR_SCHEMA, Problem,
                # at start): a schema instance here would be deep-copied with
                # each answer documented after it.
                schema={"$ref": "#/components/schemas/Problem"},
                description=ERROR_TEXT[status],
                content_type=PROBLEM_JSON,
            )(func)
        return func

    return decorate


SECURITY: list[dict[str, list[str]]] = [{"bearerAuth": []}]
