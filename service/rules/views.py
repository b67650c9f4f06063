"""What the public and each seat may see of a table (the observer idea).

Both views first close a claim window whose time has passed (without storing
anything), so a reader never sees a round that is already settled as open.
The public view holds no card that is still hidden: only the hands that were
shown by a valid declaration, and the first-dealer draw, which is dealt face up.
"""

from __future__ import annotations

from typing import Any

from .engine import match_json, result_json, settle_due
from .passing import source_seat
from .state import RoundStatus, Table


def public_view(table: Table, now_ms: int) -> dict[str, Any]:
    """The view anyone with the table id may read (JSON-ready).

    Shapes: ``seats`` lists ``{seat, name, wins, chosen}`` where ``chosen`` says
    whether that seat has chosen its pass in the current exchange (never which
    cards); ``round`` is the current or last round (``null`` before the first
    deal); ``dealer`` is the dealer of the round in play, else of the next
    round; ``results`` are the finished rounds; ``match`` its status and winners.
    """
    table = settle_due(table, now_ms).table
    rnd = table.round
    passing = rnd is not None and rnd.status is RoundStatus.PASSING
    seats = [
        {
            "seat": s,
            "name": name,
            "wins": table.wins[s],
            "chosen": (rnd.exchange.choices[s] is not None) if passing and rnd else False,
        }
        for s, name in enumerate(table.names)
    ]
    round_view = None
    if rnd is not None:
        round_view = {
            "number": rnd.number,
            "dealer": rnd.dealer,
            "direction": rnd.direction,
            "status": rnd.status.value,
            "exchange": rnd.exchange.number if passing else None,
            "exchanges_resolved": len(rnd.passes),
            "waiting_for": list(rnd.exchange.waiting_for) if passing else [],
            "window_closes_at_ms": rnd.window_closes_at_ms,
            "claims": [
                {"seat": c.seat, "hand": list(c.hand), "at_ms": c.at_ms} for c in rnd.claims
            ],
        }
    return {
        "variant": table.variant,
        "options": table.options.to_json(),
        "seats": seats,
        "first_dealer": table.first_dealer,
        "draw": [list(p) for p in table.draw],
        "dealer": rnd.dealer
        if rnd is not None and rnd.status is not RoundStatus.OVER
        else table.next_dealer,
        "round": round_view,
        "results": [result_json(r) for r in table.results],
        "match": match_json(table),
    }


def seat_view(table: Table, seat: int, now_ms: int) -> dict[str, Any]:
    """What one seat may see: its hand, its pending choice in the current
    exchange, and the cards it gave and received in the last resolved exchange
    of this round (``null`` before the first). All cards in canonical order."""
    table = settle_due(table, now_ms).table
    rnd = table.round
    view: dict[str, Any] = {
        "seat": seat,
        "name": table.names[seat],
        "round": None,
        "round_status": None,
        "exchange": None,
        "hand": [],
        "pending": None,
        "passed": None,
        "received": None,
    }
    if rnd is None:
        return view
    passing = rnd.status is RoundStatus.PASSING
    pending = rnd.exchange.choices[seat] if passing else None
    view.update(
        round=rnd.number,
        round_status=rnd.status.value,
        exchange=rnd.exchange.number if passing else None,
        hand=list(rnd.hands[seat]),
        pending=list(pending) if pending is not None else None,
    )
    if rnd.passes:
        last = rnd.passes[-1]
        source = source_seat(seat, rnd.direction, table.seats)
        view["passed"] = list(last[seat] or ())
        view["received"] = list(last[source] or ())
    return view
