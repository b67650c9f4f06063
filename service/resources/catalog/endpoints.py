"""Variants, stateless checks and health probes (HTTP only).

The checks serve front ends that keep their own state: they touch no storage.
"""

from __future__ import annotations

from typing import Any

from flask import Response, jsonify
from flask.views import MethodView

from ...edge import rules_links
from ...edge.bounds import over_one_deck
from ...edge.common import RefereeBlueprint, documented, frozen, referee
from ...edge.problems import capped
from ...games import GAMES, VARIANTS, game_of_variant
from ...games.base import Game, PresetInfo
from ...games.errors import FieldError, RuleViolation
from ...games.ship import GAME as SHIP
from ...games.ship import engine
from ...games.ship.deal import validate_deal, validate_hand
from ...games.ship.options import LARGEST_DECK as SHIP_DECK
from ...games.ship.options import resolve_options
from ...games.ship.passing import (
    apply_transfers,
    check_exchange,
    hand_sizes,
    open_exchange,
    round_direction,
    transfers,
)
from ...games.ship.settlement import winning_suits
from ...spec.fields import LARGEST_DECK
from ...spec.links import operation
from ...version import release
from .schemas import (
    CheckClaimOutcomeSchema,
    CheckClaimSchema,
    CheckDealOutcomeSchema,
    CheckDealSchema,
    CheckExchangeOutcomeSchema,
    CheckExchangeSchema,
    GameListSchema,
    HealthSchema,
    VariantListSchema,
)

variants_blp = RefereeBlueprint(
    "variants",
    __name__,
    url_prefix="/v1",
    description="The games and their presets (RULES.md 2.9, 3.6).",
)
checks_blp = RefereeBlueprint(
    "checks", __name__, url_prefix="/v1/checks", description="Stateless rule checks; no storage."
)
health_blp = RefereeBlueprint("health", __name__, description="Liveness and readiness probes.")


def _preset_json(game: Game, preset: PresetInfo) -> dict[str, Any]:
    return {
        "name": preset.name,
        "game": game.name,
        "min_players": preset.min_players,
        "max_players": preset.max_players,
        "source": preset.source,
        "description": preset.description,
        "options": preset.options,
    }


CATALOG_CACHE = "public, max-age=300"
"""``Cache-Control`` of the catalog (games and presets): it changes only with
a release, so a cache may keep it five minutes (then ask with its ETag)."""

CATALOG_HEADERS = {
    "ETag": {"description": "The catalog's strong entity tag.", "schema": {"type": "string"}},
    "Cache-Control": {"description": f"`{CATALOG_CACHE}`.", "schema": {"type": "string"}},
}

CONDITIONAL_DOC: dict[str, Any] = {
    "parameters": ["IF_NONE_MATCH"],
    "responses": {"304": "NOT_MODIFIED"},
}
"""The conditional GET's parameter and answer (flask-smorest's own components)."""


def _rendered(schema: Any, data: dict[str, Any]) -> bytes:
    return bytes(jsonify(schema.dump(data)).get_data())


@variants_blp.route("/variants")
class Variants(MethodView):
    @variants_blp.doc(**operation("listVariants"), **CONDITIONAL_DOC)
    @variants_blp.response(200, VariantListSchema, headers=CATALOG_HEADERS)
    def get(self) -> Response:
        """List the variant presets

        Each preset's game, options and player range (RULES.md 2.9, 3.6).
        Any option can be overridden at table creation where the result is
        still one game. `POST /v1/tables` takes any preset of any game.
        Carries a strong `ETag` and `Cache-Control: public, max-age=300` (it
        changes only with a release); `If-None-Match` gives 304.
        """
        return frozen(
            "variants",
            lambda: _rendered(
                VariantListSchema(),
                {"variants": [_preset_json(game, preset) for game, preset in VARIANTS.values()]},
            ),
            CATALOG_CACHE,
        )


@variants_blp.route("/games")
class Games(MethodView):
    @variants_blp.doc(**operation("listGames"), **CONDITIONAL_DOC)
    @variants_blp.response(200, GameListSchema, headers=CATALOG_HEADERS)
    def get(self) -> Response:
        """List the games

        Each game the referee knows, its presets (as in `GET /v1/variants`)
        and the page of its rules (`/docs/rules/<game>`; its Markdown at
        `/docs/rules/<game>.md`). Cached as `GET /v1/variants` is.
        """
        return frozen("games", lambda: _rendered(GameListSchema(), _games()), CATALOG_CACHE)


def _games() -> dict[str, Any]:
    return {
        "games": [
            {
                "name": game.name,
                "title": game.title,
                "rules": rules_links.served(game.rules),
                "variants": [_preset_json(game, p) for p in game.presets.values()],
            }
            for game in GAMES.values()
        ]
    }


DEAL_PARTS = ("hands", "stock", "discard")
"""The members of a deal that hold cards."""


