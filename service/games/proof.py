"""A deal anyone can check (RULES.md 5.2): the commitment, the seeds, and
the random source of a round, derived from them alone.

Pure (no I/O). The construction, exactly (``docs/guide/deal-proofs.md``
has it with test vectors):

- ``secret``: 32 bytes from the CSPRNG, drawn before the deal;
  ``commitment = SHA-256(b"card-referee/deal-commitment/v1" || 0x00 || secret)``
  (lower-case hex), published before any seed is taken.
- each seat ``s`` of ``n`` may give a seed (a string of 1..128 characters);
  ``d_s = SHA-256(UTF-8(seed_s))``, or 32 zero bytes for a seat that gave none.
- ``key = secret || d_0 || d_1 || ... || d_{n-1}``.
- the round's ``i``-th shuffle (from 0) of a list of cards is
  :func:`.drbg.shuffled` under ``key`` and the label
  ``card-referee/deal/shuffle/<i>``; its ``i``-th draw of ``k`` random bits
  (May I?'s reshuffle secret, RULES.md 4.9) is the first ``ceil(k/8)``
  bytes of :func:`.drbg.output` under ``key`` and the label
  ``card-referee/deal/bits/<i>``, big-endian, shifted right by
  ``8*ceil(k/8) - k``.

So every random thing in a round (the deal, My Ship Sails' set-aside cards,
May I?'s reshuffled stock) is fixed by the commitment and the seeds.

The round's moves are chained, in the order the referee accepted them
(version 2, :class:`Chain`):

- ``chain_key = HMAC-SHA256(secret, b"card-referee/moves/v2")``;
- the head starts at the commitment; a move that does not commute gets
  ``link = hex(HMAC-SHA256(chain_key, head || "\n" || c_1 || "\n" || ... ||
  c_k || "\n" || canonical(move)))``, ``c_1..c_k`` the links of the moves
  that commuted since the head last moved, and the head becomes its link;
  a move marked ``"commutes": true`` (a seat's choice in a simultaneous
  step: the passes of one exchange, May I? answers, whose order changes
  nothing) gets ``hex(HMAC-SHA256(chain_key, head || "\n" ||
  canonical(move)))`` and leaves the head as it was, to be covered by the
  next move that does not commute;
- ``canonical`` is the move's JSON without its ``link``, keys sorted, no
  spaces, ASCII (``json.dumps(m, sort_keys=True, separators=(",", ":"))``).

So a move dropped, added or changed, a commuting one included, breaks a
link. The table's view shows the head and the count of moves that do not
commute as they are accepted (``move_chain``); keyed with the round's
secret, a head says nothing of a secret pass until the round is over. A
record of version 1 was chained under ``card-referee/moves/v1`` without
covering its commuting moves.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .drbg import SECRET_BYTES, output, shuffled

COMMIT_DOMAIN = b"card-referee/deal-commitment/v1\x00"
"""What the commitment's hash reads before the secret (domain separation)."""

SHUFFLE_LABEL = "card-referee/deal/shuffle/{}"
BITS_LABEL = "card-referee/deal/bits/{}"

SEED_MAX = 128
"""The longest seed a seat may give, in characters."""


CHAIN_DOMAIN = b"card-referee/moves/v1"
"""What the chain key's HMAC reads (under the round's secret) in a record of version 1."""

CHAIN_DOMAIN_V2 = b"card-referee/moves/v2"
"""What the chain key's HMAC reads in a record of version 2 (this release's)."""

RESHUFFLE_KEY_LABEL = BITS_LABEL.format(0)
"""The round's first 256-bit draw (:meth:`DealRandom.getrandbits`) is the
key of its later shuffles (May I?'s rebuilt stocks, RULES.md 4.9)."""


def reshuffle_key(secret: bytes, seeds: Sequence[str | None]) -> bytes:
    """The key of a round's reshuffles: its first 256-bit draw, 32 bytes."""
    return next(output(key_of(secret, seeds), RESHUFFLE_KEY_LABEL))


def commitment(secret: bytes) -> str:
    """The published commitment to ``secret``: SHA-256 over the domain and
    the secret, lower-case hex (64 characters)."""
    return hashlib.sha256(COMMIT_DOMAIN + secret).hexdigest()


def key_of(secret: bytes, seeds: Sequence[str | None]) -> bytes:
    """The DRBG key of a round: the secret, then per seat the SHA-256 of its
    seed (UTF-8), or 32 zero bytes for a seat that gave none."""
    parts = [secret]
    for seed in seeds:
        parts.append(b"\x00" * 32 if seed is None else hashlib.sha256(seed.encode()).digest())
    return b"".join(parts)


