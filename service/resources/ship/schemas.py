"""Request and answer schemas of My Ship Sails' own endpoints (RULES.md 2): a
pass, its outcome and a claim's, and the shapes of its answers that every
table endpoint shares (its seats, round, result, seat view: registered in
:mod:`.schemas_games`)."""

from __future__ import annotations

from typing import ClassVar

from marshmallow import fields, validate

from ...games.ship import NAME
from ...games.ship.options import DIRECTIONS
from ...games.ship.state import RoundStatus
from ...spec.fields import Card, DocumentedSchema, Items, StrictSchema
from ...spec.schemas import (
    MatchViewSchema,
    RoundResultSchema,
    RoundViewSchema,
    SeatSchema,
    SeatViewBaseSchema,
)
from ...spec.schemas_events import ROUND as _ROUND
from ...spec.schemas_events import cards, declare, match_ended, number, round_dealt, seat
from ...spec.schemas_games import GameViews, game_field, register

ROUND_STATUSES = [s.value for s in RoundStatus]
"""Where a round stands: `passing`, `claim-window`, `over` (RULES.md 2.5-2.7)."""

SETTLED_BY = (
    "sole",
    "void",
    "abandoned",
    "highest-card",
    "highest-sum",
    "shared",
    "showdown",
    "showdown-two-cards",
)
"""How a round was settled (RULES.md 2.7, 2.9): ``service.games.ship.settlement``."""

ACTIONS = ("pass", "claims")
"""What a My Ship Sails table may wait for besides a deal: the choosers'
passes, or the claims of an open claim window."""


class ShownHandSchema(DocumentedSchema):
    """A hand shown by a valid declaration, or by Foster's showdown."""

    seat = fields.Integer()
    cards = fields.List(fields.String())


class ClaimShownSchema(DocumentedSchema):
    """A valid claim of the round in play, with the hand it showed."""

    seat = fields.Integer()
    hand = fields.List(fields.String())
    at_ms = fields.Integer(metadata={"description": "When the claim arrived (Redis clock, ms)."})


def round_status(**kwargs: object) -> fields.String:
    """A round's status, one of :data:`ROUND_STATUSES`."""
    return fields.String(
        validate=validate.OneOf(ROUND_STATUSES),
        metadata={"description": "`passing`, `claim-window` or `over` (RULES.md 2.5-2.7)."},
        **kwargs,  # type: ignore[arg-type]
    )


class PassSchema(StrictSchema):
    """A seat's pass: `pass_count` cards of its hand."""

    cards = Items(
        Card(),
        required=True,
        # The count and the cards are the rules' (422 pass-invalid, with the
        # rule's page); the spec states what a schema can: 1 or 2, none twice.
        validate=validate.Length(max=26),
        metadata={
            "description": "`pass_count` cards from the seat's hand, none twice. What a "
            "schema cannot state is the rules' to refuse (422 `pass-invalid`): cards the "
            "seat holds, `pass_count` of them, one card not named twice in two spellings "
            "(`TH`, `10h`).",
            "minItems": 1,
            "maxItems": 2,
            "uniqueItems": True,
        },
    )


class PassOutcomeSchema(DocumentedSchema):
    """A pass taken: whether the exchange resolved, and the seat's hand now."""

    PRESENT = ()

    round = fields.Integer()
    exchange = fields.Integer()
    seat = fields.Integer()
    cards = fields.List(fields.String())
    resolved = fields.Boolean(metadata={"description": "Whether this exchange has resolved."})
    waiting_for = fields.List(fields.Integer())
    round_status = round_status()
    hand = fields.List(fields.String(), metadata={"description": "The seat's hand now."})


class MyShipSailsSeatSchema(SeatSchema):
    """A seat of a My Ship Sails table: its round wins, points and chips, and
    whether it has chosen its pass in the current exchange (never which cards)."""

    PRESENT = (*(SeatSchema.PRESENT or ()), "wins", "chips", "chosen")

    wins = fields.Integer(metadata={"description": "Round wins so far."})
    points = fields.Integer(
        metadata={"description": "Round wins plus the fastest-win point (RULES.md 2.8)."}
    )
    chips = fields.Integer(
        allow_none=True,
        metadata={"description": "Chip tally over the match (Ochse, 2.8); `null` without chips."},
    )
    chosen = fields.Boolean(
        metadata={"description": "Has chosen its pass in the current exchange (never which cards)."}
    )


class MyShipSailsRoundResultSchema(RoundResultSchema):
    """How a My Ship Sails round ended (RULES.md 2.7, 2.8)."""

    PRESENT = None

    exchanges = fields.Integer(metadata={"description": "Exchanges resolved in the round."})
    winners = fields.List(fields.Integer(), metadata={"description": "Empty for a void round."})
    settled_by = fields.String(
        validate=validate.OneOf(SETTLED_BY),
        metadata={
            "description": "`sole`, `void`, `abandoned`, `highest-card`, `highest-sum`, "
            "`shared` (also a full highest-card tie), or for Foster's showdown (RULES.md "
            "2.9) `showdown` (after a declaration) and `showdown-two-cards` (the circuits "
            "ran out; no winner when no seat holds two of a suit)."
        },
    )
    hands = fields.List(
        fields.Nested(ShownHandSchema),
        metadata={"description": "Hands shown: every valid claim's, or every hand in a showdown."},
    )
    chips = fields.List(
        fields.Integer(),
        metadata={"description": "Each seat's chip change in this round; empty without chips."},
    )
    set_aside = fields.List(
        fields.String(),
        metadata={
            "description": "The cards a `full` deck's deal set aside, shown once the round "
            "is over (RULES.md 2.11); empty for the other decks."
        },
    )


