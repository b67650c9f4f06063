"""Request and answer schemas of May I?'s own endpoints (RULES.md 4): a
numbered move of the seat on turn, a May I? request and its answers, and
the stateless checks. The views May I? shares with every game are in
:mod:`.schemas`."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from ..games.may_i.options import LARGEST_DECK, LONGEST_MELD, MOST_MELDS
from .schemas import (
    Bool,
    Card,
    Cards,
    DocumentedSchema,
    Int,
    MatchViewSchema,
    MayIOfferSchema,
    RoundResultSchema,
    StrictSchema,
)

ACTIONS = ("take_discard", "decline", "draw", "lay_down", "lay_off", "discard", "done")
_FLAGS = ("take_discard", "decline", "draw", "done")

Meld = Cards(LONGEST_MELD, 1, "a meld", joker=True)
"""A meld: at most a set of one rank from four decks with their jokers (24)."""


class LayOffSchema(StrictSchema):
    """A card laid off on a meld: `{"card": "9D", "meld": 3}`; a joker on a
    run open at both ends names its `end` (`low` or `high`)."""

    card = Card(joker=True, required=True)
    meld = Int(required=True, validate=validate.Range(1, 1000))
    end = fields.String(
        load_default=None, allow_none=True, validate=validate.OneOf(["low", "high"])
    )


class TakeDiscardMoveSchema(StrictSchema):
    """Take the top discard: `{"take_discard": true}` (RULES.md 4.5)."""

    take_discard = Bool(required=True, metadata={"enum": [True]})


class DeclineMoveSchema(StrictSchema):
    """Decline the top discard: `{"decline": true}`; May I? runs (RULES.md 4.6)."""

    decline = Bool(required=True, metadata={"enum": [True]})


class DrawMoveSchema(StrictSchema):
    """Draw the top of the stock: `{"draw": true}` (RULES.md 4.5)."""

    draw = Bool(required=True, metadata={"enum": [True]})


class LayDownMoveSchema(StrictSchema):
    """Lay down the contract: `{"lay_down": [["5H", "5S", "5C"], ...]}` (RULES.md 4.2, 4.3)."""

    lay_down = fields.List(Meld, required=True, validate=validate.Length(1, 3))


class LayOffMoveSchema(StrictSchema):
    """Lay a card off on a meld: `{"lay_off": {"card": "9C", "meld": 2}}` (RULES.md 4.2)."""

    lay_off = fields.Nested(LayOffSchema, required=True)


class DiscardMoveSchema(StrictSchema):
    """Discard a card, which ends the turn: `{"discard": "5C"}` (RULES.md 4.5)."""

    discard = Card(joker=True, required=True)  # a joker may be discarded (RULES.md 4.5)


class DoneMoveSchema(StrictSchema):
    """End a lay-off turn after a seat went out: `{"done": true}` (RULES.md 4.7)."""

    done = Bool(required=True, metadata={"enum": [True]})


class MoveSchema(StrictSchema):
    """One step of a turn, exactly one member: `{"take_discard": true}`,
    `{"decline": true}`, `{"draw": true}`, `{"lay_down": [[cards], ...]}`,
    `{"lay_off": {"card", "meld", "end"}}`, `{"discard": "5C"}` or, in a
    lay-off turn after a seat went out, `{"done": true}`."""

    class Meta(StrictSchema.Meta):
        # The spec says the seven shapes; this schema validates any of them.
        one_of = (
            TakeDiscardMoveSchema,
            DeclineMoveSchema,
            DrawMoveSchema,
            LayDownMoveSchema,
            LayOffMoveSchema,
            DiscardMoveSchema,
            DoneMoveSchema,
        )

    take_discard = Bool(metadata={"description": "`true`: take the top discard (4.5)."})
    decline = Bool(metadata={"description": "`true`: decline it; May I? runs (4.6)."})
    draw = Bool(metadata={"description": "`true`: draw the top of the stock."})
    lay_down = fields.List(
        Meld,
        validate=validate.Length(1, 3),
        metadata={"description": "The contract's melds, each in order (4.2, 4.3)."},
    )
    lay_off = fields.Nested(LayOffSchema)
    discard = Card(joker=True, metadata={"description": "The card that ends the turn."})
    done = Bool(metadata={"description": "`true`: end a lay-off turn (4.7)."})

    @validates_schema
    def _one_move(self, data: dict[str, Any], **_: Any) -> None:
        given = [a for a in ACTIONS if a in data]
        if len(given) != 1:
            raise ValidationError(
                "Send exactly one of " + ", ".join(ACTIONS) + ".", field_name="_schema"
            )
        if given[0] in _FLAGS and data[given[0]] is not True:
            raise ValidationError(f"{given[0]} is sent as true.", field_name=given[0])


class MoveOutcomeSchema(DocumentedSchema):
    """What a move did and where the round stands now."""

    round = fields.Integer()
    move = fields.Integer()
    seat = fields.Integer()
    action = fields.String()
    argument = fields.Raw(allow_none=True, metadata={"description": "The move's argument."})
    next_move = fields.Integer(allow_none=True)
    on_turn = fields.Integer(allow_none=True)
    step = fields.String()
    may_i = fields.Nested(MayIOfferSchema, allow_none=True)
    round_status = fields.String()
    result = fields.Nested(RoundResultSchema, allow_none=True)
    match = fields.Nested(MatchViewSchema)
    hand = fields.List(fields.String(), metadata={"description": "The seat's hand now."})


class AskSchema(StrictSchema):
    """`{"offer": n}`: ask for the card of offer `n` (the round's `may_i.offer`)."""

    offer = Int(required=True, validate=validate.Range(1, 100_000))


class AnswerSchema(StrictSchema):
    """`{"allow": true}` or `{"allow": false}` (deny: you may have to take it)."""

    allow = Bool(required=True)


class MayIOutcomeSchema(DocumentedSchema):
    """The May I? offer as it stands after the request or answer."""

    round = fields.Integer()
    offer = fields.Integer()
    open = fields.Boolean(metadata={"description": "The offer is still open."})
    current_offer = fields.Nested(MayIOfferSchema, allow_none=True)
    step = fields.String()
    on_turn = fields.Integer(allow_none=True)


class CheckLayDownSchema(StrictSchema):
    """Is this lay-down exactly round `round`'s contract (RULES.md 4.3)?"""

    round = Int(required=True, validate=validate.Range(1, 5))
    melds = fields.List(Meld, required=True, validate=validate.Length(1, 6))


class CheckLayDownOutcomeSchema(DocumentedSchema):
    """Whether it is the contract, why, and the melds as shown (a run ascending)."""

    valid = fields.Boolean()
    reason = fields.String()
    melds = fields.List(fields.Dict(), allow_none=True)


class CheckLayOffSchema(StrictSchema):
    """May `card` be laid off on `meld` (RULES.md 4.2)?"""

    meld = Cards(LONGEST_MELD, 3, "a meld", joker=True, required=True)
    card = Card(joker=True, required=True)
    end = fields.String(
        load_default=None, allow_none=True, validate=validate.OneOf(["low", "high"])
    )


class CheckLayOffOutcomeSchema(DocumentedSchema):
    """Whether it fits, why, and at which end of a run."""

    fits = fields.Boolean()
    reason = fields.String()
    end = fields.String(allow_none=True)


class CheckDiscardSchema(StrictSchema):
    """May `hand` discard `card` with `melds` on the table (RULES.md 4.5)?"""

    hand = Cards(LARGEST_DECK, 1, "a hand", joker=True, required=True)
    melds = fields.List(
        Meld,
        required=True,
        validate=validate.Length(0, MOST_MELDS),
        metadata={
            "description": f"At most {MOST_MELDS} (three per seat); with the hand, at most "
            f"{LARGEST_DECK} cards (four decks with their jokers)."
        },
    )
    card = Card(joker=True, required=True)


class CheckDiscardOutcomeSchema(DocumentedSchema):
    """Whether the discard is allowed, why, and the melds the card fits."""

    allowed = fields.Boolean()
    reason = fields.String()
    fits = fields.List(fields.Integer())
