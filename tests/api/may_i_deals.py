"""Submitted May I? deals for tests/api/test_may_i_match.py: each seat is
dealt round k's contract but one card (a set, a run of 4, shuffled into its
10 cards), so that random play lays down soon and the rounds of a whole
match over HTTP stay short. Pure: everything follows from ``rng``."""

from __future__ import annotations

import random
from typing import Any

from service.games.may_i.melds import CONTRACTS

RANKS = "23456789TJQKA"


def _take(pool: list[str], cards: list[str]) -> bool:
    if any(pool.count(c) < cards.count(c) for c in cards):
        return False
    for card in cards:
        pool.remove(card)
    return True


def near_contract_deal(seats: int, round_no: int, rng: random.Random) -> dict[str, Any]:
    """A deal for two decks: ``{"hands", "discard", "stock"}`` (stock top
    first); each hand holds round ``round_no``'s contract less one card."""
    pool = [r + s for _ in range(2) for s in "SHDC" for r in RANKS]
    rng.shuffle(pool)
    want_sets, want_runs = CONTRACTS[round_no]
    hands = []
    for _ in range(seats):
        melds: list[list[str]] = []
        while len(melds) < want_sets:
            rank = rng.choice(RANKS)
            cards = [c for c in pool if c[0] == rank][:3]
            if len(cards) == 3 and _take(pool, cards):
                melds.append(cards)
        while len(melds) < want_sets + want_runs:
            low, suit = rng.randrange(0, 10), rng.choice("SHDC")
            cards = [RANKS[i] + suit for i in range(low, low + 4)]
            if _take(pool, cards):
                melds.append(cards)
        hand = [c for m in melds for c in m]
        pool.append(hand.pop(rng.randrange(len(hand))))  # one card short
        rng.shuffle(pool)
        while len(hand) < 10:
            hand.append(pool.pop())
        rng.shuffle(hand)
        hands.append(hand)
    return {"hands": hands, "discard": pool[0], "stock": pool[1:]}
