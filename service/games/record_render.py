"""A round's public record rendered from what Redis keeps (RULES.md 5.2): the
deal computed again through the game from its secret and seeds, every kept
move decoded and chained. Above :mod:`.record` (the kept form) and
:mod:`.codec` (the table's stored form), which need each other's texts no more."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import codec, game_of
from .proof import Chain, DealRandom, chain_key, commitment, key_of
from .record import (
    GAP,
    PROOF_VERSION,
    RECORD_VERSION,
    RESHUFFLE,
    TRUNCATED,
    decode_entry,
    ended_by_host,
    parse_gap,
    reshuffler,
)


def render(
    table_id: str,
    round_no: int,
    header: Mapping[str, Any],
    items: Sequence[str | bytes],
    result: Any,
    trailing_gap: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A round's public record (version 2) from what Redis keeps: the
    ``header``, its ``items`` (entries, gap markers, the cap's mark) and its
    ``result`` (the round's public result); ``trailing_gap`` says that moves
    may be missing after the last item (the table was written since by a
    release that keeps no record, the round not over before). The deal,
    the proof's shuffles and the links are computed again (the deal through
    the game, from the same secret and seeds)."""
    start = codec.decode(header["s"])
    game = game_of(start)
    dealt_at = int(header["t"])
    secret, seeds = header["x"], list(header["e"])
    view = game.public_view(start, dealt_at)
    rng = DealRandom(key_of(bytes.fromhex(secret), seeds))
    dealt = game.start_round(start, rng, dealt_at, header["q"])
    commit = commitment(bytes.fromhex(secret))
    restock = reshuffler(secret, seeds)
    chain = Chain(chain_key(bytes.fromhex(secret)), commit)
    base = dealt_at
    moves: list[dict[str, Any]] = []
    missing: list[dict[str, Any]] = []
    complete = True
    for item in items:
        text = item.decode() if isinstance(item, bytes) else item
        if text == TRUNCATED:
            complete = False
            continue
        if text.startswith(GAP):
            missing.append({"after_move": len(moves), **parse_gap(text)})
            continue
        entry = decode_entry(game.record_layouts, text, round_no, base, restock)
        entry["link"] = chain.add(entry)
        if not entry.get("commutes"):
            base = entry["at_ms"]
        moves.append(entry)
    if trailing_gap is not None:
        missing.append({"after_move": len(moves), **trailing_gap})
    submitted = header["q"].get("hands") is not None
    reshuffles = [
        {"move": i + 1, **{k: m[k] for k in ("label", "deck", "order")}}
        for i, m in enumerate(moves)
        if m.get("move") == RESHUFFLE
    ]
    proof = {
        "version": PROOF_VERSION,
        "game": game.name,
        "variant": start.variant,
        "round": round_no,
        "options": view["options"],
        "commitment": commit,
        "secret": secret,
        "seeds": seeds,
        "shuffles": rng.shuffles,
        "reshuffles": reshuffles,
        "submitted": submitted,
    }
    return {
        "record_version": RECORD_VERSION,
        "table_id": table_id,
        "game": game.name,
        "variant": start.variant,
        "round": round_no,
        "release": header["r"],
        "rules_version": header["rv"],
        "options": view["options"],
        "seats": view["seats"],
        "dealt_at_ms": dealt_at,
        "start_state": header["s"],
        "deal_request": header["q"],
        "submitted": submitted,
        "deal": game.deal_of(dealt.table),
        "proof": proof,
        "moves": moves,
        "complete": complete and not missing,
        "missing": missing,
        "abandoned": ended_by_host(result),
        "result": result,
    }


__all__ = ["render"]