@dataclass(slots=True)
class DealRandom:
    """The random source of one round (a :class:`.base.Shuffler`), derived
    from its key alone, that writes down what it shuffled: ``shuffles``
    holds each shuffle's label, the cards as given (``deck``) and their
    order after it (``order``)."""

    key: bytes
    shuffles: list[dict[str, Any]] = field(default_factory=list)
    draws: int = 0

    def shuffle(self, x: list[Any], /) -> None:
        """Shuffle ``x`` in place: the next shuffle of the construction."""
        label = SHUFFLE_LABEL.format(len(self.shuffles))
        order = shuffled(self.key, label, x)
        self.shuffles.append({"label": label, "deck": list(x), "order": order})
        x[:] = order

    def getrandbits(self, k: int, /) -> int:
        """``k`` random bits: the next draw of the construction."""
        label = BITS_LABEL.format(self.draws)
        self.draws += 1
        size = (k + 7) // 8
        data = b""
        for block in output(self.key, label):
            data += block
            if len(data) >= size:
                break
        return int.from_bytes(data[:size], "big") >> (8 * size - k)


def new_deal(secret: bytes, seats: int) -> dict[str, Any]:
    """The stored form of the next deal's pending proof: the secret (hex),
    its commitment and no seed yet."""
    if len(secret) != SECRET_BYTES:
        raise ValueError(f"a deal secret is {SECRET_BYTES} bytes, not {len(secret)}")
    return {"secret": secret.hex(), "commitment": commitment(secret), "seeds": [None] * seats}


def random_for(deal: Mapping[str, Any]) -> DealRandom:
    """The random source of the round ``deal`` (the stored form) commits to."""
    return DealRandom(key_of(bytes.fromhex(deal["secret"]), deal["seeds"]))


def problems_of(proof: Mapping[str, Any]) -> list[dict[str, str]]:
    """Every way ``proof`` (a record's ``proof``: ``commitment``, ``secret``,
    ``seeds``, ``shuffles``) fails to check, as ``{"pointer", "detail"}``;
    empty when the commitment is the secret's and every shuffle's order is
    the one the construction gives for its deck. Recomputed from the proof
    alone."""
    found: list[dict[str, str]] = []
    shape = shape_problem(proof)
    if shape is not None:
        return [shape]
    try:
        secret = bytes.fromhex(proof["secret"])
    except ValueError:
        return [{"pointer": "/secret", "detail": "the secret is not hexadecimal"}]
    if len(secret) != SECRET_BYTES:
        # Its key would be as long as the secret, hashed for every shuffle.
        return [{"pointer": "/secret", "detail": f"the secret is not {SECRET_BYTES} bytes"}]
    if not hmac.compare_digest(commitment(secret), str(proof["commitment"])):
        found.append(
            {"pointer": "/commitment", "detail": "the commitment is not the secret's SHA-256"}
        )
    key = key_of(secret, proof["seeds"])
    for i, step in enumerate(proof["shuffles"]):
        label = SHUFFLE_LABEL.format(i)
        if step["label"] != label:
            found.append({"pointer": f"/shuffles/{i}/label", "detail": f"the label is {label}"})
        if shuffled(key, label, step["deck"]) != list(step["order"]):
            found.append(
                {
                    "pointer": f"/shuffles/{i}/order",
                    "detail": "the order is not the one the secret and the seeds give",
                }
            )
    return found


def _lower_hex(text: str) -> bool:
    """Whether ``text`` is :data:`SECRET_BYTES` bytes in lower-case hex."""
    return len(text) == 2 * SECRET_BYTES and all(c in "0123456789abcdef" for c in text)


