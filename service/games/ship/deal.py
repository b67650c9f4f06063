"""Dealing (RULES.md 1 and 2.4): the first-dealer draw, the shuffled deal and
the check of a submitted deal. Pure: the random source is passed in."""

from __future__ import annotations

from collections.abc import Sequence

from ..base import Shuffler, deal_order
from ..cards import (
    CardError,
    describe_deck,
    parse_card,
    parse_card_set,
    sort_cards,
)
from ..errors import FieldError, RuleViolation
from .options import Options, deals_whole_deck, deck_for
from .state import Cards


def shuffle_and_deal(
    deck: Sequence[str], seats: int, dealer: int, hand_size: int, rng: Shuffler
) -> tuple[tuple[Cards, ...], Cards]:
    """One card at a time, clockwise from the dealer's left (RULES.md 1)."""
    cards = list(deck)
    rng.shuffle(cards)
    hands: list[list[str]] = [[] for _ in range(seats)]
    for card, seat in zip(cards, deal_order(seats, dealer, hand_size * seats), strict=False):
        hands[seat].append(card)
    return tuple(sort_cards(h) for h in hands), sort_cards(cards[hand_size * seats :])


def validate_deal(
    options: Options,
    seats: int,
    hands: Sequence[Sequence[str]],
    sizes: Sequence[int] | None = None,
) -> tuple[Cards, ...]:
    """Check a submitted deal (RULES.md 2.4) and return it in canonical form.

    ``sizes`` gives each seat's number of cards when it is not ``hand_size``
    (hands in the middle of a ``chain`` round). Raises ``deal-invalid``
    listing every problem at once, each with a JSON pointer (``/hands/2/5``):
    wrong number of hands or of cards, codes that are no card, cards not in
    the round's deck, cards dealt twice, and with a deck that must be dealt
    whole, the cards left out.
    """
    deck = deck_for(options, seats)
    in_deck = set(deck)
    problems: list[FieldError] = []
    if len(hands) != seats:
        problems.append(FieldError("/hands", f"{len(hands)} hands for {seats} seats"))
    seen: dict[str, int] = {}
    parsed: list[Cards] = []
    described = ""
    for h, hand in enumerate(hands):
        size = sizes[h] if sizes is not None and h < len(sizes) else options.hand_size
        if len(hand) != size:
            which = "each hand" if sizes is None else "this hand"
            problems.append(FieldError(f"/hands/{h}", f"{len(hand)} cards; {which} holds {size}"))
        cards: list[str] = []
        for i, text in enumerate(hand):
            pointer = f"/hands/{h}/{i}"
            try:
                card = parse_card(text)
            except CardError as exc:
                problems.append(FieldError(pointer, str(exc)))
                continue
            if card not in in_deck:
                described = described or describe_deck(deck)  # once: a deal may hold 216
                problems.append(FieldError(pointer, f"{card} is not in this deck ({described})"))
            if card in seen:
                problems.append(
                    FieldError(pointer, f"{card} is dealt twice (also in hand {seen[card]})")
                )
                continue
            seen[card] = h
            cards.append(card)
        parsed.append(sort_cards(cards))
    if deals_whole_deck(options):
        left_out = [c for c in deck if c not in seen]
        if left_out:
            problems.append(
                FieldError(
                    "/hands", "every card of this deck is dealt; missing: " + " ".join(left_out)
                )
            )
    if problems:
        raise RuleViolation(
            "deal-invalid",
            f"The submitted deal is not valid ({len(problems)} problem"
            f"{'s' if len(problems) != 1 else ''}).",
            problems,
        )
    return tuple(parsed)


def validate_hand(options: Options, seats: int, hand: Sequence[str]) -> Cards:
    """Check that ``hand`` could be one seat's hand in a round of ``seats``
    seats (RULES.md 2.4, 2.5): distinct cards of the round's deck, ``hand_size``
    of them, or under ``chain`` one fewer or one more.
    Raises ``hand-invalid`` listing every problem (pointers ``/hand/i``)."""
    cards, problems = parse_card_set(hand, "/hand", set(deck_for(options, seats)), "this deck")
    size = options.hand_size
    if options.passing == "chain":
        if not size - 1 <= len(hand) <= size + 1:
            problems.append(
                FieldError("/hand", f"{len(hand)} cards; a hand holds {size - 1} to {size + 1}")
            )
    elif len(hand) != size:
        problems.append(FieldError("/hand", f"{len(hand)} cards; a hand holds {size}"))
    if problems:
        raise RuleViolation("hand-invalid", "This is not a hand of this game.", problems)
    return sort_cards(cards)
