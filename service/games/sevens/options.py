"""The option set and the presets of Sevens (the project's rule book, 3.2-3.6).

:func:`resolve_options` turns a preset name, a caller's overrides (wire
values) and a number of seats into one consistent :class:`Options`, or raises
:class:`~service.games.errors.RuleViolation` ``options-invalid`` listing every
problem at once, each at a JSON pointer (``/options/decks``, ``/players``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from ..cards import STANDARD_DECK
from ..errors import FieldError, RuleViolation
from ..match import Match as Match  # re-exported: part of the options
from ..match import Preset, match_schema, parse_match

OPENINGS = ("7D", "7C", "any-seven", "dealer-choice")
POINTS = ("none", "winner-scores", "losers-score")
MATCH_KINDS = ("deals", "target_wins", "target_points", "open")
MATCH_LIMITS = {"target_points": 100_000}
LAST_CARD_CHIPS = 2
"""What a seat pays for playing its second-to-last card without announcing it
(the referee's choice: Sevens has no stock to draw the seed's two cards from)."""


@dataclass(frozen=True, slots=True)
class Options:
    """One consistent set of Sevens options (wire names)."""

    decks: int
    opening: str
    pass_chips: int
    voluntary_pass: bool
    voluntary_pass_limit: int
    last_card: bool
    turn_the_corner: bool
    points: str
    match: Match

    def to_json(self) -> dict[str, Any]:
        """The wire form, with ``match`` as in :meth:`Match.to_json`."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["match"] = self.match.to_json()
        return data

    @property
    def plays_chips(self) -> bool:
        """Whether chips ever change hands at this table."""
        return self.pass_chips > 0 or self.last_card

    @property
    def measure(self) -> str:
        """What standings rank by first: ``"chips"`` when points are not scored
        and chips are paid, else ``"points"`` (3.5)."""
        return "chips" if self.points == "none" and self.plays_chips else "points"


_SEVENS = Options(
    decks=1,
    opening="7D",
    pass_chips=1,
    voluntary_pass=False,
    voluntary_pass_limit=3,
    last_card=False,
    turn_the_corner=False,
    points="none",
    match=Match("deals", None),
)

PRESETS: dict[str, Preset[Options]] = {
    p.name: p
    for p in (
        Preset("sevens", 3, 8, _SEVENS, "004", "Sevens: open with 7D, forced passes pay 1 chip."),
        Preset("parliament", 3, 8, _SEVENS, "004", "Sevens under its British pub name."),
        Preset("fan-tan", 3, 8, _SEVENS, "004", "Sevens under its American name."),
        Preset("dominoes", 3, 8, _SEVENS, "004", "Sevens under its regional British name."),
        Preset(
            "sevens-any-seven",
            3,
            8,
            replace(_SEVENS, opening="any-seven"),
            "004",
            "The dealer's left opens with any seven (or passes).",
        ),
        Preset(
            "sevens-corner",
            3,
            8,
            replace(_SEVENS, turn_the_corner=True),
            "004",
            "Turn the corner: rows run on round the Ace to the 2 and back.",
        ),
        Preset(
            "sevens-voluntary",
            3,
            8,
            replace(_SEVENS, voluntary_pass=True),
            "004",
            "A seat may pass while it could play (3 times a round), paying a chip.",
        ),
        Preset(
            "sevens-last-card",
            3,
            8,
            replace(_SEVENS, last_card=True),
            "004",
            "Announce your last card with the play before it, or pay 2 chips.",
        ),
        Preset(
            "sevens-penalty",
            3,
            8,
            replace(_SEVENS, pass_chips=0, points="losers-score"),
            "004",
            "No chips; the cards left in hand are penalty points, lowest total wins.",
        ),
        Preset(
            "fan-tan-two-decks",
            6,
            10,
            replace(_SEVENS, decks=2),
            "004",
            "Fan Tan with two decks: 104 cards, two rows per suit.",
        ),
    )
}

OPTION_NAMES = tuple(f.name for f in fields(Options))
_BOOLS = ("voluntary_pass", "last_card", "turn_the_corner")
_INTS = {"decks": (1, 2), "pass_chips": (0, 100), "voluntary_pass_limit": (0, 100)}


OPTION_SCHEMAS: dict[str, dict[str, Any]] = {
    "match": match_schema(MATCH_KINDS, MATCH_LIMITS, deals_per_seat=True, rule="RULES.md 3.5"),
    "decks": {
        "type": "integer",
        "enum": list(range(_INTS["decks"][0], _INTS["decks"][1] + 1)),
        "description": "1, or 2 (Fan Tan with two decks, two rows per suit; RULES.md 3.2).",
    },
}
"""The options whose values are Sevens' own, for the spec (:attr:`Game.option_schemas`)."""
SEAT_RANGE = (3, 10)
"""One deck is for 3 to 8 players, two for 6 to 10 (3.2): ``decks`` moves a preset's range."""

