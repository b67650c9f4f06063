"""A round's record (RULES.md 5.2): its public form (version 2), the compact
form Redis keeps of it, and the checks of a proof that need the game (the
starting deck, the reshuffles). Pure: no Redis, no clock.

The public form (``GET /v1/tables/{id}/rounds/{n}/record``,
``docs/guide/deal-proofs.md`` says every member) is rendered from the
compact one: what can be derived is not kept. Redis keeps, per round, a
header (the table before the deal, the deal's body, its clock, the secret,
the seeds, the release and the rules' version) and one short text per entry
(:func:`encode_entry`): a JSON array ``[dt, seat, f, kind, values...]``,
``dt`` the entry's clock less that of the last entry that does not commute
(the deal's for the first), ``f`` the author's index in :data:`AUTHORS`
plus :data:`COMMUTES`, ``kind`` the move's name and ``values`` its
arguments in the order of the game's ``record_layouts`` (``round`` is the
record's). A move whose arguments are not its layout's is kept whole
(``kind`` prefixed ``=``, one object). A rebuilt stock is an entry
``reshuffle`` by the referee with its label and the cards as given (the
order follows from the proof). The deal, the proof's shuffles, the
commitment and every link are computed again when the record is shown.

Besides entries, the list may hold ``"G<writes>/<seats>"`` (moves are
missing here: the table was written ``writes`` times, or seats' choices
were made, by a release that keeps no record; ``seats`` comma-separated)
and a last ``"T"`` (the record reached its cap; the rest is not kept).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .drbg import shuffled
from .proof import (
    SHUFFLE_LABEL,
    DealRandom,
    problems_of,
    reshuffle_key,
    shape_problem,
)

RECORD_VERSION = 2
"""The version of a record's public form (``record_version``): 2 chains
every move (RULES.md 5.2); a record without it is version 1."""

PROOF_VERSION = 2
"""The version of a proof (``version``): 2 names its game, variant, round
and options (so that its starting deck is derived) and its reshuffles."""

AUTHORS = ("seat", "default", "bot", "host", "referee")
"""Who made a record's entry (``by``): the seat itself, its default move
when its clock ran out (RULES.md 5.3), its bot (5.4), the host (``finish``),
or the referee (a rebuilt stock)."""

COMMUTES = 8
"""Added to an entry's author index when the entry commutes."""

RESHUFFLE = "reshuffle"
"""The kind of a rebuilt stock's entry."""

RESOLVE = "resolve"
"""The kind of the referee's entry that stores a simultaneous step's
resolution when the step's last choice commuted (it covers the step's
choices in the chain of moves)."""

REFEREE_LAYOUTS: dict[str, tuple[str, ...]] = {RESOLVE: ()}
"""The layouts of the referee's own entries besides rebuilt stocks."""

SEATLESS = ("finish", RESOLVE)
"""The kinds of entries no seat makes."""

GAP = "G"
TRUNCATED = "T"

CHECKS: dict[str, str] = {
    "commitment": "the commitment is the SHA-256 of the secret",
    "starting-deck": "the deal shuffles the starting deck that the game, variant, options "
    "and seat count give",
    "deal-order": "the deck order is that deck shuffled under the secret and the seeds",
    "rebuilt-stock-orders": "each rebuilt stock's order is its pile shuffled under the "
    "reshuffle key and its label, with cards of the starting deck only",
    "rebuilt-stock-piles": "each rebuilt stock shuffles the pile that the record's moves "
    "leave (derived from the deal and the moves, not taken from the proof)",
    "table": "the table before the deal is one the referee makes, and the record's and the "
    "proof's game, variant, round, options, seats and seeds are its",
    "deal": "dealing the order again gives the recorded deal",
    "chain": "every entry's link in the chain of moves, from the commitment",
    "moves": "every move is accepted when run again through the game's rules at its clock",
    "result": "running the moves again rebuilds the recorded stocks and gives the recorded result",
}
"""What a check of a proof or record covers, by name (``checked`` and
``unchecked`` in the answer of ``POST /v1/checks/deal-proof``, the lines of
``referee verify`` and ``replay``), in words."""


