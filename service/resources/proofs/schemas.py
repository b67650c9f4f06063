"""Schemas of deal proofs and round records (RULES.md 5.2): the next deal's
commitment, a seat's seed, the host's requirement, a finished round's
record, and the stateless check of a proof."""

from __future__ import annotations

from typing import Any

from marshmallow import ValidationError, fields, validate, validates_schema

from ...games import GAMES
from ...games.proof import SEED_MAX
from ...games.record import CHECKS
from ...spec.fields import Bool, DocumentedSchema, Int, StrictSchema
from ...spec.schemas import NextDealSchema
from ...storage.store import MOVES_KEPT

SEEDS_WAIT_MS = (1_000, 86_400_000)
"""The host's wait for seeds, 1 s to 24 h (ms)."""


class SeedSchema(StrictSchema):
    """A seat's seed for the next deal."""

    seed = fields.String(
        required=True,
        validate=validate.Length(1, SEED_MAX),
        metadata={"description": f"Any text of 1 to {SEED_MAX} characters (hashed as UTF-8)."},
    )


class SeedOutcomeSchema(DocumentedSchema):
    """A seed taken: its hash as the proof uses it, and the next deal."""

    seat = Int()
    seed_sha256 = fields.String(metadata={"description": "SHA-256 of the seed's UTF-8, hex."})
    next_deal = fields.Nested(NextDealSchema)


class RequireSeedsSchema(StrictSchema):
    """The host's requirement for the next deals."""

    require_seeds = Bool(required=True)
    seeds_wait_ms = Int(
        allow_none=True,
        validate=validate.Range(SEEDS_WAIT_MS[0], SEEDS_WAIT_MS[1]),
        metadata={
            "description": "How long after a deal's commitment is published its seeds are "
            "due (ms); once due, the deal goes ahead without the missing ones. Absent or "
            "`null`: the deal waits for every seed. Only with `require_seeds: true` (422 "
            "otherwise, checked after the token)."
        },
    )


class ShuffleSchema(DocumentedSchema):
    """One shuffle of the round: its label, the cards as given, their order after it."""

    label = fields.String(
        metadata={
            "description": "`card-referee/deal/shuffle/0` (the deal), "
            "`may-i:round:<n>:reshuffle:<r>` (a rebuilt stock)."
        }
    )
    deck = fields.List(
        fields.String(),
        metadata={
            "description": "The cards as given: the starting deck (the deal), the "
            "discard pile less its top, bottom first (a rebuilt stock: a checker derives "
            "that pile from the record's moves, never from this)."
        },
    )
    order = fields.List(
        fields.String(),
        metadata={
            "description": "Their order: the deal's is dealt from its first card; a "
            "rebuilt stock is drawn from its last."
        },
    )


class ReshuffleSchema(ShuffleSchema):
    """A rebuilt stock (May I?, RULES.md 4.7), shuffled under the round's reshuffle key."""

    move = Int(metadata={"description": "The place (from 1) of its entry in the record's moves."})


class ProofSchema(DocumentedSchema):
    """A round's deal proof, shown once the round is over (version 2)."""

    version = Int(metadata={"description": "2 (a proof without it names no game)."})
    game = fields.String()
    variant = fields.String()
    round = Int()
    options = fields.Dict(
        metadata={"description": "The table's options: the starting deck follows from them."}
    )
    commitment = fields.String()
    secret = fields.String(metadata={"description": "The 32-byte secret, hex."})
    seeds = fields.List(
        fields.String(allow_none=True),
        metadata={"description": "Each seat's seed (`null`: none given)."},
    )
    shuffles = fields.List(
        fields.Nested(ShuffleSchema),
        metadata={"description": "The deal's shuffle of the starting deck (none if submitted)."},
    )
    reshuffles = fields.List(fields.Nested(ReshuffleSchema))
    submitted = Bool(
        metadata={
            "description": "The host submitted the hands: no shuffle to check; the proof "
            "still fixes the round's later randomness (May I?'s reshuffles)."
        }
    )


class GapSchema(DocumentedSchema):
    """Where moves are missing from a record (a release that keeps none took them)."""

    after_move = Int(metadata={"description": "How many entries came before the gap's place."})
    writes = Int(metadata={"description": "The table's writes by a release that keeps no record."})
    seats = fields.List(
        Int(), metadata={"description": "The seats whose choice such a release took."}
    )


