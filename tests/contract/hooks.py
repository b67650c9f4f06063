"""Schemathesis hooks for the rules no JSON Schema (OpenAPI 3.0) can state,
each named in the spec's description (``service.spec.per_game.UNSTATED``):

1. ``first_dealer`` must be a seat of the table (below the number of players);
2. a game's options must make one consistent game with the preset they
   override (the game itself judges: its ``create_table`` on the body);
3. a player's name or a ``call`` must hold no invisible or direction-changing
   character (Unicode categories the spec names), which a pattern of Python's
   ``re``, the generators' dialect, has no class for;
4. a deal, hand, meld or layout must be one the game can hold (the deck's
   cards, none twice, a hand of the preset's size, a card the hand holds);
5. an ``Idempotency-Key`` sent again comes with the same body;
6. an event cursor (``after``, ``Last-Event-ID``) must be one the table's log
   holds;
7. an ``If-None-Match`` on a deletion must not match the table's current
   ``ETag`` (the caller's own precondition).

None of them can be left out of generated data without leaving out most of
it (a filter of bodies breaking 1 or 2 failed Hypothesis's health check on
the exchange check: most random seat counts make no game with the preset;
nearly every random hand breaks 4; only the server knows a table's log and
its keys). So ``after_load_schema`` lets schemathesis's
``positive_data_acceptance`` take 410, 412 and 422 too, and the check
``refused_only_by_unstated_rules`` fails every such answer to positive data
that is not a refusal by one of these rules, told by its stable code or, for
3, by the text its errors point at
(:func:`tests.contract.rules.refused_by_an_unstated_rule`): a 422
``invalid-request`` for an unknown member or a type still fails.

Run a default schemathesis with them from outside the checkout (its
``schemathesis.toml`` is the project's own configuration), with the checkout
on ``PYTHONPATH`` so that ``tests`` and ``service`` import::

    PYTHONPATH=path/to/checkout SCHEMATHESIS_HOOKS=tests.contract.hooks \
      schemathesis run http://127.0.0.1:8000/openapi.json

Against a service whose streams end soon (``STREAM_LIFETIME_SECONDS=1``):
schemathesis reads an event stream until 20 events or its request timeout
(10 s), and a quiet table's stream sends fewer.
"""

from __future__ import annotations

from typing import Any

import schemathesis

from .rules import refused_by_an_unstated_rule

UNSTATED_STATUSES = ("410", "412", "422")
"""What a refusal by one of these rules answers, beyond schemathesis's own
accepted statuses (which hold 409)."""


@schemathesis.hook
def after_load_schema(ctx: Any, schema: Any) -> None:
    """Let ``positive_data_acceptance`` take the statuses of these rules;
    ``refused_only_by_unstated_rules`` holds them to those rules."""
    accepted = schema.config.checks.positive_data_acceptance
    accepted.expected_statuses = [*accepted.expected_statuses, *UNSTATED_STATUSES]


@schemathesis.check
def refused_only_by_unstated_rules(ctx: Any, response: Any, case: Any) -> bool | None:
    """A schema-valid request answered 410, 412 or 422 must be refused by
    one of the rules above."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return None
    if str(response.status_code) in UNSTATED_STATUSES and not refused_by_an_unstated_rule(
        response, case
    ):
        raise AssertionError(
            f"Schema-valid request rejected for no rule the spec names: "
            f"{case.method} {case.formatted_path} -> {response.status_code} {response.text[:500]}"
        )
    return None
