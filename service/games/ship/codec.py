"""Table states and public events to and from compact JSON, the form kept in Redis.

The codec is exact: ``decode(encode(t)) == t`` for every table and
``decode_event(encode_event(e)) == e`` for every event (tests check both on
random games). Keys are short because every byte is kept per table.

``fmt`` numbers the state's layout; :func:`decode` reads every layout still
stored (tables live ``TABLE_TTL_SECONDS``, across deploys). A field added later
gets a default in the state classes (or a migration here).

- fmt 1: ``o`` holds every option.
- fmt 2: ``o`` holds only the options that differ from the preset ``var``
  (usually ``{}``), so a preset's values are part of this format: changing a
  preset's option needs a new ``fmt`` that keeps reading the old values. A
  list of cards is one string of two-character codes (``"AS7H"``), not a
  JSON array (the first-dealer draw, which may hold ``null``, stays a list);
  a resolved exchange's passes are one string too (``"AS|7H|-|2C"``).
- fmt 3: a round no longer keeps every resolved exchange's passes (``p``),
  which grew with the round: it keeps their count ``xr``, the last one's
  passes ``lp`` and each seat's cards last given ``gv`` and last received
  ``rc`` (all four absent before the first exchange resolves; ``gv`` and
  ``rc`` also when the last exchange alone says them, as under
  simultaneous passing); the table's history (in the store) keeps the rest. A round read
  from fmt 1 or 2 gets these from its ``p``, which it keeps (written as
  ``p`` again) until the next deal, so that a repeat of any of its passes is
  still answered alike.
- fmt 4: the table no longer keeps every finished round's result (``res``),
  which grew with the match: it keeps their count ``pl``, the last one
  ``last`` and, once a round was won, ``fx``: the fewest exchanges a round
  was won in, then the seats that won one that fast (the fastest-win
  point); the table's list of rounds (in the store) keeps the results, each
  as :func:`encode_result` writes it. A table read from fmt 1 to 3 gets
  these from its ``res``, which it keeps (as ``legacy``, not written again)
  to list them until it is written again (see :func:`rounds_of`).

An event is kept as ``[code, at_ms, member values...]`` with the code and the
member order of :data:`EVENT_LAYOUTS` (``seq`` is not kept: it follows from the
event's place in the log). An event whose type or members are not in the table
is kept as its whole JSON object, and so is every event written before this
layout, which :func:`decode_event` also reads.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from ..errors import StoredFormatNewer
from .options import PRESETS, Match, Options
from .passing import last_moves, transfers
from .scoring import faster, result_dict
from .state import (
    Claim,
    Exchange,
    MatchStatus,
    Round,
    RoundResult,
    RoundStatus,
    Table,
)

FORMAT = 4
"""The layout :func:`encode` writes; :func:`decode` also reads 1 to 3."""

_RESULT = ("round", "dealer", "exchanges", "winners", "settled_by", "hands", "chips", "set_aside")
_RESULT_1 = _RESULT[:-1]
_MATCH = ("status", "winners", "fastest_win")
EVENT_LAYOUTS: dict[str, tuple[int, tuple[str, ...]]] = {
    "table-created": (0, ("variant", "seats")),
    "first-dealer-drawn": (1, ("draw",)),
    "round-dealt": (2, ("round", "dealer", "direction", "submitted")),
    "pass-chosen": (3, ("round", "exchange", "seat")),
    "exchange-resolved": (4, ("round", "exchange")),
    "claim-accepted": (5, ("round", "seat", "hand")),
    "claim-rejected": (6, ("round", "seat")),
    "round-won": (13, _RESULT),
    "round-void": (14, _RESULT),
    "round-abandoned": (9, ("round",)),
    "match-won": (10, _MATCH),
    "match-finished": (11, _MATCH),
    "match-abandoned": (12, _MATCH),
}
"""Per event type: its code in the log and its members in the order kept.
Codes are stored: never reuse or renumber one; add new types at the end."""

LEGACY_EVENT_CODES: dict[int, tuple[str, tuple[str, ...]]] = {
    7: ("round-won", _RESULT_1),
    8: ("round-void", _RESULT_1),
}
"""Codes no longer written but still read: results before ``set_aside`` (RULES.md 2.11)."""


def _to(cards: tuple[str, ...] | None) -> str | None:
    """Cards (two characters each) as one string: ``"AS7H"``; ``None`` stays."""
    return None if cards is None else "".join(cards)


def _from(value: str | list[str]) -> tuple[str, ...]:
    """Cards kept as one string (fmt 2) or as a list (fmt 1)."""
    if isinstance(value, str):
        return tuple(value[i : i + 2] for i in range(0, len(value), 2))
    return tuple(value)


def _cards(value: Any) -> tuple[str, ...] | None:
    return None if value is None else _from(value)


def _choices_to(choices: tuple[tuple[str, ...] | None, ...]) -> str:
    """One resolved exchange's passes by seat as one string: ``"AS|7H|-|2C"``
    (``-``: the seat did not pass). A long round keeps one per exchange."""
    return "|".join("-" if c is None else "".join(c) for c in choices)


def _choices_from(value: str | list[Any]) -> tuple[tuple[str, ...] | None, ...]:
    """The passes kept by :func:`_choices_to`, or as a list (fmt 1)."""
    if isinstance(value, str):
        return tuple(None if c == "-" else _from(c) for c in value.split("|"))
    return tuple(_cards(c) for c in value)


def _result_to(r: RoundResult) -> list[Any]:
    return [
        r.round,
        r.dealer,
        r.exchanges,
        list(r.winners),
        [[s, _to(h)] for s, h in r.hands],
        r.settled_by,
        *([list(r.chips)] if r.chips or r.set_aside else []),
        *([_to(r.set_aside)] if r.set_aside else []),
    ]


def _result_from(v: list[Any]) -> RoundResult:
    hands = tuple((s, _from(h)) for s, h in v[4])
    chips = tuple(v[6]) if len(v) > 6 else ()
    set_aside = _from(v[7]) if len(v) > 7 else ()
    return RoundResult(v[0], v[1], v[2], tuple(v[3]), hands, v[5], chips, set_aside)


def _last_moves_of(
    resolution: str, direction: str, choices: tuple[tuple[str, ...] | None, ...]
) -> tuple[tuple[tuple[str, ...] | None, ...], tuple[tuple[str, ...] | None, ...]]:
    """Each seat's cards given and received in the exchange of ``choices`` alone."""
    nobody = (None,) * len(choices)
    return last_moves(transfers(resolution, choices, direction), nobody, nobody)


