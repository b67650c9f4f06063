"""Melds (the project's rule book, 4.2 and 4.3): sets, runs, jokers, the
contracts, lay-offs, and what a card is worth (4.1). Pure functions."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..cards import RANK_INDEX, RANKS, SUITS, CardError, card_sort_key, parse_card, unblanked

JOKER = "JK"
CONTRACTS: dict[int, tuple[int, int]] = {1: (2, 0), 2: (1, 1), 3: (0, 2), 4: (3, 0), 5: (2, 1)}
"""Round -> (sets, runs) of its contract (4.3)."""
RUN_RANKS = "A23456789TJQKA"
"""A run's values 1..14: the Ace is 1 (low) or 14 (high), not both."""


class MeldError(ValueError):
    """Why cards are no meld (a sentence naming the cards)."""


def parse(text: str) -> str:
    """A card code, or ``JK`` for a joker (``joker`` accepted)."""
    if isinstance(text, str) and unblanked(text).upper() in (JOKER, "JOKER"):
        return JOKER
    return parse_card(text)


def card_value(card: str) -> int:
    """Scoring value: 2-9 = 5, T J Q K = 10, A = 15, joker = 25 (4.1)."""
    if card == JOKER:
        return 25
    return 15 if card[0] == "A" else 10 if card[0] in "TJQK" else 5


def hand_value(cards: Sequence[str]) -> int:
    """``AS 9C JK`` → 45."""
    return sum(card_value(c) for c in cards)


def contract_text(round_no: int) -> str:
    sets, runs = CONTRACTS[round_no]
    parts = []
    if sets:
        parts.append(f"{sets} set{'s' if sets > 1 else ''}")
    if runs:
        parts.append(f"{runs} run{'s' if runs > 1 else ''}")
    return " and ".join(parts)


@dataclass(frozen=True, slots=True)
class Meld:
    """A meld on the table: ``id`` (1, 2, ... in the round), ``owner``,
    ``kind`` ``set`` or ``run``; ``cards`` in place order (a run ascending,
    a joker where it stands); ``low`` a run's value 1..14 of its first card
    (0 for a set); ``rank`` a set's rank."""

    id: int
    owner: int
    kind: str
    cards: tuple[str, ...]
    low: int = 0
    rank: str = ""

    @property
    def high(self) -> int:
        return self.low + len(self.cards) - 1

    @property
    def jokers(self) -> int:
        return self.cards.count(JOKER)

    def standing_for(self) -> list[str]:
        """Each card as it counts (a joker as the card its place needs)."""
        if self.kind == "set":
            return [self.rank if c == JOKER else c[0] for c in self.cards]
        return [RUN_RANKS[self.low - 1 + i] for i in range(len(self.cards))]

    def text(self) -> str:
        return " ".join(self.cards)


Found = tuple[str, tuple[str, ...], int, str]
"""A meld as classified: kind, cards in place order, low, rank."""


def _run_values(card: str, ace_low: bool) -> int:
    if card[0] == "A":
        return 1 if ace_low else 14
    return RANK_INDEX[card[0]] + 2


def classify(cards: Sequence[str]) -> Found:
    """What ``cards`` (in the order given) make: ``(kind, cards in place
    order, low, rank)``; raises :class:`MeldError` with the reason."""
    shown = " ".join(cards)
    naturals = [c for c in cards if c != JOKER]
    jokers = len(cards) - len(naturals)
    if jokers > len(naturals):
        raise MeldError(f"{shown} holds more jokers than natural cards")
    if len({c[0] for c in naturals}) == 1:
        if len(cards) < 3:
            raise MeldError(f"{shown} is a set of {len(cards)}; a set needs 3 or more cards")
        return "set", tuple(cards), 0, naturals[0][0]
    if len({c[1] for c in naturals}) != 1:
        raise MeldError(f"{shown} is neither a set (one rank) nor a run (one suit)")
    if len(cards) < 4:
        raise MeldError(f"{shown} is a run of {len(cards)}; a run needs 4 or more cards")
    for ordered in (tuple(cards), tuple(reversed(cards))):
        for ace_low in (False, True):
            first = next(i for i, c in enumerate(ordered) if c != JOKER)
            low = _run_values(ordered[first], ace_low) - first
            lo_bound, hi_bound = (1, 13) if ace_low else (2, 14)
            if low < lo_bound or low + len(ordered) - 1 > hi_bound:
                continue
            if all(c == JOKER or _run_values(c, ace_low) == low + i for i, c in enumerate(ordered)):
                return "run", ordered, low, ""
    raise MeldError(
        f"{shown} is no run: a run is consecutive ranks of one suit in order, "
        "the Ace high or low but not both (no QS KS AS 2S)"
    )


def check_contract(
    round_no: int, melds: Sequence[Sequence[str]]
) -> list[tuple[str, tuple[str, ...], int, str]]:
    """The melds of a lay-down if they are exactly round ``round_no``'s
    contract (in place order); raises :class:`MeldError` naming the meld."""
    found: list[Found] = []
    for i, meld in enumerate(melds):
        try:
            found.append(classify(meld))
        except MeldError as exc:
            raise MeldError(f"meld {i + 1}: {exc}") from None
    sets, runs = CONTRACTS[round_no]
    got_sets = sum(m[0] == "set" for m in found)
    got_runs = len(found) - got_sets
    if (got_sets, got_runs) != (sets, runs):
        raise MeldError(
            f"round {round_no}'s contract is {contract_text(round_no)}, "
            f"not {got_sets} set(s) and {got_runs} run(s)"
        )
    return found


