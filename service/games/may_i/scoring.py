"""The endings (RULES.md 4.7, 4.8): a seat going out, the final turns, a
blocked round, a round's and a match's scores and their public results
(below the engine and the codec, which both answer with them)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..base import (
    leaders,
)
from .melds import (
    Meld,
    fits,
    hand_value,
)
from .options import ROUNDS
from .state import MatchStatus, Round, RoundResult, Step, Table


def result_json(r: RoundResult) -> dict[str, Any]:
    return {
        "round": r.round,
        "dealer": r.dealer,
        "out": r.out,
        "cards_left": list(r.cards_left),
        "penalties": list(r.penalties),
        "points": list(r.points),
    }


def match_json(table: Table) -> dict[str, Any]:
    return {"status": table.match_status.value, "winners": list(table.match_winners)}


Event = dict[str, Any]


OUT_BONUS = 20


def end_round(table: Table, out: int | None, abandoned: bool = False) -> tuple[Table, list[Event]]:
    """Score the round (4.8): +20 for the seat that went out, minus the
    value of its cards for every other; the match ends after round 5."""
    rnd = table.round
    assert rnd is not None
    penalties = tuple(hand_value(h) for h in rnd.hands)
    if rnd.offer is not None:  # kept, so that a repeat of its request still answers
        rnd = replace(rnd, closed=(*rnd.closed, replace(rnd.offer, marks=())))
    if abandoned:
        points = (0,) * table.seats
    else:
        points = tuple(OUT_BONUS if s == out else -p for s, p in enumerate(penalties))
    result = RoundResult(
        round=rnd.number,
        dealer=rnd.dealer,
        out=out,
        cards_left=tuple(len(h) for h in rnd.hands),
        penalties=penalties,
        points=points,
        abandoned=abandoned,
    )
    # The seat that went out, whichever the ending (``immediate`` ends here).
    rnd = replace(
        rnd,
        step=Step.OVER,
        offer=None,
        final=(),
        result=result,
        out=rnd.out if out is None else out,
    )
    totals = tuple(a + b for a, b in zip(table.points, points, strict=True))
    if not abandoned:
        table = replace(table, played=table.played + 1, last=result)
    table = replace(table, round=rnd, points=totals)
    events: list[Event] = []
    if not abandoned:
        events.append({"type": "round-over", **result_json(result)})
    if not abandoned and table.played >= ROUNDS:
        table = replace(table, match_status=MatchStatus.WON, match_winners=leaders(totals))
        events.append({"type": "match-won", **match_json(table)})
    return table, events


def blocked(rnd: Round) -> bool:
    """Whether nobody can ever go out (the referee's choice, RULES.md 4.7
    is silent): every seat has laid down, so no new meld can come, and no
    card outside the melds (hands, stock, discards) fits one, so no card
    can ever be laid off; then a hand never shrinks (a turn draws one card
    and discards one) and reshuffles would go on for ever."""
    if not all(rnd.down) or not rnd.melds:
        return False
    loose = set(rnd.stock) | set(rnd.pile) | {c for h in rnd.hands for c in h}
    return not any(fits(m, c) for c in loose for m in rnd.melds)


def can_place(hand: Sequence[str], melds: Sequence[Meld]) -> bool:
    """Whether any card of ``hand`` fits any meld."""
    return any(fits(m, c) for c in set(hand) for m in melds)


def _went_out(table: Table, rnd: Round, seat: int) -> tuple[Table, list[Event]]:
    """``seat`` emptied its hand: +20, and the round ends by ``ending``."""
    events: list[Event] = [{"type": "went-out", "round": rnd.number, "seat": seat}]
    seats = table.seats
    ending = table.options.ending
    if ending == "immediate":
        table, more = end_round(replace(table, round=rnd), seat)
        return table, events + more
    after = [(seat + i) % seats for i in range(1, seats)]
    if ending == "lay-off-round":
        after = after[: after.index(rnd.dealer) + 1] if rnd.dealer in after else []
    rnd = replace(rnd, out=seat, final=tuple(after), step=Step.FINAL, offer=None)
    table, more = _next_final(table, rnd, first=True)
    return table, events + more


def _next_final(table: Table, rnd: Round, first: bool = False) -> tuple[Table, list[Event]]:
    """The next seat to lay off after a seat went out, skipping those that
    can place no card; the round ends when none is left."""
    events: list[Event] = []
    final = list(rnd.final)
    if not first and final:
        final.pop(0)
    while final and not can_place(rnd.hands[final[0]], rnd.melds):
        events.append({"type": "lay-off-done", "round": rnd.number, "seat": final[0], "auto": True})
        final.pop(0)
    if not final:
        table, more = end_round(replace(table, round=replace(rnd, final=())), rnd.out)
        return table, events + more
    rnd = replace(rnd, final=tuple(final), on_turn=final[0], step=Step.FINAL)
    return replace(table, round=rnd), events
