"""Stateless checks: a deal, and "may this hand play this card on this
layout" (for clients and teaching; no table needed)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..cards import RANK_INDEX, CardError, parse_card, parse_suit, sort_cards
from ..errors import FieldError, RuleViolation
from .deal import opening_suit, validate_hands
from .layout import SEVEN, not_playable_reason, playable, playable_cards, row_cards
from .options import PRESETS, deck_for, resolve_options, unknown_variant
from .state import Row


def check_deal(
    variant: str, overrides: Mapping[str, Any], players: int, deal: Mapping[str, Any]
) -> dict[str, Any]:
    """Whether ``deal`` (``hands`` by seat, from a dealer at seat
    ``deal.get("dealer", N-1)``, and ``opening_suit``) is a valid Sevens deal:
    ``{"valid", "problems": [{"pointer", "detail"}], "hands"}``. The sizes
    follow the dealer: the seats dealt first from its left hold one card
    more. Raises ``options-invalid`` for options that are not one game."""
    options = resolve_options(variant, overrides, players)
    problems: list[FieldError] = []
    hands = None
    dealer = deal.get("dealer", players - 1)
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
        problems.append(FieldError("/dealer", f"the dealer is a seat 0..{players - 1}"))
        dealer = players - 1
    try:
        opening_suit(options, deal)
    except RuleViolation as violation:
        problems.extend(violation.errors)
    try:
        hands = validate_hands(options, players, dealer, deal.get("hands") or [])
    except RuleViolation as violation:
        problems.extend(violation.errors)
    if problems:
        found = [{"pointer": e.pointer, "detail": e.detail} for e in problems]
        return {"valid": False, "problems": found, "hands": None}
    assert hands is not None
    return {"valid": True, "problems": [], "hands": [list(h) for h in hands]}


def _parse_rows(layout: Any, decks: int, corner: bool, problems: list[FieldError]) -> list[Row]:
    """The rows of a layout given as ``[{"suit", "low", "high"}]`` (card codes)."""
    rows: list[Row] = []
    if not isinstance(layout, Sequence) or isinstance(layout, str):
        problems.append(FieldError("/layout", "the layout is a list of rows"))
        return rows
    for i, item in enumerate(layout):
        pointer = f"/layout/{i}"
        if not isinstance(item, Mapping) or set(item) != {"suit", "low", "high"}:
            problems.append(FieldError(pointer, 'a row is {"suit", "low", "high"}'))
            continue
        suit = parse_suit(item["suit"])
        try:
            low, high = parse_card(item["low"]), parse_card(item["high"])
        except CardError as exc:
            problems.append(FieldError(pointer, str(exc)))
            continue
        if suit is None:
            problems.append(FieldError(pointer, "a row's suit is one of S, H, D, C (or ♠ ♥ ♦ ♣)"))
            continue
        if low[1] != suit or high[1] != suit:
            problems.append(FieldError(pointer, "a row's suit, low and high name one suit"))
            continue
        lo, hi = RANK_INDEX[low[0]], RANK_INDEX[high[0]]
        size = (hi - lo) % 13 + 1
        row = Row(suit, lo, size)
        contains_seven = "7" + suit in row_cards(row)
        if not contains_seven or (not corner and not lo <= SEVEN <= hi):
            problems.append(
                FieldError(pointer, f"a row runs from a 7 outwards; {low}..{high} is no row here")
            )
            continue
        if sum(r.suit == suit for r in rows) >= decks:
            problems.append(FieldError(pointer, f"at most {decks} row(s) of a suit"))
            continue
        rows.append(row)
    return rows


def check_play(
    variant: str,
    overrides: Mapping[str, Any],
    hand: Sequence[str],
    layout: Sequence[Mapping[str, Any]],
    card: str,
) -> dict[str, Any]:
    """May ``hand`` play ``card`` on ``layout``, under the variant's options?
    ``{"playable", "reason", "playable_cards"}``. Refuses a malformed hand,
    layout or card with ``play-invalid`` listing every problem (``/hand/i``,
    ``/layout/i``, ``/card``); raises ``unknown-variant`` / ``options-invalid``."""
    preset = PRESETS.get(variant)
    if preset is None:
        raise unknown_variant(variant)
    # No table: any seat count the decks allow will do (none of the rules
    # of a single play depends on it).
    decks = overrides.get("decks", preset.options.decks)
    o = resolve_options(variant, overrides, 6 if decks == 2 else 3)
    problems: list[FieldError] = []
    rows = _parse_rows(layout, o.decks, o.turn_the_corner, problems)
    on_table = Counter(c for r in rows for c in row_cards(r))
    left = Counter(deck_for(o)) - on_table
    cards: list[str] = []
    if not isinstance(hand, Sequence) or isinstance(hand, str):
        problems.append(FieldError("/hand", "the hand is a list of card codes"))
        hand = []
    for i, text in enumerate(hand):
        try:
            parsed = parse_card(text)
        except CardError as exc:
            problems.append(FieldError(f"/hand/{i}", str(exc)))
            continue
        if left[parsed] == 0:
            problems.append(
                FieldError(f"/hand/{i}", f"{parsed} is on the layout or in the hand too often")
            )
            continue
        left[parsed] -= 1
        cards.append(parsed)
    try:
        chosen = parse_card(card)
    except CardError as exc:
        problems.append(FieldError("/card", str(exc)))
        chosen = ""
    if chosen and chosen not in cards:
        problems.append(FieldError("/card", f"{chosen} is not in the hand"))
    if problems:
        raise RuleViolation(
            "play-invalid", "The hand, layout or card is not a position of this game.", problems
        )
    layout_rows = tuple(rows)
    ok = playable(chosen, layout_rows, o.decks, o.turn_the_corner)
    reason = (
        f"{chosen} may be played."
        if ok
        else not_playable_reason(chosen, layout_rows, o.decks) + "."
    )
    return {
        "playable": ok,
        "reason": reason,
        "playable_cards": playable_cards(
            sort_cards(cards), layout_rows, o.decks, o.turn_the_corner
        ),
    }
