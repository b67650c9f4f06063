"""Passing (RULES.md 2.5): who passes in each exchange, checking a seat's
pass, and resolving an exchange.

An exchange is "the seats that must choose, their choices, and how it
resolves" (:class:`~.state.Exchange`). Every mode numbers its exchanges from 1
within a round:

- ``simultaneous``: exchange k: every seat chooses ``pass_count`` cards, then
  all rotate one seat in the round's direction (``"rotate"``).
- ``chain``: exchange k is one turn: seat ``dealer + k`` gives one card to its
  left neighbour (``"chain"``); turns never stop until the round ends.
- ``swap``: exchange k is one swap: with ``i = (k - 1) mod N``, seat
  ``dealer + 1 + i`` and its left neighbour each choose one card and trade
  them (``"swap"``); N swaps make a circuit, the last one dealer <-> dealer's left.

``max_exchanges`` and the fastest-win bonus count exchanges in these units.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ..cards import _CANONICAL_PLACE, parse_card_set, sort_cards
from ..errors import FieldError, RuleViolation
from .options import Options
from .state import Cards, Exchange

RESOLUTIONS = {"simultaneous": "rotate", "chain": "chain", "swap": "swap"}
"""The resolution of each passing mode's exchanges."""

Transfer = tuple[int, int, Cards]
"""``(giver, receiver, cards)``: cards that move from one seat to another."""


def choosers_of(passing: str, number: int, seats: int, dealer: int) -> tuple[int, ...]:
    """The seats that choose in exchange ``number`` (1-based) of a round dealt
    by ``dealer`` under ``passing`` (RULES.md 2.5)."""
    if passing == "chain":
        return ((dealer + number) % seats,)
    if passing == "swap":
        first = (dealer + 1 + (number - 1) % seats) % seats
        return tuple(sorted({first, (first + 1) % seats}))
    return tuple(range(seats))


def open_exchange(options: Options, number: int, seats: int, dealer: int) -> Exchange:
    """Exchange ``number`` of a round, with no choice made yet."""
    return _opened(options.passing, number, seats, dealer)


@lru_cache(maxsize=4096)
def _opened(passing: str, number: int, seats: int, dealer: int) -> Exchange:
    # Exchanges are frozen values: one per (mode, number, seats, dealer) serves
    # every table (an exchange opens on every resolution: the hot path).
    return Exchange(
        number=number,
        choosers=choosers_of(passing, number, seats, dealer),
        choices=(None,) * seats,
        resolution=RESOLUTIONS[passing],
    )


def swaps_before_showdown(options: Options, seats: int) -> int | None:
    """How many swaps a ``swap`` round plays before Foster's showdown
    (``swap_circuits`` circuits of N swaps, RULES.md 2.5, 2.9); ``None`` for
    the other modes, which pass until someone wins."""
    if options.passing != "swap" or options.swap_circuits is None:
        return None
    return options.swap_circuits * seats


def hand_sizes(options: Options, seats: int, dealer: int, exchanges_resolved: int) -> list[int]:
    """Every seat's number of cards after ``exchanges_resolved`` exchanges
    (RULES.md 2.5). Constant except under ``chain``, where within a circuit
    the first passer (the dealer's left) holds ``hand_size-1`` and the seat on
    turn ``hand_size+1``, until the dealer's pass evens them out."""
    sizes = [options.hand_size] * seats
    if options.passing == "chain" and exchanges_resolved % seats:
        sizes[(dealer + 1) % seats] -= 1
        sizes[(dealer + exchanges_resolved + 1) % seats] += 1
    return sizes


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
    # The usual pass: canonical codes, distinct, all in the hand, the right
    # count. Anything else takes the full parse, which names every problem.
    if (
        len(cards) == options.pass_count
        and all(isinstance(c, str) and c in hand for c in cards)
        and len(set(cards)) == len(cards)
    ):
        return sort_cards(cards)
    chosen, problems = parse_card_set(cards, pointer, hand, "this hand")
    if len(cards) != options.pass_count:
        noun = "card" if options.pass_count == 1 else "cards"
        problems.append(
            FieldError(pointer, f"{len(cards)} named; each seat passes {options.pass_count} {noun}")
        )
    if problems:
        raise RuleViolation("pass-invalid", "; ".join(p.detail for p in problems) + ".", problems)
    return sort_cards(chosen)


def transfers(resolution: str, choices: Sequence[Cards | None], direction: str) -> list[Transfer]:
    """Where the chosen cards of one exchange go (RULES.md 2.5), as
    ``(giver, receiver, cards)``; seats that chose nothing give nothing."""
    seats = len(choices)
    chosen = [(s, c) for s, c in enumerate(choices) if c is not None]
    if resolution == "rotate":
        step = 1 if direction == "left" else -1
        return [(s, (s + step) % seats, c) for s, c in chosen]
    if resolution == "chain":
        return [(s, (s + 1) % seats, c) for s, c in chosen]
    if resolution == "swap":
        (a, cards_a), (b, cards_b) = chosen
        return [(a, b, cards_a), (b, a, cards_b)]
    raise ValueError(f"unknown resolution {resolution!r}")


def archived(round_no: int, exchange_no: int, choices: Sequence[Cards | None]) -> str:
    """A resolved exchange's choices as the table's history keeps them:
    ``"r3x7:AS|7H|-|2C"`` (round 3, exchange 7; ``-``: the seat did not pass)."""
    body = "|".join("-" if c is None else "".join(c) for c in choices)
    return f"r{round_no}x{exchange_no}:{body}"


