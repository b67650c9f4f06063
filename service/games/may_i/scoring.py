"""A round's and a match's public results (RULES.md 4.8): below the engine and
the codec, which both answer with them."""

from __future__ import annotations

from typing import Any

from .state import RoundResult, Table


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
