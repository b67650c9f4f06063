"""The schemas every resource shares: a game's options, the unions by game
(each game's shapes are registered into them, :mod:`.schemas_games`), a
table's and a seat's views, events and problems. They validate requests and
generate the spec; a resource's own schemas are beside its endpoints."""

from __future__ import annotations

from typing import Any, ClassVar

import marshmallow as ma
from marshmallow import fields, validate
from marshmallow_oneofschema.one_of_schema import OneOfSchema

from ..edge.common import schema_of
from ..games import VARIANTS
from ..games.base import BOT_KINDS
from ..games.match import MatchStatus
from ..games.ship.options import (
    DECKS,
    DECLARATIONS,
    DIRECTIONS,
    PASSINGS,
    SIMULTANEOUS_WINS,
)
from ..games.ship.options import LARGEST_HAND as SHIP_HAND
from .fields import _RANK, MAX_CALL, Bool, DocumentedSchema, Int, StrictSchema, Text

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
            "move, the host's deal, a join; never the host's seat changes, a new join code or "
            "token, nor a seed: RULES.md 5.4), an away person gets no more default moves and a "
            "table of bots only stops (`clock_paused`); the next act of play resumes it (1000)."
        },
    )


class TypeSchemas(dict[str, type[ma.Schema]]):
    """A :class:`OneOfSchema`'s ``type_schemas``: each type's schema class, as
    registered and as the spec reads them (``items()``), whose ``get`` (what
    a dump or a load asks for) answers its one kept instance
    (:func:`.edge.common.schema_of`). ``OneOfSchema`` makes a new instance of
    the class at every dump otherwise, and marshmallow builds its nested
    schemas again with it: two fifths of the CPU of a ``GET
    /v1/tables/{id}`` (issue 44)."""

    def get(self, key: str, default: Any = None) -> Any:
        found = super().get(key)
        return default if found is None else schema_of(found)


class ByGame(OneOfSchema):
    """An answer of each game's own shape, chosen by its ``game`` member: the
    spec's ``oneOf`` with a ``discriminator`` (so that a generated client
    narrows on ``game``). Each game's schemas are put in ``type_schemas``
    by :func:`.schemas_games.register`, so that this module knows no game."""

    type_field = "game"
    type_field_remove = False
    type_schemas: dict[str, type[ma.Schema]] = TypeSchemas()

    def get_obj_type(self, obj: Any) -> str:
        return str(obj["game"])


class PublicTableSchema(ByGame):
    """The public view of a table: never a hidden card. One shape per game,
    told apart by `game`."""

    type_schemas: dict[str, type[ma.Schema]] = TypeSchemas()


class SeatViewSchema(ByGame):
    """What one seat may see: its hand and what it may do now. One shape per
    game, told apart by `game`."""

    type_schemas: dict[str, type[ma.Schema]] = TypeSchemas()


class RoundInfoSchema(ByGame):
    """One round: the current view while it is the latest, its result once
    over. One shape per game, told apart by `game`."""

    type_schemas: dict[str, type[ma.Schema]] = TypeSchemas()


class RoundListSchema(ByGame):
    """A page of finished rounds' results, oldest first. One shape per game,
    told apart by `game`."""

    type_schemas: dict[str, type[ma.Schema]] = TypeSchemas()


class VariantSchema(ByGame):
    """A preset: its name, player range, source seed and options. One shape
    per game, told apart by `game`."""

    type_schemas: dict[str, type[ma.Schema]] = TypeSchemas()


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


class SeatSchema(DocumentedSchema):
    """A seat in the public view, the members of every game: each game's
    seat adds its own (:func:`.schemas_games.register`)."""

    PRESENT: ClassVar[tuple[str, ...] | None] = (
        "seat",
        "name",
        "open",
        "connected",
        "points",
        "rank",
    )

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
            "description": "In `seats`: the host reissued this seat's token in this match (while "
            "the seat was not connected: a lost phone), during the round shown or before it; "
            "marked from then to the match's end, since the host may have kept the token, "
            "beside the `token-reissued` event (RULES.md 5.1)."
        }
    )
    points = fields.Integer(
        metadata={"description": "The seat's score in its game's measure (RULES.md 2.8, 3.5, 4.8)."}
    )
    rank = fields.Integer(
        metadata={
            "description": "The seat's place in the match by its game's ranking (points; net "
            "chips first where they decide): 1 first, tied seats share a place. Sort `seats` "
            "by it for the standings."
        }
    )


class RoundResultSchema(DocumentedSchema):
    """How a round ended, the members of every game: each game's result adds
    its own (RULES.md 2.7, 2.8, 3.5, 4.8)."""

    PRESENT: ClassVar[tuple[str, ...] | None] = ("round", "dealer")

    round = fields.Integer()
    dealer = fields.Integer()


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
    record whose moves before it were reordered, dropped, added or changed
    does not hold it as a link. Once the secret is public anyone can
    recompute links: the chain proves the moves only against the heads
    noted during the round (docs/guide/deal-proofs.md gives the
    construction)."""

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
        metadata={
            "deprecated": True,
            "description": "Deprecated (0.3.0; removed in 0.4.0): the objects of `seats`, "
            "ordered by `rank`, then seat number. Sort `seats` by `rank` instead.",
        },
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
    type_schemas: dict[str, type[ma.Schema]] = TypeSchemas()

    def get_obj_type(self, obj: Any) -> str:
        return str(obj["type"])


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