def _round_to(r: Round) -> dict[str, Any]:
    x = r.exchange
    data = {
        "n": r.number,
        "d": r.dealer,
        "dir": r.direction,
        "h": [_to(h) for h in r.hands],
        "sa": _to(r.set_aside),
        "x": [x.number, list(x.choosers), [_to(c) for c in x.choices], x.resolution],
        "st": r.status.value,
        "c": [[c.seat, c.at_ms, _to(c.hand)] for c in r.claims],
        "w": r.window_closes_at_ms,
        "r": None if r.result is None else _result_to(r.result),
    }
    # Absent before the first exchange resolves: every byte is kept per table.
    if r.exchanges_resolved:
        data["xr"] = r.exchanges_resolved
        data["lp"] = _choices_to(r.last_passes)
        # Under simultaneous passing every seat gives and receives in every
        # exchange: the last one's passes say it all, and only other modes
        # keep what each seat last gave and received.
        if (r.given, r.received) != _last_moves_of(
            r.exchange.resolution, r.direction, r.last_passes
        ):
            data["gv"] = [_to(c) for c in r.given]
            data["rc"] = [_to(c) for c in r.received]
    if r.legacy_passes:
        data["p"] = [_choices_to(e) for e in r.legacy_passes]
    return data


def _round_from(v: dict[str, Any], fmt: int) -> Round:
    x = v["x"]
    exchange = Exchange(x[0], tuple(x[1]), tuple(_cards(c) for c in x[2]), x[3])
    legacy = tuple(_choices_from(e) for e in v.get("p", ()))
    seats = len(v["h"])
    given: tuple[tuple[str, ...] | None, ...] = (None,) * seats
    received = given
    last: tuple[tuple[str, ...] | None, ...] = ()
    if fmt >= 3:
        resolved = v.get("xr", 0)
        if resolved:
            last = _choices_from(v["lp"])
            if "gv" in v:
                given = tuple(_cards(c) for c in v["gv"])
                received = tuple(_cards(c) for c in v["rc"])
            else:
                given, received = _last_moves_of(x[3], v["dir"], last)
    else:  # fmt 1 and 2 kept every resolved exchange's passes
        resolved, last = len(legacy), (legacy[-1] if legacy else ())
        for choices in legacy:
            moves = transfers(exchange.resolution, choices, v["dir"])
            given, received = last_moves(moves, given, received)
    return Round(
        number=v["n"],
        dealer=v["d"],
        direction=v["dir"],
        hands=tuple(_from(h) for h in v["h"]),
        set_aside=_from(v["sa"]),
        exchange=exchange,
        status=RoundStatus(v["st"]),
        claims=tuple(Claim(c[0], c[1], _from(c[2])) for c in v["c"]),
        window_closes_at_ms=v["w"],
        result=None if v["r"] is None else _result_from(v["r"]),
        exchanges_resolved=resolved,
        last_passes=last,
        given=given,
        received=received,
        legacy_passes=legacy,
    )


@functools.lru_cache(maxsize=64)
def _preset_json(variant: str) -> dict[str, Any]:
    """A preset's options as JSON (read only)."""
    return PRESETS[variant].options.to_json()


@functools.lru_cache(maxsize=1024)
def _options_json(variant: str, options: Options) -> dict[str, Any]:
    """The options that differ from ``variant``'s preset (a table's options
    never change: made once, read only)."""
    preset = _preset_json(variant)
    return {k: v for k, v in options.to_json().items() if preset[k] != v}


