"""Request and answer schemas of Sevens' own endpoints (RULES.md 3): a turn,
and the stateless check of a play; and the shapes of its answers that every
table endpoint shares (its seats, round, result, seat view: registered in
:mod:`.schemas_games`)."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import ValidationError, fields, validate, validates_schema

from ...games.cards import SUITS
from ...games.sevens import NAME
from ...games.sevens.state import RoundStatus
from ...spec.fields import SUIT_PATTERN, Bool, Card, DocumentedSchema, Items, StrictSchema
from ...spec.schemas import (
    GameSchema,
    MatchViewSchema,
    RoundResultSchema,
    RoundViewSchema,
    SeatSchema,
    SeatViewBaseSchema,
)
from ...spec.schemas_events import ROUND as _ROUND
from ...spec.schemas_events import declare, match_ended, number, round_dealt, seat
from ...spec.schemas_games import GameViews, game_field, register

ROUND_STATUSES = [s.value for s in RoundStatus]
"""Where a Sevens round stands: `playing` or `over`."""


def round_status(**kwargs: Any) -> fields.String:
    """A Sevens round's status, one of :data:`ROUND_STATUSES`."""
    return fields.String(
        validate=validate.OneOf(ROUND_STATUSES),
        metadata={"description": "`playing` or `over`."},
        **kwargs,
    )


