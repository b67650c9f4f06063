"""May I? table states to and from compact JSON, the form kept in Redis.

The text starts with ``{"g":"may-i",``; ``fmt`` numbers the layout. Exact:
``decode(encode(t)) == t`` (the property tests check it). Events are kept
as ``[code, at_ms, values...]`` with codes 200..299 (``table-created``,
``first-dealer-drawn`` and ``round-abandoned`` share My Ship Sails').
"""

from __future__ import annotations

import json
from typing import Any

from .engine import result_json
from .melds import Meld
from .options import Options
from .state import MatchStatus, Offer, Round, RoundResult, Step, Table

FORMAT = 2
READ = (1, 2)
"""The formats :func:`decode` reads: fmt 1 kept every scored round's result
(``res``); fmt 2 keeps their count ``pl`` and the last one ``last`` (the
results go to the table's list of rounds, see :func:`rounds_of`)."""
NAME = "may-i"

_MATCH = ("status", "winners")
EVENT_LAYOUTS: dict[str, tuple[int, tuple[str, ...]]] = {
    "table-created": (0, ("variant", "seats")),
    "first-dealer-drawn": (1, ("draw",)),
    "round-abandoned": (9, ("round",)),
    # May I?'s own, 200..299. Codes are stored: never reuse or renumber one.
    "round-dealt": (200, ("round", "dealer", "submitted", "contract", "discard", "stock")),
    "discard-taken": (201, ("round", "move", "seat", "card")),
    "discard-declined": (202, ("round", "move", "seat", "card")),
    "stock-drawn": (203, ("round", "move", "seat", "count")),
    "laid-down": (204, ("melds", "round", "move", "seat")),
    "laid-off": (205, ("card", "meld", "end", "round", "move", "seat")),
    "discarded": (206, ("card", "round", "move", "seat")),
    "may-i-offered": (207, ("round", "offer", "card", "until_ms")),
    "may-i-asked": (208, ("round", "offer", "seat", "card")),
    "may-i-answered": (209, ("round", "offer", "seat", "allow")),
    "may-i-given": (210, ("round", "offer", "seat", "card", "stock_cards", "asker")),
    "may-i-lapsed": (211, ("round", "offer")),
    "stock-reshuffled": (212, ("round", "cards")),
    "went-out": (213, ("round", "seat")),
    "lay-off-done": (214, ("round", "seat", "auto")),
    "round-over": (215, ("round", "dealer", "out", "cards_left", "penalties", "points")),
    "round-blocked": (216, ("round",)),
    # The same type, members and code as Sevens': one shared layout.
    "match-won": (105, _MATCH),
    "match-abandoned": (107, _MATCH),
}
"""Per event type: its code in the log and its members in the order kept."""


def _cards(text: str) -> tuple[str, ...]:
    return tuple(text[i : i + 2] for i in range(0, len(text), 2))


def _result_to(r: RoundResult) -> list[Any]:
    return [
        r.round,
        r.dealer,
        r.out,
        list(r.cards_left),
        list(r.penalties),
        list(r.points),
        r.abandoned,
    ]


def _result_from(v: list[Any]) -> RoundResult:
    return RoundResult(v[0], v[1], v[2], tuple(v[3]), tuple(v[4]), tuple(v[5]), v[6])


def _offer_to(o: Offer) -> list[Any]:
    return [
        o.n,
        o.card,
        o.opened_ms,
        o.until_ms,
        o.asker,
        list(o.answers),
        list(o.order),
        o.on_turn,
        *([list(o.marks)] if o.marks else []),
    ]


def _offer_from(v: list[Any]) -> Offer:
    # A state written before ``order`` and ``on_turn`` were kept has six
    # members; ``marks`` (a ninth) only while answers are pending.
    extra = (tuple(v[6]), v[7]) if len(v) > 6 else ()
    marks = (tuple(v[8]),) if len(v) > 8 else ()
    return Offer(v[0], v[1], v[2], v[3], v[4], tuple(v[5]), *extra, *marks)