def shape_problem(proof: Mapping[str, Any]) -> dict[str, str] | None:
    """The first member of ``proof`` that is not of its type (``secret`` and
    ``commitment`` 32 bytes in lower-case hex, ``seeds`` a list of texts of
    1 to :data:`SEED_MAX` characters or ``null``, each shuffle
    a ``label`` and lists of card texts), or ``None``: checked before any
    hashing, so that a text where a list belongs is not hashed letter by
    letter."""

    def texts(value: Any) -> bool:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)

    for name in ("secret", "commitment"):
        if not isinstance(proof.get(name), str):
            return {"pointer": f"/{name}", "detail": f"the {name} is not a text"}
        if not _lower_hex(proof[name]):
            # One spelling only: no two texts may stand for one commitment.
            return {
                "pointer": f"/{name}",
                "detail": f"the {name} is not {SECRET_BYTES} bytes in lower-case hex",
            }
    seeds = proof.get("seeds")
    if not isinstance(seeds, list) or not all(s is None or isinstance(s, str) for s in seeds):
        return {"pointer": "/seeds", "detail": "the seeds are not a list of texts and nulls"}
    for i, seed in enumerate(seeds):
        if seed is not None and not 1 <= len(seed) <= SEED_MAX:
            return {
                "pointer": f"/seeds/{i}",
                "detail": f"a seed is 1 to {SEED_MAX} characters (or null)",
            }
    shuffles = proof.get("shuffles")
    if not isinstance(shuffles, list):
        return {"pointer": "/shuffles", "detail": "the shuffles are not a list"}
    for i, step in enumerate(shuffles):
        if not (
            isinstance(step, Mapping)
            and isinstance(step.get("label"), str)
            and texts(step.get("deck"))
            and texts(step.get("order"))
        ):
            return {
                "pointer": f"/shuffles/{i}",
                "detail": "a shuffle is a label and two lists of cards (deck, order)",
            }
    return None


def chain_key(secret: bytes, version: int = 2) -> bytes:
    """The key of a round's chain of moves: HMAC-SHA256 of the domain
    (``card-referee/moves/v2``; ``v1`` for a record of version 1) under the
    round's secret (32 bytes)."""
    domain = CHAIN_DOMAIN if version < 2 else CHAIN_DOMAIN_V2
    return hmac.new(secret, domain, hashlib.sha256).digest()


def canonical(move: Mapping[str, Any]) -> bytes:
    """A record's move as the chain reads it: JSON without ``link``, keys
    sorted, no spaces, ASCII."""
    body = {k: v for k, v in move.items() if k != "link"}
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def link(key: bytes, head: str, move: Mapping[str, Any], covered: Sequence[str] = ()) -> str:
    """The link of ``move`` after the head ``head`` (lower-case hex):
    ``HMAC(key, head || "\n" || c_1 || "\n" || ... || c_k || "\n" ||
    canonical(move))``, where ``covered`` are the links of the moves that
    commuted since the head last moved (none for a move that commutes
    itself, and in version 1)."""
    text = b"".join(c.encode() + b"\n" for c in covered)
    return hmac.new(key, head.encode() + b"\n" + text + canonical(move), hashlib.sha256).hexdigest()


@dataclass(slots=True)
class Chain:
    """A round's chain of moves as it is walked (version 2): the head (the
    last link of a move that does not commute, at first the commitment),
    how many such links there were, and the links of the moves that commuted
    since (the next move that does not commute covers them)."""

    key: bytes
    head: str
    moves: int = 0
    pending: list[str] = field(default_factory=list)

    def add(self, move: Mapping[str, Any]) -> str:
        """``move``'s link; the chain moves on past it."""
        if move.get("commutes"):
            found = link(self.key, self.head, move)
            self.pending.append(found)
            return found
        found = link(self.key, self.head, move, self.pending)
        self.head, self.moves, self.pending = found, self.moves + 1, []
        return found


def chain_problems(
    proof: Mapping[str, Any],
    moves: Sequence[Mapping[str, Any]],
    version: int = 2,
    complete: bool = True,
) -> list[str]:
    """Every move of a record whose ``link`` is not the chain's link of it
    (recomputed from the proof's secret and commitment and the moves in
    order), or that has none. Version 2 (RULES.md 5.2: every accepted move
    covered): a move that does not commute covers the links of the moves
    that commuted since the head last moved, so a move reordered, dropped,
    added or changed breaks a link, a commuting one included; a complete
    record ends on a move that does not commute. Version 1: a commuting
    move's link leaves the head as it was and is covered by nothing. Only
    the first broken link is reported."""
    try:
        key = chain_key(bytes.fromhex(proof["secret"]), version)
    except ValueError:
        return ["the secret is not hexadecimal"]
    chain = Chain(key, str(proof["commitment"]))
    for i, move in enumerate(moves):
        held = move.get("link")
        if held is None:
            return [f"move {i + 1} has no link (recorded before moves were chained)"]
        if version < 2:
            after = link(key, chain.head, move)
            if not move.get("commutes"):
                chain.head = after
        else:
            after = chain.add(move)
        if not hmac.compare_digest(after, str(held)):
            return [f"move {i + 1}'s link is not the chain's link of it: moved, changed or lost"]
    if version >= 2 and complete and chain.pending:
        return [
            f"the last {len(chain.pending)} moves commute and no move after them covers "
            "them: the record was cut short"
        ]
    return []