class MyShipSailsRoundSchema(RoundViewSchema):
    """A My Ship Sails round as the public may see it: its exchange, who
    chooses and who is awaited, the claims (RULES.md 2.5-2.7)."""

    PRESENT = None

    status = round_status()
    direction = fields.String(
        validate=validate.OneOf([d for d in DIRECTIONS if d != "alternate"]),
        metadata={"description": "Where this round's passes go: `left` or `right`."},
    )
    exchange = fields.Integer(allow_none=True, metadata={"description": "The current exchange."})
    exchanges_resolved = fields.Integer()
    choosers = fields.List(
        fields.Integer(),
        metadata={
            "description": "Seats that pass in the current exchange: all under `simultaneous`, "
            "the seat on turn under `chain`, the two of the swap under `swap`."
        },
    )
    waiting_for = fields.List(fields.Integer(), metadata={"description": "Seats yet to choose."})
    window_closes_at_ms = fields.Integer(allow_none=True)
    claims = fields.List(fields.Nested(ClaimShownSchema))


class MyShipSailsMatchSchema(MatchViewSchema):
    """Where a My Ship Sails match stands, who won it, and who had the fastest win."""

    PRESENT = None

    fastest_win = fields.List(
        fields.Integer(),
        metadata={
            "description": "Seats given the fastest-win point when a `deals` match with "
            "`fastest_win_bonus` ended (RULES.md 2.8)."
        },
    )


class MyShipSailsSeatViewSchema(SeatViewBaseSchema):
    """What one seat of a My Ship Sails table may see: its hand, whether it
    must choose now (`to_choose`), its pending pass, and the cards it last
    passed and received."""

    PRESENT: ClassVar[tuple[str, ...] | None] = None

    game = game_field(NAME)
    round_status = round_status(allow_none=True)
    exchange = fields.Integer(allow_none=True, metadata={"description": "The current exchange."})
    to_choose = fields.Boolean(
        metadata={"description": "This seat must choose a pass in the current exchange."}
    )
    pending = fields.List(
        fields.String(), allow_none=True, metadata={"description": "The chosen, unresolved pass."}
    )
    passed = fields.List(fields.String(), allow_none=True)
    received = fields.List(
        fields.String(),
        allow_none=True,
        metadata={
            "description": "The cards this seat last received in this round (`passed`: last "
            "gave); under `simultaneous` both are from the last exchange."
        },
    )


class ClaimOutcomeSchema(DocumentedSchema):
    """An accepted declaration and the settlement (or when its window closes)."""

    round = fields.Integer()
    seat = fields.Integer()
    accepted = fields.Boolean()
    round_status = round_status()
    window_closes_at_ms = fields.Integer(allow_none=True)
    result = fields.Nested(MyShipSailsRoundResultSchema, allow_none=True)
    match = fields.Nested(MyShipSailsMatchSchema)


register(
    NAME,
    GameViews(
        seat=MyShipSailsSeatSchema,
        round=MyShipSailsRoundSchema,
        result=MyShipSailsRoundResultSchema,
        seat_view=MyShipSailsSeatViewSchema,
        actions=ACTIONS,
        match=MyShipSailsMatchSchema,
    ),
)

_RESULT = MyShipSailsRoundResultSchema._declared_fields
_MATCH = MyShipSailsMatchSchema._declared_fields
_EXCHANGE = number("The exchange's number in the round.")

declare(
    NAME,
    {
        "round-dealt": round_dealt(direction=MyShipSailsRoundSchema._declared_fields["direction"]),
        "pass-chosen": (
            "A seat chose its pass (never the cards; a replaced choice logs nothing).",
            {"round": _ROUND, "exchange": _EXCHANGE, "seat": seat()},
        ),
        "exchange-resolved": (
            "Every chooser chose: the cards went round (RULES.md 2.5).",
            {"round": _ROUND, "exchange": _EXCHANGE},
        ),
        "claim-accepted": (
            "A valid declaration (RULES.md 2.6), with the hand it shows.",
            {"round": _ROUND, "seat": seat(), "hand": cards("The hand shown.")},
        ),
        "claim-rejected": (
            "A declaration the hand did not make (never the cards).",
            {"round": _ROUND, "seat": seat()},
        ),
        **{
            kind: (f"A round {word} (RULES.md 2.7, 2.8), as its result shows it.", dict(_RESULT))
            for kind, word in (("round-won", "was won"), ("round-void", "ended with no winner"))
        },
        **match_ended(_MATCH, ("won", "finished", "abandoned")),
    },
)
