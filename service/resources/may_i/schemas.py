"""Request and answer schemas of May I?'s own endpoints (RULES.md 4): a
numbered move of the seat on turn, a May I? request and its answers, and
the stateless checks; and the shapes of its answers that every table
endpoint shares (its seats, round, result, seat view: registered in
:mod:`.schemas_games`)."""

from __future__ import annotations

from typing import Any, ClassVar

from marshmallow import ValidationError, fields, validate, validates_schema

from ...games.may_i import NAME
from ...games.may_i.options import LARGEST_DECK, LONGEST_MELD, MOST_MELDS
from ...games.may_i.state import Step
from ...spec.fields import Bool, Card, Cards, DocumentedSchema, Int, Items, StrictSchema
from ...spec.schemas import (
    MatchViewSchema,
    RoundResultSchema,
    RoundViewSchema,
    SeatSchema,
    SeatViewBaseSchema,
)
from ...spec.schemas_events import ROUND as _ROUND
from ...spec.schemas_events import declare, match_ended, number, round_dealt, seat
from ...spec.schemas_games import GameViews, game_field, register

ACTIONS = ("take_discard", "decline", "draw", "lay_down", "lay_off", "discard", "done")
MAY = (*ACTIONS, "ask", "answer")
"""What a seat may do now (its view's `may`): the turn's moves, and ask or
answer a May I?."""
ROUND_STATUSES = ("playing", "over")
"""Where a May I? round stands."""
STEPS = [s.value for s in Step]
"""A round's step: `draw`, `may-i`, `stock`, `play`, `final`, `over` (RULES.md 4.5-4.7)."""
STEP_TEXT = (
    "`draw` (take or decline the discard), `may-i` (the discard is offered), `stock`, "
    "`play`, `final` (lay-offs after a seat went out) or `over`."
)


def round_status(**kwargs: Any) -> fields.String:
    """A May I? round's status, one of :data:`ROUND_STATUSES`."""
    return fields.String(
        validate=validate.OneOf(ROUND_STATUSES),
        metadata={"description": "`playing` or `over`."},
        **kwargs,
    )


def step(**kwargs: Any) -> fields.String:
    """A May I? round's step, one of :data:`STEPS`."""
    metadata = {"description": STEP_TEXT, **kwargs.pop("metadata", {})}
    return fields.String(validate=validate.OneOf(STEPS), metadata=metadata, **kwargs)


class MeldViewSchema(DocumentedSchema):
    """May I?: a meld on the table (RULES.md 4.2)."""

    id = fields.Integer(metadata={"description": "The meld's number in the round, from 1."})
    owner = fields.Integer()
    kind = fields.String(
        validate=validate.OneOf(["set", "run"]), metadata={"description": "`set` or `run`."}
    )
    cards = fields.List(fields.String(), metadata={"description": "A run ascending."})
    stands_for = fields.List(
        fields.String(), metadata={"description": "The rank each card counts as (a joker's)."}
    )


class MayIOfferSchema(DocumentedSchema):
    """May I?: the declined discard on offer (RULES.md 4.6)."""

    offer = fields.Integer(metadata={"description": "The offer's number in the round."})
    card = fields.String()
    opened_ms = fields.Integer()
    until_ms = fields.Integer(metadata={"description": "The window closes at this instant."})
    asker = fields.Integer(allow_none=True)
    answers = fields.Dict(
        keys=fields.String(),
        values=fields.String(validate=validate.OneOf(["allow", "deny"])),
        metadata={"description": "Seat -> `allow` or `deny`, for the seats that answered."},
    )