class RecordSchema(DocumentedSchema):
    """A finished round's record: enough to check its deal and replay it."""

    record_version = Int(metadata={"description": "2 (a record without it is of version 1)."})
    table_id = fields.String()
    game = fields.String()
    variant = fields.String()
    round = Int()
    release = fields.String(metadata={"description": "The referee's release that dealt it."})
    rules_version = Int(
        metadata={"description": "The version of the game's rules it was refereed by."}
    )
    options = fields.Dict(
        metadata={
            "description": "The game's options of the table, resolved (May I?'s `decks` for "
            "its seats): the rules and the starting deck follow from them. Not the clock's "
            "(`turn_timeout_ms`, `away_timeout_ms`, `bot_delay_ms`, `unattended_moves`), which "
            "the table's view shows besides them. The commitment does not bind them: compare "
            "them with the table's before the deal."
        }
    )
    seats = fields.List(
        fields.Dict(),
        metadata={
            "description": "The game's public entry of each seat of the table before the "
            "deal (`seat`, `name`, the match so far), not its bot or presence (each move's "
            "`by` says who made it); its length is the seat count."
        },
    )
    dealt_at_ms = Int()
    start_state = fields.String(
        metadata={"description": "The table before the deal, in the game's stored form."}
    )
    deal_request = fields.Dict(metadata={"description": "The deal's body (`{}`: a shuffle)."})
    submitted = Bool()
    deal = fields.Dict(
        metadata={
            "description": "What was dealt: `hands` by seat, `set_aside`, `stock` (top "
            "first), `discard`."
        }
    )
    proof = fields.Nested(ProofSchema)
    moves = fields.List(
        fields.Dict(),
        metadata={
            "description": "Every entry of the round, in order: `at_ms`, `by` (`seat`, "
            "`default`, `bot`, `host`, `referee`), `seat`, `move`, the game's arguments "
            "(cards as canonical codes), `round`, `link` in the round's chain of moves "
            "(RULES.md 5.2; `move_chain` in the table's view showed it live: the chain "
            "proves the moves only against heads noted then) and `commutes` for a seat's "
            "choice in a simultaneous step. May I?: `turn` (`number`, `action`, `arg`), "
            "`ask` (`offer`), `answer` (`offer`, `allow`), the referee's `resolve` and "
            "`reshuffle` (`label`, `deck`, `order`), the host's `finish`; each `ask` and "
            "`take_discard` takes the top discard, each `discard` puts `arg` on it, and a "
            "`reshuffle` shuffles all of it but the top: the pile its `deck` must be."
        },
    )
    complete = Bool(
        metadata={
            "description": "`false`: moves are missing (`missing`), or the round had more "
            "entries than a record keeps (2000)."
        }
    )
    missing = fields.List(fields.Nested(GapSchema))
    abandoned = Bool(metadata={"description": "The host ended the round before it was over."})
    result = fields.Dict(metadata={"description": "The round's result, as its list shows it."})


SHUFFLES_CHECKED = 200
"""The most shuffles a proof to check may hold (a round has its deal's and
May I?'s reshuffles: a few dozen at most)."""

START_STATE_CHECKED = 8192
"""The longest ``start_state`` a record to check may hold, in characters (a
table before its deal is a few hundred: its options, names and totals)."""

SEATS_CHECKED = max(p.max_players for g in GAMES.values() for p in g.presets.values())
"""The most seeds a proof to check may hold: one per seat of the largest table."""

CARDS_CHECKED = 10_000
"""The most cards all of a proof's shuffles may hold together (a round
shuffles its deck, at most 216 cards, and reshuffles only what was
discarded since: 2,000 moves' worth); about 10 ms of checking."""


