"""Sevens table states to and from compact JSON, the form kept in Redis.

The text starts with ``{"g":"sevens",`` so that the shared codec
(:mod:`service.games.codec`) finds this game; ``fmt`` numbers the layout.
Exact: ``decode(encode(t)) == t`` for every table (tests check it on random
matches). Keys are short because every byte is kept per table.

- fmt 1: ``o`` holds the options that differ from the preset ``var`` (a
  preset's values are part of the format: changing one needs a new ``fmt``);
  a hand is one string of two-character codes (``"AS7H7H"``); a row is
  suit, lowest rank and size in hex (``"S63"``: 6S..8S); the moves are one
  string, comma-separated (see :data:`~.state.Move`); ``res`` lists every
  scored round's result. Still read (its results become ``legacy``).
- fmt 2: as fmt 1, but ``res`` is gone: ``pl`` counts the scored rounds and
  ``last`` is the newest one's result (the state no longer grows with the
  match; the results are kept in the table's list of rounds, each as
  :func:`encode_result` writes it, see :func:`rounds_of`).

Events are kept as ``[code, at_ms, values...]`` with the codes of
:data:`EVENT_LAYOUTS` (codes 100..199 for Sevens; ``table-created``,
``first-dealer-drawn`` and ``round-abandoned`` share My Ship Sails' layouts).
"""

from __future__ import annotations

import functools
import json
from typing import Any

from ..cards import RANK_INDEX, RANKS, split_codes
from ..errors import StoredFormatNewer
from .options import PRESETS, Match, Options
from .scoring import result_json
from .state import MatchStatus, Round, RoundResult, RoundStatus, Row, Table

FORMAT = 2
READ = (1, 2)
"""The formats :func:`decode` reads."""

_MATCH = ("status", "winners")
EVENT_LAYOUTS: dict[str, tuple[int, tuple[str, ...]]] = {
    # The same type, members and code as My Ship Sails': one shared layout.
    "table-created": (0, ("variant", "seats")),
    "first-dealer-drawn": (1, ("draw",)),
    "round-abandoned": (9, ("round",)),
    # Sevens' own, 100..199. Codes are stored: never reuse or renumber one.
    "round-dealt": (100, ("round", "dealer", "submitted", "opening_suit", "opener")),
    "card-played": (101, ("round", "turn", "seat", "card", "last_card")),
    # 102 was "passed" with "voluntary", which told every reader whether the
    # passer held a playable card: read (see LEGACY_EVENT_CODES), never written.
    "passed": (108, ("round", "turn", "seat", "chips")),
    "last-card-missed": (103, ("round", "turn", "seat", "chips")),
    "round-won": (
        104,
        ("round", "dealer", "winner", "pot", "cards_left", "penalties", "points"),
    ),
    "match-won": (105, _MATCH),
    "match-finished": (106, _MATCH),
    "match-abandoned": (107, _MATCH),
}
"""Per event type: its code in the log and its members in the order kept."""

LEGACY_EVENT_CODES: dict[int, tuple[str, tuple[str, ...]]] = {
    # A member named with a leading "_" is read and dropped (see the shared codec).
    102: ("passed", ("round", "turn", "seat", "chips", "_voluntary")),
}
"""Codes this game no longer writes but still reads (events kept before)."""


def _row_to(row: Row) -> str:
    return f"{row.suit}{RANKS[row.low]}{row.size:x}"


def _row_from(text: str) -> Row:
    return Row(text[0], RANK_INDEX[text[1]], int(text[2:], 16))


def _result_to(r: RoundResult) -> list[Any]:
    return [
        r.round,
        r.dealer,
        r.opener,
        r.winner,
        r.pot,
        r.turns,
        list(r.cards_left),
        list(r.penalties),
        list(r.points),
        list(r.chips),
    ]


def _result_from(v: list[Any]) -> RoundResult:
    return RoundResult(
        v[0], v[1], v[2], v[3], v[4], v[5], tuple(v[6]), tuple(v[7]), tuple(v[8]), tuple(v[9])
    )


def _round_to(r: Round) -> dict[str, Any]:
    return {
        "n": r.number,
        "d": r.dealer,
        "os": r.opening_suit,
        "op": r.opener,
        "h": ["".join(h) for h in r.hands],
        "l": [_row_to(row) for row in r.layout],
        "m": ",".join(r.moves),
        "pd": list(r.paid),
        "v": list(r.voluntary),
        "sub": r.submitted,
        "st": r.status.value,
        "r": None if r.result is None else _result_to(r.result),
    }


