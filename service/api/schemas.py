"""Marshmallow schemas: they validate every request and generate the OpenAPI spec."""

from __future__ import annotations

import unicodedata
from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ..games.ship.options import (
    DECKS,
    DECLARATIONS,
    DIRECTIONS,
    MAX_SEATS,
    MIN_SEATS,
    PASSINGS,
    PRESETS,
    SIMULTANEOUS_WINS,
)

CARD_PATTERN_DOC = "A card: rank then suit, e.g. `TH`, `10H`, `A♥` (any case); answers use `TH`."
MAX_NAME = 40


class DocumentedSchema(ma.Schema):
    """A schema whose docstring becomes its description in the OpenAPI spec."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__doc__:
            meta = cls.__dict__.get("Meta") or type("Meta", (getattr(cls, "Meta", object),), {})
            setattr(meta, "description", " ".join(cls.__doc__.split()))  # noqa: B010
            setattr(cls, "Meta", meta)  # noqa: B010


class StrictSchema(DocumentedSchema):
    """Unknown fields are an error, not silently dropped."""

    class Meta:
        unknown = ma.RAISE


def Int(**kwargs: Any) -> fields.Integer:  # noqa: N802 - reads like a field class
    """A whole number that refuses ``"7"`` and ``7.5``."""
    return fields.Integer(strict=True, **kwargs)


class StrictBoolean(fields.Boolean):
    """A JSON ``true`` or ``false`` only."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


def Bool(**kwargs: Any) -> fields.Boolean:  # noqa: N802 - reads like a field class
    """A JSON ``true`` or ``false`` that refuses ``"yes"``, ``"false"``, ``1`` and ``0``
    (marshmallow's own Boolean takes them all), as ``Int()`` refuses ``"7"``."""
    return StrictBoolean(**kwargs)


def Card() -> fields.String:  # noqa: N802
    """One card code as a player may write it."""
    return fields.String(validate=validate.Length(1, 8), metadata={"description": CARD_PATTERN_DOC})


INVISIBLE = ("Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp")
"""Unicode general categories refused in names and texts: controls (Cc), format
characters such as the bidirectional overrides and isolates, zero-width joiners
and the BOM (Cf), private use (Co), lone surrogates (Cs), unassigned code points
(Cn), line and paragraph separators (Zl, Zp)."""

TEXT_DOC = (
    "Kept as typed, but refused (422) when it holds a character of Unicode category "
    + ", ".join(INVISIBLE)
    + " (controls, format and direction-changing characters such as U+202E, private use, "
    "lone surrogates, unassigned code points, line and paragraph separators), or when it "
    "has no visible character (only spaces, combining marks or blank fillers)."
)


def _printable(text: str) -> None:
    # Lone surrogates cannot be stored as UTF-8; invisible or direction-changing
    # characters let a name pass for another; a blank name names no one.
    if any(unicodedata.category(ch) in INVISIBLE for ch in text):
        raise ma.ValidationError(
            "must not hold control, format (such as direction overrides), private-use, "
            "unassigned or separator characters, nor lone surrogates"
        )
    if not any(_visible(ch) for ch in text):
        raise ma.ValidationError("must hold a visible character")


BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
"""Letters and symbols that draw nothing (Hangul fillers, the blank Braille pattern)."""


def _visible(ch: str) -> bool:
    """Whether ``ch`` draws something by itself: not a space, separator, mark,
    invisible character or blank letter."""
    category = unicodedata.category(ch)
    return not (category[0] in "ZC" or category in ("Mn", "Me") or ch in BLANK_LETTERS)


def Text(low: int, high: int, **kwargs: Any) -> fields.String:  # noqa: N802
    """A string of ``low``..``high`` characters, at least one visible (see ``TEXT_DOC``)."""
    metadata = kwargs.pop("metadata", {})
    description = " ".join(filter(None, [metadata.get("description"), TEXT_DOC]))
    return fields.String(
        validate=[validate.Length(low, high), _printable],
        metadata={**metadata, "description": description},
        **kwargs,
    )


