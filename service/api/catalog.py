"""Variants, stateless checks and health probes (HTTP only).

The checks serve front ends that keep their own state: they touch no storage.
"""

from __future__ import annotations

from typing import Any

from flask.views import MethodView

from ..rules import engine
from ..rules.deal import validate_deal, validate_hand
from ..rules.errors import RuleViolation
from ..rules.options import PRESETS, resolve_options
from ..rules.passing import check_exchange, rotate, round_direction, source_seat
from ..rules.settlement import winning_suits
from .common import RefereeBlueprint, documented, referee
from .problems import Problem
from .schemas import (
    CheckClaimOutcomeSchema,
    CheckClaimSchema,
    CheckDealOutcomeSchema,
    CheckDealSchema,
    CheckExchangeOutcomeSchema,
    CheckExchangeSchema,
    HealthSchema,
    VariantListSchema,
)

variants_blp = RefereeBlueprint(
    "variants", __name__, url_prefix="/v1/variants", description="Presets (RULES.md 2.9)."
)
checks_blp = RefereeBlueprint(
    "checks", __name__, url_prefix="/v1/checks", description="Stateless rule checks; no storage."
)
health_blp = RefereeBlueprint("health", __name__, description="Liveness and readiness probes.")


@variants_blp.route("")
class Variants(MethodView):
    @variants_blp.response(200, VariantListSchema)
    def get(self) -> dict[str, Any]:
        """List the variant presets

        Each preset's options and player range (RULES.md 2.9). Any option can
        be overridden at table creation where the result is still one game.
        """
        return {
            "variants": [
                {
                    "name": p.name,
                    "min_players": p.min_seats,
                    "max_players": p.max_seats,
                    "source": p.source,
                    "description": p.description,
                    "options": p.options.to_json(),
                }
                for p in PRESETS.values()
            ]
        }


@checks_blp.route("/deal")
class CheckDeal(MethodView):
    @checks_blp.arguments(CheckDealSchema)
    @checks_blp.response(200, CheckDealOutcomeSchema)
    @documented(checks_blp, 400, 422)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Check a deal

        Whether `hands` is a valid deal for `players` seats under the variant
        and options (RULES.md 2.4). `valid: false` lists every problem; 422
        only for options that are not one game.
        """
        options = resolve_options(body["variant"], body["options"], body["players"])
        try:
            hands = validate_deal(options, body["players"], body["hands"])
        except RuleViolation as violation:
            problems = [{"pointer": e.pointer, "detail": e.detail} for e in violation.errors]
            return {"valid": False, "problems": problems, "hands": None}
        return {"valid": True, "problems": [], "hands": [list(h) for h in hands]}


@checks_blp.route("/claim")
class CheckClaim(MethodView):
    @checks_blp.arguments(CheckClaimSchema)
    @checks_blp.response(200, CheckClaimOutcomeSchema)
    @documented(checks_blp, 400, 422)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Check a claim

        Whether `hand` wins under the variant and options (RULES.md 2.6), with
        the reason in words. 422 `hand-invalid` when `hand` is not `hand_size`
        distinct cards of the deck of a `players`-seat round.
        """
        options = resolve_options(body["variant"], body["options"], body["players"])
        hand = validate_hand(options, body["players"], body["hand"])
        winning, reason = engine.check_hand(options, hand)
        return {
            "winning": winning,
            "reason": reason,
            "suits": winning_suits(hand, options.win_count),
        }


@checks_blp.route("/exchange")
class CheckExchange(MethodView):
    @checks_blp.arguments(CheckExchangeSchema)
    @checks_blp.response(200, CheckExchangeOutcomeSchema)
    @documented(checks_blp, 400, 422)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Check an exchange

        The hands after one simultaneous exchange (RULES.md 2.5): `hands` and
        `passes` by seat; `round` sets the direction under `alternate`.
        422 `deal-invalid` or `pass-invalid` with every problem.
        """
        seats = len(body["hands"])
        options = resolve_options(body["variant"], body["options"], seats, "/hands")
        hands = validate_deal(options, seats, body["hands"])
        passes = check_exchange(options, hands, body["passes"])
        direction = round_direction(options, body["round"])
        after = rotate(hands, passes, direction)
        received = [list(passes[source_seat(s, direction, seats)]) for s in range(seats)]
        return {"direction": direction, "hands": [list(h) for h in after], "received": received}


@health_blp.route("/healthz")
class Health(MethodView):
    @health_blp.response(200, HealthSchema)
    def get(self) -> dict[str, str]:
        """The process is up"""
        return {"status": "ok"}


@health_blp.route("/readyz")
class Ready(MethodView):
    @health_blp.response(200, HealthSchema)
    @documented(health_blp)
    def get(self) -> dict[str, str]:
        """Redis answers"""
        if not referee().store.ping():  # pragma: no cover - ping raises instead
            raise Problem(503, "redis-unavailable", "Redis does not answer.")
        return {"status": "ready"}
