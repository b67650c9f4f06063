"""The rules a schema-valid request may still break, which no JSON Schema
(OpenAPI 3.0) can state: each is named in the spec's description
(``service.spec.per_game.UNSTATED``), and these functions tell them apart
for the contract tests (tests/contract) and the schemathesis hooks
(tests/contract/hooks.py). Nothing here registers anything with schemathesis.
"""

from __future__ import annotations

import random
import unicodedata
from typing import Any

from service.edge.ignorable import ignorable
from service.edge.names import bot_like
from service.games import game_of_variant
from service.games.errors import CODES, RuleViolation
from service.spec.fields import INVISIBLE, _visible

RULE_CODES = {*CODES, "idempotency-key-reused", "events-gone", "precondition-failed"}
"""Refusals of a schema-valid request that the schema cannot foresee: the
rules of the game (a deal, hand, meld or layout it cannot hold, a card not in
the hand, a stale number), a key used before with another body, a cursor the
log cannot go on from, an ``If-None-Match`` that matches (the client's own
precondition)."""

TEXT_POINTERS = ("/players/", "/options/call", "/name")
"""Where a body holds text that the invisible-character rule judges."""


NAMED_PRESET = {
    "/v1/tables",
    "/v1/checks/deal",
    "/v1/checks/claim",
    "/v1/checks/exchange",
    "/v1/checks/sevens/play",
}
"""The operations (POST) whose body names a preset and its options."""


def refused_text(value: Any) -> bool:
    """Whether the service's documented text rule refuses ``value``."""
    return isinstance(value, str) and (
        any(unicodedata.category(ch) in INVISIBLE or ignorable(ch) for ch in value)
        or not any(_visible(ch) for ch in value)
    )


def refused_name(value: Any) -> bool:
    """Whether a person's name ``value`` is refused: the text rule, or a
    bot's name (RULES.md 5.1)."""
    return refused_text(value) or (isinstance(value, str) and bot_like(value))


def breaks_an_unstated_rule(path: str, body: Any) -> bool:
    """Whether ``body`` of the POST to ``path`` breaks a rule that a body
    alone shows: ``first_dealer`` past the last seat, options that make no
    consistent game with their preset (its ``create_table`` judges), a
    name or ``call`` with an invisible character, or a person's name that
    passes for a bot's."""
    if not isinstance(body, dict):
        return False
    if refused_name(body.get("name")) or refused_text((body.get("options") or {}).get("call")):
        return True
    players = body.get("players")
    if isinstance(players, list) and any(refused_name(p) for p in players if p is not None):
        return True
    if path not in NAMED_PRESET or not isinstance(body.get("options", {}), dict):
        return False
    if players is None and isinstance(body.get("hands"), list):
        players = body["hands"]  # a check that takes one hand a seat
    count = len(players) if isinstance(players, list) else players
    if not isinstance(count, int):
        return False
    first = body.get("first_dealer", "draw")
    if isinstance(first, int) and not isinstance(first, bool) and first >= count:
        return True
    variant = body.get("variant", "classic")
    try:
        game = game_of_variant(variant)
    except (RuleViolation, TypeError):  # no preset of that name: refused as such
        return False
    names = [f"P{i}" for i in range(count)]
    try:
        game.create_table(variant, body.get("options", {}), names, 0, random.Random(0))
    except RuleViolation as refused:
        return refused.code == "options-invalid"
    except (TypeError, ValueError, AttributeError):
        # Schema-invalid options (a list for a number): the API refuses them
        # before the rules see them, and negative data passes this hook too.
        return False
    return False


def pointed(body: Any, pointer: str) -> Any:
    """The member of ``body`` at the JSON pointer ``pointer``."""
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        body = body[int(part)] if isinstance(body, list) else body[part]
    return body


def refused_by_an_unstated_rule(response: Any, case: Any) -> bool:
    """Whether ``response`` refuses ``case`` for a rule no schema can state:
    a refusal with one of :data:`RULE_CODES`, or an ``invalid-request`` whose
    every error points at text holding an invisible character. Any other
    refusal (an unknown member, a type, a bound) is not one."""
    try:
        problem = response.json()
    except ValueError:
        return False
    if not isinstance(problem, dict):
        return False
    code = problem.get("code")
    if code in RULE_CODES:
        return True
    errors = problem.get("errors")
    if code != "invalid-request" or not errors:
        return False
    try:
        texts = [
            e
            for e in errors
            if str(e.get("pointer", "")).startswith(TEXT_POINTERS)
            and refused_name(pointed(case.body, e["pointer"]))
        ]
    except (KeyError, IndexError, TypeError):
        return False
    return len(texts) == len(errors)