@checks_blp.route("/deal")
class CheckDeal(MethodView):
    @checks_blp.doc(**operation("checkDeal"))
    @checks_blp.arguments(CheckDealSchema)
    @checks_blp.response(200, CheckDealOutcomeSchema)
    @documented(checks_blp, 400, 422)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Check a deal

        Whether `hands` is a valid deal for `players` seats under the variant
        and options, of any game (My Ship Sails: RULES.md 2.4; Sevens: 3.2,
        with `opening_suit` under `dealer-choice`). `valid: false` lists the
        problems (the first 50; `problems_total` counts them all); 422 only
        for options that are not one game. The hands, `stock` and `discard`
        together hold at most 216 cards (the largest deck, May I?'s).
        """
        too_many = over_one_deck(body, DEAL_PARTS, LARGEST_DECK)
        if too_many is not None:
            problem = {"pointer": too_many.pointer, "detail": too_many.detail}
            return {"valid": False, "problems": [problem], "problems_total": 1, "hands": None}
        game = game_of_variant(body["variant"])
        deal = {
            k: body[k] for k in ("hands", "opening_suit", "dealer", "stock", "discard") if k in body
        }
        checked = game.check_deal(body["variant"], body["options"], body["players"], deal)
        problems, total = capped(checked["problems"])
        return {**checked, "problems": problems, "problems_total": total}


@checks_blp.route("/claim")
class CheckClaim(MethodView):
    @checks_blp.doc(**operation("checkClaim"))
    @checks_blp.arguments(CheckClaimSchema)
    @checks_blp.response(200, CheckClaimOutcomeSchema)
    @documented(checks_blp, 400, 422)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Check a claim

        Whether `hand` wins under the variant and options (RULES.md 2.6), with
        the reason in words. 422 `hand-invalid` when `hand` is not `hand_size`
        distinct cards of the deck of a `players`-seat round.
        """
        only_game(body["variant"], SHIP, "claims")
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
    @checks_blp.doc(**operation("checkExchange"))
    @checks_blp.arguments(CheckExchangeSchema)
    @checks_blp.response(200, CheckExchangeOutcomeSchema)
    @documented(checks_blp, 400, 422)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Check an exchange

        The hands after one exchange of the variant's passing mode (RULES.md
        2.5): `hands` and `passes` by seat. Under `simultaneous` every seat
        passes and `round` sets the direction under `alternate`; under `chain`
        and `swap`, `dealer` and `exchange` say which seats pass (the others
        give `null`) and, under `chain`, how many cards each hand holds.
        422 `deal-invalid` or `pass-invalid` with every problem (`deal-invalid`
        too for hands of more than 52 cards in all).
        """
        only_game(body["variant"], SHIP, "exchanges")
        too_many = over_one_deck(body, ("hands",), SHIP_DECK)
        if too_many is not None:
            raise RuleViolation(
                "deal-invalid", "The hands hold more cards than the deck.", [too_many]
            )
        seats = len(body["hands"])
        options = resolve_options(body["variant"], body["options"], seats, "/hands")
        dealer, number = body["dealer"], body["exchange"]
        if dealer >= seats:
            raise RuleViolation(
                "options-invalid",
                f"The dealer must be a seat 0..{seats - 1}.",
                [FieldError("/dealer", f"no seat {dealer} at a table of {seats}")],
            )
        sizes = hand_sizes(options, seats, dealer, number - 1)
        hands = validate_deal(options, seats, body["hands"], sizes)
        exchange = open_exchange(options, number, seats, dealer)
        passes = check_exchange(options, hands, body["passes"], exchange.choosers)
        direction = round_direction(options, body["round"])
        moves = transfers(exchange.resolution, passes, direction)
        received: list[list[str]] = [[] for _ in range(seats)]
        for _, receiver, cards in moves:
            received[receiver] = list(cards)
        return {
            "direction": direction,
            "choosers": list(exchange.choosers),
            "hands": [list(h) for h in apply_transfers(hands, moves)],
            "received": received,
        }


def only_game(variant: str, wanted: Game, what: str) -> None:
    """Refuse (422 ``wrong-game``) a check of ``wanted`` for another game's preset."""
    game = game_of_variant(variant)
    if game is not wanted:
        raise RuleViolation(
            "wrong-game",
            f"{variant} is a preset of {game.title}; {what} are checks of {wanted.title}.",
            [FieldError("/variant", f"{variant} is not a {wanted.title} preset")],
        )


@health_blp.route("/healthz")
class Health(MethodView):
    @health_blp.doc(**operation("getHealth"))
    @health_blp.response(200, HealthSchema)
    def get(self) -> dict[str, str]:
        """The process is up, and which release it runs"""
        return {"status": "ok", "version": release()}


@health_blp.route("/readyz")
class Ready(MethodView):
    @health_blp.doc(**operation("getReadiness"))
    @health_blp.response(200, HealthSchema)
    @documented(health_blp)
    def get(self) -> dict[str, str]:
        """A move could be acknowledged now

        Ready when Redis takes a write and, with `REDIS_WAIT_REPLICAS`, as
        many replicas confirm it as a move's would need: a write of one key
        for a millisecond, waited for as a move is. 503
        `redis-unavailable` (Redis does not answer, refuses writes, or,
        behind Sentinels, its primary is being replaced), `redis-busy`
        (every connection of this process to Redis is in use) or
        `replicas-behind` (deploy/README, "Failovers").
        """
        store = referee().store
        store.acknowledgement.probe(store.client)
        return {"status": "ready", "version": release()}
