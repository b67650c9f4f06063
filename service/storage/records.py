"""A round's record as the store writes it (RULES.md 5.2), knowing no game:
what a commit appends to the open record, how the chain of moves moves on,
and which moves another release left out.

The table hash keeps the open record's chain in ``h``:
``"<round> <moves> <head> <key> <base_ms> <version> <over>"``: the record's
round, how many entries that do not commute it holds, the chain's head (the
last such entry's link; the commitment at first), the chain's key (hex), the
clock of the last such entry (the deal's at first: what entries are kept
relative to), the table's version after the last commit of a release that
keeps records (``commit.lua`` sets it on every commit) and ``1`` once the
round was over at that commit. ``hc`` holds the moves that commuted since the
head last moved, one ``<seat>:<h8>:<link>`` each (``h8``: the first 8 hex
of the SHA-256 of the seat's choice as the choices hash keeps it, less its
``#n``; ``link`` is ``-`` for a choice recorded missing): the next entry that
does not commute covers their links (:class:`service.games.proof.Chain`).

So a commit of this release finds what a release that keeps no record
(0.2.0) did since: the table's version moved past ``h``'s, or the choices
hash holds a choice ``hc`` does not; it appends a gap marker
(:func:`service.games.record.gap_text`) before its own entries, and the
record says it is incomplete.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ..games.proof import Chain
from ..games.record import gap_text


@dataclass(frozen=True, slots=True)
class ChainState:
    """The open record's chain (the table hash's ``h``; see the module)."""

    round: int
    moves: int
    head: str
    key: str
    base_ms: int
    version: int = 0
    over: bool = False

    @classmethod
    def parse(cls, text: str | bytes | None) -> ChainState | None:
        """``h`` as read; ``None`` when absent (no record is open) or of a
        development build's form (never released)."""
        if not text:
            return None
        raw = text.decode() if isinstance(text, bytes) else text
        parts = raw.split(" ")
        if len(parts) != 7:
            return None
        number, moves, head, key, base, version, over = parts
        return cls(int(number), int(moves), head, key, int(base), int(version), over == "1")

    def text(self) -> str:
        """The form ``h`` keeps."""
        over = "1" if self.over else "0"
        return (
            f"{self.round} {self.moves} {self.head} {self.key} {self.base_ms} {self.version} {over}"
        )

    def public(self) -> dict[str, Any]:
        """What anyone may see of it (``move_chain``): ``{"moves", "head"}``."""
        return {"moves": self.moves, "head": self.head}


def opening(round_no: int, commitment: str, key_hex: str, dealt_at_ms: int) -> str:
    """``h`` of a round's new record: its chain starts at the commitment."""
    return ChainState(round_no, 0, commitment, key_hex, dealt_at_ms).text()


@dataclass(frozen=True, slots=True)
class RecordWrite:
    """What a commit writes of the open record (``commit.lua``'s last
    arguments): ``items`` to append (``"\\n"``-joined), the chain it was
    computed on (``expected``: ``h`` and ``hc``, ``"-"`` no check), the new
    ``h`` (``chain``, ``""`` kept) and ``hc`` (``pending``: ``"-"`` kept,
    ``""`` emptied), written when the items are; ``after`` is ``h`` as the
    commit leaves it (its answer's ``move_chain``)."""

    items: str = ""
    expected: str = "-"
    chain: str = ""
    pending: str = "-"
    after: str = ""


EntryText = Callable[[dict[str, Any], int, int], str]
"""The compact text of a record's entry (:func:`service.games.record.encode_entry`
for the table's game): ``(entry, round, base_ms)``."""


def digest8(choice: str | bytes) -> str:
    """The first 8 hex of the SHA-256 of a choice as ``hc`` names it (its
    ``#n`` place in an ordered step left out)."""
    text = choice.decode() if isinstance(choice, bytes) else choice
    base = text.rsplit("#", 1)[0] if "#" in text else text
    return hashlib.sha256(base.encode()).hexdigest()[:8]


def pending_of(text: str | bytes | None) -> list[tuple[int, str, str]]:
    """``hc`` as read: ``(seat, h8, link)`` in order."""
    if not text:
        return []
    raw = text.decode() if isinstance(text, bytes) else text
    found = []
    for token in raw.split(" "):
        seat, h8, link = token.split(":")
        found.append((int(seat), h8, link))
    return found


