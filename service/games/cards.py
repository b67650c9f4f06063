"""Cards, their notation and the decks of RULES.md sections 1 and 2.3.

A card is its canonical code, a two-character ``str``: rank then suit
(``"TH"``, ``"QC"``, ``"4S"``). Plain strings keep states small, hashable and
cheap to serialise; every card that enters the engine goes through
:func:`parse_card` first, so inside the engine a ``str`` card is always valid.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from functools import lru_cache

from .errors import FieldError

RANKS = "23456789TJQKA"
"""Ranks from low to high (RULES.md 1: Ace high)."""

SUITS = "SHDC"
"""Suits in the order they are listed and sorted: spades, hearts, diamonds, clubs."""

SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}

# RULES.md 2.3: a rank removed in part loses its clubs first, then diamonds,
# hearts, spades.
PARTIAL_RANK_REMOVAL_ORDER = "CDHS"

_SUIT_SYMBOLS = {"♠": "S", "♥": "H", "♦": "D", "♣": "C", "♤": "S", "♡": "H", "♢": "D", "♧": "C"}

RANK_INDEX = {rank: i for i, rank in enumerate(RANKS)}
SUIT_INDEX = {suit: i for i, suit in enumerate(SUITS)}

STANDARD_DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
"""The 52 cards, in canonical order."""


@lru_cache(maxsize=4096)
def split_codes(text: str) -> tuple[str, ...]:
    """The cards of ``text``, two-character codes written one after another
    (a stored hand, stock or pile; ``""``: none), in order. Kept for the
    4,096 texts used last: every read of a table (each move's load, each
    process's stream read after a commit) decodes its hands again, and they
    mostly have not changed since the last read."""
    return tuple(text[i : i + 2] for i in range(0, len(text), 2))


class CardError(ValueError):
    """A text that is not a card code; ``str(error)`` says why."""


VARIATION_SELECTORS = ("\ufe0e", "\ufe0f")
"""Text and emoji presentation: what phones add after a suit symbol."""

BLANKS_AROUND_A_CARD = 2
"""The most blanks (Unicode white space) a card code may have on either side."""


def unblanked(text: str) -> str:
    """``text`` without its blanks on either side; :class:`CardError` for
    more than :data:`BLANKS_AROUND_A_CARD` on a side."""
    stripped = text.strip()
    if len(text) - len(text.lstrip()) > BLANKS_AROUND_A_CARD or (
        len(text) - len(text.rstrip()) > BLANKS_AROUND_A_CARD
    ):
        raise CardError(
            f"{text!r} is not a card: at most {BLANKS_AROUND_A_CARD} blanks on either side"
        )
    return stripped


def parse_card(text: str) -> str:
    """Return the canonical code of one card.

    Accepts ``TH``, ``10H``, ``A♥`` and any case (RULES.md 1); up to
    :data:`BLANKS_AROUND_A_CARD` blanks on either side and the one variation
    selector phones add after a suit symbol (``♥\ufe0f``) are ignored, as
    the spec's pattern says (a selector anywhere else is no card). Ranks and
    letter suits must be ASCII, so look-alike letters are refused. Raises
    :class:`CardError` for anything else.
    """
    if not isinstance(text, str):
        raise CardError(f"{text!r} is not a card code")
    raw = unblanked(text)
    if raw[-2:-1] in _SUIT_SYMBOLS and raw[-1:] in VARIATION_SELECTORS:
        raw = raw[:-1]  # a phone's emoji form of the suit symbol
    if not raw:
        raise CardError("an empty string is not a card")
    suit = _SUIT_SYMBOLS.get(raw[-1], raw[-1] if raw[-1].isascii() else "?").upper()
    rank = raw[:-1].upper() if raw[:-1].isascii() else "?"
    if rank == "10":
        rank = "T"
    if rank not in RANK_INDEX or suit not in SUIT_INDEX:
        raise CardError(
            f"{text!r} is not a card: write rank then suit, e.g. 'TH', '10H', 'A♥' "
            f"(ranks {' '.join(RANKS)}, suits S H D C)"
        )
    return rank + suit


def parse_suit(text: object) -> str | None:
    """The suit letter of ``S``/``H``/``D``/``C`` (any case) or a suit symbol
    (``♥``, with or without a variation selector), as :func:`parse_card`
    reads a card's suit; ``None`` for anything else."""
    if not isinstance(text, str):
        return None
    raw = text.strip().replace("\ufe0f", "").replace("\ufe0e", "")
    suit = _SUIT_SYMBOLS.get(raw, raw.upper() if raw.isascii() else "?")
    return suit if len(suit) == 1 and suit in SUIT_INDEX else None


def parse_rank(text: str) -> str:
    """The canonical rank of ``2``..``9``, ``10``/``T``, ``J``, ``Q``, ``K``, ``A``
    (any case); raises :class:`CardError`."""
    raw = text.strip().upper() if isinstance(text, str) and text.isascii() else "?"
    rank = "T" if raw == "10" else raw
    if rank not in RANK_INDEX:
        raise CardError(f"{text!r} is not a rank ({' '.join(RANKS)})")
    return rank


def parse_card_set(
    texts: Sequence[str], pointer: str, allowed: Collection[str], place: str
) -> tuple[list[str], list[FieldError]]:
    """Parse the codes of a set of cards that must all be in ``allowed``.

    Returns the canonical cards (in the order given) and a problem per code
    that is no card, names a card twice, or names one outside ``allowed``
    (``"9C is not in this hand"`` for ``place="this hand"``), each at
    ``{pointer}/{index}``.
    """
    cards: list[str] = []
    problems: list[FieldError] = []
    for i, text in enumerate(texts):
        try:
            card = parse_card(text)
        except CardError as exc:
            problems.append(FieldError(f"{pointer}/{i}", str(exc)))
            continue
        if card in cards:
            problems.append(FieldError(f"{pointer}/{i}", f"{card} is named twice"))
        elif card not in allowed:
            problems.append(FieldError(f"{pointer}/{i}", f"{card} is not in {place}"))
        cards.append(card)
    return cards, problems


def card_sort_key(card: str) -> tuple[int, int]:
    """Sort key: by suit (S H D C), then rank from high to low."""
    return SUIT_INDEX[card[1]], -RANK_INDEX[card[0]]


# Every card's place in canonical order: sorting by a dict lookup is the hot
# path of every exchange, and a C-level lookup is several times faster.
_CANONICAL_PLACE = {card: i for i, card in enumerate(sorted(STANDARD_DECK, key=card_sort_key))}


def sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    """The cards in canonical display order, so that no pick order ever leaks."""
    return tuple(sorted(cards, key=_CANONICAL_PLACE.__getitem__))


def describe_count(count: int, suit: str) -> str:
    """Words for a number of cards of a suit: ``"6 hearts"``, ``"1 club"``."""
    name = SUIT_NAMES[suit]
    return f"{count} {name if count != 1 else name[:-1]}"


def trimmed_deck(card_count: int, low_rank: str | None = None) -> tuple[str, ...]:
    """The trimmed deck of RULES.md 2.3: exactly ``card_count`` cards.

    Without ``low_rank`` the lowest ranks are removed first, and a rank removed
    in part loses clubs, diamonds, hearts, spades in that order (5 players × 7:
    ranks 6..A less 6C). With ``low_rank`` (only when ``card_count`` is a
    multiple of 4) the deck is that rank and the next ``card_count/4 - 1``.
    Raises ``ValueError`` when the request cannot be met.
    """
    if not 1 <= card_count <= 52:
        raise ValueError(f"a trimmed deck holds 1 to 52 cards, not {card_count}")
    if low_rank is not None:
        if card_count % 4:
            raise ValueError("deck_low_rank needs a card count that is a multiple of 4")
        start = RANK_INDEX[low_rank]
        width = card_count // 4
        if start + width > len(RANKS):
            raise ValueError(
                f"deck_low_rank {low_rank} leaves too few ranks for {card_count} cards "
                f"({width} ranks from {low_rank} go past the Ace)"
            )
        kept_ranks = RANKS[start : start + width]
        return tuple(c for c in STANDARD_DECK if c[0] in kept_ranks)
    removed: set[str] = set()
    to_remove = 52 - card_count
    for rank in RANKS:
        for suit in PARTIAL_RANK_REMOVAL_ORDER:
            if len(removed) == to_remove:
                break
            removed.add(rank + suit)
    return tuple(c for c in STANDARD_DECK if c not in removed)


SKAT32_DECK: tuple[str, ...] = tuple(
    c for c in STANDARD_DECK if RANK_INDEX[c[0]] >= RANK_INDEX["7"]
)
"""Ranks 7..A of each suit (RULES.md 2.3, Ochse)."""


def suit_counts(hand: Sequence[str]) -> dict[str, int]:
    """How many cards of each suit a hand holds (every suit present as a key)."""
    counts = dict.fromkeys(SUITS, 0)
    for card in hand:
        counts[card[1]] += 1
    return counts


def describe_deck(deck: Sequence[str]) -> str:
    """A short human description of a deck, for error messages."""
    if len(deck) == 52:
        return "the full 52-card deck"
    ranks = sorted({c[0] for c in deck}, key=RANK_INDEX.__getitem__)
    text = f"{len(deck)} cards, ranks {ranks[0]}..{ranks[-1]}"
    missing = [c for c in STANDARD_DECK if c[0] in ranks and c not in deck]
    if missing:
        text += " less " + " ".join(missing)
    return text