# --- the compact form -------------------------------------------------------


def header_text(
    start_state: str,
    deal_request: Mapping[str, Any],
    dealt_at_ms: int,
    secret: str,
    seeds: Sequence[str | None],
    release: str,
    rules_version: int,
) -> str:
    """The header Redis keeps of a round's record (compact JSON)."""
    header = {
        "v": RECORD_VERSION,
        "s": start_state,
        "q": dict(deal_request),
        "t": dealt_at_ms,
        "x": secret,
        "e": list(seeds),
        "r": release,
        "rv": rules_version,
    }
    return json.dumps(header, separators=(",", ":"), ensure_ascii=False)


def parse_header(text: str | bytes) -> dict[str, Any] | None:
    """A header :func:`header_text` wrote, or ``None`` for one of a
    development build before version 2 (never released)."""
    try:
        header = json.loads(text)
    except ValueError:
        return None
    if not isinstance(header, dict) or header.get("v") != RECORD_VERSION:
        return None
    return header


def encode_entry(
    layouts: Mapping[str, tuple[str, ...]], entry: Mapping[str, Any], round_no: int, base_ms: int
) -> str:
    """``entry`` (a record's move or reshuffle without its ``link``) as Redis
    keeps it, ``base_ms`` the clock of the last entry before it that does
    not commute (:func:`decode_entry` gives it back exactly)."""
    kind = str(entry["move"])
    flags = AUTHORS.index(entry["by"]) + (COMMUTES if entry.get("commutes") else 0)
    head: list[Any] = [entry["at_ms"] - base_ms, entry.get("seat"), flags]
    if kind == RESHUFFLE and entry.get("round") == round_no:
        return _json([*head, kind, entry["label"], "".join(entry["deck"])])
    args = {
        k: v
        for k, v in entry.items()
        if k not in ("at_ms", "seat", "by", "move", "commutes", "link", "round")
    }
    layout = layouts.get(kind, REFEREE_LAYOUTS.get(kind))
    if (
        kind != RESHUFFLE
        and layout is not None
        and entry.get("round") == round_no
        and set(args) == set(layout)
        and ("seat" in entry) == (kind not in SEATLESS)
    ):
        return _json([*head, kind, *(args[name] for name in layout)])
    whole = {k: v for k, v in entry.items() if k not in ("at_ms", "seat", "by", "commutes")}
    return _json([*head, "=" + kind, whole])


def decode_entry(
    layouts: Mapping[str, tuple[str, ...]],
    text: str | bytes,
    round_no: int,
    base_ms: int,
    reshuffle: Callable[[str, list[str]], list[str]],
) -> dict[str, Any]:
    """The entry :func:`encode_entry` kept, with ``at_ms`` (``link`` is the
    chain's to add); ``reshuffle(label, deck)`` gives a rebuilt stock's order."""
    data = json.loads(text)
    dt, seat, flags, kind = data[:4]
    entry: dict[str, Any] = {"at_ms": base_ms + dt, "by": AUTHORS[flags % COMMUTES]}
    if seat is not None:
        entry["seat"] = seat
    if flags & COMMUTES:
        entry["commutes"] = True
    if kind.startswith("="):
        entry.update(data[4])
        return entry
    entry["move"] = kind
    entry["round"] = round_no
    if kind == RESHUFFLE:
        label, cards = data[4], data[5]
        deck = [cards[i : i + 2] for i in range(0, len(cards), 2)]
        entry.update(label=label, deck=deck, order=reshuffle(label, deck))
        return entry
    layout = layouts.get(kind, REFEREE_LAYOUTS.get(kind, ()))
    entry.update(zip(layout, data[4:], strict=True))
    return entry


