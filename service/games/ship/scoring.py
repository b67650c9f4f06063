"""The end of a round and of a match (RULES.md 2.6-2.9): settling the
winning hands (or Foster's showdown), scoring wins and chips, the
fastest-win point, the match rules, and the public form of results.

The functions take the table whose current round is ending and return the
new table with the public events it produced; :mod:`.engine` calls them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..cards import sort_cards
from .settlement import chips_paid, settle, showdown, winning_suits
from .state import Cards, Claim, Exchange, MatchStatus, RoundResult, RoundStatus, Table

Event = dict[str, Any]


def cleared(exchange: Exchange) -> Exchange:
    """The exchange with every chosen pass cancelled (the cards never left)."""
    return replace(exchange, choices=(None,) * len(exchange.choices))


def settle_automatic(table: Table) -> tuple[Table, list[Event]]:
    """Under ``automatic``, every winning hand wins at once (RULES.md 2.6)."""
    rnd = table.round
    assert rnd is not None
    winners = tuple(
        Claim(seat=s, at_ms=0, hand=h)
        for s, h in enumerate(rnd.hands)
        if winning_suits(h, table.options.win_count)
    )
    if not winners:
        return table, []
    if table.options.passing == "swap":
        return call_showdown(table)
    return end_round(table, winners, None)


def call_showdown(table: Table) -> tuple[Table, list[Event]]:
    """Foster's showdown (RULES.md 2.9): every hand is shown and settled."""
    rnd = table.round
    assert rnd is not None
    winners, settled_by = showdown(table.options, rnd.dealer, rnd.hands)
    return _close_round(table, winners, tuple(enumerate(rnd.hands)), settled_by)


def end_round(
    table: Table, claims: Sequence[Claim], settled_by: str | None
) -> tuple[Table, list[Event]]:
    """Settle the round among ``claims`` (or void it), score it and check the match."""
    rnd = table.round
    assert rnd is not None
    if claims:
        winners, settled_by = settle(
            table.options, rnd.dealer, table.seats, [(c.seat, c.hand) for c in claims]
        )
    else:
        winners, settled_by = (), settled_by or "void"
    shown = tuple(sorted((c.seat, c.hand) for c in claims))
    return _close_round(table, winners, shown, settled_by)


def _close_round(
    table: Table,
    winners: tuple[int, ...],
    shown: tuple[tuple[int, Cards], ...],
    settled_by: str,
) -> tuple[Table, list[Event]]:
    """Record the round's result, score it (wins, chips) and check the match."""
    rnd = table.round
    assert rnd is not None
    chips: tuple[int, ...] = ()
    if table.options.chips:
        chips = chips_paid(table.options, rnd.hands, winners) if winners else (0,) * table.seats
    result = RoundResult(
        round=rnd.number,
        dealer=rnd.dealer,
        exchanges=rnd.exchanges_resolved,
        winners=winners,
        hands=shown,
        settled_by=settled_by,
        chips=chips,
        set_aside=sort_cards(rnd.set_aside),
    )
    rnd = replace(rnd, status=RoundStatus.OVER, exchange=cleared(rnd.exchange), result=result)
    wins = tuple(w + (1 if s in winners else 0) for s, w in enumerate(table.wins))
    tally = tuple(a + b for a, b in zip(table.chips, chips, strict=True)) if chips else table.chips
    fewest, fewest_by = faster(table.fewest, table.fewest_by, result)
    table = replace(
        table,
        round=rnd,
        wins=wins,
        played=table.played + 1,
        last=result,
        chips=tally,
        fewest=fewest,
        fewest_by=fewest_by,
    )
    events: list[Event] = [
        {"type": "round-void" if not winners else "round-won", **result_dict(result)}
    ]
    table, more = _check_match(table)
    return table, events + more


def _check_match(table: Table) -> tuple[Table, list[Event]]:
    """End the match when its rule says so (RULES.md 2.8)."""
    match = table.options.match
    winners: tuple[int, ...] = ()
    if match.kind == "target_wins":
        assert match.count is not None
        winners = tuple(s for s, w in enumerate(table.wins) if w >= match.count)
        if not winners:
            return table, []
    elif match.kind == "deals":
        assert match.count is not None
        if table.played < match.count:
            return table, []
        if table.options.fastest_win_bonus:
            table = replace(table, fastest_win=table.fewest_by)
        winners = match_leaders(table)
    else:
        return table, []
    table = replace(table, match_status=MatchStatus.WON, match_winners=winners)
    return table, [{"type": "match-won", **match_json(table)}]


def leaders(points: Sequence[int]) -> tuple[int, ...]:
    """The seats with the most points; ties are shared (RULES.md 2.8), also
    a tie at zero when no round was won."""
    top = max(points)
    return tuple(s for s, w in enumerate(points) if w == top)


def ranking_key(table: Table, seat: int) -> tuple[int, int]:
    """How a seat ranks, best first when sorted: by net chips, then points,
    with ``chips`` on (RULES.md 2.11); by points alone otherwise."""
    chips = table.chips[seat] if table.options.chips else 0
    return -chips, -table.points[seat]


def match_leaders(table: Table) -> tuple[int, ...]:
    """The seats that lead the standings (:func:`ranking_key`); ties are shared."""
    keys = [ranking_key(table, s) for s in range(table.seats)]
    best = min(keys)
    return tuple(s for s, k in enumerate(keys) if k == best)


def faster(
    fewest: int | None, fewest_by: tuple[int, ...], result: RoundResult
) -> tuple[int | None, tuple[int, ...]]:
    """The fewest exchanges a round was won in and the seats that won a
    round that fast (RULES.md 2.8 ``fastest_win_bonus``), after ``result``:
    every winner of every round won that fast; none before a win."""
    if not result.winners or (fewest is not None and result.exchanges > fewest):
        return fewest, fewest_by
    if fewest is None or result.exchanges < fewest:
        return result.exchanges, tuple(sorted(result.winners))
    return fewest, tuple(sorted({*fewest_by, *result.winners}))


def result_json(result: RoundResult | None) -> dict[str, Any] | None:
    """The public form of a round's result (``None`` while there is none)."""
    return None if result is None else result_dict(result)


def result_dict(result: RoundResult) -> dict[str, Any]:
    """The public form of a round's result: winners and the hands shown."""
    return {
        "round": result.round,
        "dealer": result.dealer,
        "exchanges": result.exchanges,
        "winners": list(result.winners),
        "settled_by": result.settled_by,
        "hands": [{"seat": s, "cards": list(h)} for s, h in result.hands],
        "chips": list(result.chips),
        "set_aside": list(result.set_aside),
    }


def match_json(table: Table) -> dict[str, Any]:
    """The public form of the match state."""
    return {
        "status": table.match_status.value,
        "winners": list(table.match_winners),
        "fastest_win": list(table.fastest_win),
    }