LARGEST_DECK = 52 * _INTS["decks"][1]
"""The most cards a round can hold (3.2): two decks, 104."""


def deck_for(options: Options) -> tuple[str, ...]:
    """Every card of the round, ``decks`` copies of the 52 (3.2)."""
    return STANDARD_DECK * options.decks


def unknown_variant(name: str) -> RuleViolation:
    """The refusal of a preset name Sevens does not know."""
    return RuleViolation(
        "unknown-variant",
        f"There is no Sevens variant {name!r}; known: {', '.join(PRESETS)}.",
        [FieldError("/variant", f"unknown variant {name!r}")],
    )


def resolve_options(
    preset_name: str, overrides: Mapping[str, Any], seats: int, seats_pointer: str = "/players"
) -> Options:
    """Merge ``overrides`` (wire names and values) into the preset and check
    that the result is one game for ``seats`` seats.

    A ``{"deals": null}`` match becomes one deal per seat. Raises
    ``unknown-variant`` for a preset Sevens does not have, and
    ``options-invalid`` listing every problem: unknown option names, values
    of the wrong type or out of range (a bool given a number, a number given
    a bool or a string), a seat count outside the preset's range,
    ``turn_the_corner`` with two decks, ``voluntary_pass`` with a limit of 0,
    ``target_points`` without points.
    """
    preset = PRESETS.get(preset_name)
    if preset is None:
        raise unknown_variant(preset_name)
    errors: list[FieldError] = []
    values: dict[str, Any] = preset.options.to_json()
    for name, value in overrides.items():
        if name not in OPTION_NAMES:
            errors.append(FieldError(f"/options/{name}", f"unknown option {name!r} for Sevens"))
        else:
            values[name] = value
    for name in _BOOLS:
        if not isinstance(values[name], bool):
            errors.append(FieldError(f"/options/{name}", f"{name} must be true or false"))
            values[name] = getattr(preset.options, name)
    for name, (low, high) in _INTS.items():
        value = values[name]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            errors.append(
                FieldError(f"/options/{name}", f"{name} must be a whole number {low}..{high}")
            )
            values[name] = getattr(preset.options, name)
    for name, allowed in (("opening", OPENINGS), ("points", POINTS)):
        if values[name] not in allowed:
            errors.append(
                FieldError(f"/options/{name}", f"{name} must be one of {', '.join(allowed)}")
            )
            values[name] = getattr(preset.options, name)
    match = (
        parse_match(
            values.pop("match"),
            errors,
            MATCH_KINDS,
            limits=MATCH_LIMITS,
            deals_per_seat=True,
        )
        or preset.options.match
    )
    if match.kind == "deals" and match.count is None:
        match = Match("deals", seats)
    options = Options(**values, match=match)
    errors.extend(_consistency_errors(options, seats, seats_pointer))
    if errors:
        raise RuleViolation(
            "options-invalid",
            "These options do not make one consistent game: "
            + "; ".join(e.detail for e in errors)
            + ".",
            errors,
        )
    return options


def _consistency_errors(o: Options, seats: int, seats_pointer: str) -> list[FieldError]:
    """Every way the (well-typed) options contradict each other or the seats."""
    errors: list[FieldError] = []
    # The range follows the decks, not the preset: two decks are for 6-10.
    low, high = (6, 10) if o.decks == 2 else (3, 8)
    if not low <= seats <= high:
        decks = "two decks" if o.decks == 2 else "one deck"
        errors.append(
            FieldError(
                seats_pointer, f"Sevens with {decks} is for {low} to {high} players, not {seats}"
            )
        )
    if o.turn_the_corner and o.decks == 2:
        # A card could fit two rows in different ways, and no source plays it.
        errors.append(
            FieldError(
                "/options/turn_the_corner", "turn_the_corner cannot be played with two decks"
            )
        )
    if o.voluntary_pass and o.voluntary_pass_limit < 1:
        errors.append(
            FieldError(
                "/options/voluntary_pass_limit",
                "voluntary_pass needs a voluntary_pass_limit of at least 1",
            )
        )
    if o.match.kind == "target_points" and o.points == "none":
        errors.append(
            FieldError(
                "/options/match", 'a {"target_points": n} match needs points other than none'
            )
        )
    return errors
