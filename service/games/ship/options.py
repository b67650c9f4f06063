"""The option set and the variant presets of RULES.md 2.2 and 2.9.

:func:`resolve_options` turns a preset name, a caller's overrides and a number
of seats into a consistent :class:`Options`, or raises an
:class:`~service.games.errors.RuleViolation` that lists every inconsistency at
once, each with a JSON pointer into the request (``/options/deck_low_rank``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from ..cards import (
    SKAT32_DECK,
    STANDARD_DECK,
    CardError,
    parse_rank,
    suit_counts,
    trimmed_deck,
)
from ..errors import FieldError, RuleViolation
from ..match import Match as Match  # re-exported: part of the options
from ..match import Preset, match_schema, parse_match

DECKS = ("trimmed", "full", "skat32")
PASSINGS = ("simultaneous", "chain", "swap")
DIRECTIONS = ("left", "right", "alternate")
DECLARATIONS = ("manual", "automatic")
SIMULTANEOUS_WINS = ("highest-card", "shared", "highest-sum")
MATCH_KINDS = ("target_wins", "deals", "open")
OPTION_SCHEMAS: dict[str, dict[str, Any]] = {
    "match": match_schema(MATCH_KINDS, rule="RULES.md 2.8")
}
"""The options whose values are My Ship Sails' own, for the spec (:attr:`Game.option_schemas`)."""


@dataclass(frozen=True, slots=True)
class Options:
    """One consistent set of the options of RULES.md 2.2."""

    hand_size: int
    win_count: int
    deck: str
    deck_low_rank: str | None
    passing: str
    pass_count: int
    direction: str
    declaration: str
    claim_window_ms: int
    simultaneous_wins: str
    max_exchanges: int | None
    match: Match
    call: str
    swap_circuits: int | None = None
    """``swap`` only: circuits before the showdown; ``None`` for other passing."""
    fastest_win_bonus: bool = False
    chips: bool = False

    def to_json(self) -> dict[str, Any]:
        """The wire form, with ``match`` as in :meth:`Match.to_json`."""
        data = asdict(self)
        data["match"] = self.match.to_json()
        return data


_CLASSIC = Options(
    hand_size=7,
    win_count=7,
    deck="trimmed",
    deck_low_rank=None,
    passing="simultaneous",
    pass_count=1,
    direction="left",
    declaration="manual",
    claim_window_ms=0,
    simultaneous_wins="highest-card",
    max_exchanges=None,
    match=Match("target_wins", 5),
    call="My ship sails!",
)

_SEED_002_FULL = replace(_CLASSIC, deck="full", match=Match("open"), call="Mein Schiff segelt!")

PRESETS: dict[str, Preset[Options]] = {
    p.name: p
    for p in (
        Preset("classic", 4, 7, _CLASSIC, "000", "Seven cards from a trimmed deck, pass one left."),
        Preset(
            "circle",
            4,
            7,
            replace(
                _CLASSIC,
                deck="full",
                claim_window_ms=1500,
                simultaneous_wins="shared",
                match=Match("deals", 5),
            ),
            "001",
            "Closed circle: full deck, the rest set aside; close calls are shared; 5 deals.",
        ),
        Preset(
            "mein-schiff",
            4,
            7,
            _SEED_002_FULL,
            "002",
            "Mein Schiff segelt: full deck, the rest set aside, play as long as you like.",
        ),
        Preset("pass-two", 4, 7, replace(_CLASSIC, pass_count=2), "000", "Pass two cards."),
        Preset("pass-right", 4, 7, replace(_CLASSIC, direction="right"), "000", "Pass right."),
        Preset(
            "alternate",
            4,
            7,
            replace(_CLASSIC, direction="alternate"),
            "000",
            "Round 1 passes left, round 2 right, and so on.",
        ),
        Preset(
            "my-star-shines",
            4,
            7,
            replace(_CLASSIC, call="My star shines!"),
            "000",
            "Classic under its Scottish name.",
        ),
        Preset(
            "whehee",
            3,
            10,
            replace(_CLASSIC, deck="full", hand_size=3, win_count=3, call="Whehee!"),
            "000",
            "Whehee / Wizzy Wizzy Wee: three cards from a full deck.",
        ),
        Preset(
            "foster",
            3,
            10,
            replace(
                _SEED_002_FULL,
                hand_size=3,
                win_count=3,
                passing="swap",
                swap_circuits=2,
                simultaneous_wins="highest-sum",
            ),
            "002",
            "Foster: three cards, pairwise blind swaps for two circuits, then a showdown "
            "on card sums.",
        ),
        Preset(
            "ochse",
            4,
            4,
            replace(
                _SEED_002_FULL,
                deck="skat32",
                hand_size=8,
                win_count=8,
                passing="chain",
                chips=True,
                call="Ochse, leg dich!",
            ),
            "002",
            "Ochse, leg dich!: 32 cards, eight each, one card at a time round the table; "
            "losers pay chips.",
        ),
        Preset(
            "matrimony",
            4,
            4,
            replace(
                _SEED_002_FULL,
                hand_size=13,
                win_count=13,
                passing="chain",
            ),
            "002",
            "Matrimony / Vive l'amour: all 52 dealt, one card at a time round the table.",
        ),
    )
}

