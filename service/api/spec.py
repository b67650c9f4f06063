"""The OpenAPI side of the app: an ``Api`` whose error responses are problem+json,
and the text of the spec's description (error codes, event types)."""

from __future__ import annotations

import http
from typing import Any

from flask_smorest import Api
from flask_smorest.utils import prepare_response

from .problems import PROBLEM_JSON
from .schemas import ProblemSchema


class RefereeApi(Api):  # type: ignore[misc]
    """flask-smorest's ``Api``, documenting every error as RFC 9457 problem+json."""

    ERROR_SCHEMA = ProblemSchema

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
`Idempotent-Replayed: true`, and acts no second time (for 24 hours, the
newest 32 answers per token and table; deleting the table deletes them). `PUT` of a pass is
idempotent by itself. Every answer carries `X-Request-Id` (yours, if you sent
one of 1..64 characters `A-Z a-z 0-9 . _ -`).

## Errors

Every error is RFC 9457 `application/problem+json` with a stable `code`; invalid
input adds `errors: [{pointer | parameter, detail}]` (the first 50) and
`errors_total` (how many in all); every 409 adds
`current_round`, `current_exchange`, `round_status` and `waiting_for` (the seats
whose pass is awaited).

| status | codes |
|---|---|
| 400 | `malformed-request` (not JSON, nested too deep, or an integer of more than 4,300 digits), `idempotency-key-invalid` |
| 401 | `token-missing`, `token-malformed`, `token-unknown` (also: a call that needs a token, on a table that does not exist) |
| 403 | `host-only`, `seat-only`, `wrong-seat` |
| 404 | `not-found` (also: a path number in digits other than ASCII `0-9`), `table-not-found`, `seat-not-found`, `round-not-found` |
| 409 | `idempotency-key-in-use` (with `Retry-After`), `round-in-play`, `no-round-in-play`, `stale-round`, `stale-exchange`, `not-your-turn`, `round-over`, `claim-window-closed`, `declaration-automatic`, `match-over` |
| 410 | `events-gone` (with `oldest_seq` and `last_event`: the events after `after` are no longer all kept, or `after` is past the last event) |
| 413 | `body-too-large` (64 KiB, with a `Content-Length` or chunked) |
| 415 | `unsupported-media-type` (a body that is not `application/json`) |
| 422 | `idempotency-key-reused`, `invalid-request` (schema), `unknown-variant`, `options-invalid`, `deal-invalid`, `pass-invalid`, `hand-invalid`, `claim-not-winning` |
| 429 | `rate-limited` (with `Retry-After`): per valid token of the table a request names; any other request (no token, a bearer value that is not a token of that table, a route without a table, an unknown path or method) per client address |
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