MATCH_DOC = {
    "description": 'How the match ends (RULES.md 2.8): exactly one of `{"target_wins": n}`, '
    '`{"deals": n}`, `{"open": true}`.',
    "oneOf": [
        {
            "type": "object",
            "required": ["target_wins"],
            "additionalProperties": False,
            "properties": {"target_wins": {"type": "integer", "minimum": 1, "maximum": 1000}},
        },
        {
            "type": "object",
            "required": ["deals"],
            "additionalProperties": False,
            "properties": {"deals": {"type": "integer", "minimum": 1, "maximum": 1000}},
        },
        {
            "type": "object",
            "required": ["open"],
            "additionalProperties": False,
            "properties": {"open": {"type": "boolean", "enum": [True]}},
        },
    ],
}


class OptionsSchema(StrictSchema):
    """Option overrides (RULES.md 2.2); every member is optional and replaces
    the preset's value."""

    hand_size = Int(validate=validate.Range(1, 26))
    win_count = Int(validate=validate.Range(1, 26))
    deck = fields.String(validate=validate.OneOf(DECKS))
    deck_low_rank = fields.String(
        allow_none=True,
        validate=validate.Length(1, 2),
        metadata={"description": "A rank: `2`..`9`, `10` or `T`, `J`, `Q`, `K`, `A` (any case)."},
    )
    passing = fields.String(
        validate=validate.OneOf(PASSINGS),
        metadata={
            "description": "`simultaneous` (every seat, then all rotate), `chain` (one seat at "
            "a time gives a card to its left, from the dealer's left) or `swap` (pairwise "
            "blind swaps round the table, then Foster's showdown), RULES.md 2.5. `chain` and "
            "`swap` need `pass_count` 1 and `direction` left; `swap` needs `highest-sum` "
            "and no claim window."
        },
    )
    pass_count = Int(validate=validate.OneOf([1, 2]))
    direction = fields.String(validate=validate.OneOf(DIRECTIONS))
    declaration = fields.String(validate=validate.OneOf(DECLARATIONS))
    claim_window_ms = Int(validate=validate.Range(0, 60_000))
    simultaneous_wins = fields.String(validate=validate.OneOf(SIMULTANEOUS_WINS))
    max_exchanges = Int(
        allow_none=True,
        validate=validate.Range(1, 10_000),
        metadata={
            "description": "A round with no winner after this many exchanges is void. Under "
            "`manual` the round ends when that exchange resolves, so a hand it completes "
            "cannot be claimed."
        },
    )
    # Checked, with a pointer, by the rules (service.games.ship.options).
    match = fields.Dict(metadata=MATCH_DOC)
    call = Text(1, 80)
    swap_circuits = Int(
        allow_none=True,
        validate=validate.Range(1, 100),
        metadata={
            "description": "`swap` only: circuits of N swaps before the showdown (2 when "
            "`swap` is chosen without it); `null` for the other modes."
        },
    )
    fastest_win_bonus = Bool(
        metadata={
            "description": "One extra point at the end of a `deals` match to the seat(s) whose "
            "round win took the fewest exchanges (RULES.md 2.8). Only with `deals`."
        }
    )
    chips = Bool(
        metadata={
            "description": "Ochse scoring (RULES.md 2.8): every other seat pays each winner one "
            "chip per card its longest suit lacks of `win_count`."
        }
    )


class OptionsOutSchema(DocumentedSchema):
    """A complete option set."""

    hand_size = fields.Integer()
    win_count = fields.Integer()
    deck = fields.String()
    deck_low_rank = fields.String(allow_none=True)
    passing = fields.String()
    pass_count = fields.Integer()
    direction = fields.String()
    declaration = fields.String()
    claim_window_ms = fields.Integer()
    simultaneous_wins = fields.String()
    max_exchanges = fields.Integer(allow_none=True)
    match = fields.Dict()
    call = fields.String()
    swap_circuits = fields.Integer(allow_none=True)
    fastest_win_bonus = fields.Boolean()
    chips = fields.Boolean()


class VariantSchema(DocumentedSchema):
    """A preset (RULES.md 2.9): its name, player range, source seed and options."""

    name = fields.String()
    min_players = fields.Integer()
    max_players = fields.Integer()
    source = fields.String(metadata={"description": "The seed file of RULES.md it comes from."})
    description = fields.String()
    options = fields.Nested(OptionsOutSchema)


class VariantListSchema(DocumentedSchema):
    """Every preset this version plays."""

    variants = fields.List(fields.Nested(VariantSchema))


