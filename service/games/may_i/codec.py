"""May I? table states to and from compact JSON, the form kept in Redis.

The text starts with ``{"g":"may-i",``; ``fmt`` numbers the layout (2; a
state of format 1, which kept every move, note and closed offer of the
round, is read too: its older moves become :attr:`~.state.Round.legacy`).
Exact: ``decode(encode(t)) == t`` (the property tests check it). Events are kept
as ``[code, at_ms, values...]`` with codes 200..299 (``table-created``,
``first-dealer-drawn`` and ``round-abandoned`` share My Ship Sails').
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

from ..cards import split_codes
from ..errors import StoredFormatNewer
from .melds import Meld
from .options import Options
from .scoring import result_json
from .state import MatchStatus, Offer, Round, RoundResult, Step, Table

FORMAT = 2
LEGACY_KEPT = 100
"""The newest moves of a format-1 round kept as :attr:`~.state.Round.legacy`
(as many as the store's history keeps)."""
READ = (1, 2)
"""The formats :func:`decode` reads: fmt 1 kept every scored round's result
(``res``) and every move of the round in play; fmt 2 keeps their count
``pl`` and the last one ``last`` (the results go to the table's list of
rounds, see :func:`rounds_of`), the round's last move only (the older go to
the table's history), and the round's reshuffle secret ``sc``."""
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


def archived(round_no: int, move_no: int, record: str, note: str, closed: Sequence[Offer]) -> str:
    """A move of a round as the table's history keeps it, with the offers
    that closed after it, in order: ``[round, move, record, note, [offer,
    ...]]`` (see :class:`~.state.Round`)."""
    offers = [_offer_to(o) for o in closed]
    return json.dumps([round_no, move_no, record, note, offers], separators=(",", ":"))


def unarchived(text: str | bytes) -> tuple[int, int, str, str, tuple[Offer, ...]]:
    """The round, move number, record, note and offers of :func:`archived`'s text."""
    round_no, move_no, record, note, offers = json.loads(text)
    return round_no, move_no, record, note, tuple(_offer_from(o) for o in offers)


def _round_to(r: Round) -> dict[str, Any]:
    o = r.offer
    data = {
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
        "m": r.taken,
        "of": None if o is None else _offer_to(o),
        "ofs": r.offers,
        "sc": r.secret.hex(),
        "rs": r.reshuffles,
        "out": r.out,
        "fin": list(r.final),
        "sub": r.submitted,
        "r": None if r.result is None else _result_to(r.result),
        "cl": [_offer_to(c) for c in r.closed],
        "lm": r.last_move,
        "ln": r.last_note,
    }
    if r.legacy:
        data["lg"] = list(r.legacy)
    return data


def _moves_of_format_1(v: dict[str, Any]) -> dict[str, Any]:
    """The last move, its offers and the older moves (as :func:`archived`
    texts, the newest :data:`LEGACY_KEPT`) of a format-1 round, which kept
    every move (``m``), note (``af``) and closed offer (``cl``). An offer
    belongs to the decline that opened its run of offers: the decline's
    note names it (a decline under a window of 0 names none: its offer
    was never asked for, so nothing repeats it)."""
    moves, notes = v["m"], v.get("af", [])
    owner: dict[int, list[Offer]] = {}
    starts: dict[int, int] = {}
    for k, note in enumerate(notes, start=1):
        offer_no = note.split("|")[2]
        if offer_no:
            starts[int(offer_no)] = k
    opener = None
    for offer in sorted((_offer_from(c) for c in v.get("cl", ())), key=lambda o: o.n):
        opener = starts.get(offer.n, opener)
        if opener is not None:
            owner.setdefault(opener, []).append(offer)
    taken = len(moves)

    def note_of(k: int) -> str:
        return notes[k - 1] if k <= len(notes) else ""

    first = max(1, taken - LEGACY_KEPT)
    legacy = tuple(
        archived(v["n"], k, moves[k - 1], note_of(k), owner.get(k, ())) for k in range(first, taken)
    )
    return {
        "taken": taken,
        "last_move": moves[-1] if moves else "",
        "last_note": note_of(taken) if moves else "",
        "closed": tuple(owner.get(taken, ())),
        "legacy": legacy,
    }


def _secret(v: dict[str, Any]) -> bytes:
    """The round's reshuffle secret; a round dealt before secrets had 256
    bits kept a 24-bit ``sd``, read as its 32-byte big-endian value (that
    round's later reshuffles are no stronger than it was)."""
    if "sc" in v:
        return bytes.fromhex(v["sc"])
    return int(v["sd"]).to_bytes(32, "big")


def _round_from(v: dict[str, Any], fmt: int) -> Round:
    o = v["of"]
    if fmt == 1:
        moves = _moves_of_format_1(v)
    else:
        moves = {
            "taken": v["m"],
            "last_move": v["lm"],
            "last_note": v["ln"],
            "closed": tuple(_offer_from(c) for c in v["cl"]),
            "legacy": tuple(v.get("lg", ())),
        }
    return Round(
        number=v["n"],
        dealer=v["d"],
        hands=tuple(split_codes(h) for h in v["h"]),
        stock=split_codes(v["s"]),
        pile=split_codes(v["p"]),
        pile_by=tuple(v["pb"]),
        melds=tuple(Meld(m[0], m[1], m[2], split_codes(m[3]), m[4], m[5]) for m in v["ml"]),
        down=tuple(bool(d) for d in v["dn"]),
        on_turn=v["t"],
        step=Step(v["st"]),
        offer=None if o is None else _offer_from(o),
        offers=v["ofs"],
        secret=_secret(v),
        reshuffles=v["rs"],
        out=v["out"],
        final=tuple(v["fin"]),
        submitted=v["sub"],
        result=None if v["r"] is None else _result_from(v["r"]),
        **moves,
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
    """The table :func:`encode` wrote (this format or format 1), decoded
    once per text while among the last :data:`DECODED_KEPT` (tables are
    immutable; a move's read and its streams' reads share one decode)."""
    return _decode(text.encode() if isinstance(text, str) else text)


DECODED_KEPT = 256
"""Decoded states kept per process (a 7-seat table holds 108 cards)."""


@functools.lru_cache(maxsize=DECODED_KEPT)
def _decode(text: bytes) -> Table:
    data = json.loads(text)
    fmt = data.get("fmt")
    if data.get("g") == NAME and isinstance(fmt, int) and fmt > FORMAT:
        raise StoredFormatNewer("state", fmt, FORMAT)  # a newer release wrote it
    if data.get("g") != NAME or fmt not in READ:
        raise ValueError(f"not a May I? state of format {READ}")
    if fmt == 1:
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
        round=None if data["rnd"] is None else _round_from(data["rnd"], fmt),
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
