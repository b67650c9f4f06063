"""The options and presets of May I? (the project's rule book, 4.1, 4.7, 4.8).

:func:`resolve_options` turns a preset, a caller's overrides (wire values)
and a number of seats into one consistent :class:`Options`, or raises
``options-invalid`` listing every problem at a JSON pointer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from ..cards import STANDARD_DECK
from ..errors import FieldError, RuleViolation
from ..match import Preset

ENDINGS = ("immediate", "lay-off-round", "play-out")
ROUNDS = 5
"""A match is five rounds, contracts 1 to 5 (4.8)."""
WINDOW_MAX_MS = 60_000


@dataclass(frozen=True, slots=True)
class Options:
    """One consistent set of May I? options (wire names). ``decks`` ``None``
    in a preset means "by players" (2 for 3-5, 3 for 6-8)."""

    decks: int | None
    jokers: int
    ending: str
    may_i_window_ms: int

    def to_json(self) -> dict[str, Any]:
        """The wire form (``match`` is always five rounds)."""
        data: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        data["match"] = {"rounds": ROUNDS}
        return data


_MAY_I = Options(decks=None, jokers=0, ending="immediate", may_i_window_ms=5000)

PRESETS: dict[str, Preset[Options]] = {
    p.name: p
    for p in (
        Preset(
            "may-i",
            3,
            8,
            _MAY_I,
            "003",
            "May I?: five contracts, two decks (three for 6-8), no jokers.",
        ),
        Preset(
            "may-i-jokers",
            3,
            8,
            replace(_MAY_I, jokers=2),
            "003",
            "May I? with two jokers per deck, wild in melds.",
        ),
    )
}

OPTION_NAMES = (*(f.name for f in fields(Options)), "match")


MAX_DECKS, MAX_JOKERS_PER_DECK, MAX_SEATS = 4, 2, 8
LARGEST_DECK = (52 + MAX_JOKERS_PER_DECK) * MAX_DECKS
"""The most cards a round can hold (4.1): four decks with their jokers, 216;
no hand, no stock, no set of melds holds more."""
LONGEST_MELD = 4 * MAX_DECKS + MAX_JOKERS_PER_DECK * MAX_DECKS
"""The most cards one meld can hold (4.2): a set of one rank, every suit of
every deck and every joker (24); a run holds at most 14."""
MOST_MELDS = 3 * MAX_SEATS
"""The most melds on the table (4.3): a contract of three melds per seat."""


OPTION_SCHEMAS: dict[str, dict[str, Any]] = {
    "match": {
        "type": "object",
        "description": 'A May I? match is five rounds (RULES.md 4.8): `{"rounds": 5}`.',
        "oneOf": [
            {
                "type": "object",
                "required": [kind],
                "additionalProperties": False,
                "properties": {kind: {"type": "integer", "enum": [ROUNDS]}},
            }
            for kind in ("rounds", "deals")
        ],
    },
    "decks": {
        "type": "integer",
        "minimum": 1,
        "maximum": MAX_DECKS,
        "nullable": True,
        "description": "52-card decks; `null` or left out: 2 for 3-5 players, 3 for 6-8 "
        "(RULES.md 4.1).",
    },
}
"""The options whose values are May I?'s own, for the spec (:attr:`Game.option_schemas`)."""


def default_decks(seats: int) -> int:
    """Two decks for 3 to 5 players, three for 6 to 8 (4.1)."""
    return 2 if seats <= 5 else 3


def deck_for(options: Options) -> tuple[str, ...]:
    """Every card of a round: ``decks`` copies of the 52 plus the jokers."""
    decks = options.decks or 2
    return STANDARD_DECK * decks + ("JK",) * (options.jokers * decks)


def unknown_variant(name: str) -> RuleViolation:
    """The refusal of a preset name May I? does not know."""
    return RuleViolation(
        "unknown-variant",
        f"There is no May I? variant {name!r}; known: {', '.join(PRESETS)}.",
        [FieldError("/variant", f"unknown variant {name!r}")],
    )


def _whole(value: Any, low: int, high: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and low <= value <= high


def resolve_options(
    preset_name: str, overrides: Mapping[str, Any], seats: int, seats_pointer: str = "/players"
) -> Options:
    """Merge ``overrides`` into the preset for ``seats`` seats; ``decks``
    is resolved from the seats when not given. Raises ``unknown-variant``
    or ``options-invalid`` (unknown names, wrong types or ranges, a seat
    count outside 3..8, a match other than five rounds, fewer than 2 decks,
    too few cards for the deal)."""
    preset = PRESETS.get(preset_name)
    if preset is None:
        raise unknown_variant(preset_name)
    errors: list[FieldError] = []
    o = preset.options
    values: dict[str, Any] = {f.name: getattr(o, f.name) for f in fields(o)}
    for name, value in overrides.items():
        if name not in OPTION_NAMES:
            errors.append(FieldError(f"/options/{name}", f"unknown option {name!r} for May I?"))
        elif name == "match":
            if value not in ({"rounds": ROUNDS}, {"deals": ROUNDS}):
                errors.append(
                    FieldError("/options/match", 'a May I? match is five rounds: {"rounds": 5}')
                )
        else:
            values[name] = value
    if values["decks"] is not None and not _whole(values["decks"], 1, MAX_DECKS):
        errors.append(FieldError("/options/decks", "decks must be a whole number 1..4"))
        values["decks"] = None
    if values["jokers"] not in (0, 2) or isinstance(values["jokers"], bool):
        errors.append(FieldError("/options/jokers", "jokers must be 0 or 2 (per deck)"))
        values["jokers"] = o.jokers
    if values["ending"] not in ENDINGS:
        errors.append(FieldError("/options/ending", f"ending must be one of {', '.join(ENDINGS)}"))
        values["ending"] = o.ending
    if not _whole(values["may_i_window_ms"], 0, WINDOW_MAX_MS):
        errors.append(
            FieldError(
                "/options/may_i_window_ms",
                f"may_i_window_ms must be a whole number 0..{WINDOW_MAX_MS}",
            )
        )
        values["may_i_window_ms"] = o.may_i_window_ms
    if not 3 <= seats <= MAX_SEATS:
        errors.append(FieldError(seats_pointer, f"May I? is for 3 to 8 players, not {seats}"))
    if values["decks"] is None:
        values["decks"] = default_decks(seats)
    options = Options(**values)
    decks = options.decks or 2
    # 10 cards a seat, a first discard and at least one stock card.
    if 52 * decks + options.jokers * decks < 10 * seats + 2:
        errors.append(
            FieldError("/options/decks", f"{decks} deck(s) hold too few cards for {seats} seats")
        )
    if errors:
        raise RuleViolation(
            "options-invalid",
            "These options do not make one consistent game: "
            + "; ".join(e.detail for e in errors)
            + ".",
            errors,
        )
    return options
