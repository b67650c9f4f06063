"""A table's requests and answers: a new table and its players, a deal, a page
of events or rounds."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ...edge.inputs import AsciiInteger
from ...games.base import BOT_KINDS
from ...games.ship.options import (
    MAX_SEATS,
    MIN_SEATS,
)
from ...spec.fields import (
    LARGEST_DEALT_HAND,
    LARGEST_DECK,
    MAX_NAME,
    Bool,
    Card,
    Cards,
    DocumentedSchema,
    Items,
    PersonName,
    StrictSchema,
    Text,
)
from ...spec.schemas import (
    AsIs,
    EventSchema,
    GameSchema,
    JoinCodeSchema,
    PublicTableSchema,
    SeatTokenSchema,
)


class PlayerField(fields.Field):  # type: ignore[type-arg]
    """A seat of a new table: a name, ``null`` (open), or a bot."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> Any:
        name = Text(1, MAX_NAME, "Name")
        if value is None:
            return None
        if isinstance(value, str):
            return PersonName().deserialize(value)
        if isinstance(value, dict) and set(value) <= {"bot", "name"}:
            if value.get("bot") not in BOT_KINDS:
                raise ma.ValidationError(f"bot must be one of {', '.join(BOT_KINDS)}")
            if value.get("name") is None:
                return {"bot": value["bot"]}
            try:
                named = name.deserialize(value["name"])
            except ma.ValidationError as refused:  # pointed at /players/<n>/name
                raise ma.ValidationError({"name": refused.messages}) from None
            return {"bot": value["bot"], "name": named}
        raise ma.ValidationError('a name, null, or {"bot": "random" | "basic"}')


class CreateTableSchema(GameSchema):
    """A new table: preset, overrides, players in seat order, first dealer."""

    clocked = True

    players = Items(
        PlayerField(
            allow_none=True,
            metadata={
                "nullable": True,
                "oneOf": [
                    {"$ref": "#/components/schemas/Name"},
                    {
                        "type": "object",
                        "required": ["bot"],
                        "additionalProperties": False,
                        "properties": {
                            "bot": {"type": "string", "enum": list(BOT_KINDS)},
                            "name": {"$ref": "#/components/schemas/Name"},
                        },
                    },
                ],
            },
        ),
        required=True,
        validate=validate.Length(MIN_SEATS, MAX_SEATS),
        metadata={
            "description": "The players in seat order, clockwise from seat 0: a person's name "
            "(names of the form `Bot …` are the bots', RULES.md 5.1: a person's name whose "
            'first word reads "Bot", in any case or in look-alike letters, is refused); `null` '
            "for an open seat, which a player takes later with a join code (or, at a "
            '`listed` table, with none): RULES.md 5.1; or `{"bot": "random" | "basic", '
            '"name": ...}` for a seat an automatic player takes (RULES.md 5.4; no token).'
        },
    )
    join_codes = fields.String(
        load_default="seat",
        validate=validate.OneOf(["seat", "table"]),
        metadata={
            "description": "With open seats: `seat` (one code per open seat, each single "
            "use) or `table` (one code that takes the lowest open seat each time it is "
            "presented, until it expires)."
        },
    )
    listed = Bool(
        load_default=False,
        metadata={
            "description": "Show the table in the lobby (`GET /v1/lobby`, RULES.md 5.6) while "
            "it has open seats; anyone may then take one, without a code."
        },
    )
    first_dealer = fields.Raw(
        load_default="draw",
        metadata={
            "description": 'A seat number, or `"draw"` to draw for it (RULES.md 1).',
            "oneOf": [
                {"type": "integer", "minimum": 0, "maximum": MAX_SEATS - 1},
                {"type": "string", "enum": ["draw"]},
            ],
        },
    )

    @ma.validates("first_dealer")
    def _seat_or_draw(self, value: Any, **_: Any) -> None:
        if value == "draw":
            return
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < MAX_SEATS:
            raise ma.ValidationError(f'must be a seat number (0..{MAX_SEATS - 1}) or "draw"')


