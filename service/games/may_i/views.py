"""What the public and each seat may see of a May I? table.

The public view holds no hidden card: hands and the stock appear only as
counts; the discard pile's top, the melds and the May I? offer are public.
Both views first apply a May I? window that closed by itself
(:func:`~.engine.settle_due`), so they are right on time.
"""

from __future__ import annotations

from typing import Any

from .engine import (
    awaited,
    can_place,
    discardable_given,
    offer_json,
    settle_due,
)
from .melds import CONTRACTS, Meld, contract_text, takes
from .players import find_contract
from .scoring import match_json, result_json
from .state import MatchStatus, Step, Table


def meld_json(m: Meld) -> dict[str, Any]:
    """A meld with its id, owner, kind, cards (a run ascending) and what
    each card stands for (a joker's rank)."""
    return {
        "id": m.id,
        "owner": m.owner,
        "kind": m.kind,
        "cards": list(m.cards),
        "stands_for": m.standing_for(),
    }


def awaiting(table: Table) -> dict[str, Any]:
    """Whose move the referee waits for: ``{"action", "seats", "until_ms"}``;
    ``action`` is the round's step (``draw``, ``may-i``, ``stock``,
    ``play``, ``final``), ``deal`` or ``nothing``."""
    rnd = table.round
    if table.match_status is not MatchStatus.IN_PROGRESS:
        return {"action": "nothing", "seats": [], "until_ms": None}
    if rnd is None or not rnd.playing:
        return {"action": "deal", "seats": [], "until_ms": None}
    if rnd.step is Step.MAY_I and rnd.offer is not None:
        offer = rnd.offer
        if offer.asker is None:
            seats = [s for s in range(table.seats) if s != rnd.on_turn]
        else:
            seats = awaited(table.seats, rnd.on_turn, offer)
        return {"action": "may-i", "seats": seats, "until_ms": offer.until_ms}
    return {"action": rnd.step.value, "seats": [rnd.on_turn], "until_ms": None}


def _ranks(points: tuple[int, ...]) -> list[int]:
    return [1 + sum(q > p for q in points) for p in points]


def public_view(table: Table, now_ms: int) -> dict[str, Any]:
    """The view anyone with the table id may read (JSON-ready): ``seats``,
    ``round`` (the round in play, or the last), ``rounds_played`` (the
    scored rounds), ``last_result`` (the newest one's result, ``null``
    before the first; every one is read from ``GET /v1/tables/{id}/rounds``),
    ``standings`` (deprecated: the same seat objects ordered by each one's
    ``rank``) and ``match``."""
    table = settle_due(table, now_ms).table
    rnd = table.round
    place = _ranks(table.points)
    seats = [
        {
            "seat": s,
            "name": name,
            "cards": len(rnd.hands[s]) if rnd is not None else 0,
            "laid_down": rnd.down[s] if rnd is not None else False,
            "points": table.points[s],
            "rank": place[s],
        }
        for s, name in enumerate(table.names)
    ]
    round_view = None
    if rnd is not None:
        round_view = {
            "number": rnd.number,
            "dealer": rnd.dealer,
            "contract": contract_text(rnd.number),
            "contract_sets": CONTRACTS[rnd.number][0],
            "contract_runs": CONTRACTS[rnd.number][1],
            "status": "playing" if rnd.playing else "over",
            "step": rnd.step.value,
            "on_turn": rnd.on_turn if rnd.playing else None,
            "move": rnd.move if rnd.playing else None,
            "discard_top": rnd.pile[-1] if rnd.pile else None,
            "discard_size": len(rnd.pile),
            "stock_size": len(rnd.stock),
            "melds": [meld_json(m) for m in rnd.melds],
            "may_i": None if rnd.offer is None else offer_json(rnd.offer),
            "went_out": rnd.out,
            "lay_off_turns_left": list(rnd.final),
            "moves_taken": rnd.taken,
        }
    order = sorted(range(table.seats), key=lambda s: (place[s], s))
    return {
        "variant": table.variant,
        "options": table.options.to_json(),
        "seats": seats,
        "first_dealer": table.first_dealer,
        "draw": [list(p) for p in table.draw],
        "dealer": rnd.dealer if rnd is not None and rnd.playing else table.next_dealer,
        "awaiting": awaiting(table),
        "round": round_view,
        "rounds_played": table.played,
        "last_result": None if table.last is None else result_json(table.last),
        # Deprecated (issue 43): the same seat objects by rank, for one release.
        "standings": [seats[s] for s in order],
        "match": match_json(table),
    }


def allowed_moves(table: Table, seat: int) -> list[str]:
    """The moves ``seat`` may make now: turn actions (``take_discard``,
    ``decline``, ``draw``, ``lay_down``, ``lay_off``, ``discard``,
    ``done``) and ``ask`` / ``answer`` for a May I?."""
    rnd = table.round
    if rnd is None or not rnd.playing:
        return []
    if rnd.step is Step.MAY_I and rnd.offer is not None:
        offer = rnd.offer
        if seat == rnd.on_turn:
            return []
        if offer.asker is None:
            return [] if rnd.pile_by[-1] == seat else ["ask"]
        return ["answer"] if seat != offer.asker and not offer.answers[seat] else []
    if seat != rnd.on_turn:
        return []
    hand = rnd.hands[seat]
    if rnd.step is Step.DRAW:
        return ["take_discard", "decline"] if rnd.pile else ["draw"]
    if rnd.step is Step.STOCK:
        return ["draw"]
    if rnd.step is Step.FINAL:
        return ["lay_off", "done"] if can_place(hand, rnd.melds) else ["done"]
    moves = []
    if not rnd.down[seat]:
        moves.append("lay_down")
    elif can_place(hand, rnd.melds):
        moves.append("lay_off")
    moves.append("discard")
    return moves


def seat_view(table: Table, seat: int, now_ms: int) -> dict[str, Any]:
    """What one seat may see: its hand, whether it is on turn and at which
    step, the moves it may make, where each of its cards may be laid off
    (``lay_offs``: card → meld ids), which it may discard, and, when it
    may lay down, one lay-down of the contract found in its hand
    (``contract``: melds, or ``None``)."""
    table = settle_due(table, now_ms).table
    rnd = table.round
    hand = list(rnd.hands[seat]) if rnd is not None else []
    melds = rnd.melds if rnd is not None else ()
    taken = [(m.id, takes(m)) for m in melds]  # each meld's cards, once (issue 44)
    lay_offs = {c: [i for i, cards in taken if c in cards] for c in sorted(set(hand))}
    may = allowed_moves(table, seat)
    return {
        "seat": seat,
        "name": table.names[seat],
        "round": rnd.number if rnd is not None else None,
        "round_status": None if rnd is None else "playing" if rnd.playing else "over",
        "step": rnd.step.value if rnd is not None else None,
        "move": rnd.move if rnd is not None and rnd.playing else None,
        "on_turn": rnd is not None and rnd.playing and rnd.on_turn == seat,
        "hand": hand,
        "laid_down": rnd.down[seat] if rnd is not None else False,
        "may": may,
        "lay_offs": {c: ids for c, ids in lay_offs.items() if ids},
        "discardable": discardable_given(lay_offs),
        # A help, not a rule: one lay-down of the contract the referee finds in the hand.
        "contract": find_contract(rnd.number, hand) if rnd and "lay_down" in may else None,
    }
