"""Stateless checks (no table needed): a deal; is this lay-down the
contract of round k; may this card be laid off on this meld; may this card
be discarded with these melds on the table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..cards import CardError
from ..errors import FieldError, RuleViolation
from .engine import discard_allowed, validate_deal
from .melds import CONTRACTS, Meld, MeldError, check_contract, classify, fits, lay_off_end, parse
from .options import deck_for, resolve_options


def check_deal(
    variant: str, overrides: Mapping[str, Any], players: int, deal: Mapping[str, Any]
) -> dict[str, Any]:
    """Whether ``deal`` (``hands``, ``stock`` top first, ``discard``) is a
    valid May I? deal: ``{"valid", "problems", "hands"}``."""
    options = resolve_options(variant, overrides, players)
    try:
        hands, _, _ = validate_deal(players, deck_for(options), deal)
    except RuleViolation as violation:
        found = [{"pointer": e.pointer, "detail": e.detail} for e in violation.errors]
        return {"valid": False, "problems": found, "hands": None}
    return {"valid": True, "problems": [], "hands": [list(h) for h in hands]}


def _bad(problems: list[FieldError]) -> RuleViolation:
    return RuleViolation("move-invalid", "The cards given are not a position of May I?.", problems)


def _cards(value: Any, pointer: str, problems: list[FieldError]) -> list[str]:
    if not isinstance(value, Sequence) or isinstance(value, str):
        problems.append(FieldError(pointer, "a list of card codes"))
        return []
    cards = []
    for i, text in enumerate(value):
        try:
            cards.append(parse(text))
        except (CardError, AttributeError) as exc:
            problems.append(FieldError(f"{pointer}/{i}", str(exc) or "not a card"))
    return cards


def _meld(cards: Sequence[str], i: int) -> Meld:
    kind, placed, low, rank = classify(cards)
    return Meld(i + 1, 0, kind, placed, low, rank)


def _melds(value: Any, problems: list[FieldError]) -> list[Meld]:
    melds = []
    if not isinstance(value, Sequence) or isinstance(value, str):
        problems.append(FieldError("/melds", "a list of melds"))
        return []
    for i, item in enumerate(value):
        cards = _cards(item, f"/melds/{i}", problems)
        try:
            melds.append(_meld(cards, i))
        except MeldError as exc:
            problems.append(FieldError(f"/melds/{i}", str(exc)))
    return melds


def check_lay_down(round_no: int, melds: Any) -> dict[str, Any]:
    """Is ``melds`` exactly round ``round_no``'s contract? ``{"valid",
    "reason", "melds"}`` (each meld as shown: a run ascending)."""
    if round_no not in CONTRACTS:
        raise _bad([FieldError("/round", "a round is 1..5")])
    problems: list[FieldError] = []
    if not isinstance(melds, Sequence) or isinstance(melds, str):
        raise _bad([FieldError("/melds", "a list of melds")])
    parsed = [_cards(m, f"/melds/{i}", problems) for i, m in enumerate(melds)]
    if problems:
        raise _bad(problems)
    try:
        found = check_contract(round_no, parsed)
    except MeldError as exc:
        return {"valid": False, "reason": f"Not the contract: {exc}.", "melds": None}
    shown = [{"kind": kind, "cards": list(cards)} for kind, cards, _, _ in found]
    return {"valid": True, "reason": "This is the contract.", "melds": shown}


def check_lay_off(meld: Any, card: Any, end: str | None) -> dict[str, Any]:
    """May ``card`` be laid off on ``meld`` (at ``end`` for a joker on a run
    open at both ends)? ``{"fits", "reason", "end"}``."""
    problems: list[FieldError] = []
    cards = _cards(meld, "/meld", problems)
    chosen = _cards([card], "/card", problems)
    if problems:
        raise _bad(problems)
    try:
        target = _meld(cards, 0)
    except MeldError as exc:
        raise _bad([FieldError("/meld", str(exc))]) from None
    try:
        where = lay_off_end(target, chosen[0], end)
    except MeldError as exc:
        return {"fits": False, "reason": f"{exc}.", "end": None}
    return {"fits": True, "reason": f"{chosen[0]} fits.", "end": None if where == "set" else where}


def check_discard(hand: Any, melds: Any, card: Any) -> dict[str, Any]:
    """May ``hand`` discard ``card`` while ``melds`` are on the table?
    ``{"allowed", "reason", "fits"}`` (``fits``: the meld indexes, from 1,
    the card could be laid off on)."""
    problems: list[FieldError] = []
    cards = _cards(hand, "/hand", problems)
    table = _melds(melds, problems)
    chosen = _cards([card], "/card", problems)
    if chosen and chosen[0] not in cards:
        problems.append(FieldError("/card", f"{chosen[0]} is not in the hand"))
    if problems:
        raise _bad(problems)
    c = chosen[0]
    where = [m.id for m in table if fits(m, c)]
    ok = discard_allowed(cards, table, c)
    if not where:
        reason = f"{c} fits no meld on the table."
    elif ok:
        reason = f"{c} fits meld {where[0]}, but so does every card of the hand."
    else:
        reason = f"{c} fits meld {where[0]} and may not be discarded."
    return {"allowed": ok, "reason": reason, "fits": where}
