"""The OpenAPI side of the app: an ``Api`` whose error responses are problem+json,
and the text of the spec's description (error codes, event types)."""

from __future__ import annotations

import http
import re
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
        instance = resolve_schema_instance(schema)
        if isinstance(instance, StrictSchema):
            jsonschema["additionalProperties"] = False
        # What one field cannot say (e.g. a turn is a play or a pass): a
        # schema's own ``json_schema`` keywords, such as ``oneOf``.
        jsonschema.update(getattr(instance.Meta, "json_schema", {}))
        return jsonschema


class StrictMarshmallowPlugin(MarshmallowPlugin):
    Converter = StrictConverter


class RefereeApi(Api):  # type: ignore[misc]
    """flask-smorest's ``Api``, documenting every error as RFC 9457 problem+json
    and every request schema as closed (``additionalProperties: false``); its
    spec cites the rules as links to the served rules pages (:func:`link_rules`)."""

    ERROR_SCHEMA = ProblemSchema

    def _init_spec(self, **kwargs: Any) -> None:
        kwargs.setdefault("marshmallow_plugin", StrictMarshmallowPlugin())
        super()._init_spec(**kwargs)

    def init_app(self, app: Any, *args: Any, **kwargs: Any) -> None:
        super().init_app(app, *args, **kwargs)
        to_dict = self.spec.to_dict
        self.spec.to_dict = lambda: _linked(to_dict())

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
A rules referee for card games: My Ship Sails and its family (RULES.md 2) and
Sevens, also called Parliament or Fan Tan (RULES.md 3). It deals or checks a
deal, takes each seat's secret moves, resolves simultaneous ones, validates
claims and keeps score. `GET /v1/games` lists the games and their presets;
every table endpoint works for every game (`game` in a table's view says
which), and each game adds its own moves: passes and claims for My Ship Sails,
numbered turns for Sevens. The rules each game enforces, with every choice the
referee made: [the rules pages](/docs/rules/). Tokens go only in
`Authorization: Bearer <token>`.

