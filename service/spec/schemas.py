"""Marshmallow schemas: they validate every request and generate the OpenAPI spec."""

from __future__ import annotations

import unicodedata
from typing import Any, ClassVar

import marshmallow as ma
from marshmallow import fields, validate
from marshmallow_oneofschema.one_of_schema import OneOfSchema

from ..edge.inputs import AsciiInteger
from ..edge.names import BOT_NAME_RULE, bot_like
from ..games import GAMES, VARIANTS
from ..games.base import BOT_KINDS
from ..games.cards import BLANKS_AROUND_A_CARD
from ..games.match import MatchStatus
from ..games.may_i.options import LARGEST_DECK as MAY_I_DECK
from ..games.sevens.options import LARGEST_DECK as SEVENS_DECK
from ..games.ship.options import (
    DECKS,
    DECLARATIONS,
    DIRECTIONS,
    MAX_SEATS,
    MIN_SEATS,
    PASSINGS,
    SIMULTANEOUS_WINS,
)
from ..games.ship.options import LARGEST_DECK as SHIP_DECK
from ..games.ship.options import LARGEST_HAND as SHIP_HAND

CARD_PATTERN_DOC = "A card: rank then suit, e.g. `TH`, `10H`, `A♥` (any case); answers use `TH`."
MAX_NAME = 40
MAX_CALL = 80
LARGEST_DECK = max(SHIP_DECK, SEVENS_DECK, MAY_I_DECK)
"""The most cards a round of any game holds (May I?'s four decks with their
jokers, 216): a deal of any game, its hands and its stock together, holds no
more. Each game's own checks bound it by its own deck."""
LARGEST_DEALT_HAND = SHIP_HAND
"""The most cards a deal gives one seat in any game: My Ship Sails' largest
``hand_size`` (26; Sevens deals at most 18, May I? 10)."""


class DocumentedSchema(ma.Schema):
    """A schema whose docstring becomes its description in the OpenAPI spec.

    As a response's schema, every member it declares is ``required`` in the
    spec (each answer holds it, ``null`` where the field allows) unless
    ``PRESENT`` names the only ones that are: the views shared by the games
    hold each game's own members on that game's tables only."""

    PRESENT: ClassVar[tuple[str, ...] | None] = None

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


_RANK = "(?:10|[2-9TtJjQqKkAa])"
_SUIT = "(?:[SsHhDdCc]|[\u2660\u2665\u2666\u2663\u2664\u2661\u2662\u2667][\ufe0e\ufe0f]?)"
_BLANKS = rf"\s{{0,{BLANKS_AROUND_A_CARD}}}"
CARD_PATTERN = rf"^{_BLANKS}{_RANK}{_SUIT}{_BLANKS}$"
"""What :func:`service.games.cards.parse_card` reads as a card, for the spec.
Its blanks are bounded so that every string it matches is at most 8
characters long (the field's ``maxLength``): with ``\\s*`` a generator drew
strings the length then refused, and a body of many cards was nearly always
drawn again (Hypothesis's health check failed on the exchange check)."""
_SELECTORS = "[\ufe0e\ufe0f]*"
SUIT_PATTERN = (
    rf"^\s*{_SELECTORS}(?:[SsHhDdCc]|[\u2660\u2665\u2666\u2663\u2664\u2661\u2662\u2667])"
    rf"{_SELECTORS}\s*$"
)
"""A suit as :func:`~service.games.cards.parse_suit` reads it: a letter (any
case) or a symbol, variation selectors anywhere inside."""
CARD_OR_JOKER_PATTERN = rf"^{_BLANKS}(?:{_RANK}{_SUIT}|[Jj][Kk]|[Jj][Oo][Kk][Ee][Rr]){_BLANKS}$"
"""The same, or May I?'s joker (``JK``, ``joker``)."""


def Card(*, joker: bool = False, judged: bool = False, **kwargs: Any) -> fields.String:  # noqa: N802
    """One card code as a player may write it (with ``joker``, also May I?'s
    joker). Its pattern is in the spec, and the game refuses what does not
    match it with the card's pointer; a ``judged`` card (a deal check's) has
    none, since the check answers a bad card as one of its problems."""
    metadata = {"description": CARD_PATTERN_DOC, **kwargs.pop("metadata", {})}
    if not judged:
        metadata["pattern"] = CARD_OR_JOKER_PATTERN if joker else CARD_PATTERN
    return fields.String(validate=validate.Length(1, 8), metadata=metadata, **kwargs)


