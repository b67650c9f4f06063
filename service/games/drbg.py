"""Deterministic shuffles from a secret: HMAC-SHA256 as a DRBG, unbiased
indices by rejection sampling, Fisher–Yates.

Used where a game must shuffle after the deal without a random source of its
own (May I?'s reshuffled stock, RULES.md 4.7 and 4.9): the secret is drawn
from the CSPRNG at the deal (:data:`SECRET_BYTES`, 256 bits) and never shown,
so the order is as unpredictable as the secret, and the same secret, label
and cards give the same order on every machine (a record replays exactly).

The construction, exactly (so that anyone can re-implement it):

1. HMAC_DRBG (NIST SP 800-90A, 10.1.2) with SHA-256, instantiated with
   ``seed_material = secret || label`` (``label`` as UTF-8; no nonce, no
   personalisation string beyond the label): ``K = 0x00 * 32``,
   ``V = 0x01 * 32``, then ``update(seed_material)``, where ``update(d)`` is
   ``K = HMAC(K, V || 0x00 || d); V = HMAC(K, V); K = HMAC(K, V || 0x01 || d);
   V = HMAC(K, V)``.
2. One generate request: the output bytes are ``V_1 || V_2 || …`` with
   ``V_i = HMAC(K, V_{i-1})`` (a shuffle of a 108-card stock needs under
   1 KB, far below the standard's 64 KB per request).
3. A uniform index below ``n``: read the next 4 output bytes as a big-endian
   unsigned ``x``; if ``x >= 2**32 - (2**32 mod n)`` read again; else
   ``x mod n``.
4. Fisher–Yates: for ``i`` from ``len - 1`` down to ``1``, ``j`` = an index
   below ``i + 1`` (step 3), swap the items at ``i`` and ``j``.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterator, Sequence
from typing import TypeVar

SECRET_BYTES = 32
"""A shuffle secret's size: 256 bits from the CSPRNG."""

_T = TypeVar("_T")


def _hmac(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).digest()


def output(secret: bytes, label: str) -> Iterator[bytes]:
    """The DRBG's output for ``secret`` and ``label``, block by block (32
    bytes each), without end (steps 1 and 2 of the module's construction)."""
    key, value = b"\x00" * 32, b"\x01" * 32
    seed = secret + label.encode()
    key = _hmac(key, value + b"\x00" + seed)
    value = _hmac(key, value)
    key = _hmac(key, value + b"\x01" + seed)
    value = _hmac(key, value)
    while True:
        value = _hmac(key, value)
        yield value


class Indices:
    """Unbiased indices from a DRBG output (step 3)."""

    def __init__(self, blocks: Iterator[bytes]) -> None:
        self._blocks = blocks
        self._buffer = b""

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``; ``ValueError`` unless ``1 <= n <= 2**32``."""
        if not 1 <= n <= 2**32:
            raise ValueError(f"an index below {n} cannot be drawn from 32-bit words")
        limit = 2**32 - (2**32 % n)
        while True:
            if len(self._buffer) < 4:
                self._buffer += next(self._blocks)
            x = int.from_bytes(self._buffer[:4], "big")
            self._buffer = self._buffer[4:]
            if x < limit:
                return x % n


def shuffled(secret: bytes, label: str, items: Sequence[_T]) -> list[_T]:
    """``items`` in the order the construction gives for ``secret`` and
    ``label`` (step 4); ``ValueError`` for a secret shorter than 16 bytes
    (a shuffle must never rest on a guessable key)."""
    if len(secret) < 16:
        raise ValueError(f"a shuffle secret of {len(secret)} bytes is guessable; 16 at least")
    order = list(items)
    indices = Indices(output(secret, label))
    for i in range(len(order) - 1, 0, -1):
        j = indices.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order
