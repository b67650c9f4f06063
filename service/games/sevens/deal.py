"""The deal (the project's rule book, 3.2 and 3.4): the whole deck(s), one
card at a time clockwise from the dealer's left; the check of a submitted
deal; the opening suit and the opener. Pure: the random source is passed in."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..base import Shuffler, deal_order
from ..cards import CardError, parse_card, parse_suit, sort_cards
from ..errors import FieldError, RuleViolation
from .options import Options, deck_for
from .state import Cards


def hand_sizes(options: Options, seats: int, dealer: int) -> list[int]:
    """Each seat's number of cards: the seats dealt first (from the dealer's
    left) hold one more when the deck does not divide evenly."""
    sizes = [0] * seats
    for seat in deal_order(seats, dealer, len(deck_for(options))):
        sizes[seat] += 1
    return sizes


def shuffle_and_deal(options: Options, seats: int, dealer: int, rng: Shuffler) -> tuple[Cards, ...]:
    """Shuffle the deck(s) and deal every card, one at a time, from the dealer's left."""
    cards = list(deck_for(options))
    rng.shuffle(cards)
    hands: list[list[str]] = [[] for _ in range(seats)]
    for card, seat in zip(cards, deal_order(seats, dealer, len(cards)), strict=True):
        hands[seat].append(card)
    return tuple(sort_cards(h) for h in hands)


def _problem(problems: list[FieldError]) -> RuleViolation:
    plural = "s" if len(problems) != 1 else ""
    return RuleViolation(
        "deal-invalid",
        f"The submitted deal is not valid ({len(problems)} problem{plural}).",
        problems,
    )


def validate_hands(options: Options, seats: int, dealer: int, hands: Any) -> tuple[Cards, ...]:
    """Check a submitted deal (a list of hands by seat) and return it in
    canonical form. Raises ``deal-invalid`` listing every problem, each at a
    pointer: the number of hands (``/hands``), a hand's size (``/hands/i``),
    a code that is no card or a card dealt more often than the deck(s) hold
    it (``/hands/i/j``), and the cards left out (``/hands``)."""
    problems: list[FieldError] = []
    if not isinstance(hands, Sequence) or isinstance(hands, str):
        raise _problem([FieldError("/hands", "hands must be a list of hands, one per seat")])
    if len(hands) != seats:
        problems.append(FieldError("/hands", f"{len(hands)} hands for {seats} seats"))
    sizes = hand_sizes(options, seats, dealer)
    left = Counter(deck_for(options))
    copies = "once" if options.decks == 1 else "twice"
    parsed: list[Cards] = []
    for h, hand in enumerate(hands):
        if not isinstance(hand, Sequence) or isinstance(hand, str):
            problems.append(FieldError(f"/hands/{h}", "a hand is a list of card codes"))
            parsed.append(())
            continue
        if h < seats and len(hand) != sizes[h]:
            problems.append(
                FieldError(
                    f"/hands/{h}",
                    f"{len(hand)} cards; seat {h} is dealt {sizes[h]} "
                    f"(the seats dealt first from the dealer's left hold one more)",
                )
            )
        cards: list[str] = []
        for i, text in enumerate(hand):
            pointer = f"/hands/{h}/{i}"
            try:
                card = parse_card(text)
            except CardError as exc:
                problems.append(FieldError(pointer, str(exc)))
                continue
            if left[card] == 0:
                problems.append(
                    FieldError(
                        pointer, f"{card} is dealt more often than the deck holds it ({copies})"
                    )
                )
                continue
            left[card] -= 1
            cards.append(card)
        parsed.append(sort_cards(cards))
    missing = sorted(left.elements())
    if missing and len(hands) == seats:
        problems.append(FieldError("/hands", "every card is dealt; missing: " + " ".join(missing)))
    if problems:
        raise _problem(problems)
    return tuple(parsed)


def opening_suit(options: Options, deal: Mapping[str, Any]) -> str | None:
    """The suit whose seven opens the round (``None`` with ``any-seven``).

    ``deal["opening_suit"]`` (a suit letter, any case) is read only with
    ``dealer-choice`` (diamonds when absent); given with another opening it is
    refused (``deal-invalid`` at ``/opening_suit``)."""
    given = deal.get("opening_suit")
    if options.opening != "dealer-choice":
        if given is not None:
            raise _problem(
                [
                    FieldError(
                        "/opening_suit",
                        f"opening_suit is named only with opening dealer-choice, "
                        f"not {options.opening}",
                    )
                ]
            )
        return None if options.opening == "any-seven" else options.opening[1]
    if given is None:
        return "D"
    suit = parse_suit(given)
    if suit is None:
        raise _problem([FieldError("/opening_suit", "opening_suit is one of S, H, D, C")])
    return suit


def opener(hands: Sequence[Cards], dealer: int, suit: str | None) -> int:
    """The seat of turn 1: the first holder of the opening seven from the
    dealer's left, or the dealer's left with ``any-seven``."""
    seats = len(hands)
    if suit is None:
        return (dealer + 1) % seats
    seven = "7" + suit
    return next(s for s in deal_order(seats, dealer, seats) if seven in hands[s])
