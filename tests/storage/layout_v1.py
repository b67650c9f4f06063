"""The storage layout before fmt 2, frozen: how tables, auth records and
events were written then, so that tests can check they are still read (a
table lives ``TABLE_TTL_SECONDS`` in Redis, across deploys)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from service.games.ship.state import Round, RoundResult, Table


def _result_to(r: RoundResult) -> list[Any]:
    return [
        r.round,
        r.dealer,
        r.exchanges,
        list(r.winners),
        [[s, list(h)] for s, h in r.hands],
        r.settled_by,
        *([list(r.chips)] if r.chips else []),
    ]


def _round_to(r: Round, passes: Any) -> dict[str, Any]:
    x = r.exchange
    return {
        "n": r.number,
        "d": r.dealer,
        "dir": r.direction,
        "h": [list(h) for h in r.hands],
        "sa": list(r.set_aside),
        "x": [
            x.number,
            list(x.choosers),
            [None if c is None else list(c) for c in x.choices],
            x.resolution,
        ],
        "p": [[None if c is None else list(c) for c in e] for e in passes],
        "st": r.status.value,
        "c": [[c.seat, c.at_ms, list(c.hand)] for c in r.claims],
        "w": r.window_closes_at_ms,
        "r": None if r.result is None else _result_to(r.result),
    }


def encode(table: Table, passes: Any = (), results: Any = None) -> str:
    """A state as fmt 1 wrote it: every option, cards as JSON arrays, and
    ``passes``, every resolved exchange's choices of the round (a state of
    today keeps only the last; the caller collects them), and ``results``,
    every finished round's result (today's keeps only the last: the caller
    collects them; default the last alone)."""
    if results is None:
        results = () if table.last is None else (table.last,)
    data = {
        "fmt": 1,
        "var": table.variant,
        "o": table.options.to_json(),
        "names": list(table.names),
        "fd": table.first_dealer,
        "draw": [list(p) for p in table.draw],
        "wins": list(table.wins),
        "res": [_result_to(r) for r in results],
        "rnd": None if table.round is None else _round_to(table.round, passes),
        "ms": table.match_status.value,
        "mw": list(table.match_winners),
    }
    if any(table.chips):
        data["chips"] = list(table.chips)
    if table.fastest_win:
        data["fw"] = list(table.fastest_win)
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def auth_record(host_token: str, seat_tokens: list[str]) -> str:
    """An auth record with hex SHA-256 digests."""
    digest = lambda t: hashlib.sha256(t.encode()).hexdigest()  # noqa: E731
    record = {"h": digest(host_token), "s": [digest(t) for t in seat_tokens]}
    return json.dumps(record, separators=(",", ":"))


def event(seq: int, at_ms: int, body: dict[str, Any]) -> str:
    """A list element as written then: the whole event, with its seq."""
    return json.dumps({"seq": seq, "at_ms": at_ms, **body}, separators=(",", ":"))
