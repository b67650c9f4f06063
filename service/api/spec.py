"""The OpenAPI side of the app: an ``Api`` whose error responses are problem+json,
and the text of the spec's description (error codes, event types)."""

from __future__ import annotations

import http
from typing import Any

from apispec.ext.marshmallow import MarshmallowPlugin
from apispec.ext.marshmallow.common import resolve_schema_instance
from apispec.ext.marshmallow.openapi import OpenAPIConverter
from flask_smorest import Api
from flask_smorest.utils import prepare_response

from .problems import PROBLEM_JSON
from .schemas import ProblemSchema, StrictSchema


class StrictConverter(OpenAPIConverter):
    """apispec's converter, writing ``additionalProperties: false`` for every
    request schema (``StrictSchema``: unknown members are refused). apispec
    itself leaves it out of any schema that has a description."""

    def schema2jsonschema(self, schema: Any) -> dict[str, Any]:
        jsonschema: dict[str, Any] = super().schema2jsonschema(schema)  # type: ignore[no-untyped-call]
        if isinstance(resolve_schema_instance(schema), StrictSchema):
            jsonschema["additionalProperties"] = False
        return jsonschema


class StrictMarshmallowPlugin(MarshmallowPlugin):
    Converter = StrictConverter


class RefereeApi(Api):  # type: ignore[misc]
    """flask-smorest's ``Api``, documenting every error as RFC 9457 problem+json
    and every request schema as closed (``additionalProperties: false``)."""

    ERROR_SCHEMA = ProblemSchema

    def _init_spec(self, **kwargs: Any) -> None:
        kwargs.setdefault("marshmallow_plugin", StrictMarshmallowPlugin())
        super()._init_spec(**kwargs)

    def _register_responses(self) -> None:
        # flask-smorest's own method, with the error media type ours.
        for status in http.HTTPStatus:
            response: dict[str, Any] = {"description": status.phrase}
            content_type = self.DEFAULT_RESPONSE_CONTENT_TYPE
            if status >= 400:
                response["schema"] = self.ERROR_SCHEMA
                content_type = PROBLEM_JSON
            prepare_response(response, self.spec, content_type)
            self.spec.components.response(status.name, response, lazy=True)
        response = {
            "description": "An error, as RFC 9457 problem details.",
            "schema": ProblemSchema,
        }
        prepare_response(response, self.spec, PROBLEM_JSON)
        self.spec.components.response(self.DEFAULT_ERROR_RESPONSE_NAME, response, lazy=True)


DESCRIPTION = """\
A rules referee for My Ship Sails and its family (RULES.md section 2 of the rule
book). It deals or checks a deal, takes each seat's secret passes, resolves
simultaneous exchanges, validates claims and keeps score. Tokens go only in
`Authorization: Bearer <token>`.

Every POST accepts an `Idempotency-Key` header (IETF httpapi draft): a retry
with the same key and request gets the first answer again, marked
`Idempotent-Replayed: true`, and acts no second time. `PUT` of a pass is
idempotent by itself. Every answer carries `X-Request-Id` (yours, if you sent
one of 1..64 characters `A-Z a-z 0-9 . _ -`).

## Conditional requests

`GET /v1/tables/{table_id}` carries an `ETag` and `Cache-Control: no-cache`.
`If-None-Match` (RFC 9110 13.1.2) takes a list of entity tags or `*`, compared
weakly (`W/"x"` matches `"x"`): on a `GET` or `HEAD` a match is 304 with the
same `ETag` and `Cache-Control`, no body; on `DELETE` of the table a match is
412 `precondition-failed` and nothing is deleted. Other resources have no
validators and ignore the header.

## Input

Request bodies are strict JSON: a member has the JSON type the schema gives it,
never a string standing for it. Integers are JSON numbers without a fraction
(`"5"` and `5.5` are refused), booleans are `true` or `false` only (`"yes"`,
`"false"`, `1` and `0` are refused), strings are JSON strings. Members a schema
does not name are refused (422 `invalid-request`, "Unknown field"): every
request schema says `additionalProperties: false`. Player names and `call` are
kept as typed but refused when they hold a character of Unicode category Cc,
Cf, Co, Cs, Cn, Zl or Zp (controls, format and direction-changing characters
such as U+202E, private use, lone surrogates, unassigned, separators) or have no
visible character (blank). `hands: null` on a deal shuffles, as no `hands` does.

## Errors

Every error is RFC 9457 `application/problem+json` with a stable `code` and a
`type` of `/problems/{code}`: `GET` that page (HTML, served here) for what the
code means and what to do. Invalid
input adds `errors: [{pointer | parameter, detail}]`; every 409 adds
`current_round`, `current_exchange`, `round_status` and `waiting_for` (the seats
whose pass is awaited).

| status | codes |
|---|---|
| 400 | `malformed-request` (not JSON, or nested too deep), `idempotency-key-invalid` |
| 401 | `token-missing`, `token-malformed`, `token-unknown` (also: a call that needs a token, on a table that does not exist) |
| 403 | `host-only`, `seat-only`, `wrong-seat` |
| 404 | `not-found`, `table-not-found`, `seat-not-found`, `round-not-found` |
| 409 | `idempotency-key-in-use` (with `Retry-After`), `round-in-play`, `no-round-in-play`, `stale-round`, `stale-exchange`, `not-your-turn`, `round-over`, `claim-window-closed`, `declaration-automatic`, `match-over` |
| 410 | `events-gone` (with `oldest_seq` and `last_event`: the events after `after` are no longer all kept, or `after` is past the last event) |
| 412 | `precondition-failed` (`If-None-Match` on a `DELETE` matches the table's `ETag`) |
| 413 | `body-too-large` (64 KiB) |
| 415 | `unsupported-media-type` (a body that is not `application/json`) |
| 422 | `idempotency-key-reused`, `invalid-request` (schema), `unknown-variant`, `options-invalid`, `deal-invalid`, `pass-invalid`, `hand-invalid`, `claim-not-winning` |
| 429 | `rate-limited` (with `Retry-After`) |
| 503 | `redis-unavailable`, `table-busy` (with `Retry-After`) |

## Events

`GET /v1/tables/{table_id}/events` lists public events; each has `seq`, `at_ms`
(server time, ms since the epoch) and `type`. Only the newest events of a table
are kept (48 by default): a cursor `after` older than those, or past the last
event, is 410 `events-gone`; re-read the table and read on from its `last_event`.

| type | members |
|---|---|
| `table-created` | `variant`, `seats` |
| `first-dealer-drawn` | `draw`: per pass of the draw, one card per seat (`null`: not drawing) |
| `round-dealt` | `round`, `dealer`, `direction`, `submitted` |
| `pass-chosen` | `round`, `exchange`, `seat` (never the cards; a replaced choice logs nothing) |
| `exchange-resolved` | `round`, `exchange` |
| `claim-accepted` | `round`, `seat`, `hand` (shown, as the rules require) |
| `claim-rejected` | `round`, `seat` (never the cards) |
| `round-won`, `round-void` | `round`, `dealer`, `exchanges`, `winners`, `settled_by`, `hands`, `chips` |
| `round-abandoned` | `round` |
| `match-won`, `match-finished`, `match-abandoned` | `status`, `winners`, `fastest_win` |
"""
