"""The end of a round and of a match (the project's rule book, 3.5): the pot,
penalty values, points, the match rules, standings, and the public form of
results."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from .options import Options
from .state import MatchStatus, Round, RoundResult, RoundStatus, Table

Event = dict[str, Any]

CARD_VALUE = {r: (1 if r == "A" else 10 if r in "TJQK" else int(r)) for r in "23456789TJQKA"}
"""Penalty values: A = 1, 2-10 their pips, J Q K = 10."""


def penalty(cards: Sequence[str]) -> int:
    """The value of the cards left in a hand (``AS KH 5C`` → 16)."""
    return sum(CARD_VALUE[c[0]] for c in cards)


def round_points(options: Options, winner: int, penalties: Sequence[int]) -> tuple[int, ...]:
    """Each seat's points for a round won by ``winner``: ``winner-scores``
    gives the winner every other seat's penalty; ``losers-score`` gives each
    other seat its own; ``none`` gives nothing."""
    if options.points == "winner-scores":
        total = sum(p for s, p in enumerate(penalties) if s != winner)
        return tuple(total if s == winner else 0 for s in range(len(penalties)))
    if options.points == "losers-score":
        return tuple(0 if s == winner else p for s, p in enumerate(penalties))
    return (0,) * len(penalties)


def end_round(table: Table, winner: int) -> tuple[Table, list[Event]]:
    """``winner`` played its last card: it takes the pot; score the round
    and check the match."""
    rnd = table.round
    assert rnd is not None
    pot = rnd.pot
    penalties = tuple(penalty(h) for h in rnd.hands)
    points = round_points(table.options, winner, penalties)
    chips = tuple((pot if s == winner else 0) - paid for s, paid in enumerate(rnd.paid))
    result = RoundResult(
        round=rnd.number,
        dealer=rnd.dealer,
        opener=rnd.opener,
        winner=winner,
        pot=pot,
        turns=len(rnd.moves),
        cards_left=tuple(len(h) for h in rnd.hands),
        penalties=penalties,
        points=points,
        chips=chips,
    )
    table = replace(
        table,
        round=replace(rnd, status=RoundStatus.OVER, result=result),
        played=table.played + 1,
        last=result,
        wins=tuple(w + (s == winner) for s, w in enumerate(table.wins)),
        points=tuple(a + b for a, b in zip(table.points, points, strict=True)),
        chips=tuple(a + b for a, b in zip(table.chips, chips, strict=True)),
    )
    event: Event = {
        "type": "round-won",
        "round": rnd.number,
        "dealer": rnd.dealer,
        "winner": winner,
        "pot": pot,
        "cards_left": list(result.cards_left),
        "penalties": shown_penalties(table.options, result),
        "points": list(points),
    }
    table, more = _check_match(table)
    return table, [event, *more]


def abandon_round(table: Table, rnd: Round) -> Round:
    """The round ended by the host: not scored, chips paid go back (the
    referee's choice), no winner; the hands stay hidden."""
    seats = table.seats
    result = RoundResult(
        round=rnd.number,
        dealer=rnd.dealer,
        opener=rnd.opener,
        winner=None,
        pot=0,
        turns=len(rnd.moves),
        cards_left=tuple(len(h) for h in rnd.hands),
        penalties=(0,) * seats,
        points=(0,) * seats,
        chips=(0,) * seats,
    )
    return replace(rnd, status=RoundStatus.OVER, result=result)


def _check_match(table: Table) -> tuple[Table, list[Event]]:
    """End the match when its rule says so (3.5)."""
    match = table.options.match
    count = match.count or 0
    if match.kind == "deals":
        done = table.played >= count
    elif match.kind == "target_wins":
        done = max(table.wins) >= count
    elif match.kind == "target_points":
        done = max(table.points) >= count
    else:
        done = False
    if not done:
        return table, []
    table = replace(table, match_status=MatchStatus.WON, match_winners=match_leaders(table))
    return table, [{"type": "match-won", **match_json(table)}]


def rank_key(table: Table, seat: int) -> tuple[int, int]:
    """A seat's standing, smaller is better: the table's measure first
    (chips, or points: highest for ``winner-scores``, lowest for
    ``losers-score``), then round wins."""
    o = table.options
    if o.measure == "chips":
        first = -table.chips[seat]
    elif o.points == "losers-score":
        first = table.points[seat]
    else:
        first = -table.points[seat]
    return first, -table.wins[seat]


def match_leaders(table: Table) -> tuple[int, ...]:
    """Every seat that ranks first (ties share)."""
    keys = [rank_key(table, s) for s in range(table.seats)]
    best = min(keys)
    return tuple(s for s, k in enumerate(keys) if k == best)


def ranks(table: Table) -> list[int]:
    """Each seat's place (1 = first; tied seats share a place)."""
    keys = [rank_key(table, s) for s in range(table.seats)]
    return [1 + sum(k < mine for k in keys) for mine in keys]


def shown_penalties(options: Options, result: RoundResult) -> list[int] | None:
    """Each seat's penalty as the public may see it: only where the table
    scores it per seat (``losers-score``: it is that seat's points); else
    ``None``. With the counts and the layout, per-seat values name the cards
    left in about one losing hand in five; ``winner-scores`` needs only their
    sum, which is the winner's points."""
    return list(result.penalties) if options.points == "losers-score" else None


def result_json(result: RoundResult | None, options: Options) -> dict[str, Any] | None:
    """The public form of a round's result (no card: counts, and values
    only as :func:`shown_penalties` allows)."""
    if result is None:
        return None
    return {
        "round": result.round,
        "dealer": result.dealer,
        "opener": result.opener,
        "winner": result.winner,
        "abandoned": result.abandoned,
        "pot": result.pot,
        "turns": result.turns,
        "cards_left": list(result.cards_left),
        "penalties": shown_penalties(options, result),
        "points": list(result.points),
        "chips": list(result.chips),
    }


def match_json(table: Table) -> dict[str, Any]:
    """The public form of the match: ``{"status", "winners"}``."""
    return {"status": table.match_status.value, "winners": list(table.match_winners)}