class GameSchema(StrictSchema):
    """A game: a preset and overrides."""

    variant = fields.String(
        load_default="classic",
        validate=validate.OneOf(list(PRESETS)),
        metadata={"description": "A preset of `GET /v1/variants`."},
    )
    options = fields.Nested(OptionsSchema, load_default=dict)


class CreateTableSchema(GameSchema):
    """A new table: preset, overrides, players in seat order, first dealer."""

    players = fields.List(
        Text(1, MAX_NAME),
        required=True,
        validate=validate.Length(MIN_SEATS, MAX_SEATS),
        metadata={"description": "The players' names in seat order, clockwise from seat 0."},
    )
    first_dealer = fields.Raw(
        load_default="draw",
        metadata={
            "description": 'A seat number, or `"draw"` to draw for it (RULES.md 1).',
            "oneOf": [{"type": "integer", "minimum": 0}, {"type": "string", "enum": ["draw"]}],
        },
    )

    @ma.validates("first_dealer")
    def _seat_or_draw(self, value: Any, **_: Any) -> None:
        if value == "draw":
            return
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ma.ValidationError('must be a seat number or "draw"')


class SeatSchema(DocumentedSchema):
    """A seat in the public view: name, score, whether it has chosen its pass."""

    seat = fields.Integer()
    name = fields.String()
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


class ShownHandSchema(DocumentedSchema):
    """A hand shown by a valid declaration, or by Foster's showdown."""

    seat = fields.Integer()
    cards = fields.List(fields.String())


class RoundResultSchema(DocumentedSchema):
    """How a round ended (RULES.md 2.7, 2.8)."""

    round = fields.Integer()
    dealer = fields.Integer()
    exchanges = fields.Integer(metadata={"description": "Exchanges resolved in the round."})
    winners = fields.List(fields.Integer(), metadata={"description": "Empty for a void round."})
    settled_by = fields.String(
        metadata={
            "description": "`sole`, `void`, `abandoned`, `highest-card`, `highest-sum`, "
            "`shared` (also a full highest-card tie), or for Foster's showdown (RULES.md "
            "2.9) `showdown` (after a declaration) and `showdown-two-cards` (the circuits "
            "ran out; no winner when no seat holds two of a suit)."
        }
    )
    hands = fields.List(
        fields.Nested(ShownHandSchema),
        metadata={"description": "Hands shown: every valid claim's, or every hand in a showdown."},
    )
    chips = fields.List(
        fields.Integer(),
        metadata={"description": "Each seat's chip change in this round; empty without chips."},
    )


class ClaimShownSchema(DocumentedSchema):
    """A valid claim of the round in play, with the hand it showed."""

    seat = fields.Integer()
    hand = fields.List(fields.String())
    at_ms = fields.Integer(metadata={"description": "When the claim arrived (Redis clock, ms)."})


class RoundViewSchema(DocumentedSchema):
    """The round in play (or the last one) as the public may see it."""

    number = fields.Integer()
    dealer = fields.Integer()
    direction = fields.String()
    status = fields.String(metadata={"description": "`passing`, `claim-window` or `over`."})
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


class RoundInfoSchema(DocumentedSchema):
    """One round: the current view while it is the latest, its result once over."""

    number = fields.Integer()
    current = fields.Nested(RoundViewSchema, allow_none=True)
    result = fields.Nested(RoundResultSchema, allow_none=True)


class MatchViewSchema(DocumentedSchema):
    """Where the match stands and who won it."""

    status = fields.String(
        metadata={"description": "`in-progress`, `won`, `finished`, `abandoned`."}
    )
    winners = fields.List(fields.Integer())
    fastest_win = fields.List(
        fields.Integer(),
        metadata={
            "description": "Seats given the fastest-win point when a `deals` match with "
            "`fastest_win_bonus` ended (RULES.md 2.8)."
        },
    )


class AwaitingSchema(DocumentedSchema):
    """Whose move the referee waits for."""

    action = fields.String(
        metadata={
            "description": "`deal` (the host deals the next round), `pass` (`seats` must "
            "choose), `claims` (a claim window is open until `until_ms`) or `nothing` (the "
            "match is over)."
        }
    )
    seats = fields.List(fields.Integer())
    until_ms = fields.Integer(allow_none=True)