def gap_text(writes: int, seats: Sequence[int]) -> str:
    """The marker of moves missing from a record (see the module's notes)."""
    return f"{GAP}{writes}/{','.join(str(s) for s in seats)}"


def parse_gap(text: str) -> dict[str, Any]:
    """A :func:`gap_text` marker as ``{"writes", "seats"}``."""
    writes, _, seats = text[1:].partition("/")
    return {"writes": int(writes), "seats": [int(s) for s in seats.split(",") if s]}


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# --- the public form ----------------------------------------------------------


def reshuffler(secret: str, seeds: Sequence[str | None]) -> Callable[[str, list[str]], list[str]]:
    """The order a round's rebuilt stock of ``deck`` gets under ``label``
    (the key: :func:`.proof.reshuffle_key`)."""
    key = reshuffle_key(bytes.fromhex(secret), seeds)
    return lambda label, deck: shuffled(key, label, deck)


# --- checks of a proof ----------------------------------------------------------


def starting_deck(proof: Mapping[str, Any]) -> tuple[str, ...]:
    """The deck a proof's deal must shuffle (RULES.md 5.2): its game's
    starting deck for its variant, options and seat count (one seed per
    seat), as the game makes the table. ``ValueError`` (its words) when
    the proof names no such table."""
    from . import GAMES, VARIANTS
    from .errors import RuleViolation

    game = GAMES.get(str(proof.get("game")))
    variant = proof.get("variant")
    options = proof.get("options")
    if game is None or game.starting_deck is None:
        raise ValueError(f"no game {proof.get('game')!r} deals from a stated deck")
    if not isinstance(variant, str) or VARIANTS.get(variant, (None,))[0] is not game:
        raise ValueError(f"{variant!r} is no variant of {game.name}")
    if not isinstance(options, dict):
        raise ValueError("the options are not an object")
    seats = len(proof["seeds"])
    names = [f"seat {i}" for i in range(seats)]
    try:
        table = game.create_table(variant, options, names, 0, DealRandom(bytes(32))).table
    except RuleViolation as refused:
        raise ValueError(f"the referee makes no such table: {refused.detail}") from None
    return game.starting_deck(table)


def proof_problems(proof: Mapping[str, Any]) -> list[dict[str, str]]:
    """Every way ``proof`` fails to check without replaying the round, as
    ``{"pointer", "detail"}`` (RULES.md 5.2): :func:`.proof.problems_of`
    (the commitment, each shuffle's order), and for a proof of version 2
    its deal's deck (one shuffle, of the starting deck its game, variant,
    options and seats give; none for a submitted deal) and each rebuilt
    stock (its label, its order under the round's reshuffle key, its cards
    the starting deck's). A proof without ``version`` (1) names no game: its
    starting deck cannot be checked, which makes it invalid."""
    if shape_problem(proof) is not None:
        return problems_of(proof)  # the one member not of its type
    found = problems_of(proof)
    if proof.get("version") != PROOF_VERSION:
        return [
            *found,
            {
                "pointer": "/version",
                "detail": "the proof names no game, variant and options (version 2 does): "
                "the deck it starts from cannot be checked",
            },
        ]
    try:
        deck = starting_deck(proof)
    except (ValueError, KeyError, TypeError) as bad:
        return [*found, {"pointer": "/options", "detail": str(bad)}]
    shuffles = proof["shuffles"]
    if proof.get("submitted") is True:
        if shuffles:
            found.append({"pointer": "/shuffles", "detail": "a submitted deal has no shuffle"})
    elif len(shuffles) != 1:
        found.append({"pointer": "/shuffles", "detail": "a shuffled deal has exactly one shuffle"})
    elif list(shuffles[0]["deck"]) != list(deck):
        found.append(
            {
                "pointer": "/shuffles/0/deck",
                "detail": "the deal does not start from the deck the game and its options give",
            }
        )
    found += _reshuffle_problems(proof, deck)
    return found


