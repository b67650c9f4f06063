"""Schemathesis hooks: leave out of the positive data the requests that break
a rule no JSON Schema (OpenAPI 3.0) can state, each named in the spec
(``service.api.spec_games.UNSTATED``, the spec's description):

- ``first_dealer`` must be a seat of the table (below the number of players);
- a game's options must make one consistent game with the preset they
  override (the game itself judges: its ``create_table`` on the body);
- a player's name or a ``call`` must hold no invisible or direction-changing
  character (Unicode categories the spec names), which a pattern of Python's
  ``re``, the generators' dialect, has no class for.

Run a default schemathesis with them::

    SCHEMATHESIS_HOOKS=tests.contract.hooks schemathesis run http://127.0.0.1:8000/openapi.json

(from the checkout, so that ``tests`` and ``service`` import).
"""

from __future__ import annotations

import random
import unicodedata
from typing import Any

import schemathesis

from service.api.schemas import INVISIBLE, _visible
from service.games import game_of_variant
from service.games.errors import RuleViolation

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
        any(unicodedata.category(ch) in INVISIBLE for ch in value)
        or not any(_visible(ch) for ch in value)
    )


def breaks_an_unstated_rule(path: str, body: Any) -> bool:
    """Whether ``body`` of the POST to ``path`` breaks one of the rules above."""
    if not isinstance(body, dict):
        return False
    if any(refused_text(v) for v in (body.get("name"), (body.get("options") or {}).get("call"))):
        return True
    players = body.get("players")
    if isinstance(players, list) and any(refused_text(p) for p in players if p is not None):
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


@schemathesis.hook
def filter_body(ctx: Any, body: Any) -> bool:
    """Keep a generated body unless it breaks a rule the schema cannot state
    (negative data is left as it is: it must be refused anyway)."""
    return not breaks_an_unstated_rule(ctx.operation.path, body)