class MayIRoundResultSchema(RoundResultSchema):
    """How a May I? round ended (RULES.md 4.8): who went out, counts and values."""

    PRESENT = None

    out = fields.Integer(
        allow_none=True,
        metadata={"description": "The seat that went out (`null`: nobody could)."},
    )
    cards_left = fields.List(
        fields.Integer(), metadata={"description": "Cards left in each hand, by seat."}
    )
    penalties = fields.List(
        fields.Integer(),
        metadata={"description": "The value of each seat's cards left (RULES.md 4.8), by seat."},
    )
    points = fields.List(
        fields.Integer(), metadata={"description": "The points each seat scored this round."}
    )


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

    lay_down = Items(Meld, required=True, validate=validate.Length(1, 3))


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
    lay_down = Items(
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
    action = fields.String(validate=validate.OneOf(ACTIONS))
    argument = fields.Raw(allow_none=True, metadata={"description": "The move's argument."})
    next_move = fields.Integer(allow_none=True)
    on_turn = fields.Integer(allow_none=True)
    step = step()
    may_i = fields.Nested(MayIOfferSchema, allow_none=True)
    round_status = round_status()
    result = fields.Nested(MayIRoundResultSchema, allow_none=True)
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
    step = step()
    on_turn = fields.Integer(allow_none=True)


class CheckLayDownSchema(StrictSchema):
    """Is this lay-down exactly round `round`'s contract (RULES.md 4.3)?
    What a schema cannot state is the rules' to refuse (422 `move-invalid`):
    melds of cards the decks hold."""

    round = Int(required=True, validate=validate.Range(1, 5))
    melds = Items(Meld, required=True, validate=validate.Length(1, 6))


class CheckLayDownOutcomeSchema(DocumentedSchema):
    """Whether it is the contract, why, and the melds as shown (a run ascending)."""

    valid = fields.Boolean()
    reason = fields.String()
    melds = fields.List(fields.Dict(), allow_none=True)


class CheckLayOffSchema(StrictSchema):
    """May `card` be laid off on `meld` (RULES.md 4.2)? What a schema cannot
    state is the rules' to refuse (422 `move-invalid`): `meld` is one the
    game can hold (a set of one rank, a run in order; no more jokers than
    natural cards)."""

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
    """May `hand` discard `card` with `melds` on the table (RULES.md 4.5)?
    What a schema cannot state is the rules' to refuse (422 `move-invalid`):
    the card in the hand, melds the game can hold (sets and runs, no more
    jokers than natural cards), no card more often than the decks hold it."""

    hand = Cards(LARGEST_DECK, 1, "a hand", joker=True, required=True)
    melds = Items(
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


class MayISeatSchema(SeatSchema):
    """A seat of a May I? table: how many cards it holds, whether it has laid
    down, its points."""

    PRESENT = (*(SeatSchema.PRESENT or ()), "cards", "laid_down")

    cards = fields.Integer(metadata={"description": "How many cards the seat holds."})
    laid_down = fields.Boolean(metadata={"description": "Has laid down its contract this round."})
    points = fields.Integer(metadata={"description": "Points so far (RULES.md 4.8)."})


class MayIRoundSchema(RoundViewSchema):
    """A May I? round as the public may see it: its contract, step, discard
    pile's top, stock size, melds and the May I? on offer."""

    PRESENT = None

    status = round_status()
    contract = fields.String(metadata={"description": "The round's contract in words."})
    contract_sets = fields.Integer()
    contract_runs = fields.Integer()
    step = step()
    on_turn = fields.Integer(
        allow_none=True, metadata={"description": "The seat on turn (`null` once over)."}
    )
    move = fields.Integer(allow_none=True, metadata={"description": "The number of the next move."})
    discard_top = fields.String(allow_none=True)
    discard_size = fields.Integer()
    stock_size = fields.Integer()
    melds = fields.List(fields.Nested(MeldViewSchema))
    may_i = fields.Nested(MayIOfferSchema, allow_none=True)
    went_out = fields.Integer(allow_none=True)
    lay_off_turns_left = fields.List(fields.Integer())
    moves_taken = fields.Integer()


class MayISeatViewSchema(SeatViewBaseSchema):
    """What one seat of a May I? table may see: its hand, its step, what it
    may do now, where its cards may be laid off and which it may discard."""

    PRESENT: ClassVar[tuple[str, ...] | None] = None

    game = game_field(NAME)
    round_status = round_status(allow_none=True)
    step = step(allow_none=True, metadata={"description": "The round's step: " + STEP_TEXT})
    move = fields.Integer(allow_none=True, metadata={"description": "The next move."})
    on_turn = fields.Boolean(metadata={"description": "This seat is on turn."})
    laid_down = fields.Boolean(metadata={"description": "Has laid down."})
    may = fields.List(
        fields.String(validate=validate.OneOf(MAY)),
        metadata={
            "description": "What this seat may do now (`take_discard`, `decline`, `draw`, "
            "`lay_down`, `lay_off`, `discard`, `done`, `ask`, `answer`)."
        },
    )
    lay_offs = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.Integer()),
        metadata={"description": "Card -> the melds it may be laid off on."},
    )
    discardable = fields.List(
        fields.String(), metadata={"description": "The cards it may discard."}
    )
    contract = fields.List(
        fields.List(fields.String()),
        allow_none=True,
        metadata={
            "description": "When this seat may lay down, melds of its hand that make the "
            "round's contract (one way, a help; `null`: none found or not now)."
        },
    )


