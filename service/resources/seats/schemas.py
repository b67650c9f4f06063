"""Bodies and answers of joining, leaving, reissued tokens and codes, and the
lobby (RULES.md 5.1, 5.6)."""

from __future__ import annotations

from marshmallow import fields, validate

from ...edge.inputs import AsciiInteger
from ...games import GAMES, VARIANTS
from ...games.base import BOT_KINDS
from ...spec.fields import DocumentedSchema, Int, PersonName, StrictSchema
from ...spec.schemas import JoinCodeSchema, PublicTableSchema

LOBBY_PAGE = 50
"""The most tables one lobby page lists."""


class JoinSchema(StrictSchema):
    """Take an open seat: the player's name and, unless the table is listed,
    a join code."""

    name = PersonName(required=True, metadata={"description": "The player's name."})
    code = fields.String(
        validate=validate.Length(1, 64),
        metadata={
            "description": "A join code from the host (a seat's, or the table's); leave it "
            "out to take the lowest open seat of a listed table."
        },
    )


class JoinedSchema(DocumentedSchema):
    """The seat taken and its token: shown only in this answer (and to a
    retry with the same `Idempotency-Key`)."""

    seat = fields.Integer()
    name = fields.String()
    token = fields.String(metadata={"description": "The seat's bearer token; shown only here."})
    table = fields.Nested(PublicTableSchema)


class CodeRequestSchema(StrictSchema):
    """Which code to issue: a seat's, or the table's."""

    seat = Int(
        allow_none=True,
        load_default=None,
        validate=validate.Range(0, 9),
        metadata={"description": "An open seat; `null` (the default) for the table code."},
    )


class IssuedCodeSchema(JoinCodeSchema):
    """A new join code: it replaces the seat's (or the table's) earlier one."""


class LobbyQuerySchema(StrictSchema):
    """A page of the lobby: listed tables with open seats, newest first."""

    game = fields.String(
        validate=validate.OneOf(list(GAMES)), metadata={"description": "Only this game's tables."}
    )
    variant = fields.String(
        validate=validate.OneOf(list(VARIANTS)),
        metadata={"description": "Only this preset's tables."},
    )
    after = fields.String(
        validate=validate.Regexp(r"^[0-9]{1,16}\.[A-Za-z0-9_-]{16,64}$"),
        metadata={"description": "A page's `next_after`: read on from there (opaque)."},
    )
    limit = AsciiInteger(
        load_default=20,
        validate=validate.Range(1, LOBBY_PAGE),
        metadata={"description": f"At most this many tables (1 to {LOBBY_PAGE})."},
    )


class LobbySeatSchema(DocumentedSchema):
    """A seat as the lobby shows it."""

    seat = fields.Integer()
    name = fields.String(allow_none=True, metadata={"description": "`null`: open."})
    open = fields.Boolean()


class LobbyTableSchema(DocumentedSchema):
    """A listed table with open seats (never a code or a token)."""

    table_id = fields.String()
    game = fields.String(validate=validate.OneOf(list(GAMES)))
    variant = fields.String(validate=validate.OneOf(list(VARIANTS)))
    options = fields.Dict(
        keys=fields.String(),
        metadata={"description": "The options that differ from the preset's."},
    )
    seats = fields.List(fields.Nested(LobbySeatSchema))
    seats_taken = fields.Integer()
    seats_open = fields.Integer()
    created_at_ms = fields.Integer()
    expires_at_ms = fields.Integer(
        metadata={"description": "When the table expires unless it is played (ms since the epoch)."}
    )


class LobbyPageSchema(DocumentedSchema):
    """A page of the lobby."""

    tables = fields.List(fields.Nested(LobbyTableSchema))
    more = fields.Boolean(
        metadata={"description": "Another page follows: read on from `next_after`."}
    )
    next_after = fields.String(allow_none=True)


class BotSeatSchema(StrictSchema):
    """Hand a seat to a bot: which automatic player (RULES.md 5.4)."""

    kind = fields.String(
        required=True,
        validate=validate.OneOf(BOT_KINDS),
        metadata={
            "description": "`random` (any legal move) or `basic` (the default move's player)."
        },
    )