def _round_from(v: dict[str, Any]) -> Round:
    return Round(
        number=v["n"],
        dealer=v["d"],
        opening_suit=v["os"],
        opener=v["op"],
        hands=tuple(split_codes(h) for h in v["h"]),
        layout=tuple(_row_from(row) for row in v["l"]),
        moves=tuple(v["m"].split(",")) if v["m"] else (),
        paid=tuple(v["pd"]),
        voluntary=tuple(v["v"]),
        submitted=v["sub"],
        status=RoundStatus(v["st"]),
        result=None if v["r"] is None else _result_from(v["r"]),
    )


@functools.lru_cache(maxsize=64)
def _preset_json(variant: str) -> dict[str, Any]:
    """A preset's options as JSON (read only)."""
    return PRESETS[variant].options.to_json()


@functools.lru_cache(maxsize=1024)
def _options_json(variant: str, options: Options) -> dict[str, Any]:
    """The options that differ from the preset's (made once, read only)."""
    preset = _preset_json(variant)
    return {k: v for k, v in options.to_json().items() if preset[k] != v}


def _options_from(variant: str, stored: dict[str, Any]) -> Options:
    o = {**_preset_json(variant), **stored}
    ((kind, count),) = o.pop("match").items()
    return Options(**o, match=Match(kind, None if kind == "open" else count))


def encode(table: Table) -> str:
    """The table as compact JSON text, starting ``{"g":"sevens",``."""
    data = {
        "g": "sevens",
        "fmt": FORMAT,
        "var": table.variant,
        "o": _options_json(table.variant, table.options),
        "names": list(table.names),
        "fd": table.first_dealer,
        "draw": [list(p) for p in table.draw],
        "wins": list(table.wins),
        "pts": list(table.points),
        "chips": list(table.chips),
        "pl": table.played,
        "last": None if table.last is None else _result_to(table.last),
        "rnd": None if table.round is None else _round_to(table.round),
        "ms": table.match_status.value,
        "mw": list(table.match_winners),
    }
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def decode(text: str | bytes) -> Table:
    """The table :func:`encode` wrote (decoded once per text while among the
    last :data:`DECODED_KEPT`: tables are immutable)."""
    return _decode(text.encode() if isinstance(text, str) else text)


DECODED_KEPT = 256


@functools.lru_cache(maxsize=DECODED_KEPT)
def _decode(text: bytes) -> Table:
    data = json.loads(text)
    fmt = data.get("fmt")
    if data.get("g") == "sevens" and isinstance(fmt, int) and fmt > FORMAT:
        raise StoredFormatNewer("state", fmt, FORMAT)  # a newer release wrote it
    if data.get("g") != "sevens" or fmt not in READ:
        raise ValueError(
            f"not a Sevens state of format {READ}: {data.get('g')!r} {data.get('fmt')!r}"
        )
    if data["fmt"] == 1:
        legacy = tuple(_result_from(r) for r in data["res"])
        played, last = len(legacy), legacy[-1] if legacy else None
    else:
        legacy, played = (), data["pl"]
        last = None if data["last"] is None else _result_from(data["last"])
    return Table(
        variant=data["var"],
        options=_options_from(data["var"], data["o"]),
        names=tuple(data["names"]),
        first_dealer=data["fd"],
        draw=tuple(tuple(p) for p in data["draw"]),
        wins=tuple(data["wins"]),
        points=tuple(data["pts"]),
        chips=tuple(data["chips"]),
        played=played,
        last=last,
        round=None if data["rnd"] is None else _round_from(data["rnd"]),
        match_status=MatchStatus(data["ms"]),
        match_winners=tuple(data["mw"]),
        legacy=legacy,
    )


def encode_result(result: RoundResult) -> str:
    """A round's result as kept in the table's list of rounds (compact JSON)."""
    return json.dumps(_result_to(result), separators=(",", ":"))


def listed(table: Table) -> tuple[RoundResult, ...]:
    """The newest results of ``table``'s list of rounds that its state
    holds, oldest first: the last scored one, then the round the host
    abandoned (listed too, not scored); every result of a table stored by
    fmt 1 before them."""
    found = list(table.legacy)
    if table.last is not None and (not found or found[-1].round < table.last.round):
        found.append(table.last)
    rnd = table.round
    if rnd is not None and rnd.result is not None and rnd.result.abandoned:
        found.append(rnd.result)
    return tuple(found)


def rounds_of(table: Table) -> tuple[int, tuple[str, ...]]:
    """``Game.rounds_of``: how many rounds the table's list holds (the scored
    ones, and the abandoned one) and the texts of the newest of them that
    the state holds (see :func:`listed`), oldest first."""
    held = listed(table)
    count = table.played + (1 if held and held[-1].abandoned else 0)
    return count, tuple(encode_result(r) for r in held)


def round_result(table: Table, text: str | bytes) -> dict[str, Any]:
    """``Game.round_result``: the public form of a listed round's result (as
    the table's view shows its ``last_result``)."""
    result = result_json(_result_from(json.loads(text)), table.options)
    assert result is not None
    return result