register(
    NAME,
    GameViews(
        seat=MayISeatSchema,
        round=MayIRoundSchema,
        result=MayIRoundResultSchema,
        seat_view=MayISeatViewSchema,
        actions=tuple(s for s in STEPS if s != "over"),
    ),
)

_RESULT = MayIRoundResultSchema._declared_fields
_MOVE = number("The move's number in the round.")
_OFFER = number("The May I? offer's number in the round.")
_MATCH = MatchViewSchema._declared_fields

declare(
    NAME,
    {
        "round-dealt": round_dealt(
            contract=fields.String(metadata={"description": "The round's contract."}),
            discard=fields.String(metadata={"description": "The first discard, face up."}),
            stock=number("How many cards the stock holds."),
        ),
        **{
            kind: (text, {"round": _ROUND, "move": _MOVE, "seat": seat(), "card": fields.String()})
            for kind, text in (
                ("discard-taken", "The seat on turn took the top discard."),
                ("discard-declined", "The seat on turn declined the top discard (RULES.md 4.6)."),
                ("discarded", "The seat on turn discarded, ending its turn."),
            )
        },
        "stock-drawn": (
            "A seat drew from the stock (never the card).",
            {"round": _ROUND, "move": _MOVE, "seat": seat(), "count": number("Cards drawn.")},
        ),
        "laid-down": (
            "A seat laid down its contract (RULES.md 4.5).",
            {
                "round": _ROUND,
                "move": _MOVE,
                "seat": seat(),
                "melds": fields.List(
                    fields.Dict(),
                    metadata={"description": "The melds laid down: `id`, `kind`, `cards` each."},
                ),
            },
        ),
        "laid-off": (
            "A seat laid a card off on a meld (RULES.md 4.2).",
            {
                "round": _ROUND,
                "move": _MOVE,
                "seat": seat(),
                "card": fields.String(),
                "meld": number("The meld's id."),
                "end": fields.String(
                    validate=validate.OneOf(["low", "high", "set"]),
                    metadata={
                        "description": "Where it went: a run's `low` or `high` end, or `set`."
                    },
                ),
            },
        ),
        "may-i-offered": (
            "A declined discard is on offer until `until_ms` (RULES.md 4.6).",
            {
                "round": _ROUND,
                "offer": _OFFER,
                "card": fields.String(),
                "until_ms": number("When the window closes (ms since the epoch)."),
            },
        ),
        "may-i-asked": (
            "A seat asked for the card on offer.",
            {"round": _ROUND, "offer": _OFFER, "seat": seat(), "card": fields.String()},
        ),
        "may-i-answered": (
            "A seat allowed or denied the request.",
            {"round": _ROUND, "offer": _OFFER, "seat": seat(), "allow": fields.Boolean()},
        ),
        "may-i-given": (
            "The card on offer was given, with cards from the stock (a count).",
            {
                "round": _ROUND,
                "offer": _OFFER,
                "seat": seat("Who takes it."),
                "card": fields.String(),
                "stock_cards": number("How many stock cards came with it."),
                "asker": seat("Who asked."),
            },
        ),
        "may-i-lapsed": ("Nobody asked for the card on offer.", {"round": _ROUND, "offer": _OFFER}),
        "stock-reshuffled": (
            "The discard pile was shuffled into a new stock (RULES.md 4.7).",
            {"round": _ROUND, "cards": number("How many cards the new stock holds.")},
        ),
        "went-out": ("A seat emptied its hand.", {"round": _ROUND, "seat": seat()}),
        "lay-off-done": (
            "A seat ended its lay-off turn after a seat went out (RULES.md 4.7).",
            {
                "round": _ROUND,
                "seat": seat(),
                "auto": fields.Boolean(
                    metadata={"description": "Skipped: it could place no card."}
                ),
            },
        ),
        "round-over": ("A round ended (RULES.md 4.8): counts and values.", dict(_RESULT)),
        "round-blocked": (
            "Every seat has laid down and no card left out of the melds fits one: the round "
            "ends with nobody out.",
            {"round": _ROUND},
        ),
        **match_ended(_MATCH, ("won", "abandoned")),
    },
)