OPTION_NAMES = tuple(f.name for f in fields(Options))
FOSTER_CIRCUITS = 2
"""``swap_circuits`` when ``swap`` passing is chosen without it (Foster, RULES.md 2.9)."""
MIN_SEATS, MAX_SEATS = 2, 10
LARGEST_DECK = 52
LARGEST_HAND = 26
"""The largest ``hand_size`` (half the full deck: two seats); under ``chain``
a hand holds one more between exchanges."""
"""The most cards a round can hold (RULES.md 2.3): the full deck; ``trimmed``
and ``skat32`` hold fewer."""


def deck_for(options: Options, seats: int) -> tuple[str, ...]:
    """The round's deck (RULES.md 2.3) for a consistent option set."""
    if options.deck == "trimmed":
        return trimmed_deck(options.hand_size * seats, options.deck_low_rank)
    if options.deck == "skat32":
        return SKAT32_DECK
    return STANDARD_DECK


def deals_whole_deck(options: Options) -> bool:
    """True when every card of the deck must be in a hand (RULES.md 2.4)."""
    return options.deck in ("trimmed", "skat32")


def resolve_options(
    preset_name: str, overrides: Mapping[str, Any], seats: int, seats_pointer: str = "/players"
) -> Options:
    """Merge ``overrides`` into the preset and check the result is one game.

    ``overrides`` holds option names of RULES.md 2.2 with wire values (``match``
    as a one-key object; ``deck_low_rank`` as any rank spelling; a ``hand_size``
    without a ``win_count`` sets both); ``seats`` is the number of players,
    named by ``seats_pointer`` in errors. Raises
    :class:`RuleViolation` ``options-invalid`` listing every problem: unknown
    preset, seat count outside the preset's range, ``hand_size*N`` over the
    deck, ``deck_low_rank`` without ``trimmed`` or without a multiple of 4,
    a ``win_count`` no suit of the deck can reach, and so on (RULES.md 2.9).
    """
    preset = PRESETS.get(preset_name)
    if preset is None:
        raise RuleViolation(
            "unknown-variant",
            f"There is no variant {preset_name!r}; known: {', '.join(PRESETS)}.",
            [FieldError("/variant", f"unknown variant {preset_name!r}")],
        )
    errors: list[FieldError] = []
    values = preset.options.to_json()
    for name, value in overrides.items():
        if name not in OPTION_NAMES:
            errors.append(FieldError(f"/options/{name}", f"unknown option {name!r}"))
        else:
            values[name] = value
    if "hand_size" in overrides and "win_count" not in overrides:
        values["win_count"] = values["hand_size"]  # RULES.md 2.2: "normally = hand_size"
    if values["passing"] == "swap" and values["swap_circuits"] is None:
        values["swap_circuits"] = FOSTER_CIRCUITS
    elif values["passing"] != "swap" and "swap_circuits" not in overrides:
        values["swap_circuits"] = None  # the preset's circuits go with its swap passing
    match = parse_match(values["match"], errors, MATCH_KINDS)
    if values["deck_low_rank"] is not None:
        try:
            values["deck_low_rank"] = parse_rank(values["deck_low_rank"])
        except CardError as exc:
            errors.append(FieldError("/options/deck_low_rank", str(exc)))
            values["deck_low_rank"] = None
    options = Options(**{**values, "match": match or preset.options.match})
    errors.extend(_consistency_errors(options, seats, preset, seats_pointer))
    if errors:
        raise RuleViolation(
            "options-invalid",
            "These options do not make one consistent game: "
            + "; ".join(e.detail for e in errors)
            + ".",
            errors,
        )
    return options