Every POST accepts an `Idempotency-Key` header (IETF httpapi draft): a retry
with the same key and request gets the first answer again, marked
`Idempotent-Replayed: true`, and acts no second time (for 24 hours, the
newest 32 answers per token and table; deleting the table deletes them). `PUT` of a pass or
of a Sevens turn is idempotent by itself. Every answer carries `X-Request-Id` (yours, if you sent
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
code means and what to do. Invalid input adds `errors: [{pointer | parameter,
detail}]` (the first 50) and `errors_total` (how many in all); every 409 adds
`current_round`, `round_status` and `waiting_for` (the seats whose move is
awaited), with `current_exchange` (My Ship Sails) or `current_turn` and
`on_turn` (Sevens). A refusal by a game's rules carries `rules`, the link to
the rules page that explains it.

| status | codes |
|---|---|
| 400 | `malformed-request` (not JSON, nested too deep, or an integer of more than 4,300 digits), `idempotency-key-invalid` |
| 401 | `token-missing`, `token-malformed`, `token-unknown` (also: a call that needs a token, on a table that does not exist) |
| 403 | `host-only`, `seat-only`, `wrong-seat` |
| 404 | `not-found` (also: a path number in digits other than ASCII `0-9`), `table-not-found`, `seat-not-found`, `round-not-found`, `move-not-in-game` (a move of one game on a table of another) |
| 409 | `idempotency-key-in-use` (with `Retry-After`), `round-in-play`, `no-round-in-play`, `stale-round`, `stale-exchange`, `stale-turn`, `not-your-turn`, `round-over`, `claim-window-closed`, `declaration-automatic`, `match-over` |
| 410 | `events-gone` (with `oldest_seq` and `last_event`: the events after `after` are no longer all kept, or `after` is past the last event) |
| 412 | `precondition-failed` (`If-None-Match` on a `DELETE` matches the table's `ETag`) |
| 413 | `body-too-large` (64 KiB, with a `Content-Length` or chunked) |
| 415 | `unsupported-media-type` (a body that is not `application/json`) |
| 422 | `idempotency-key-reused`, `invalid-request` (schema), `unknown-variant`, `options-invalid`, `deal-invalid`, `wrong-game` (a check of one game for another's preset); My Ship Sails: `pass-invalid`, `hand-invalid`, `claim-not-winning`; Sevens: `play-invalid`, `not-playable` (with the `rows` of its suit), `must-open`, `must-play` (with `playable_count`, never which cards), `voluntary-pass-limit`, `last-card-invalid` |
| 429 | `rate-limited` (with `Retry-After`): per valid token of the table a request names; any other request (no token, a bearer value that is not a token of that table, a route without a table, an unknown path or method) per client address; and every request per client address, whatever tokens it holds |
| 503 | `redis-unavailable`, `table-busy` (with `Retry-After`) |

## Events

`GET /v1/tables/{table_id}/events` lists public events; each has `seq`, `at_ms`
(server time, ms since the epoch) and `type`. Only the newest events of a table
are kept (48 by default): a cursor `after` older than those, or past the last
event, is 410 `events-gone`; re-read the table and read on from its `last_event`.

| type | members |
|---|---|
| every game | |
| `table-created` | `variant`, `seats` |
| `first-dealer-drawn` | `draw`: per pass of the draw, one card per seat (`null`: not drawing) |
| `round-abandoned` | `round` |
| My Ship Sails | |
| `round-dealt` | `round`, `dealer`, `direction`, `submitted` |
| `pass-chosen` | `round`, `exchange`, `seat` (never the cards; a replaced choice logs nothing) |
| `exchange-resolved` | `round`, `exchange` |
| `claim-accepted` | `round`, `seat`, `hand` (shown, as the rules require) |
| `claim-rejected` | `round`, `seat` (never the cards) |
| `round-won`, `round-void` | `round`, `dealer`, `exchanges`, `winners`, `settled_by`, `hands`, `chips`, `set_aside` (a `full` deck's cards nobody was dealt, shown once the round is over) |
| `match-won`, `match-finished`, `match-abandoned` | `status`, `winners`, `fastest_win` |
| Sevens | |
| `round-dealt` | `round`, `dealer`, `submitted`, `opening_suit`, `opener` |
| `card-played` | `round`, `turn`, `seat`, `card`, `last_card` |
| `passed` | `round`, `turn`, `seat`, `chips` (paid into the pot); never whether the seat could have played |
| `last-card-missed` | `round`, `turn`, `seat`, `chips` (2, into the pot) |
| `round-won` | `round`, `dealer`, `winner`, `pot`, `cards_left`, `penalties` (`null` unless `points` is `losers-score`), `points` (the hands left stay hidden) |
| `match-won`, `match-finished`, `match-abandoned` | `status`, `winners` |
| May I? | |
| `round-dealt` | `round`, `dealer`, `submitted`, `contract`, `discard` (the first discard, face up), `stock` (a count) |
| `discard-taken`, `discard-declined` | `round`, `move`, `seat`, `card` (the discard: public) |
| `stock-drawn` | `round`, `move`, `seat`, `count` (never the card) |
| `laid-down` | `round`, `move`, `seat`, `melds` (`id`, `kind`, `cards`) |
| `laid-off` | `round`, `move`, `seat`, `card`, `meld`, `end` |
| `discarded` | `round`, `move`, `seat`, `card` |
| `may-i-offered` | `round`, `offer`, `card`, `until_ms` |
| `may-i-asked` | `round`, `offer`, `seat`, `card` |
| `may-i-answered` | `round`, `offer`, `seat`, `allow` |
| `may-i-given` | `round`, `offer`, `seat` (who takes it), `card`, `stock_cards` (a count), `asker` |
| `may-i-lapsed` | `round`, `offer` (nobody asked) |
| `stock-reshuffled` | `round`, `cards` (a count) |
| `went-out` | `round`, `seat` |
| `round-blocked` | `round` (every seat has laid down and no card left out of the melds fits one: nobody can go out; the round ends with nobody out) |
| `lay-off-done` | `round`, `seat`, `auto` (skipped: it could place no card) |
| `round-over` | `round`, `dealer`, `out`, `cards_left`, `penalties`, `points` (counts and values) |
| `match-won`, `match-abandoned` | `status`, `winners` |
"""

RULES_PAGES = {
    "1": ("my-ship-sails", "cards", "cards and seats"),
    "2": ("my-ship-sails", "", "My Ship Sails"),
    "2.1": ("my-ship-sails", "the-goal", "the goal"),
    "2.2": ("my-ship-sails", "options", "options"),
    "2.3": ("my-ship-sails", "decks", "decks"),
    "2.4": ("my-ship-sails", "the-deal", "the deal"),
    "2.5": ("my-ship-sails", "passing", "passing"),
    "2.6": ("my-ship-sails", "declaring", "declaring"),
    "2.7": ("my-ship-sails", "simultaneous-winners", "simultaneous winners"),
    "2.8": ("my-ship-sails", "rounds", "rounds and the match"),
    "2.9": ("my-ship-sails", "presets", "presets"),
    "2.10": ("my-ship-sails", "worked-example", "the worked example"),
    "2.11": ("my-ship-sails", "referees-choices", "the referee's choices"),
    "3": ("sevens", "", "Sevens"),
    "3.1": ("sevens", "goal", "the goal"),
    "3.2": ("sevens", "players-and-cards", "players, decks and the deal"),
    "3.3": ("sevens", "the-layout", "the layout"),
    "3.4": ("sevens", "opening-and-turns", "opening and turns"),
    "3.5": ("sevens", "end-of-a-round-and-scoring", "the end of a round and scoring"),
    "3.6": ("sevens", "presets", "presets"),
    "4": ("may-i", "", "May I?"),
    "4.1": ("may-i", "players-and-cards", "players and cards"),
    "4.2": ("may-i", "melds", "melds"),
    "4.3": ("may-i", "contracts", "contracts"),
    "4.4": ("may-i", "the-deal", "the deal"),
    "4.5": ("may-i", "a-turn", "a turn"),
    "4.6": ("may-i", "may-i", "May I?"),
    "4.7": ("may-i", "ending-a-round", "ending a round"),
    "4.8": ("may-i", "scoring-and-the-match", "scoring and the match"),
}
"""The rule book's sections, as the rules pages the service serves (the rule
book itself is the team's; users read ``docs/rules/``)."""

_CITATION = re.compile(r"RULES\.md(?:\s+section)?\s+(\d+(?:\.\d+)?)((?:,\s*\d+(?:\.\d+)?)*)")


def _link(section: str) -> str:
    page, anchor, words = RULES_PAGES.get(section) or RULES_PAGES[section.split(".")[0]]
    game = {"my-ship-sails": "My Ship Sails", "sevens": "Sevens"}.get(page, "May I?")
    title = words if words in (game,) else f"{game}: {words}"
    return f"[{title}](/docs/rules/{page}.md{'#' + anchor if anchor else ''})"


def link_rules(text: str) -> str:
    """``text`` with each citation of the rule book (``RULES.md 2.4``,
    ``RULES.md 2.9, 3.6``) made a link to the rules page that explains it."""

    def cite(match: re.Match[str]) -> str:
        sections = [match.group(1), *re.findall(r"\d+(?:\.\d+)?", match.group(2))]
        return ", ".join(_link(s) for s in sections)

    return _CITATION.sub(cite, text)


def _linked(value: Any) -> Any:
    if isinstance(value, str):
        return link_rules(value)
    if isinstance(value, dict):
        return {k: _linked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_linked(v) for v in value]
    return value
