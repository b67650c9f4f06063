"""Table states to and from compact JSON, the form kept in Redis.

The codec is exact: ``decode(encode(t)) == t`` for every table (a test checks
it on random games). Keys are short because every byte is kept per table.
``fmt`` numbers the layout: a field added later gets a default in the state
classes (or a migration here) so that tables stored before it still decode.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from ..rules.options import Match, Options
from ..rules.state import (
    Claim,
    Exchange,
    MatchStatus,
    Round,
    RoundResult,
    RoundStatus,
    Table,
)

FORMAT = 1
"""The layout :func:`encode` writes."""


def _cards(value: Any) -> tuple[str, ...] | None:
    return None if value is None else tuple(value)


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


def _result_from(v: list[Any]) -> RoundResult:
    hands = tuple((s, tuple(h)) for s, h in v[4])
    chips = tuple(v[6]) if len(v) > 6 else ()
    return RoundResult(v[0], v[1], v[2], tuple(v[3]), hands, v[5], chips)


def _round_to(r: Round) -> dict[str, Any]:
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
        "p": [[None if c is None else list(c) for c in e] for e in r.passes],
        "st": r.status.value,
        "c": [[c.seat, c.at_ms, list(c.hand)] for c in r.claims],
        "w": r.window_closes_at_ms,
        "r": None if r.result is None else _result_to(r.result),
    }


def _round_from(v: dict[str, Any]) -> Round:
    x = v["x"]
    return Round(
        number=v["n"],
        dealer=v["d"],
        direction=v["dir"],
        hands=tuple(tuple(h) for h in v["h"]),
        set_aside=tuple(v["sa"]),
        exchange=Exchange(x[0], tuple(x[1]), tuple(_cards(c) for c in x[2]), x[3]),
        passes=tuple(tuple(_cards(c) for c in e) for e in v["p"]),
        status=RoundStatus(v["st"]),
        claims=tuple(Claim(c[0], c[1], tuple(c[2])) for c in v["c"]),
        window_closes_at_ms=v["w"],
        result=None if v["r"] is None else _result_from(v["r"]),
    )


@functools.lru_cache(maxsize=1024)
def _options_json(options: Options) -> dict[str, Any]:
    """A table's options never change: their JSON is made once (read only)."""
    return options.to_json()


def encode(table: Table) -> str:
    """The table as compact JSON text."""
    options = _options_json(table.options)
    data = {
        "fmt": FORMAT,
        "var": table.variant,
        "o": options,
        "names": list(table.names),
        "fd": table.first_dealer,
        "draw": [list(p) for p in table.draw],
        "wins": list(table.wins),
        "res": [_result_to(r) for r in table.results],
        "rnd": None if table.round is None else _round_to(table.round),
        "ms": table.match_status.value,
        "mw": list(table.match_winners),
    }
    # Absent when unused, which also keeps tables stored before them readable.
    if any(table.chips):
        data["chips"] = list(table.chips)
    if table.fastest_win:
        data["fw"] = list(table.fastest_win)
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def decode(text: str | bytes) -> Table:
    """The table encoded by :func:`encode`."""
    data = json.loads(text)
    if data.get("fmt") != FORMAT:
        raise ValueError(f"unknown state format {data.get('fmt')!r}; this service reads {FORMAT}")
    o = dict(data["o"])
    ((kind, count),) = o.pop("match").items()
    options = Options(**o, match=Match(kind, None if kind == "open" else count))
    return Table(
        variant=data["var"],
        options=options,
        names=tuple(data["names"]),
        first_dealer=data["fd"],
        draw=tuple(tuple(p) for p in data["draw"]),
        wins=tuple(data["wins"]),
        results=tuple(_result_from(r) for r in data["res"]),
        round=None if data["rnd"] is None else _round_from(data["rnd"]),
        match_status=MatchStatus(data["ms"]),
        match_winners=tuple(data["mw"]),
        chips=tuple(data.get("chips") or [0] * len(data["names"])),
        fastest_win=tuple(data.get("fw", ())),
    )