def _passing_errors(o: Options) -> list[FieldError]:
    """Options that chain and swap passing rule out (RULES.md 2.5, 2.9)."""
    errors: list[FieldError] = []

    def bad(option: str, detail: str) -> None:
        errors.append(FieldError(f"/options/{option}", detail))

    if o.passing != "swap":
        if o.swap_circuits is not None:
            bad("swap_circuits", "swap_circuits applies only to swap passing")
    elif (
        isinstance(o.swap_circuits, bool)
        or not isinstance(o.swap_circuits, int)
        or not 1 <= o.swap_circuits <= 100
    ):
        bad("swap_circuits", "swap_circuits must be 1..100")
    if o.passing not in ("chain", "swap"):
        return errors
    if o.passing == "chain" and o.hand_size < 2:
        bad("hand_size", "chain passing needs hands of at least 2 (the first passer drops one)")
    if o.pass_count != 1:
        bad("pass_count", f"{o.passing} passing moves one card at a time")
    if o.direction != "left":
        # RULES.md 2.5 fixes both: chain gives to the left, swaps go round to the left.
        bad("direction", f"{o.passing} passing always goes left (clockwise)")
    if o.passing == "swap":
        # Foster's showdown (RULES.md 2.9) compares every hand at once, on sums.
        if o.simultaneous_wins != "highest-sum":
            bad(
                "simultaneous_wins",
                "swap passing ends in Foster's showdown, which is settled by highest-sum",
            )
        if o.claim_window_ms != 0 and o.declaration == "manual":
            bad(
                "claim_window_ms",
                "swap passing has no claim window: a declaration shows every hand at once",
            )
    return errors


def _consistency_errors(
    o: Options, seats: int, preset: Preset[Options], seats_pointer: str
) -> list[FieldError]:
    """Every way the options contradict each other or the seat count."""
    errors: list[FieldError] = []

    def bad(option: str, detail: str) -> None:
        errors.append(FieldError(f"/options/{option}" if option else seats_pointer, detail))

    if not preset.min_seats <= seats <= preset.max_seats:
        bad(
            "",
            f"{preset.name} is for {preset.min_seats} to {preset.max_seats} players, not {seats}",
        )
    for name, allowed in (
        ("deck", DECKS),
        ("passing", PASSINGS),
        ("direction", DIRECTIONS),
        ("declaration", DECLARATIONS),
        ("simultaneous_wins", SIMULTANEOUS_WINS),
    ):
        if getattr(o, name) not in allowed:
            bad(name, f"{name} must be one of {', '.join(allowed)}, not {getattr(o, name)!r}")
    if o.pass_count not in (1, 2):
        bad("pass_count", "pass_count must be 1 or 2")
    if not 1 <= o.hand_size <= LARGEST_HAND:
        bad("hand_size", f"hand_size must be 1..{LARGEST_HAND}")
    if not 1 <= o.win_count <= o.hand_size:
        bad("win_count", f"win_count must be 1..hand_size ({o.hand_size}), not {o.win_count}")
    if o.pass_count > o.hand_size:
        bad("pass_count", "a seat cannot pass more cards than it holds")
    if o.claim_window_ms < 0 or o.claim_window_ms > 60_000:
        bad("claim_window_ms", "claim_window_ms must be 0..60000")
    if o.max_exchanges is not None and not 1 <= o.max_exchanges <= 10_000:
        bad("max_exchanges", "max_exchanges must be 1..10000 or null")
    if not o.call or len(o.call) > 80:
        bad("call", "call must be 1..80 characters")
    if o.deck_low_rank is not None and o.deck != "trimmed":
        bad("deck_low_rank", "deck_low_rank applies only to the trimmed deck")
    for flag in ("fastest_win_bonus", "chips"):
        if not isinstance(getattr(o, flag), bool):
            bad(flag, f"{flag} must be true or false")
    if o.fastest_win_bonus is True and o.match.kind != "deals":
        bad("fastest_win_bonus", 'fastest_win_bonus needs a match of {"deals": n}')
    errors.extend(_passing_errors(o))
    if errors:
        return errors  # the checks below need sane single values
    dealt = o.hand_size * seats
    if o.deck == "trimmed":
        if dealt > 52:
            bad("hand_size", f"{seats} hands of {o.hand_size} need {dealt} cards; a deck has 52")
        elif o.deck_low_rank is not None and dealt % 4:
            bad(
                "deck_low_rank",
                f"deck_low_rank needs hand_size*players to be a multiple of 4, not {dealt}",
            )
    elif o.deck == "skat32" and dealt != 32:
        bad("hand_size", f"skat32 deals all 32 cards: {seats} hands of {o.hand_size} deal {dealt}")
    elif o.deck == "full" and dealt > 52:
        bad("hand_size", f"{seats} hands of {o.hand_size} need {dealt} cards; a deck has 52")
    elif preset.name == "matrimony" and dealt != 52:
        # RULES.md 2.4 and 2.9: Matrimony deals the whole deck.
        bad(
            "hand_size",
            f"matrimony deals all 52 cards: {seats} hands of {o.hand_size} deal {dealt}",
        )
    if errors:
        return errors
    try:
        deck = deck_for(o, seats)
    except ValueError as exc:
        bad("deck_low_rank", str(exc))
        return errors
    longest_suit = max(suit_counts(deck).values())
    if o.win_count > longest_suit:
        bad(
            "win_count",
            f"no suit of this deck has {o.win_count} cards (the longest has {longest_suit})",
        )
    return errors