def construction_problems(proof: Mapping[str, Any]) -> list[dict[str, str]]:
    """How a version-2 ``proof`` of another rules version fails what needs
    no rules (RULES.md 5.2): :func:`.proof.problems_of` (the commitment,
    each shuffle of its stated deck) and each rebuilt stock's order as the
    shuffle of its stated pile. Its starting deck, and the cards a rebuilt
    stock may hold, are that version's: not checked."""
    if shape_problem(proof) is not None:
        return problems_of(proof)
    return [*problems_of(proof), *_reshuffle_problems(proof, None)]


def proof_coverage(proof: Mapping[str, Any]) -> tuple[list[str], list[dict[str, str]]]:
    """What :func:`proof_problems` checks of ``proof`` alone (names of
    :data:`CHECKS`), and what the proof holds that it cannot check, each
    ``{"check", "reason"}``: a rebuilt stock's pile follows from the
    record's moves, which a proof does not hold (RULES.md 5.2)."""
    checked = ["commitment"]
    if proof.get("version") == PROOF_VERSION and proof.get("submitted") is not True:
        checked += ["starting-deck", "deal-order"]
    elif proof.get("version") != PROOF_VERSION:
        checked.append("deal-order")
    unchecked: list[dict[str, str]] = []
    steps = proof.get("reshuffles")
    if proof.get("version") == PROOF_VERSION and isinstance(steps, list) and steps:
        checked.append("rebuilt-stock-orders")
        unchecked.append(
            {
                "check": "rebuilt-stock-piles",
                "reason": f"the piles of the {len(steps)} rebuilt stocks follow from the "
                "round's moves, which a proof does not hold: check the whole record",
            }
        )
    return checked, unchecked


def _reshuffle_problems(
    proof: Mapping[str, Any], deck: Sequence[str] | None
) -> list[dict[str, str]]:
    """How a version-2 proof's ``reshuffles`` fail to check (with ``deck``
    ``None``, whether their cards are the starting deck's is not)."""
    steps = proof.get("reshuffles")
    if not isinstance(steps, list):
        return [{"pointer": "/reshuffles", "detail": "the reshuffles are not a list"}]
    try:
        restock = reshuffler(proof["secret"], proof["seeds"])
    except ValueError:
        return []  # the secret's problem is reported already
    whole = None if deck is None else Counter(deck)
    found: list[dict[str, str]] = []
    for i, step in enumerate(steps):
        where = f"/reshuffles/{i}"
        if not (
            isinstance(step, Mapping)
            and isinstance(step.get("label"), str)
            and _texts(step.get("deck"))
            and _texts(step.get("order"))
        ):
            found.append({"pointer": where, "detail": "a reshuffle is a label and two lists"})
            continue
        label = f"{proof['game']}:round:{proof.get('round')}:reshuffle:{i}"
        if step["label"] != label:
            found.append({"pointer": f"{where}/label", "detail": f"the label is {label}"})
        given: Counter[str] = Counter(step["deck"])
        if whole is not None and given - whole:
            found.append(
                {"pointer": f"{where}/deck", "detail": "it holds cards the round's deck has not"}
            )
        if restock(label, list(step["deck"])) != list(step["order"]):
            found.append(
                {
                    "pointer": f"{where}/order",
                    "detail": "the order is not the one the secret and the seeds give",
                }
            )
    return found


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def ended_by_host(result: Any) -> bool:
    """Whether a round's result says the host ended it before it was over:
    a record's ``abandoned`` (RULES.md 2.8, 3.5, 4.8)."""
    return isinstance(result, dict) and result.get("abandoned") is True


__all__ = [
    "AUTHORS",
    "CHECKS",
    "PROOF_VERSION",
    "RECORD_VERSION",
    "SHUFFLE_LABEL",
    "construction_problems",
    "decode_entry",
    "ended_by_host",
    "encode_entry",
    "header_text",
    "parse_header",
    "proof_coverage",
    "proof_problems",
    "starting_deck",
]