def _too_many_jokers(meld: Meld, card: str) -> bool:
    """Whether ``meld`` with ``card`` would hold more jokers than natural cards (4.2)."""
    jokers = meld.jokers + (card == JOKER)
    return jokers > len(meld.cards) + 1 - jokers


def _open_ends(run: Meld) -> list[str]:
    """The ends of ``run`` that take one more card, ``"low"`` first.

    A run spans at most A..K (1..13) or 2..A (2..14): the Ace is high or
    low, not both, so a run from the low Ace never takes the high one."""
    ends = []
    if run.low > (2 if run.high == 14 else 1):
        ends.append("low")
    if run.high < (13 if run.low == 1 else 14):
        ends.append("high")
    return ends


def _ends_of(run: Meld, card: str, ends: list[str]) -> list[str]:
    """Which of the open ``ends`` of ``run`` the natural ``card`` of its suit continues."""
    fits = []
    if "low" in ends and _run_values(card, run.low - 1 == 1) == run.low - 1:
        fits.append("low")
    if "high" in ends and _run_values(card, False) == run.high + 1:
        fits.append("high")
    return fits


def _suit(run: Meld) -> str:
    return next(c[1] for c in run.cards if c != JOKER)


def lay_off_end(meld: Meld, card: str, end: str | None) -> str:
    """Where ``card`` goes on ``meld``: ``"set"``, ``"low"`` or ``"high"``;
    raises :class:`MeldError` naming the meld and the card."""
    name = f"{card} does not fit meld {meld.id} ({meld.text()})"
    if _too_many_jokers(meld, card):
        raise MeldError(f"{name}: it would hold more jokers than natural cards")
    if meld.kind == "set":
        if card != JOKER and card[0] != meld.rank:
            raise MeldError(f"{name}: the set is of rank {meld.rank}")
        return "set"
    ends = _open_ends(meld)
    if card == JOKER:
        if end is not None:
            if end not in ends:
                raise MeldError(f"{name}: its {end} end is closed")
            return end
        if len(ends) == 2:
            raise MeldError(f"a joker laid off on meld {meld.id} names its end (low or high)")
        if not ends:
            raise MeldError(f"{name}: both ends are closed")
        return ends[0]
    suit = _suit(meld)
    if card[1] != suit:
        raise MeldError(f"{name}: the run is in {suit}")
    fits = _ends_of(meld, card, ends)
    if not fits:
        raise MeldError(f"{name}: it is at neither end")
    if end is not None:
        if end not in fits:
            raise MeldError(f"{name}: not at its {end} end")
        return end
    return "high" if "high" in fits else fits[0]


def fits(meld: Meld, card: str) -> bool:
    """Whether ``card`` may be laid off on ``meld`` at some end: whether
    :func:`lay_off_end` takes it at one (a joker at either open end of a
    run). Without its refusals' reasons: seat views, bots and checks ask it
    of every card of a hand and every meld, so it is a look-up in
    :func:`takes`."""
    return card in takes(meld)


EVERY_CARD = (*(rank + suit for suit in SUITS for rank in RANKS), JOKER)
"""Every card code of the game's decks (two decks share the codes), and the joker."""


@lru_cache(maxsize=4096)
def takes(meld: Meld) -> frozenset[str]:
    """Every card ``meld`` takes at some end (:func:`fits`): worked out
    once for a meld (melds are values; a lay-off makes a new one) and kept
    for the 4,096 asked of last, not once for each card of each seat's hand at
    each view (issue 44)."""
    if meld.kind == "set":
        return frozenset(
            c
            for c in EVERY_CARD
            if (c == JOKER or c[0] == meld.rank) and not _too_many_jokers(meld, c)
        )
    ends = _open_ends(meld)
    suit = next((c[1] for c in meld.cards if c != JOKER), None)
    return frozenset(
        c
        for c in EVERY_CARD
        if not _too_many_jokers(meld, c)
        and (bool(ends) if c == JOKER else c[1] == suit and bool(_ends_of(meld, c, ends)))
    )


def lay_off(meld: Meld, card: str, end: str | None) -> Meld:
    """``meld`` with ``card`` laid off (raises :class:`MeldError`)."""
    where = lay_off_end(meld, card, end)
    if where == "low":
        return Meld(meld.id, meld.owner, meld.kind, (card, *meld.cards), meld.low - 1, meld.rank)
    return Meld(meld.id, meld.owner, meld.kind, (*meld.cards, card), meld.low, meld.rank)


def take(hand: Sequence[str], cards: Sequence[str]) -> tuple[str, ...] | None:
    """The hand less ``cards`` (a multiset), or ``None`` if it lacks some."""
    left = Counter(hand)
    need = Counter(cards)
    if any(left[c] < n for c, n in need.items()):
        return None
    return sort_hand((left - need).elements())


def _key(card: str) -> tuple[int, int, int]:
    return (1, 0, 0) if card == JOKER else (0, *card_sort_key(card))


def sort_hand(cards: Iterable[str]) -> tuple[str, ...]:
    """Canonical order (by suit S H D C, high to low), jokers last."""
    return tuple(sorted(cards, key=_key))


__all__ = ["CardError", "JOKER", "Meld", "MeldError"]
