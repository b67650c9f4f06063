"""Passing (RULES.md 2.5): checking a seat's pass and resolving an exchange.

An exchange is "the seats that must choose, their choices, and how it
resolves" (:class:`~.state.Exchange`); this module opens exchanges and holds
the resolutions. ``simultaneous`` passing opens an exchange for every seat and
resolves it by rotating the chosen cards one seat in the round's direction.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import parse_card_set, sort_cards
from .errors import FieldError, RuleViolation
from .options import Options
from .state import Cards, Exchange


def open_exchange(number: int, seats: int) -> Exchange:
    """Exchange ``number`` of simultaneous passing: every seat chooses, then the
    chosen cards rotate (``resolution="rotate"``)."""
    return Exchange(number=number, choosers=tuple(range(seats)), choices=(None,) * seats)


def round_direction(options: Options, round_no: int) -> str:
    """``left`` or ``right`` for round ``round_no`` (1-based); ``alternate``
    passes left in odd rounds and right in even ones (RULES.md 2.2)."""
    if options.direction == "alternate":
        return "left" if round_no % 2 else "right"
    return options.direction


def source_seat(seat: int, direction: str, seats: int) -> int:
    """The neighbour whose cards ``seat`` receives (RULES.md 1: left = seat+1)."""
    return (seat - 1) % seats if direction == "left" else (seat + 1) % seats


def parse_pass(
    options: Options, hand: Cards, cards: Sequence[str], pointer: str = "/cards"
) -> Cards:
    """Check one seat's pass against its hand (RULES.md 2.5) and return it sorted.

    Raises ``pass-invalid`` listing every problem: codes that are no card, the
    same card twice, cards the seat does not hold, the wrong number of cards.
    """
    chosen, problems = parse_card_set(cards, pointer, hand, "this hand")
    if len(cards) != options.pass_count:
        noun = "card" if options.pass_count == 1 else "cards"
        problems.append(
            FieldError(pointer, f"{len(cards)} named; each seat passes {options.pass_count} {noun}")
        )
    if problems:
        raise RuleViolation("pass-invalid", "; ".join(p.detail for p in problems) + ".", problems)
    return sort_cards(chosen)


def rotate(hands: Sequence[Cards], passes: Sequence[Cards], direction: str) -> tuple[Cards, ...]:
    """Resolve a simultaneous exchange (RULES.md 2.5): each seat gives its
    passed cards to the neighbour in ``direction`` and receives its other
    neighbour's. ``passes`` must already be checked against ``hands``."""
    seats = len(hands)
    new_hands = []
    for seat, hand in enumerate(hands):
        gone = set(passes[seat])
        kept = [c for c in hand if c not in gone]
        new_hands.append(sort_cards(kept + list(passes[source_seat(seat, direction, seats)])))
    return tuple(new_hands)


def resolve(exchange: Exchange, hands: Sequence[Cards], direction: str) -> tuple[Cards, ...]:
    """The hands after ``exchange`` resolves, by its ``resolution``; every
    chooser's choice must be made and checked."""
    if exchange.resolution == "rotate":
        return rotate(hands, [c or () for c in exchange.choices], direction)
    raise ValueError(f"unknown resolution {exchange.resolution!r}")


def check_exchange(
    options: Options, hands: Sequence[Cards], passes: Sequence[Sequence[str]]
) -> list[Cards]:
    """Check one simultaneous exchange's passes, one per seat, against the
    hands (RULES.md 2.5); returns them sorted. Raises ``pass-invalid`` listing
    every problem of every seat (pointers ``/passes/{seat}/{i}``)."""
    if len(passes) != len(hands):
        raise RuleViolation(
            "pass-invalid",
            f"{len(passes)} passes for {len(hands)} seats.",
            [FieldError("/passes", f"one pass per seat: {len(hands)}")],
        )
    checked: list[Cards] = []
    problems: list[FieldError] = []
    for seat, cards in enumerate(passes):
        try:
            checked.append(parse_pass(options, hands[seat], cards, f"/passes/{seat}"))
        except RuleViolation as violation:
            problems.extend(violation.errors)
    if problems:
        raise RuleViolation("pass-invalid", "Some passes are not valid.", problems)
    return checked