def _check_bounds(data: dict[str, Any]) -> None:
    """Refuse (422) a proof or record to check that is larger than a round
    can be: more moves than a record keeps, more shuffles (the deal's and the
    rebuilt stocks together) or cards than :data:`SHUFFLES_CHECKED` and
    :data:`CARDS_CHECKED`, a longer
    ``start_state`` than :data:`START_STATE_CHECKED` or more seeds than
    :data:`SEATS_CHECKED`; so that one check costs at most some 40 ms (the
    start's options are checked by ``verify``: a table the referee makes)."""
    record = data.get("record")
    proof = record.get("proof") if isinstance(record, dict) else data.get("proof")
    where = "record" if isinstance(record, dict) else "proof"
    moves = record.get("moves") if isinstance(record, dict) else None
    if isinstance(moves, list) and len(moves) > MOVES_KEPT:
        raise ValidationError(
            f"A round record keeps at most {MOVES_KEPT} moves, not {len(moves)}.",
            field_name="record",
        )
    start = record.get("start_state") if isinstance(record, dict) else None
    if isinstance(start, str) and len(start) > START_STATE_CHECKED:
        raise ValidationError(
            f"A record's start_state is at most {START_STATE_CHECKED} characters, "
            f"not {len(start)}.",
            field_name="record",
        )
    seeds = proof.get("seeds") if isinstance(proof, dict) else None
    if isinstance(seeds, list | str) and len(seeds) > SEATS_CHECKED:
        raise ValidationError(
            f"A proof holds one seed per seat: at most {SEATS_CHECKED}, not {len(seeds)}.",
            field_name=where,
        )
    shuffles = proof.get("shuffles") if isinstance(proof, dict) else None
    if not isinstance(shuffles, list):
        return
    rebuilt = proof.get("reshuffles") if isinstance(proof, dict) else None
    if isinstance(rebuilt, list):
        shuffles = [*shuffles, *rebuilt]  # each one shuffled again: counted alike
    if len(shuffles) > SHUFFLES_CHECKED:
        raise ValidationError(
            f"A proof holds at most {SHUFFLES_CHECKED} shuffles, not {len(shuffles)}.",
            field_name=where,
        )
    cards = sum(
        len(s["deck"])
        for s in shuffles
        if isinstance(s, dict) and isinstance(s.get("deck"), list | str)
    )
    if cards > CARDS_CHECKED:
        raise ValidationError(
            f"A proof's shuffles hold at most {CARDS_CHECKED} cards together, not {cards}.",
            field_name=where,
        )


class CheckProofSchema(StrictSchema):
    """A proof to check, or a whole round record (up to 1 MiB: 413
    ``body-too-large`` beyond; 422 when it holds more than a round can)."""

    class Meta(StrictSchema.Meta):
        # What the validator below says, so that the spec says it too.
        json_schema = {"oneOf": [{"required": ["proof"]}, {"required": ["record"]}]}

    proof = fields.Dict(metadata={"description": "A record's `proof`."})
    record = fields.Dict(metadata={"description": "A whole round record."})

    @validates_schema
    def _one(self, data: dict[str, Any], **_: Any) -> None:
        if ("proof" in data) == ("record" in data):
            raise ValidationError("Send exactly one of proof or record.", field_name="_schema")
        _check_bounds(data)


class UncheckedPartSchema(DocumentedSchema):
    """A part of what was sent that the check could not check, and why."""

    check = fields.String(
        validate=validate.OneOf(list(CHECKS)),
        metadata={"description": "Its name, one of `checked`'s."},
    )
    reason = fields.String()


class CheckProofOutcomeSchema(DocumentedSchema):
    """Whether the proof checks, what was checked, and what does not."""

    valid = Bool(
        allow_none=True,
        metadata={
            "description": "`true`: everything was checked and matches; `false`: something "
            "does not match (`problems`); `null`: nothing checked is wrong, but something "
            "could not be checked (`unchecked`, `incomplete`)."
        },
    )
    problems = fields.List(fields.String())
    checked = fields.List(
        fields.String(validate=validate.OneOf(list(CHECKS))),
        metadata={
            "description": "What was checked, by name: "
            + "; ".join(f"`{name}`: {words}" for name, words in CHECKS.items())
            + " (the last two by `referee replay` only)."
        },
    )
    unchecked = fields.List(
        fields.Nested(UncheckedPartSchema),
        metadata={
            "description": "What the body holds that could not be checked: with a proof "
            "alone, the piles of its rebuilt stocks (they follow from the round's moves); "
            "with a record of another rules version, its table and deal; after moves "
            "missing from a record, the piles of the stocks rebuilt after them."
        },
    )
    incomplete = fields.List(
        fields.String(),
        metadata={
            "description": "For a record: why moves are missing from it (a release that kept "
            "no record wrote the table, or its cap of 2,000 entries); what it holds was checked."
        },
    )
    submitted = Bool(
        metadata={
            "description": "The deal was the host's (its `hands` submitted, as the proof "
            "says): no shuffle was checked, only the round's later randomness."
        }
    )