def unrecorded(
    choices: Mapping[Any, Any], pending: Sequence[tuple[int, str, str]]
) -> list[tuple[int, str]]:
    """The seats (with their choice's ``h8``) whose choice in the choices
    hash has no entry in ``hc``: made by a release that keeps no record."""
    last = {seat: h8 for seat, h8, _ in pending}
    found = ((int(seat), digest8(text)) for seat, text in choices.items())
    return sorted((seat, h8) for seat, h8 in found if last.get(seat) != h8)


def for_commit(
    chain: str,
    pending: str,
    version: int,
    choices: Mapping[Any, Any],
    now_ms: int,
    entry_text: EntryText,
    move: dict[str, Any] | None = None,
    shuffles: Sequence[Mapping[str, Any]] = (),
    opens: str = "",
    ends: bool = False,
    resolves: bool = False,
) -> RecordWrite:
    """What a commit (``commit.lua``) of a table read at ``version`` with the
    chain ``chain`` (``h``) and ``pending`` (``hc``) and the step's
    ``choices`` writes of the open record: a gap marker when another
    release wrote the table since (its version moved on, or a choice is not
    in ``hc``), the stocks the commit rebuilt (``shuffles``, each
    ``{"round", "label", "deck", "order"}`` and maybe ``at_ms``) and its
    ``move`` (``{"seat", "by", "move", "round", ...}``; at ``now_ms``), each
    linked, ``ends`` when the move ends the round without listing it. A
    commit that ``resolves`` a simultaneous step (stores its resolution)
    with no entry of its own that covers the step's commuting moves
    appends a ``resolve`` entry by the referee, which does (its last
    choice was written by ``choose.lua`` in a race). With ``opens`` (the
    new record's ``h``, a deal) the open record is folded after its gap
    marker and the new one starts."""
    state = ChainState.parse(chain)
    if state is None:
        return RecordWrite(chain=opens, pending="" if opens else "-", after=opens or chain)
    held = pending_of(pending)
    gap: list[str] = []
    noted: list[str] = []
    if not state.over:
        writes = max(0, version - state.version)
        missed = unrecorded(choices, held)
        if writes or missed:
            gap.append(gap_text(writes, [seat for seat, _ in missed]))
            noted = [f"{seat}:{h8}:-" for seat, h8 in missed]
    entries: list[dict[str, Any]] = []
    for shuffle in shuffles:
        if shuffle.get("round") == state.round:
            entries.append(
                {
                    "at_ms": shuffle.get("at_ms", now_ms),
                    "by": "referee",
                    "move": "reshuffle",
                    "round": state.round,
                    "label": shuffle["label"],
                    "deck": list(shuffle["deck"]),
                    "order": list(shuffle["order"]),
                }
            )
    if move is not None and move.get("round") == state.round:
        entries.append({"at_ms": now_ms, **move})
    if resolves and not entries and any(link != "-" for _, _, link in held):
        entries.append({"at_ms": now_ms, "by": "referee", "move": "resolve", "round": state.round})
    if not gap and not entries:
        return RecordWrite(chain=opens, pending="" if opens else "-", after=opens or chain)
    links = Chain(bytes.fromhex(state.key), state.head, state.moves)
    links.pending = [link for _, _, link in held if link != "-"]
    base = state.base_ms
    texts = list(gap)
    for entry in entries:
        texts.append(entry_text(entry, state.round, base))
        links.add(entry)
        base = entry["at_ms"]
    after = replace(
        state,
        moves=links.moves,
        head=links.head,
        base_ms=base,
        over=state.over or ends,
    ).text()
    tokens = [*(f"{s}:{h8}:{link}" for s, h8, link in held), *noted]
    return RecordWrite(
        "\n".join(texts),
        f"{chain}\n{pending}",
        opens or after,
        "" if entries or opens else " ".join(tokens),
        opens or after,
    )


def for_choice(
    chain: str, now_ms: int, entry_text: EntryText, move: dict[str, Any] | None, choice: str
) -> tuple[str, str, str]:
    """What ``choose.lua`` writes of the open record for a seat's choice
    (``choice``, its text) that commutes: the entry's text (``""`` none),
    its ``hc`` token and the ``h`` it was linked to (``"-"``: no check)."""
    state = ChainState.parse(chain)
    if state is None or move is None or move.get("round") != state.round:
        return "", "", "-"
    entry = {"at_ms": now_ms, **move, "commutes": True}
    link = Chain(bytes.fromhex(state.key), state.head).add(entry)
    token = f"{move.get('seat')}:{digest8(choice)}:{link}"
    return entry_text(entry, state.round, state.base_ms), token, chain
