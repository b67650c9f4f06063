"""The catalog's answers and the stateless checks' requests and outcomes."""

from __future__ import annotations

from marshmallow import fields, validate

from ...games import GAMES
from ...games.ship.options import LARGEST_DECK as SHIP_DECK
from ...games.ship.options import LARGEST_HAND as SHIP_HAND
from ...games.ship.options import (
    MAX_SEATS,
    MIN_SEATS,
)
from ...spec.fields import (
    LARGEST_DEALT_HAND,
    LARGEST_DECK,
    Card,
    Cards,
    DocumentedSchema,
    Int,
    Items,
)
from ...spec.schemas import GameSchema, VariantSchema


class VariantListSchema(DocumentedSchema):
    """Every preset this version plays."""

    variants = fields.List(fields.Nested(VariantSchema))


class GameInfoSchema(DocumentedSchema):
    """A game the referee knows."""

    name = fields.String(
        validate=validate.OneOf(list(GAMES)),
        metadata={"description": "Its id: `my-ship-sails`, `sevens`, `may-i`."},
    )
    title = fields.String()
    rules = fields.String(metadata={"description": "The path of its rules page."})
    variants = fields.List(fields.Nested(VariantSchema))


class GameListSchema(DocumentedSchema):
    """Every game."""

    games = fields.List(fields.Nested(GameInfoSchema))


class CheckDealSchema(GameSchema):
    """A deal to check for `players` seats under a preset and overrides. Its
    cards are judged, not refused: the answer lists every problem. What a
    schema cannot state is the rules' to refuse (422 `options-invalid`,
    `deal-invalid` for a member of another game's deals): options that make
    one consistent game with the players."""

    deal = True

    players = Int(required=True, validate=validate.Range(MIN_SEATS, MAX_SEATS))
    hands = Items(
        Cards(LARGEST_DEALT_HAND, what="a dealt hand", judged=True),
        required=True,
        validate=validate.Length(1, MAX_SEATS),
        metadata={"description": f"With `stock` and `discard`, at most {LARGEST_DECK} cards."},
    )
    dealer = Int(
        validate=validate.Range(0, MAX_SEATS - 1),
        metadata={
            "description": "Sevens: the dealer, whose left neighbour is dealt first (the "
            "first-dealt seats hold one card more); the last seat when omitted."
        },
    )
    opening_suit = fields.String(
        validate=validate.Length(1, 8),
        metadata={"description": "Sevens with `opening: dealer-choice`: the opening suit."},
    )
    stock = Cards(
        LARGEST_DECK,
        1,
        "the stock",
        judged=True,
        metadata={"description": "May I?: the stock, its top first."},
    )
    discard = Card(judged=True, metadata={"description": "May I?: the first discard."})


class CheckDealOutcomeSchema(DocumentedSchema):
    """Whether the deal is valid, every problem, and the hands in canonical form."""

    valid = fields.Boolean()
    problems = fields.List(
        fields.Dict(), metadata={"description": "`{pointer, detail}` each; the first 50."}
    )
    problems_total = fields.Integer(metadata={"description": "How many problems in all."})
    hands = fields.List(fields.List(fields.String()), allow_none=True)


class CheckClaimSchema(GameSchema):
    """A hand to judge for a `players`-seat game under a preset and overrides
    (what a schema cannot state: `hand`'s and the options' descriptions)."""

    games = ("my-ship-sails",)

    players = Int(required=True, validate=validate.Range(MIN_SEATS, MAX_SEATS))
    hand = Items(
        Card(),
        required=True,
        validate=validate.Length(0, 26),
        metadata={
            "description": "The hand to judge, no card twice. What a schema cannot state is "
            "the rules' to refuse (422 `hand-invalid`): a hand of the preset's size (or one "
            "more under `chain`), cards of its deck, one card not named twice in two "
            "spellings (`TH`, `10h`).",
            "minItems": 1,
            "uniqueItems": True,
        },
    )


class CheckClaimOutcomeSchema(DocumentedSchema):
    """Whether the hand wins, why, and its winning suits."""

    winning = fields.Boolean()
    reason = fields.String()
    suits = fields.List(fields.String(), metadata={"description": "The winning suits (S H D C)."})


class CheckExchangeSchema(GameSchema):
    """Hands and passes by seat for one exchange of any passing mode."""

    games = ("my-ship-sails",)

    round = Int(
        load_default=1,
        validate=validate.Range(1, 10_000),
        metadata={"description": "For `alternate`."},
    )
    dealer = Int(
        load_default=0,
        validate=validate.Range(0, MAX_SEATS - 1),
        metadata={"description": "The round's dealer: who passes under `chain` and `swap`."},
    )
    exchange = Int(
        load_default=1,
        validate=validate.Range(1, 10_000),
        metadata={
            "description": "The exchange's number in the round: who passes under `chain` "
            "and `swap`, and the hand sizes under `chain`."
        },
    )
    hands = Items(
        Cards(
            SHIP_HAND + 1,
            what="a hand",
            metadata={"minItems": 1, "uniqueItems": True},  # a hand: a set (RULES.md 1)
        ),
        required=True,
        validate=validate.Length(MIN_SEATS, MAX_SEATS),
        metadata={
            "description": f"One hand a seat, none empty, no card twice; at most {SHIP_DECK} "
            "cards in all (the full deck). What a schema cannot state is the rules' to "
            "refuse (422 `deal-invalid`): hands of the preset's size (under `chain`, the "
            "passer's one more), cards of its deck, no card in two hands or named twice in "
            "two spellings (`TH`, `10h`)."
        },
    )
    passes = Items(
        Cards(
            SHIP_HAND + 1,
            what="a pass",
            allow_none=True,
            metadata={"maxItems": 2, "uniqueItems": True},  # `pass_count`: 1 or 2
        ),
        required=True,
        validate=validate.Length(MIN_SEATS, MAX_SEATS),
        metadata={
            "description": "One entry per seat: the cards it passes, or `null` (or `[]`) for a "
            "seat that does not pass in this exchange. What a schema cannot state is the "
            "rules' to refuse (422 `pass-invalid`): `pass_count` cards of the seat's hand, "
            "from the seats that pass in this exchange."
        },
    )


class CheckExchangeOutcomeSchema(DocumentedSchema):
    """The hands after the exchange and what each seat received."""

    direction = fields.String()
    choosers = fields.List(fields.Integer(), metadata={"description": "The seats that passed."})
    hands = fields.List(fields.List(fields.String()))
    received = fields.List(
        fields.List(fields.String()), metadata={"description": "By seat; `[]` for nothing."}
    )


class HealthSchema(DocumentedSchema):
    """A probe's answer."""

    status = fields.String(
        validate=validate.OneOf(["ok", "ready"]),
        metadata={"description": "`ok` (the process answers) or `ready` (and Redis does)."},
    )
    version = fields.String(
        metadata={"description": "The release that answers (CHANGELOG.md), e.g. `0.2.0`."}
    )