def Cards(  # noqa: N802
    most: int,
    least: int = 0,
    what: str = "cards",
    *,
    joker: bool = False,
    judged: bool = False,
    **kwargs: Any,
) -> fields.List[Any]:
    """A list of ``least``..``most`` cards: ``most`` is what the game can hold
    there (a hand, a stock, a meld), so that no request costs more than the
    game's largest real one."""
    error = f"{what}: {least} to {most} cards (the most the game can hold there)"
    length = validate.Length(least, most, error=error)
    return fields.List(Card(joker=joker, judged=judged), validate=length, **kwargs)


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


def Text(low: int, high: int, component: str, **kwargs: Any) -> fields.String:  # noqa: N802
    """A string of ``low``..``high`` characters, at least one visible (see
    ``TEXT_DOC``), which the spec states as its text ``component`` (the rule
    as a pattern: :mod:`.texts`)."""
    metadata = kwargs.pop("metadata", {})
    description = " ".join(filter(None, [metadata.get("description"), TEXT_DOC]))
    return fields.String(
        validate=[validate.Length(low, high), _printable],
        metadata={**metadata, "description": description, "text_component": component},
        **kwargs,
    )


def _a_persons(text: str) -> None:
    # A person named "Bot 3 (basic)" would pass for the bot (RULES.md 5.1).
    if bot_like(text):
        raise ma.ValidationError(BOT_NAME_RULE)


PERSON_NAME_DOC = (
    "Names of the form `Bot …` are the bots' (RULES.md 5.1): a person's name whose first "
    'word reads "Bot" (in any case, or in letters that look alike: Unicode\'s confusables) '
    "is refused (422)."
)


def PersonName(**kwargs: Any) -> fields.String:  # noqa: N802 - reads like a field class
    """A person's name (:data:`MAX_NAME` characters at most, see ``TEXT_DOC``),
    never a bot's (:func:`.names.bot_like`)."""
    metadata = kwargs.pop("metadata", {})
    description = " ".join(filter(None, [metadata.get("description"), PERSON_NAME_DOC]))
    field = Text(1, MAX_NAME, "Name", metadata={**metadata, "description": description}, **kwargs)
    field.validators.append(_a_persons)
    return field