class PublicTableSchema(DocumentedSchema):
    """The public view of a table: never a hidden card."""

    table_id = fields.String()
    variant = fields.String()
    options = fields.Nested(OptionsOutSchema)
    seats = fields.List(fields.Nested(SeatSchema))
    first_dealer = fields.Integer()
    draw = fields.List(
        fields.List(fields.String(allow_none=True)),
        metadata={"description": "The first-dealer draw, one card per seat per pass (face up)."},
    )
    dealer = fields.Integer()
    awaiting = fields.Nested(AwaitingSchema)
    round = fields.Nested(RoundViewSchema, allow_none=True)
    results = fields.List(fields.Nested(RoundResultSchema))
    standings = fields.List(
        fields.Nested(SeatSchema),
        metadata={"description": "The seats by points, then chips, then seat number."},
    )
    match = fields.Nested(MatchViewSchema)
    last_event = fields.Integer(
        metadata={
            "description": "The seq of the last event written so far (0: none): read "
            "`/events?after=last_event` to follow the table from this view on."
        }
    )


class SeatTokenSchema(DocumentedSchema):
    """A seat's bearer token, shown only when the table is created."""

    seat = fields.Integer()
    name = fields.String()
    token = fields.String()


class CreatedTableSchema(DocumentedSchema):
    """A created table, with the host's and every seat's token (shown once)."""

    table_id = fields.String()
    host_token = fields.String(metadata={"description": "Shown only this once."})
    seat_tokens = fields.List(
        fields.Nested(SeatTokenSchema), metadata={"description": "Shown once."}
    )
    table = fields.Nested(PublicTableSchema)


class SeatViewSchema(DocumentedSchema):
    """What one seat may see: its hand, pending pass, last cards passed and received."""

    seat = fields.Integer()
    name = fields.String()
    round = fields.Integer(allow_none=True)
    round_status = fields.String(allow_none=True)
    exchange = fields.Integer(allow_none=True)
    hand = fields.List(fields.String())
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
    last_event = fields.Integer(
        metadata={
            "description": "The seq of the last event written so far (0: none): read "
            "`/events?after=last_event` to follow the table from this view on."
        }
    )


class DealSchema(StrictSchema):
    """The next round: no `hands` (or `null`) to shuffle, or a submitted deal to check."""

    hands = fields.List(
        fields.List(Card()),
        validate=validate.Length(1, MAX_SEATS),
        allow_none=True,
        metadata={
            "description": "A submitted deal, one hand per seat; omit it or send `null` to shuffle."
        },
    )


class RoundStartedSchema(DocumentedSchema):
    """The round just dealt and the table's public view."""

    round = fields.Integer()
    dealer = fields.Integer()
    table = fields.Nested(PublicTableSchema)


class PassSchema(StrictSchema):
    """A seat's pass: `pass_count` cards of its hand."""

    cards = fields.List(
        Card(),
        required=True,
        validate=validate.Length(max=26),  # the count itself is a rule: 422 pass-invalid
        metadata={"description": "`pass_count` cards from the seat's hand."},
    )


class PassOutcomeSchema(DocumentedSchema):
    """A pass taken: whether the exchange resolved, and the seat's hand now."""

    round = fields.Integer()
    exchange = fields.Integer()
    seat = fields.Integer()
    cards = fields.List(fields.String())
    resolved = fields.Boolean(metadata={"description": "Whether this exchange has resolved."})
    waiting_for = fields.List(fields.Integer())
    round_status = fields.String()
    hand = fields.List(fields.String(), metadata={"description": "The seat's hand now."})


class ClaimOutcomeSchema(DocumentedSchema):
    """An accepted declaration and the settlement (or when its window closes)."""

    round = fields.Integer()
    seat = fields.Integer()
    accepted = fields.Boolean()
    round_status = fields.String()
    window_closes_at_ms = fields.Integer(allow_none=True)
    result = fields.Nested(RoundResultSchema, allow_none=True)
    match = fields.Nested(MatchViewSchema)


