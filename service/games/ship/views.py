"""What the public and each seat may see of a table (the observer idea).

Both views first close a claim window whose time has passed (without storing
anything), so a reader never sees a round that is already settled as open.
The public view holds no card that is still hidden: only the hands that were
shown by a valid declaration, and the first-dealer draw, which is dealt face up.
"""

from __future__ import annotations

from typing import Any

from .engine import settle_due
from .scoring import match_json, ranking_key, result_json
from .state import Cards, MatchStatus, Round, RoundStatus, Table


def public_view(table: Table, now_ms: int) -> dict[str, Any]:
    """The view anyone with the table id may read (JSON-ready).

    Shapes: ``seats`` lists ``{seat, name, wins, points, chips, chosen}``
    where ``chosen`` says whether that seat has chosen its pass in the current
    exchange (never which cards) and ``chips`` is ``null`` without chips;
    ``awaiting`` says whose move the referee waits for (:func:`awaiting`);
    ``round`` is the current or last round (``null`` before the first deal),
    with ``choosers``, the seats that pass in the current exchange;
    ``dealer`` is the dealer of the round in play, else of the next round;
    ``rounds_played`` counts the finished rounds (won or void) and
    ``last_result`` is the newest one's result (``null`` before the first;
    every one is read from ``GET /v1/tables/{id}/rounds``); each seat's
    ``rank`` is its place (RULES.md 2.8, 2.11: net chips first with chips,
    then points; ties share), and ``standings`` (deprecated) the same seat
    objects by rank; ``match`` its status and winners. Its size does not
    grow with the rounds played.
    """
    table = settle_due(table, now_ms).table
    rnd = table.round
    passing = rnd is not None and rnd.status is RoundStatus.PASSING
    points = table.points
    keys = [ranking_key(table, s) for s in range(table.seats)]
    seats = [
        {
            "seat": s,
            "name": name,
            "wins": table.wins[s],
            "points": points[s],
            "chips": table.chips[s] if table.options.chips else None,
            "chosen": (rnd.exchange.choices[s] is not None) if passing and rnd else False,
            "rank": 1 + sum(k < keys[s] for k in keys),
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
            "exchanges_resolved": rnd.exchanges_resolved,
            "choosers": list(rnd.exchange.choosers) if passing else [],
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
        "awaiting": awaiting(table),
        "round": round_view,
        "rounds_played": table.played,
        "last_result": result_json(table.last),
        # Deprecated (issue 43): the same seats by rank, for one release.
        "standings": sorted(seats, key=lambda s: (s["rank"], s["seat"])),
        "match": match_json(table),
    }


def awaiting(table: Table) -> dict[str, Any]:
    """Whose move the referee waits for, in every passing mode:
    ``{"action", "seats", "until_ms"}`` where ``action`` is ``"deal"`` (the
    host deals the next round), ``"pass"`` (``seats`` must choose: every seat
    not yet chosen, the seat on turn in ``chain``, the two of a ``swap``),
    ``"claims"`` (a claim window is open until ``until_ms``; seats with a
    winning hand may claim) or ``"nothing"`` (the match is over). A table
    already settled by :func:`~.engine.settle_due` must be passed."""
    rnd = table.round
    if table.match_status is not MatchStatus.IN_PROGRESS:
        return {"action": "nothing", "seats": [], "until_ms": None}
    if rnd is None or rnd.status is RoundStatus.OVER:
        return {"action": "deal", "seats": [], "until_ms": None}
    if rnd.status is RoundStatus.CLAIM_WINDOW:
        return {"action": "claims", "seats": [], "until_ms": rnd.window_closes_at_ms}
    return {"action": "pass", "seats": list(rnd.exchange.waiting_for), "until_ms": None}


def seat_view(table: Table, seat: int, now_ms: int) -> dict[str, Any]:
    """What one seat may see: its hand, whether it must choose now
    (``to_choose``), its pending choice in the current exchange, and the cards
    it last gave and last received in this round (``null`` before its first;
    under ``simultaneous`` both come from the last resolved exchange). All
    cards in canonical order."""
    table = settle_due(table, now_ms).table
    rnd = table.round
    view: dict[str, Any] = {
        "seat": seat,
        "name": table.names[seat],
        "round": None,
        "round_status": None,
        "exchange": None,
        "hand": [],
        "to_choose": False,
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
        to_choose=passing and seat in rnd.exchange.waiting_for,
        pending=list(pending) if pending is not None else None,
    )
    passed, received = last_moves(rnd, seat)
    view["passed"] = None if passed is None else list(passed)
    view["received"] = None if received is None else list(received)
    return view


def last_moves(rnd: Round, seat: int) -> tuple[Cards | None, Cards | None]:
    """The cards ``seat`` last gave and last received in the round's resolved
    exchanges (``None`` for never); under ``simultaneous`` both are from the
    last exchange, where a seat always gives and receives."""
    given = rnd.given[seat] if rnd.given else None
    received = rnd.received[seat] if rnd.received else None
    return given, received