def suit(**kwargs: Any) -> fields.String:
    """A suit as answers write it: `S`, `H`, `D` or `C`."""
    metadata = {"description": "`S`, `H`, `D` or `C`.", **kwargs.pop("metadata", {})}
    return fields.String(validate=validate.OneOf(list(SUITS)), metadata=metadata, **kwargs)


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
    action = fields.String(
        validate=validate.OneOf(["play", "pass"]), metadata={"description": "`play` or `pass`."}
    )
    card = fields.String(allow_none=True)
    last_card = fields.Boolean()
    chips_paid = fields.Integer(
        metadata={"description": "Chips this move paid into the pot (a pass, a missed last card)."}
    )
    next_seat = fields.Integer(allow_none=True, metadata={"description": "The seat on turn now."})
    next_turn = fields.Integer(allow_none=True, metadata={"description": "The next turn's number."})
    pot = fields.Integer()
    round_status = round_status()
    result = fields.Nested(lambda: SevensRoundResultSchema(), allow_none=True)
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
    """May this hand play this card on this layout (Sevens, RULES.md 3.3)?
    What a schema cannot state is the rules' to refuse (422 `play-invalid`):
    the card in the hand, a layout the game can hold (rows of a suit from
    its 7, no card on the table and in the hand more often than the decks
    hold it)."""

    games = ("sevens",)

    hand = Items(Card(), required=True, validate=validate.Length(1, 104))
    layout = Items(
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


class LayoutRowSchema(DocumentedSchema):
    """Sevens: one row of the layout, from its lowest to its highest card."""

    suit = suit()
    low = fields.String(metadata={"description": "The lowest card, e.g. `5H`."})
    high = fields.String(metadata={"description": "The highest card, e.g. `9H`."})


class SevensSeatSchema(SeatSchema):
    """A seat of a Sevens table: how many cards it holds, its round wins,
    points and chips (never its voluntary passes, RULES.md 3.7)."""

    PRESENT = (*(SeatSchema.PRESENT or ()), "cards", "wins", "chips", "paid")

    cards = fields.Integer(metadata={"description": "How many cards the seat holds."})
    wins = fields.Integer(metadata={"description": "Round wins so far."})
    points = fields.Integer(metadata={"description": "Points (RULES.md 3.5; 0 under `none`)."})
    chips = fields.Integer(
        allow_none=True,
        metadata={"description": "Chips won less chips paid over the match; `null` without chips."},
    )
    paid = fields.Integer(
        metadata={
            "description": "The chips the seat paid into the pot in the round in play "
            "(0 between rounds); its `chips` count them once the round is scored, so the seat "
            "holds `chips - paid` now (RULES.md 3.5)."
        }
    )


class SevensRoundResultSchema(RoundResultSchema):
    """How a Sevens round ended (RULES.md 3.5): counts, never the cards left."""

    PRESENT = None

    opener = fields.Integer(metadata={"description": "The seat that had the first turn."})
    winner = fields.Integer(
        allow_none=True,
        metadata={"description": "The seat that played its last card first."},
    )
    abandoned = fields.Boolean(
        metadata={
            "description": "The host ended the match during this round; it is listed last "
            "(the table's `last_result`), not scored (no winner, nothing won or paid)."
        }
    )
    pot = fields.Integer(metadata={"description": "The chips the winner took."})
    turns = fields.Integer(metadata={"description": "Turns played in the round."})
    cards_left = fields.List(
        fields.Integer(), metadata={"description": "Cards left in each hand, by seat."}
    )
    penalties = fields.List(
        fields.Integer(),
        allow_none=True,
        metadata={
            "description": "The value of each seat's cards left (RULES.md 3.5), only with "
            "`points: losers-score` (where they are the points); else `null`, since with the "
            "counts and the layout they could name the cards left."
        },
    )
    points = fields.List(fields.Integer(), metadata={"description": "The points each seat scored."})
    chips = fields.List(
        fields.Integer(), metadata={"description": "Each seat's chips won less paid this round."}
    )


class SevensRoundSchema(RoundViewSchema):
    """A Sevens round as the public may see it: the layout, whose turn, the pot."""

    PRESENT = None

    status = round_status()
    opening_suit = suit(
        allow_none=True,
        metadata={"description": "The opening seven's suit (`null` under `any-seven`)."},
    )
    opener = fields.Integer(
        allow_none=True, metadata={"description": "The seat that had the first turn."}
    )
    turn = fields.Integer(
        allow_none=True,
        metadata={"description": "The number of the turn to play now (`null` once over)."},
    )
    on_turn = fields.Integer(
        allow_none=True, metadata={"description": "The seat on turn (`null` once over)."}
    )
    pot = fields.Integer(metadata={"description": "Chips paid into the pot this round."})
    layout = fields.List(
        fields.Nested(LayoutRowSchema),
        metadata={"description": "The rows on the table (two per suit with two decks)."},
    )
    turns_taken = fields.Integer(metadata={"description": "Turns played this round."})


class SevensSeatViewSchema(SeatViewBaseSchema):
    """What one seat of a Sevens table may see: its hand, whether it is on
    turn, which cards it may play and whether it may pass."""

    PRESENT: ClassVar[tuple[str, ...] | None] = None

    game = game_field(NAME)
    round_status = round_status(allow_none=True)
    turn = fields.Integer(
        allow_none=True, metadata={"description": "The number of the turn to play now."}
    )
    on_turn = fields.Boolean(metadata={"description": "This seat is on turn."})
    playable = fields.List(
        fields.String(),
        metadata={
            "description": "The cards this seat may play now (empty when not on turn); a "
            "front end greys out the rest."
        },
    )
    may_pass = fields.Boolean(metadata={"description": "This seat may pass now."})
    voluntary_passes_left = fields.Integer(
        allow_none=True,
        metadata={"description": "Voluntary passes left this round (`null`: none allowed)."},
    )
    must_announce = fields.Boolean(
        metadata={
            "description": "With `last_card`: its next play leaves one card, so the play must "
            "carry `last_card: true`."
        }
    )


register(
    NAME,
    GameViews(
        seat=SevensSeatSchema,
        round=SevensRoundSchema,
        result=SevensRoundResultSchema,
        seat_view=SevensSeatViewSchema,
        actions=("play",),
    ),
)

_RESULT = SevensRoundResultSchema._declared_fields
_TURN = number("The turn's number in the round.")
_MATCH = MatchViewSchema._declared_fields

declare(
    NAME,
    {
        "round-dealt": round_dealt(
            opening_suit=SevensRoundSchema._declared_fields["opening_suit"],
            opener=seat("The seat that has the first turn."),
        ),
        "card-played": (
            "A seat played a card on the layout (RULES.md 3.3).",
            {
                "round": _ROUND,
                "turn": _TURN,
                "seat": seat(),
                "card": fields.String(),
                "last_card": fields.Boolean(
                    metadata={"description": "It announced its last card."}
                ),
            },
        ),
        "passed": (
            "A seat passed and paid into the pot; never whether it could have played.",
            {"round": _ROUND, "turn": _TURN, "seat": seat(), "chips": number("Chips paid.")},
        ),
        "last-card-missed": (
            "A seat played its second-to-last card without announcing it and paid (RULES.md 3.4).",
            {"round": _ROUND, "turn": _TURN, "seat": seat(), "chips": number("Chips paid (2).")},
        ),
        "round-won": (
            "A round was won (RULES.md 3.5): counts and values, never the hands left.",
            {
                name: _RESULT[name]
                for name in (
                    "round",
                    "dealer",
                    "winner",
                    "pot",
                    "cards_left",
                    "penalties",
                    "points",
                )
            },
        ),
        **match_ended(_MATCH, ("won", "finished", "abandoned")),
    },
)
