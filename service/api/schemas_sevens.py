"""Request and answer schemas of Sevens' own endpoints (RULES.md 3): a turn,
and the stateless check of a play. The views Sevens shares with every game
are in :mod:`.schemas`."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from .schemas import (
    SUIT_PATTERN,
    Bool,
    Card,
    DocumentedSchema,
    GameSchema,
    MatchViewSchema,
    RoundResultSchema,
    StrictSchema,
)


class TurnPlaySchema(StrictSchema):
    """Play a card: `{"play": "8S"}`, with `"last_card": true` when it leaves
    one card and the table plays `last_card` (RULES.md 3.3, 3.4)."""

    play = Card(required=True, metadata={"description": "The card to play, e.g. `8S`."})
    last_card = Bool(metadata={"description": "Announce the last card with this play."})


class TurnPassSchema(StrictSchema):
    """Pass: `{"pass": true}`; the seat pays `pass_chips` into the pot (RULES.md 3.3)."""

    pass_ = Bool(data_key="pass", required=True, metadata={"enum": [True]})
    last_card = Bool(metadata={"description": "A pass announces no last card.", "enum": [False]})


class TurnSchema(StrictSchema):
    """A seat's turn: `{"play": "8S"}` (with `"last_card": true` when it leaves
    one card and the table plays `last_card`) or `{"pass": true}`."""

    class Meta(StrictSchema.Meta):
        # The spec says the two shapes; this schema validates either.
        one_of = (TurnPlaySchema, TurnPassSchema)

    play = Card(metadata={"description": "The card to play, e.g. `8S` (RULES.md 3.3)."})
    pass_ = Bool(
        data_key="pass",
        metadata={
            "description": "`true` to pass (pays `pass_chips` into the pot); only `true`.",
            "enum": [True],
        },
    )
    last_card = Bool(
        load_default=False,
        metadata={"description": "Announce the last card with this play (RULES.md 3.4)."},
    )

    @validates_schema
    def _one_move(self, data: dict[str, Any], **_: Any) -> None:
        # The same rule as Meta.json_schema, so that the spec says what is refused.
        if data.get("pass_") is False:
            raise ValidationError(
                'Send {"pass": true} to pass; to play, leave "pass" out.', field_name="pass"
            )
        if ("play" in data) == ("pass_" in data):
            raise ValidationError(
                'Send exactly one of {"play": card} or {"pass": true}.', field_name="_schema"
            )
        if "pass_" in data and data.get("last_card"):
            raise ValidationError("A pass announces no last card.", field_name="last_card")


class TurnOutcomeSchema(DocumentedSchema):
    """What a turn did: the card played or the pass, who is on turn next, the
    pot, and the result once the round is over."""

    round = fields.Integer()
    turn = fields.Integer()
    seat = fields.Integer()
    action = fields.String(metadata={"description": "`play` or `pass`."})
    card = fields.String(allow_none=True)
    last_card = fields.Boolean()
    chips_paid = fields.Integer(
        metadata={"description": "Chips this move paid into the pot (a pass, a missed last card)."}
    )
    next_seat = fields.Integer(allow_none=True, metadata={"description": "The seat on turn now."})
    next_turn = fields.Integer(allow_none=True, metadata={"description": "The next turn's number."})
    pot = fields.Integer()
    round_status = fields.String(metadata={"description": "`playing` or `over`."})
    result = fields.Nested(RoundResultSchema, allow_none=True)
    match = fields.Nested(MatchViewSchema)
    hand = fields.List(
        fields.String(),
        metadata={"description": "The seat's hand just after this turn (a repeat answers alike)."},
    )


class LayoutRowInSchema(StrictSchema):
    """One row of a Sevens layout: its suit, lowest and highest card."""

    suit = fields.String(
        required=True,
        validate=validate.Length(1, 8),
        metadata={
            "description": "`S`, `H`, `D` or `C` (any case) or a suit symbol (`♠`).",
            "pattern": SUIT_PATTERN,
        },
    )
    low = Card(required=True)
    high = Card(required=True)


class CheckPlaySchema(GameSchema):
    """May this hand play this card on this layout (Sevens, RULES.md 3.3)?"""

    games = ("sevens",)

    hand = fields.List(Card(), required=True, validate=validate.Length(1, 104))
    layout = fields.List(
        fields.Nested(LayoutRowInSchema),
        required=True,
        validate=validate.Length(0, 8),
        metadata={"description": "The rows on the table: `{suit, low, high}` each."},
    )
    card = Card(required=True)


class CheckPlayOutcomeSchema(DocumentedSchema):
    """Whether the card may be played, why, and every card of the hand that may."""

    playable = fields.Boolean()
    reason = fields.String()
    playable_cards = fields.List(fields.String())