class EventsQuerySchema(StrictSchema):
    """A page of the event log: events after `after`, at most `limit`."""

    # Query values arrive as text, so these are not strict.
    after = fields.Integer(
        load_default=0,
        validate=validate.Range(0, 2**53),
        metadata={
            "description": "Answer the events with a greater `seq`: 0 for the whole log, "
            "a table's `last_event` to follow it, a page's `next_after` to read on."
        },
    )
    limit = fields.Integer(
        load_default=100,
        validate=validate.Range(1, 1000),
        metadata={"description": "At most this many events."},
    )


class EventListSchema(DocumentedSchema):
    """A page of public events."""

    events = fields.List(
        fields.Dict(),
        metadata={"description": "Each has `seq`, `at_ms`, `type` and the type's members."},
    )
    next_after = fields.Integer(metadata={"description": "Pass as `after` to read on."})
    more = fields.Boolean(metadata={"description": "Whether events after this page exist now."})
    last_event = fields.Integer(metadata={"description": "The seq of the last event so far."})
    oldest_seq = fields.Integer(
        metadata={
            "description": "The seq of the oldest event still kept (only the newest "
            "`EVENTS_KEPT` are); a cursor before `oldest_seq - 1` gets 410 `events-gone`."
        }
    )


class CheckDealSchema(GameSchema):
    """A deal to check for `players` seats under a preset and overrides."""

    players = Int(required=True, validate=validate.Range(MIN_SEATS, MAX_SEATS))
    hands = fields.List(
        fields.List(Card()),
        required=True,
        validate=validate.Length(1, MAX_SEATS),
    )


class CheckDealOutcomeSchema(DocumentedSchema):
    """Whether the deal is valid, every problem, and the hands in canonical form."""

    valid = fields.Boolean()
    problems = fields.List(fields.Dict(), metadata={"description": "`{pointer, detail}` each."})
    hands = fields.List(fields.List(fields.String()), allow_none=True)


class CheckClaimSchema(GameSchema):
    """A hand to judge for a `players`-seat game under a preset and overrides."""

    players = Int(required=True, validate=validate.Range(MIN_SEATS, MAX_SEATS))
    hand = fields.List(
        Card(),
        required=True,
        validate=validate.Length(0, 26),
    )


class CheckClaimOutcomeSchema(DocumentedSchema):
    """Whether the hand wins, why, and its winning suits."""

    winning = fields.Boolean()
    reason = fields.String()
    suits = fields.List(fields.String(), metadata={"description": "The winning suits (S H D C)."})


class CheckExchangeSchema(GameSchema):
    """Hands and passes by seat for one exchange of any passing mode."""

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
    hands = fields.List(
        fields.List(Card()),
        required=True,
        validate=validate.Length(MIN_SEATS, MAX_SEATS),
    )
    passes = fields.List(
        fields.List(Card(), allow_none=True),
        required=True,
        validate=validate.Length(MIN_SEATS, MAX_SEATS),
        metadata={
            "description": "One entry per seat: the cards it passes, or `null` (or `[]`) for a "
            "seat that does not pass in this exchange."
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


class ProblemErrorSchema(DocumentedSchema):
    """One problem at one place: a body `pointer` or a `parameter`."""

    pointer = fields.String()
    parameter = fields.String()
    detail = fields.String()


class ProblemSchema(DocumentedSchema):
    """RFC 9457 problem details; 409 answers add the current numbers, 410 the
    oldest event kept."""

    class Meta:
        unknown = ma.INCLUDE

    type = fields.String(
        metadata={
            "description": "`/problems/{code}`, a page of this service (resolve it against "
            "the request's URL) saying what the code means and what to do."
        }
    )
    title = fields.String()
    status = fields.Integer()
    detail = fields.String()
    code = fields.String(metadata={"description": "Stable, machine-readable."})
    errors = fields.List(fields.Nested(ProblemErrorSchema))
    current_round = fields.Integer(allow_none=True)
    current_exchange = fields.Integer(allow_none=True)
    round_status = fields.String(allow_none=True)
    waiting_for = fields.List(fields.Integer())
    oldest_seq = fields.Integer(
        metadata={"description": "410 `events-gone`: the seq of the oldest event still kept."}
    )
    last_event = fields.Integer(
        metadata={"description": "410 `events-gone`: the seq of the last event; read on from it."}
    )


class HealthSchema(DocumentedSchema):
    """A probe's answer."""

    status = fields.String()