def unarchived(text: str | bytes) -> tuple[int, int, tuple[Cards | None, ...]]:
    """The round, exchange and choices of :func:`archived`'s text."""
    raw = text.decode() if isinstance(text, bytes) else text
    head, _, body = raw.partition(":")
    round_no, _, exchange_no = head[1:].partition("x")
    choices = tuple(
        None if c == "-" else tuple(c[i : i + 2] for i in range(0, len(c), 2))
        for c in body.split("|")
    )
    return int(round_no), int(exchange_no), choices


def last_moves(
    moves: Sequence[Transfer],
    given: Sequence[Cards | None],
    received: Sequence[Cards | None],
) -> tuple[tuple[Cards | None, ...], tuple[Cards | None, ...]]:
    """Each seat's cards last given and last received, after ``moves``
    (those of one exchange) on top of ``given`` and ``received``."""
    gave, got = list(given), list(received)
    for giver, receiver, cards in moves:
        gave[giver] = cards
        got[receiver] = cards
    return tuple(gave), tuple(got)


def apply_transfers(hands: Sequence[Cards], moves: Sequence[Transfer]) -> tuple[Cards, ...]:
    """The hands after ``moves``, all at once (checked passes only)."""
    new_hands = [list(h) for h in hands]
    for giver, _, cards in moves:
        gone = set(cards)
        new_hands[giver] = [c for c in new_hands[giver] if c not in gone]
    for _, receiver, cards in moves:
        new_hands[receiver].extend(cards)
    return tuple(sort_cards(h) for h in new_hands)


def resolve(exchange: Exchange, hands: Sequence[Cards], direction: str) -> tuple[Cards, ...]:
    """The hands after ``exchange`` resolves, by its ``resolution``; every
    chooser's choice must be made and checked."""
    choices = exchange.choices
    if exchange.resolution == "rotate" and None not in choices:
        return _rotate(hands, choices, direction)  # type: ignore[arg-type]
    return apply_transfers(hands, transfers(exchange.resolution, choices, direction))


def resolve_all(
    exchange: Exchange,
    hands: Sequence[Cards],
    direction: str,
    given: Sequence[Cards | None],
    received: Sequence[Cards | None],
) -> tuple[tuple[Cards, ...], tuple[Cards | None, ...], tuple[Cards | None, ...]]:
    """:func:`resolve` with each seat's cards last given and last received
    after it (:func:`last_moves` on ``given`` and ``received``). A ``rotate``
    exchange where every seat chose takes the fast path: every seat gives its
    choice and gets its neighbour's."""
    choices = exchange.choices
    if exchange.resolution == "rotate" and None not in choices:
        k = len(choices)
        left = direction == "left"
        got = (choices[k - 1], *choices[: k - 1]) if left else (*choices[1:], choices[0])
        return _rotate(hands, choices, direction), choices, got  # type: ignore[arg-type]
    moves = transfers(exchange.resolution, choices, direction)
    gave, got_all = last_moves(moves, given, received)
    return apply_transfers(hands, moves), gave, got_all


_place = _CANONICAL_PLACE.__getitem__


def _rotate(hands: Sequence[Cards], choices: Sequence[Cards], direction: str) -> tuple[Cards, ...]:
    """:func:`apply_transfers` of a ``rotate`` exchange where every seat chose:
    each seat keeps what it did not give and gets its neighbour's cards (the
    hot path of every simultaneous exchange; same result, less work)."""
    k = len(choices)
    # The seat each hand receives from (source_seat): left takes seat-1's cards.
    received = (
        [choices[k - 1], *choices[: k - 1]] if direction == "left" else [*choices[1:], choices[0]]
    )
    new_hands = []
    for hand, gone, got in zip(hands, choices, received, strict=True):
        kept = [c for c in hand if c not in gone]
        kept += got
        kept.sort(key=_place)  # sort_cards, in place
        new_hands.append(tuple(kept))
    return tuple(new_hands)


def check_exchange(
    options: Options,
    hands: Sequence[Cards],
    passes: Sequence[Sequence[str] | None],
    choosers: Sequence[int],
) -> list[Cards | None]:
    """Check one exchange's passes against the hands (RULES.md 2.5): one entry
    per seat, a list of cards for each of ``choosers`` and ``None`` (or an
    empty list) for every other seat. Returns them sorted (``None`` for
    non-choosers). Raises ``pass-invalid`` listing every problem of every
    seat (pointers ``/passes/{seat}``)."""
    if len(passes) != len(hands):
        raise RuleViolation(
            "pass-invalid",
            f"{len(passes)} passes for {len(hands)} seats.",
            [FieldError("/passes", f"one entry per seat: {len(hands)}")],
        )
    checked: list[Cards | None] = []
    problems: list[FieldError] = []
    for seat, cards in enumerate(passes):
        pointer = f"/passes/{seat}"
        if seat not in choosers:
            checked.append(None)
            if cards:
                who = " and ".join(str(s) for s in choosers)
                problems.append(
                    FieldError(pointer, f"seat {seat} does not pass here; only seat(s) {who} do")
                )
            continue
        try:
            checked.append(parse_pass(options, hands[seat], cards or [], pointer))
        except RuleViolation as violation:
            checked.append(None)
            problems.extend(violation.errors)
    if problems:
        raise RuleViolation("pass-invalid", "Some passes are not valid.", problems)
    return checked