class CreatedTableSchema(DocumentedSchema):
    """A created table, with the host's and every named seat's token and the
    open seats' join codes (shown once)."""

    table_id = fields.String()
    host_token = fields.String(metadata={"description": "Shown only this once."})
    seat_tokens = fields.List(
        fields.Nested(SeatTokenSchema),
        metadata={"description": "Shown once; one per named seat (none for an open seat)."},
    )
    join_codes = fields.List(
        fields.Nested(JoinCodeSchema),
        metadata={
            "description": "Shown once; one per open seat, or one table code (`join_codes: "
            "table`); empty when every seat is named."
        },
    )
    table = fields.Nested(PublicTableSchema)


class DealSchema(StrictSchema):
    """The next round: no `hands` (or `null`) to shuffle, or a submitted deal to check."""

    hands = Items(
        Cards(LARGEST_DEALT_HAND, what="a dealt hand", joker=True),
        validate=validate.Length(1, MAX_SEATS),
        allow_none=True,
        metadata={
            "description": "A submitted deal, one hand per seat; omit it or send `null` to "
            f"shuffle. With `stock` and `discard`, at most {LARGEST_DECK} cards in all."
        },
    )
    opening_suit = fields.String(
        validate=validate.Length(1, 8),
        metadata={
            "description": "Sevens with `opening: dealer-choice` only: the suit of the opening "
            "seven (`S`, `H`, `D`, `C`); diamonds when omitted (RULES.md 3.4)."
        },
    )
    stock = Cards(
        LARGEST_DECK,
        1,
        "the stock",
        joker=True,
        metadata={"description": "May I? with `hands`: the stock, its top first (RULES.md 4.4)."},
    )
    discard = Card(joker=True, metadata={"description": "May I? with `hands`: the first discard."})


class RoundStartedSchema(DocumentedSchema):
    """The round just dealt and the table's public view."""

    round = fields.Integer()
    dealer = fields.Integer()
    commitment = fields.String(
        metadata={"description": "The deal's commitment (RULES.md 5.2), as `next_deal` showed it."}
    )
    table = fields.Nested(PublicTableSchema)


class EventsQuerySchema(StrictSchema):
    """A page of the event log: events after `after`, at most `limit`."""

    # Query values arrive as text, so these are not strict (but ASCII digits only).
    after = AsciiInteger(
        load_default=0,
        validate=validate.Range(0, 2**53),
        metadata={
            "description": "Answer the events with a greater `seq`: 0 for the whole log, "
            "a table's `last_event` to follow it, a page's `next_after` to read on."
        },
    )
    limit = AsciiInteger(
        load_default=100,
        validate=validate.Range(1, 1000),
        metadata={"description": "At most this many events."},
    )


class EventListSchema(DocumentedSchema):
    """A page of public events."""

    events = fields.List(AsIs(EventSchema))
    next_after = fields.Integer(metadata={"description": "Pass as `after` to read on."})
    more = fields.Boolean(metadata={"description": "Whether events after this page exist now."})
    last_event = fields.Integer(metadata={"description": "The seq of the last event so far."})
    oldest_seq = fields.Integer(
        metadata={
            "description": "The seq of the oldest event still kept (only the newest "
            "`EVENTS_KEPT` are); a cursor before `oldest_seq - 1` gets 410 `events-gone`."
        }
    )


class RoundsQuerySchema(StrictSchema):
    """A page of the finished rounds: rounds numbered after `after`, at most `limit`."""

    after = AsciiInteger(
        load_default=0,
        validate=validate.Range(0, 2**53),
        metadata={
            "description": "Answer the rounds with a greater number: 0 for every round "
            "still kept, a page's `next_after` to read on."
        },
    )
    limit = AsciiInteger(
        load_default=20,
        validate=validate.Range(1, 100),
        metadata={"description": "At most this many rounds."},
    )