def _round_to(r: Round) -> dict[str, Any]:
    o = r.offer
    return {
        "n": r.number,
        "d": r.dealer,
        "h": ["".join(h) for h in r.hands],
        "s": "".join(r.stock),
        "p": "".join(r.pile),
        "pb": list(r.pile_by),
        "ml": [[m.id, m.owner, m.kind, "".join(m.cards), m.low, m.rank] for m in r.melds],
        "dn": [int(d) for d in r.down],
        "t": r.on_turn,
        "st": r.step.value,
        "m": list(r.moves),
        "of": None if o is None else _offer_to(o),
        "ofs": r.offers,
        "sd": r.seed,
        "rs": r.reshuffles,
        "out": r.out,
        "fin": list(r.final),
        "sub": r.submitted,
        "r": None if r.result is None else _result_to(r.result),
        "cl": [_offer_to(c) for c in r.closed],
        "af": list(r.after),
    }


def _round_from(v: dict[str, Any]) -> Round:
    o = v["of"]
    return Round(
        number=v["n"],
        dealer=v["d"],
        hands=tuple(_cards(h) for h in v["h"]),
        stock=_cards(v["s"]),
        pile=_cards(v["p"]),
        pile_by=tuple(v["pb"]),
        melds=tuple(Meld(m[0], m[1], m[2], _cards(m[3]), m[4], m[5]) for m in v["ml"]),
        down=tuple(bool(d) for d in v["dn"]),
        on_turn=v["t"],
        step=Step(v["st"]),
        moves=tuple(v["m"]),
        offer=None if o is None else _offer_from(o),
        offers=v["ofs"],
        seed=v["sd"],
        reshuffles=v["rs"],
        out=v["out"],
        final=tuple(v["fin"]),
        submitted=v["sub"],
        result=None if v["r"] is None else _result_from(v["r"]),
        closed=tuple(_offer_from(c) for c in v.get("cl", ())),
        after=tuple(v.get("af", ())),
    )


def encode(table: Table) -> str:
    """The table as compact JSON text, starting ``{"g":"may-i",``."""
    o = table.options
    data = {
        "g": NAME,
        "fmt": FORMAT,
        "var": table.variant,
        "o": [o.decks, o.jokers, o.ending, o.may_i_window_ms],
        "names": list(table.names),
        "fd": table.first_dealer,
        "draw": [list(p) for p in table.draw],
        "pts": list(table.points),
        "pl": table.played,
        "last": None if table.last is None else _result_to(table.last),
        "rnd": None if table.round is None else _round_to(table.round),
        "ms": table.match_status.value,
        "mw": list(table.match_winners),
    }
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def decode(text: str | bytes) -> Table:
    """The table :func:`encode` wrote."""
    data = json.loads(text)
    if data.get("g") != NAME or data.get("fmt") not in READ:
        raise ValueError(f"not a May I? state of format {READ}")
    if data["fmt"] == 1:
        legacy = tuple(_result_from(r) for r in data["res"])
        played, last = len(legacy), legacy[-1] if legacy else None
    else:
        legacy, played = (), data["pl"]
        last = None if data["last"] is None else _result_from(data["last"])
    decks, jokers, ending, window = data["o"]
    return Table(
        variant=data["var"],
        options=Options(decks, jokers, ending, window),
        names=tuple(data["names"]),
        first_dealer=data["fd"],
        draw=tuple(tuple(p) for p in data["draw"]),
        points=tuple(data["pts"]),
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


def rounds_of(table: Table) -> tuple[int, tuple[str, ...]]:
    """``Game.rounds_of``: how many rounds the table's list holds (the scored
    ones; the round the host abandoned is not listed) and the texts of the
    newest that the state holds, oldest first: the last one, after every
    result of a table stored by fmt 1."""
    held = list(table.legacy)
    if table.last is not None and (not held or held[-1].round < table.last.round):
        held.append(table.last)
    return table.played, tuple(encode_result(r) for r in held)


def round_result(table: Table, text: str | bytes) -> dict[str, Any]:
    """``Game.round_result``: the public form of a listed round's result."""
    return result_json(_result_from(json.loads(text)))