def _options_from(data: dict[str, Any]) -> Options:
    """The options stored in ``data``: every one (fmt 1), or those that differ
    from the preset (fmt 2)."""
    o = dict(data["o"]) if data["fmt"] == 1 else {**_preset_json(data["var"]), **data["o"]}
    ((kind, count),) = o.pop("match").items()
    return Options(**o, match=Match(kind, None if kind == "open" else count))


def encode(table: Table) -> str:
    """The table as compact JSON text."""
    data = {
        "fmt": FORMAT,
        "var": table.variant,
        "o": _options_json(table.variant, table.options),
        "names": list(table.names),
        "fd": table.first_dealer,
        "draw": [list(p) for p in table.draw],
        "wins": list(table.wins),
        "pl": table.played,
        "last": None if table.last is None else _result_to(table.last),
        "rnd": None if table.round is None else _round_to(table.round),
        "ms": table.match_status.value,
        "mw": list(table.match_winners),
    }
    # Absent when unused, which also keeps tables stored before them readable.
    if any(table.chips):
        data["chips"] = list(table.chips)
    if table.fastest_win:
        data["fw"] = list(table.fastest_win)
    if table.fewest is not None:
        data["fx"] = [table.fewest, *table.fewest_by]
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def decode(text: str | bytes) -> Table:
    """The table encoded by :func:`encode` (this format or an earlier one).

    Tables are immutable, so one text decodes once per process while it is
    among the last :data:`DECODED_KEPT` decoded (a table's views between two
    moves read the same state)."""
    return _decode(text.encode() if isinstance(text, str) else text)


DECODED_KEPT = 256
"""Decoded states kept per process (a few KB each; a table's clients re-read
its view after every move, so a state is often read several times at once)."""


@functools.lru_cache(maxsize=DECODED_KEPT)
def _decode(text: bytes) -> Table:
    data = json.loads(text)
    if data.get("fmt") not in (1, 2, 3, FORMAT):
        fmt = data.get("fmt")
        if isinstance(fmt, int) and fmt > FORMAT:  # a newer release wrote it
            raise StoredFormatNewer("state", fmt, FORMAT)
        raise ValueError(f"unknown state format {fmt!r}; this service reads 1..{FORMAT}")
    legacy: tuple[RoundResult, ...] = ()
    fewest: int | None = None
    fewest_by: tuple[int, ...] = ()
    if data["fmt"] < 4:  # every result was kept in the state
        legacy = tuple(_result_from(r) for r in data["res"])
        played, last = len(legacy), (legacy[-1] if legacy else None)
        for r in legacy:
            fewest, fewest_by = faster(fewest, fewest_by, r)
    else:
        played = data["pl"]
        last = None if data["last"] is None else _result_from(data["last"])
        if "fx" in data:
            fewest, fewest_by = data["fx"][0], tuple(data["fx"][1:])
    return Table(
        variant=data["var"],
        options=_options_from(data),
        names=tuple(data["names"]),
        first_dealer=data["fd"],
        draw=tuple(tuple(p) for p in data["draw"]),
        wins=tuple(data["wins"]),
        played=played,
        last=last,
        round=None if data["rnd"] is None else _round_from(data["rnd"], data["fmt"]),
        match_status=MatchStatus(data["ms"]),
        match_winners=tuple(data["mw"]),
        chips=tuple(data.get("chips") or [0] * len(data["names"])),
        fastest_win=tuple(data.get("fw", ())),
        fewest=fewest,
        fewest_by=fewest_by,
        legacy=legacy,
    )


def encode_result(result: RoundResult) -> str:
    """A round's result as kept in the table's list of rounds (compact JSON)."""
    return json.dumps(_result_to(result), separators=(",", ":"))


def rounds_of(table: Table) -> tuple[int, tuple[str, ...]]:
    """``Game.rounds_of``: how many rounds the table's list holds (every
    finished round, won or void; a round the host cancelled is not one)
    and the texts of the newest of them that the state holds, oldest
    first: the last one, after every result of a table stored by fmt 1 to 3."""
    held = list(table.legacy)
    if table.last is not None and (not held or held[-1].round < table.last.round):
        held.append(table.last)
    return table.played, tuple(encode_result(r) for r in held)


def round_result(table: Table, text: str | bytes) -> dict[str, Any]:
    """``Game.round_result``: the public form of a listed round's result."""
    return result_dict(_result_from(json.loads(text)))


def encode_event(event: dict[str, Any]) -> str:
    """A public event as compact JSON text (see :func:`service.games.codec.encode_event`)."""
    from .. import codec

    return codec.encode_event(event)


def decode_event(text: str | bytes) -> dict[str, Any]:
    """The event encoded by :func:`encode_event` (see :mod:`service.games.codec`)."""
    from .. import codec

    return codec.decode_event(text)