MATCH_DOC = {
    "description": 'How the match ends (RULES.md 2.8, 3.5): exactly one of `{"target_wins": n}`, '
    '`{"deals": n}`, `{"open": true}`, and for Sevens also `{"target_points": n}`.',
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
            "required": ["target_points"],
            "additionalProperties": False,
            "properties": {"target_points": {"type": "integer", "minimum": 1, "maximum": 10000}},
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

    hand_size = Int(validate=validate.Range(1, SHIP_HAND))
    win_count = Int(validate=validate.Range(1, 26))
    deck = fields.String(validate=validate.OneOf(DECKS))
    deck_low_rank = fields.String(
        allow_none=True,
        validate=validate.Length(1, 2),
        metadata={
            "description": "A rank: `2`..`9`, `10` or `T`, `J`, `Q`, `K`, `A` (any case).",
            "pattern": rf"^\s*{_RANK}\s*$",
        },
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
    call = Text(1, MAX_CALL, "Call")
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
    # Sevens (RULES.md 3); the other game's table refuses them as unknown options.
    decks = Int(
        allow_none=True,  # May I?'s "by players"; each game's spec says what it takes
        validate=validate.OneOf([1, 2, 3, 4]),
        metadata={
            "description": "Sevens: 1, or 2 (Fan Tan with two decks, two rows per suit). "
            "May I?: 52-card decks (2 for 3-5 players, 3 for 6-8 when omitted)."
        },
    )
    opening = fields.String(
        validate=validate.OneOf(["7D", "7C", "any-seven", "dealer-choice"]),
        metadata={
            "description": "Sevens: who opens (RULES.md 3.4): the holder of `7D` or `7C` "
            "plays it; `any-seven`: the dealer's left; `dealer-choice`: the deal names the "
            "seven's suit (`opening_suit`)."
        },
    )
    pass_chips = Int(
        validate=validate.Range(0, 100),
        metadata={"description": "Sevens: chips a pass pays into the pot."},
    )
    voluntary_pass = Bool(
        metadata={"description": "Sevens: a seat may pass although it could play."}
    )
    voluntary_pass_limit = Int(
        validate=validate.Range(0, 100),
        metadata={"description": "Sevens: voluntary passes a seat may make per round."},
    )
    last_card = Bool(
        metadata={
            "description": "Sevens: a seat playing its second-to-last card announces it "
            "(`last_card: true` in the move) or pays 2 chips."
        }
    )
    turn_the_corner = Bool(
        metadata={"description": "Sevens: ranks are cyclic; a row may go on past A to 2."}
    )
    points = fields.String(
        validate=validate.OneOf(["none", "winner-scores", "losers-score"]),
        metadata={"description": "Sevens: penalty points for the cards left (RULES.md 3.5)."},
    )
    # May I? (RULES.md 4).
    jokers = Int(
        validate=validate.OneOf([0, 2]),
        metadata={"description": "May I?: jokers (`JK`) per deck, wild in melds (RULES.md 4.1)."},
    )
    ending = fields.String(
        validate=validate.OneOf(["immediate", "lay-off-round", "play-out"]),
        metadata={"description": "May I?: how a round ends when a seat goes out (RULES.md 4.7)."},
    )
    may_i_window_ms = Int(
        validate=validate.Range(0, 60_000),
        metadata={"description": "May I?: how long a declined discard is offered (RULES.md 4.6)."},
    )
    # Every game's clock (RULES.md 5.3, 5.4).
    turn_timeout_ms = Int(
        allow_none=True,
        validate=validate.Range(100, 86_400_000),
        metadata={
            "description": "Every game: how long a seat due to move has before its default "
            "move is made for it and it is `away` (RULES.md 5.3); `null` (the default): no clock."
        },
    )
    away_timeout_ms = Int(
        validate=validate.Range(0, 86_400_000),
        metadata={"description": "Every game: an `away` seat's deadline instead (2000)."},
    )
    bot_delay_ms = Int(
        validate=validate.Range(0, 60_000),
        metadata={"description": "Every game: how long a bot waits before its move (600)."},
    )
    unattended_moves = Int(
        validate=validate.Range(10, 10_000),
        metadata={
            "description": "Every game: after this many moves in a row that the referee made "
            "for seats (bots' and default moves) with no act of play of a person (a seat's "
            "move, a deal, a join, a seat handed to a bot or taken back), an away person gets "
            "no more default moves and a table of bots only stops (`clock_paused`); the next "
            "act of play resumes it (1000)."
        },
    )


class ByGame(OneOfSchema):
    """An answer of each game's own shape, chosen by its ``game`` member: the
    spec's ``oneOf`` with a ``discriminator`` (so that a generated client
    narrows on ``game``). Each game's schemas are put in ``type_schemas``
    by :func:`.schemas_games.register`, so that this module knows no game."""

    type_field = "game"
    type_field_remove = False
    type_schemas: dict[str, type[ma.Schema]] = {}

    def get_obj_type(self, obj: Any) -> str:
        return str(obj["game"])


class PublicTableSchema(ByGame):
    """The public view of a table: never a hidden card. One shape per game,
    told apart by `game`."""

    type_schemas: dict[str, type[ma.Schema]] = {}


class SeatViewSchema(ByGame):
    """What one seat may see: its hand and what it may do now. One shape per
    game, told apart by `game`."""

    type_schemas: dict[str, type[ma.Schema]] = {}


class RoundInfoSchema(ByGame):
    """One round: the current view while it is the latest, its result once
    over. One shape per game, told apart by `game`."""

    type_schemas: dict[str, type[ma.Schema]] = {}


class RoundListSchema(ByGame):
    """A page of finished rounds' results, oldest first. One shape per game,
    told apart by `game`."""

    type_schemas: dict[str, type[ma.Schema]] = {}


class VariantSchema(ByGame):
    """A preset: its name, player range, source seed and options. One shape
    per game, told apart by `game`."""

    type_schemas: dict[str, type[ma.Schema]] = {}


class VariantBaseSchema(DocumentedSchema):
    """A preset (RULES.md 2.9): its name, player range, source seed and options."""

    name = fields.String()
    game = fields.String(
        metadata={
            "description": "The game this preset belongs to: `my-ship-sails`, `sevens` or `may-i`."
        }
    )
    min_players = fields.Integer()
    max_players = fields.Integer()
    source = fields.String(
        metadata={
            "description": "The source text it comes from (a seed of the rule book, e.g. `004`)."
        }
    )
    description = fields.String()
    options = fields.Dict(metadata={"description": "The options in force (each game's own)."})


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


class GameSchema(StrictSchema):
    """A game: a preset and overrides."""

    games: tuple[str, ...] | None = None
    """The games whose presets it takes (None: every game): the spec's
    ``oneOf`` branches (:mod:`.spec_games`)."""
    clocked = False
    """Whether its options take every game's clock options (a new table's
    do; a check's refuse them as unknown)."""
    deal = False
    """Whether it holds a submitted deal, whose members each game reads its
    own of (``Game.deal_members``: the spec's branch of a game leaves the
    others out, as that game refuses them)."""

    variant = fields.String(
        load_default="classic",
        validate=validate.OneOf(list(VARIANTS)),
        metadata={"description": "A preset of any game (`GET /v1/variants`)."},
    )
    options = fields.Nested(OptionsSchema, load_default=dict)


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

    players = fields.List(
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


class SeatSchema(DocumentedSchema):
    """A seat in the public view, the members of every game: each game's
    seat adds its own (:func:`.schemas_games.register`)."""

    PRESENT: ClassVar[tuple[str, ...] | None] = ("seat", "name", "open", "connected", "points")

    seat = fields.Integer()
    name = fields.String(allow_none=True, metadata={"description": "`null` for an open seat."})
    open = fields.Boolean(
        metadata={"description": "The seat waits for a player to join (RULES.md 5.1)."}
    )
    connected = fields.Boolean(
        metadata={
            "description": "A stream of the seat's own, or a request with its token, was seen "
            "within the last 15 seconds (RULES.md 5.5)."
        }
    )
    away = fields.Boolean(
        metadata={
            "description": "The seat timed out and has not moved itself since (RULES.md 5.3)."
        }
    )
    bot = fields.String(
        allow_none=True,
        validate=validate.OneOf(BOT_KINDS),
        metadata={"description": "`random` or `basic` for a seat a bot plays (RULES.md 5.4)."},
    )
    until_ms = fields.Integer(
        allow_none=True,
        metadata={
            "description": "The seat's deadline in the step the table waits on (ms since the "
            "epoch, Redis's clock), or `null`: its default move (or its bot's move) is made then."
        },
    )
    reissued = fields.Boolean(
        metadata={
            "description": "In `seats`: the host reissued this seat's token while the round "
            "shown was in play (while the seat was not connected: a lost phone); marked for the "
            "rest of that round, beside the `token-reissued` event (RULES.md 5.1)."
        }
    )
    points = fields.Integer(
        metadata={"description": "The seat's score in its game's measure (RULES.md 2.8, 3.5, 4.8)."}
    )


class ShownHandSchema(DocumentedSchema):
    """A hand shown by a valid declaration, or by Foster's showdown."""

    seat = fields.Integer()
    cards = fields.List(fields.String())


class RoundResultSchema(DocumentedSchema):
    """How a round ended, the members of every game: each game's result adds
    its own (RULES.md 2.7, 2.8, 3.5, 4.8)."""

    PRESENT: ClassVar[tuple[str, ...] | None] = ("round", "dealer")

    round = fields.Integer()
    dealer = fields.Integer()


class ClaimShownSchema(DocumentedSchema):
    """A valid claim of the round in play, with the hand it showed."""

    seat = fields.Integer()
    hand = fields.List(fields.String())
    at_ms = fields.Integer(metadata={"description": "When the claim arrived (Redis clock, ms)."})


class RoundViewSchema(DocumentedSchema):
    """The round in play (or the last one) as the public may see it, the
    members of every game: each game's round adds its own."""

    PRESENT: ClassVar[tuple[str, ...] | None] = ("number", "dealer", "status")

    number = fields.Integer()
    dealer = fields.Integer()
    status = fields.String(metadata={"description": "Where the round stands (its game's words)."})


class RoundInfoBaseSchema(DocumentedSchema):
    """One round: the current view while it is the latest, its result once
    over (each game's: :mod:`.schemas_games`)."""

    game = fields.String(metadata={"description": "The game the table plays."})
    number = fields.Integer()
    current = fields.Nested(RoundViewSchema, allow_none=True)
    result = fields.Nested(RoundResultSchema, allow_none=True)


class MatchViewSchema(DocumentedSchema):
    """Where the match stands and who won it."""

    PRESENT: ClassVar[tuple[str, ...] | None] = ("status", "winners")

    status = fields.String(
        validate=validate.OneOf([s.value for s in MatchStatus]),
        metadata={
            "description": "`in-progress`; `won` (ended by its own rule), `finished` (the host "
            "ended an `open` match) or `abandoned` (the host ended it early)."
        },
    )
    winners = fields.List(fields.Integer())


class AwaitingSchema(DocumentedSchema):
    """Whose move the referee waits for."""

    action = fields.String(
        metadata={
            "description": "What the table waits for: `deal` (the host deals the next round), "
            "`nothing` (the match is over), or the game's own step (each game's `action` "
            "lists them)."
        }
    )
    seats = fields.List(fields.Integer())
    until_ms = fields.Integer(
        allow_none=True,
        metadata={
            "description": "When the wait ends (ms since the epoch, Redis's clock): a claim "
            "window or May I? window closes, or, under a turn clock, the first deadline of "
            "`seats` (their own `until_ms`: a default move is made then, RULES.md 5.3); `null` "
            "for none."
        },
    )


SEEDS_WAIT_MS = (1_000, 86_400_000)
"""The host's wait for seeds, 1 s to 24 h (ms)."""


class NextDealSchema(DocumentedSchema):
    """The next deal's public part: what it commits to, never its secret."""

    round = fields.Integer(metadata={"description": "The round this deal will deal."})
    commitment = fields.String(
        metadata={
            "description": "Lower-case hex SHA-256 of `card-referee/deal-commitment/v1`, a zero "
            "byte and the deal's 32-byte secret ([deal proofs](/docs/guide/deal-proofs))."
        }
    )
    seeded = fields.List(fields.Integer(), metadata={"description": "The seats that gave a seed."})
    require_seeds = fields.Boolean(
        metadata={"description": "Whether the deal waits until every seat gave a seed."}
    )
    seeds_wait_ms = fields.Integer(
        allow_none=True,
        metadata={
            "description": "How long after the commitment's publication the seeds are due "
            "(ms); `null`: the deal waits for every seed."
        },
    )
    seeds_due_ms = fields.Integer(
        allow_none=True,
        metadata={
            "description": "When the seeds are due (ms since the epoch, Redis's clock): from "
            "then on the deal goes ahead with the seeds given. `null`: never."
        },
    )


class MoveChainSchema(DocumentedSchema):
    """The head of a round's chain of moves (RULES.md 5.2): each accepted
    move that does not commute links the head before it and the seats'
    choices that commuted since, keyed with the round's secret, so that a
    record whose moves were reordered, dropped, added or changed ends
    elsewhere (docs/guide/deal-proofs.md gives the construction)."""

    moves = fields.Integer(
        required=True,
        metadata={"description": "How many of the record's entries that do not commute came."},
    )
    head = fields.String(
        required=True,
        validate=validate.Regexp(r"^[0-9a-f]{64}$"),
        metadata={
            "description": "The `link` of the record's `moves`-th entry that does not "
            "commute (lower-case hex); the round's commitment before the first."
        },
    )


class TableViewSchema(DocumentedSchema):
    """The public view of a table: never a hidden card (the members of every
    game; each game's view, :mod:`.schemas_games`, names its own)."""

    table_id = fields.String()
    game = fields.String(
        metadata={"description": "The game this table plays: `my-ship-sails`, `sevens` or `may-i`."}
    )
    variant = fields.String()
    options = fields.Dict(metadata={"description": "The options in force (each game's own)."})
    seats = fields.List(fields.Nested(SeatSchema))
    open_seats = fields.List(
        fields.Integer(),
        metadata={
            "description": "The seats no player has taken yet; the table deals when none is."
        },
    )
    first_dealer = fields.Integer()
    draw = fields.List(
        fields.List(fields.String(allow_none=True)),
        metadata={"description": "The first-dealer draw, one card per seat per pass (face up)."},
    )
    dealer = fields.Integer()
    awaiting = fields.Nested(AwaitingSchema)
    round = fields.Nested(RoundViewSchema, allow_none=True)
    rounds_played = fields.Integer(
        metadata={
            "description": "The rounds over so far (those `GET /v1/tables/{table_id}/rounds` "
            "lists): the scored ones, and in Sevens the round the host abandoned."
        }
    )
    last_result = fields.Nested(
        RoundResultSchema,
        allow_none=True,
        metadata={
            "description": "The newest of them (`null` before the first). The view no longer "
            "lists every round (it would grow with the match): page them from "
            "`GET /v1/tables/{table_id}/rounds`."
        },
    )
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
    next_deal = fields.Nested(
        NextDealSchema,
        allow_none=True,
        metadata={
            "description": "The next deal's commitment and who seeded it (RULES.md 5.2); "
            "`null` for a table written before deals were committed."
        },
    )
    move_chain = fields.Nested(
        MoveChainSchema,
        allow_none=True,
        metadata={
            "description": "The chain of the current (or last) round's accepted moves "
            "(RULES.md 5.2): write it down as the round goes; its record's links must "
            "end at this head. `null` before a round was dealt with a chain."
        },
    )
    clock_paused = fields.Boolean(
        metadata={
            "description": "Whether the referee made `unattended_moves` moves in a row for "
            "seats with no act of play of a person since (event `clock-paused`): then no away "
            "person gets a default move and, on a table of bots only, no bot moves, until a "
            "seat moves, the host deals, a seat is joined or handed to a bot or taken back "
            "(RULES.md 5.3, 5.4)."
        }
    )


class SeatTokenSchema(DocumentedSchema):
    """A named seat's bearer token, shown only when the table is created (an
    open seat's, only to the player who takes it: `POST …/join`)."""

    seat = fields.Integer()
    name = fields.String()
    token = fields.String()


class JoinCodeSchema(DocumentedSchema):
    """A join code (RULES.md 5.1): shown only to the host, once."""

    seat = fields.Integer(
        allow_none=True,
        metadata={
            "description": "The seat it takes; `null`: the table code (the lowest open seat)."
        },
    )
    code = fields.String(metadata={"description": "128 random bits; Redis keeps only its hash."})
    expires_at_ms = fields.Integer(
        metadata={"description": "When it stops working (ms since the epoch)."}
    )


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


class SeatViewBaseSchema(DocumentedSchema):
    """What one seat may see, the members of every game: each game's seat
    view (:mod:`.schemas_games`) adds its own."""

    PRESENT: ClassVar[tuple[str, ...] | None] = (
        "game",
        "seat",
        "name",
        "connected",
        "round",
        "round_status",
        "hand",
        "away",
        "until_ms",
        "last_event",
    )

    game = fields.String(
        metadata={"description": "The game this table plays: `my-ship-sails`, `sevens` or `may-i`."}
    )
    seat = fields.Integer()
    name = fields.String()
    connected = fields.List(
        fields.Integer(),
        metadata={
            "description": "The seats connected now (RULES.md 5.5: a stream of their own, or "
            "a request with their token, seen within the last 15 seconds), this one included."
        },
    )
    round = fields.Integer(allow_none=True)
    round_status = fields.String(
        allow_none=True,
        metadata={"description": "Where the round stands (its game's words); `null` before one."},
    )
    hand = fields.List(fields.String())
    away = fields.Boolean(
        metadata={
            "description": "This seat timed out and has not moved itself since: its "
            "deadline is the short `away_timeout_ms` (RULES.md 5.3)."
        }
    )
    until_ms = fields.Integer(
        allow_none=True,
        metadata={
            "description": "This seat's deadline in the step the table waits on (ms since the "
            "epoch, Redis's clock): its default move is made then; `null` for none "
            "(RULES.md 5.3)."
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


class AsIs(fields.Dict):
    """A JSON object answered as it is, every member kept (as ``Dict`` dumps
    it), and documented as ``schema``'s component (:mod:`.spec`): the
    members it names, and any others. For objects whose members depend on a
    kind the schema cannot list, such as an event's on its ``type``."""

    def __init__(self, schema: type[ma.Schema], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.documented_as = schema


class EventSchema(OneOfSchema):
    """A public event of a table's log: `seq`, `at_ms`, `type`, and the
    members of its type, one schema per type, told apart by `type` (each
    type and its members, game by game: [the API guide](/docs/api#events)).
    A release may add types and members: a client skips what it does not
    know."""

    # Each type's schema is declared by :mod:`.schemas_events`.

    type_field = "type"
    type_field_remove = False
    type_schemas: dict[str, type[ma.Schema]] = {}

    def get_obj_type(self, obj: Any) -> str:
        return str(obj["type"])


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


class RoundListBaseSchema(DocumentedSchema):
    """A page of finished rounds' results, oldest first (the members of every
    game; each game's page names its own result)."""

    game = fields.String(metadata={"description": "The game the table plays."})

    rounds = fields.List(
        fields.Nested(RoundResultSchema),
        metadata={"description": "Each round's result, as the table's `last_result` shows it."},
    )
    next_after = fields.Integer(metadata={"description": "Pass as `after` to read on."})
    next = fields.String(
        allow_none=True,
        metadata={"description": "The URL of the next page (`null`: none now)."},
    )
    more = fields.Boolean(metadata={"description": "Whether rounds after this page exist now."})
    last_round = fields.Integer(
        metadata={"description": "The number of the last round over so far (0: none)."}
    )
    oldest_round = fields.Integer(
        metadata={
            "description": "The number of the oldest round still kept (only the newest "
            "`ROUNDS_KEPT` are); a cursor before `oldest_round - 1` gets 410 `rounds-gone`."
        }
    )


class CheckDealSchema(GameSchema):
    """A deal to check for `players` seats under a preset and overrides. Its
    cards are judged, not refused: the answer lists every problem. What a
    schema cannot state is the rules' to refuse (422 `options-invalid`,
    `deal-invalid` for a member of another game's deals): options that make
    one consistent game with the players."""

    deal = True

    players = Int(required=True, validate=validate.Range(MIN_SEATS, MAX_SEATS))
    hands = fields.List(
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
    hand = fields.List(
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
    hands = fields.List(
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
    passes = fields.List(
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


class ProblemErrorSchema(DocumentedSchema):
    """One problem at one place: a body `pointer` or a `parameter`."""

    PRESENT = ("detail",)

    pointer = fields.String()
    parameter = fields.String()
    detail = fields.String()


class ProblemSchema(DocumentedSchema):
    """RFC 9457 problem details; 409 answers add the current numbers, 410 the
    oldest event kept."""

    PRESENT = ("type", "title", "status", "detail", "code")

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
    errors = fields.List(
        fields.Nested(ProblemErrorSchema), metadata={"description": "The first 50 problems."}
    )
    errors_total = fields.Integer(metadata={"description": "How many problems in all."})
    current_round = fields.Integer(allow_none=True)
    current_exchange = fields.Integer(allow_none=True)
    round_status = fields.String(allow_none=True)
    waiting_for = fields.List(fields.Integer())
    missing_seats = fields.List(
        fields.Integer(), metadata={"description": "409 `seeds-missing`: the seats with no seed."}
    )
    round = fields.Integer(
        metadata={"description": "409 `seeds-missing`: the round the refused deal would deal."}
    )
    seeds_due_ms = fields.Integer(
        allow_none=True,
        metadata={
            "description": "409 `seeds-missing`: when the seeds are due (ms since the epoch, "
            "Redis's clock); `null`: the deal waits for every seed."
        },
    )
    oldest_seq = fields.Integer(
        metadata={"description": "410 `events-gone`: the seq of the oldest event still kept."}
    )
    last_event = fields.Integer(
        metadata={"description": "410 `events-gone`: the seq of the last event; read on from it."}
    )
    oldest_round = fields.Integer(
        metadata={"description": "410 `rounds-gone`: the number of the oldest round still kept."}
    )
    last_round = fields.Integer(
        metadata={"description": "410 `rounds-gone`: the number of the last round over."}
    )
    rules = fields.String(
        metadata={
            "description": "A refusal by a game's rules: the rules page that explains it, "
            "e.g. `/docs/rules/sevens#the-layout` (HTML; `Accept: text/markdown` for the Markdown)."
        }
    )
    current_turn = fields.Integer(
        allow_none=True, metadata={"description": "Sevens: the turn now."}
    )
    on_turn = fields.Integer(allow_none=True, metadata={"description": "Sevens: the seat on turn."})
    playable_count = fields.Integer(
        metadata={"description": "422 `must-play`: how many cards the seat could play."}
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
