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
"""

from __future__ import annotations

import hashlib
import hmac
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
    try:
        secret = bytes.fromhex(proof["secret"])
    except ValueError:
        return [{"pointer": "/secret", "detail": "the secret is not hexadecimal"}]
    if len(secret) != SECRET_BYTES:
        found.append({"pointer": "/secret", "detail": f"the secret is not {SECRET_BYTES} bytes"})
    if not hmac.compare_digest(commitment(secret), str(proof["commitment"]).lower()):
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
