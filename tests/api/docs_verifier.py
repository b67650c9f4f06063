"""A verifier of round records written from docs/guide/deal-proofs.md alone,
with nothing but the standard library and no code of the service (RULES.md
5.2: every claim the docs make about a proof can be checked by a stranger
with the docs alone). :func:`check_record` returns the problems it finds."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

RANKS = "23456789TJQKA"
STANDARD = [r + s for s in "SHDC" for r in RANKS]


def h(k: bytes, m: bytes) -> bytes:
    return hmac.new(k, m, hashlib.sha256).digest()


def commitment(secret_hex: str) -> str:
    return hashlib.sha256(
        b"card-referee/deal-commitment/v1\0" + bytes.fromhex(secret_hex)
    ).hexdigest()


def key_of(secret_hex: str, seeds: list[str | None]) -> bytes:
    key = bytes.fromhex(secret_hex)
    for seed in seeds:
        key += b"\0" * 32 if seed is None else hashlib.sha256(seed.encode()).digest()
    return key


def output(key: bytes, label: str) -> Iterator[bytes]:
    k, v, m = b"\0" * 32, b"\1" * 32, key + label.encode()
    k = h(k, v + b"\0" + m)
    v = h(k, v)
    k = h(k, v + b"\1" + m)
    v = h(k, v)
    while True:
        v = h(k, v)
        yield v


def shuffle(key: bytes, label: str, deck: list[str]) -> list[str]:
    blocks, out, order = output(key, label), b"", list(deck)
    for j in range(len(order) - 1, 0, -1):
        while True:
            if len(out) < 4:
                out += next(blocks)
            x, out = int.from_bytes(out[:4], "big"), out[4:]
            if x < 2**32 - 2**32 % (j + 1):
                break
        i = x % (j + 1)
        order[j], order[i] = order[i], order[j]
    return order


def reshuffle_key(secret_hex: str, seeds: list[str | None]) -> bytes:
    return next(output(key_of(secret_hex, seeds), "card-referee/deal/bits/0"))


def starting_deck(game: str, options: dict[str, Any], seats: int) -> list[str]:
    """The section "The starting deck", word for word."""
    if game == "my-ship-sails":
        if options["deck"] == "full":
            return list(STANDARD)
        if options["deck"] == "skat32":
            return [c for c in STANDARD if RANKS.index(c[0]) >= RANKS.index("7")]
        count = options["hand_size"] * seats
        low = options["deck_low_rank"]
        if low is None:
            left_out: list[str] = []
            for rank in RANKS:
                for suit in "CDHS":
                    if len(left_out) < 52 - count:
                        left_out.append(rank + suit)
            return [c for c in STANDARD if c not in left_out]
        start = RANKS.index(low)
        kept = RANKS[start : start + count // 4]
        return [c for c in STANDARD if c[0] in kept]
    if game == "sevens":
        return STANDARD * options["decks"]
    if game == "may-i":
        return STANDARD * options["decks"] + ["JK"] * (options["jokers"] * options["decks"])
    raise ValueError(game)


def deal_of(game: str, order: list[str], dealer: int, seats: int, options: dict[str, Any]) -> dict:
    """The section "How each game deals the order"; hands sorted for a
    comparison as multisets."""
    hands: list[list[str]] = [[] for _ in range(seats)]
    if game == "my-ship-sails":
        dealt = options["hand_size"] * seats
        for i in range(dealt):
            hands[(dealer + 1 + i) % seats].append(order[i])
        return {"hands": [sorted(x) for x in hands], "set_aside": sorted(order[dealt:])}
    if game == "sevens":
        for i, card in enumerate(order):
            hands[(dealer + 1 + i) % seats].append(card)
        return {"hands": [sorted(x) for x in hands]}
    for k in range(5 * seats):
        hands[(dealer + 1 + k) % seats] += order[2 * k : 2 * k + 2]
    return {
        "hands": [sorted(x) for x in hands],
        "discard": order[10 * seats],
        "stock": order[10 * seats + 1 :],
    }


def chain(secret_hex: str, start: str, moves: list[dict[str, Any]]) -> tuple[str | None, list]:
    """The section "The chain of moves": the last head (``None``: a link is
    broken) and what is still pending at the end."""
    key = hmac.new(bytes.fromhex(secret_hex), b"card-referee/moves/v2", hashlib.sha256).digest()
    head, pending = start, []
    for move in moves:
        text = json.dumps(
            {k: v for k, v in move.items() if k != "link"}, sort_keys=True, separators=(",", ":")
        )
        covered = "" if move.get("commutes") else "".join(p + "\n" for p in pending)
        link = hmac.new(key, (head + "\n" + covered + text).encode(), hashlib.sha256).hexdigest()
        if link != move.get("link"):
            return None, pending
        if move.get("commutes"):
            pending.append(link)
        else:
            head, pending = link, []
    return head, pending


def check_proof(proof: dict[str, Any]) -> list[str]:
    """Steps 1, 3 and 5 of "What to check": what a proof alone holds."""
    found = []
    if commitment(proof["secret"]) != proof["commitment"]:
        found.append("commitment")
    if proof.get("version") != 2:
        return [*found, "no version 2: the starting deck cannot be checked"]
    seats = len(proof["seeds"])
    deck = starting_deck(proof["game"], proof["options"], seats)
    key = key_of(proof["secret"], proof["seeds"])
    shuffles = proof["shuffles"]
    if proof["submitted"]:
        if shuffles:
            found.append("a submitted deal has no shuffle")
    elif len(shuffles) != 1:
        found.append("not one shuffle")
    else:
        step = shuffles[0]
        if step["label"] != "card-referee/deal/shuffle/0":
            found.append("label")
        if step["deck"] != deck:
            found.append("starting deck")
        if shuffle(key, step["label"], step["deck"]) != step["order"]:
            found.append("deal order")
    restock = reshuffle_key(proof["secret"], proof["seeds"])
    for r, step in enumerate(proof["reshuffles"]):
        if step["label"] != f"may-i:round:{proof['round']}:reshuffle:{r}":
            found.append(f"reshuffle {r} label")
        if Counter(step["deck"]) - Counter(deck):
            found.append(f"reshuffle {r} cards")
        if shuffle(restock, step["label"], step["deck"]) != step["order"]:
            found.append(f"reshuffle {r} order")
    return found


def check_record(rec: dict[str, Any]) -> list[str]:
    """Every step of "What to check" for a whole record."""
    proof = rec["proof"]
    found = check_proof(proof)
    for name in ("game", "variant", "round", "options"):
        if proof.get(name) != rec[name]:
            found.append(f"proof {name}")
    seats = len(rec["seats"])
    if len(proof["seeds"]) != seats:
        found.append("seeds")
    if not proof["submitted"] and proof["shuffles"]:
        dealt = deal_of(
            rec["game"],
            proof["shuffles"][0]["order"],
            rec["result"]["dealer"],
            seats,
            rec["options"],
        )
        recorded = {k: v for k, v in rec["deal"].items()}
        recorded["hands"] = [sorted(x) for x in recorded["hands"]]
        if "set_aside" in recorded:
            recorded["set_aside"] = sorted(recorded["set_aside"])
        if dealt != recorded:
            found.append("deal")
    entries = [
        {"move": i + 1, "label": m["label"], "deck": m["deck"], "order": m["order"]}
        for i, m in enumerate(rec["moves"])
        if m["move"] == "reshuffle"
    ]
    if entries != proof["reshuffles"]:
        found.append("reshuffle entries")
    found += check_piles(rec)
    head, pending = chain(proof["secret"], proof["commitment"], rec["moves"])
    if head is None:
        found.append("chain")
    elif rec["complete"] and pending:
        found.append("chain: commuting moves covered by nothing")
    return found


def check_piles(rec: dict[str, Any]) -> list[str]:
    """Step 9 of the construction, "The discard pile (May I?)": each
    ``reshuffle`` entry shuffles the pile the moves before it leave, derived
    here from the record alone, never from the proof."""
    found: list[str] = []
    stop = min((g["after_move"] for g in rec.get("missing") or []), default=len(rec["moves"]))
    if not any(m["move"] == "reshuffle" for m in rec["moves"]):
        return found
    restock = reshuffle_key(rec["proof"]["secret"], rec["proof"]["seeds"])
    pile = [rec["deal"]["discard"]]
    for i, move in enumerate(rec["moves"][:stop]):
        if move["move"] == "ask" or (move["move"] == "turn" and move["action"] == "take_discard"):
            if not pile:
                return [*found, f"move {i + 1} takes from an empty pile"]
            pile.pop()
        elif move["move"] == "turn" and move["action"] == "discard":
            pile.append(move["arg"])
        elif move["move"] == "reshuffle":
            if move["deck"] != pile[:-1]:
                found.append(f"reshuffle at move {i + 1}: not the pile the moves leave")
            elif shuffle(restock, move["label"], pile[:-1]) != move["order"]:
                found.append(f"reshuffle at move {i + 1}: not that pile's shuffle")
            pile = pile[-1:]
    return found
