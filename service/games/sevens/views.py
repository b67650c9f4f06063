"""What the public and each seat may see of a Sevens table.

The public view holds no hidden card: hands appear only as counts, a round's
end shows counts (and penalty values only where they are each seat's points),
and the layout shows only played cards.
"""

from __future__ import annotations

from typing import Any

from .codec import listed, rounds_of
from .layout import playable_cards, row_json
from .scoring import match_json, ranks, result_json
from .state import MatchStatus, RoundStatus, Table


def awaiting(table: Table) -> dict[str, Any]:
    """Whose move the referee waits for: ``{"action", "seats", "until_ms"}``
    with ``action`` ``"play"`` (the seat on turn), ``"deal"`` (the host deals
    the next round) or ``"nothing"`` (the match is over)."""
    rnd = table.round
    if table.match_status is not MatchStatus.IN_PROGRESS:
        return {"action": "nothing", "seats": [], "until_ms": None}
    if rnd is None or rnd.on_turn is None:
        return {"action": "deal", "seats": [], "until_ms": None}
    return {"action": "play", "seats": [rnd.on_turn], "until_ms": None}


def public_view(table: Table, now_ms: int) -> dict[str, Any]:
    """The view anyone with the table id may read (JSON-ready): ``variant``,
    ``options`` (wire form), ``seats`` (``{seat, name, cards, wins, points,
    chips, paid}``; never a seat's voluntary passes, which would tell that it
    held a playable card when it passed; ``chips`` ``null`` at a table without
    chips; ``paid`` the chips paid into the pot in the round in play, public
    as each pass is, which ``chips`` counts only once the round is scored),
    ``first_dealer``, ``draw``, ``dealer`` (of the round in play, else of the
    next), ``awaiting``, ``round`` (``null`` before the first deal),
    ``rounds_played`` (the rounds over: the scored ones, and the round the
    host abandoned), ``last_result`` (the newest of them, ``null`` before
    the first; every one is read from ``GET /v1/tables/{id}/rounds``),
    ``standings`` (deprecated: the same seat objects ordered by each one's
    ``rank``) and ``match``. Its
    size does not grow with the rounds played."""
    rnd = table.round
    o = table.options
    place = ranks(table)
    seats = [
        {
            "seat": s,
            "name": name,
            "cards": len(rnd.hands[s]) if rnd is not None else 0,
            "wins": table.wins[s],
            "points": table.points[s],
            "chips": table.chips[s] if o.plays_chips else None,
            "paid": rnd.paid[s] if rnd is not None and rnd.status is RoundStatus.PLAYING else 0,
            "rank": place[s],
        }
        for s, name in enumerate(table.names)
    ]
    round_view = None
    if rnd is not None:
        round_view = {
            "number": rnd.number,
            "dealer": rnd.dealer,
            "status": rnd.status.value,
            "opening_suit": rnd.opening_suit,
            "opener": rnd.opener,
            "turn": rnd.turn if rnd.on_turn is not None else None,
            "on_turn": rnd.on_turn,
            "pot": rnd.pot if rnd.status is RoundStatus.PLAYING else 0,
            "layout": [row_json(r) for r in rnd.layout],
            "turns_taken": len(rnd.moves),
        }
    # The round the host abandoned is listed too (``abandoned``; nothing scored).
    count, _ = rounds_of(table)
    held = listed(table)
    order = sorted(range(table.seats), key=lambda s: (place[s], s))
    # Deprecated (issue 43): the same seat objects by rank, for one release.
    standings = [seats[s] for s in order]
    return {
        "variant": table.variant,
        "options": o.to_json(),
        "seats": seats,
        "first_dealer": table.first_dealer,
        "draw": [list(p) for p in table.draw],
        "dealer": rnd.dealer if rnd is not None and rnd.on_turn is not None else table.next_dealer,
        "awaiting": awaiting(table),
        "round": round_view,
        "rounds_played": count,
        "last_result": result_json(held[-1], o) if held else None,
        "standings": standings,
        "match": match_json(table),
    }


def may_pass(table: Table, seat: int) -> bool:
    """Whether ``seat`` may pass now: on turn, not the opening seven's turn,
    and holding no playable card or with voluntary passes left."""
    rnd = table.round
    if rnd is None or rnd.on_turn != seat:
        return False
    if rnd.turn == 1 and rnd.opening_suit is not None:
        return False
    o = table.options
    if not playable_cards(rnd.hands[seat], rnd.layout, o.decks, o.turn_the_corner):
        return True
    return o.voluntary_pass and rnd.voluntary[seat] < o.voluntary_pass_limit


def playable_now(table: Table, seat: int) -> list[str]:
    """The distinct cards ``seat`` may play now (``[]`` when not on turn)."""
    rnd = table.round
    if rnd is None or rnd.on_turn != seat:
        return []
    if rnd.turn == 1 and rnd.opening_suit is not None:
        return ["7" + rnd.opening_suit]
    o = table.options
    return playable_cards(rnd.hands[seat], rnd.layout, o.decks, o.turn_the_corner)


def seat_view(table: Table, seat: int, now_ms: int) -> dict[str, Any]:
    """What one seat may see: ``{seat, name, round, round_status, turn,
    hand, on_turn, playable, may_pass, voluntary_passes_left,
    must_announce}``; ``voluntary_passes_left`` is ``null`` at a table
    without voluntary passes, ``must_announce`` says its next play is its
    second-to-last card at a ``last_card`` table."""
    rnd = table.round
    o = table.options
    playing = rnd is not None and rnd.status is RoundStatus.PLAYING
    hand = list(rnd.hands[seat]) if rnd is not None else []
    left = None
    if o.voluntary_pass:
        used = rnd.voluntary[seat] if rnd is not None else 0
        left = max(0, o.voluntary_pass_limit - used)
    return {
        "seat": seat,
        "name": table.names[seat],
        "round": rnd.number if rnd is not None else None,
        "round_status": rnd.status.value if rnd is not None else None,
        "turn": rnd.turn if rnd is not None and playing else None,
        "hand": hand,
        "on_turn": rnd is not None and rnd.on_turn == seat,
        "playable": playable_now(table, seat),
        "may_pass": may_pass(table, seat),
        "voluntary_passes_left": left,
        "must_announce": playing and o.last_card and len(hand) == 2,
    }
