"""The stored form of an answer recorded under an ``Idempotency-Key`` (see
:mod:`.idempotency`): what a replay needs, no more, read back exactly.

A record is kept 24 hours, up to ``IDEMPOTENCY_RECORDS_PER_TOKEN`` per token
on a table, so its size is what a table with keys in use costs. It holds the
status, the headers that a replay must repeat (``Location``,
``Cache-Control``: a view sets others again on every answer), the request's
fingerprint (which tells a repeat from a reuse of the key) and the body once,
compact JSON deflated with a preset dictionary of the answers' common words::

    b"D" kind status(3 digits) fingerprint(16 bytes) headers b"\\n" body

``kind`` is ``j`` (the body is the JSON text), ``z`` (raw deflate of it with
:data:`DICTIONARY_1`) or ``s`` (sealed: a Fernet token of the JSON text, for
a table's creation, whose answer holds every token); ``headers`` is compact
JSON of the kept headers, or nothing when none. The first byte stays ``D``:
the Lua scripts tell a done record from a lock (``L`` + JSON) by it.

Records of the release before (``D`` + JSON, ``{"fp", "status", "headers",
"body" | "sealed"}``) are read too, until they expire.
"""

from __future__ import annotations

import json
import zlib
from dataclasses import dataclass

KEPT_HEADERS = ("Location", "Cache-Control")
FINGERPRINT_BYTES = 16
"""128 bits of the request's SHA-256: it only tells one request of a key's
own token from another."""

DICTIONARY_1 = (
    b'"argument":null,"next_move":"on_turn":"step":"play","may_i":null,"round_status":"playing",'
    b'"result":null,"match":{"status":"in-progress","winners":[]},"hand":["action":"discard",'
    b'"draw","take_discard","decline","lay_down","lay_off","done","exchange":"resolved":false,'
    b'"waiting_for":[],"cards":["accepted":true,"window_closes_at_ms":"turn":"card":"last_card":'
    b'false,"chips_paid":"next_seat":"next_turn":"pot":"offer":"open":true,"current_offer":'
    b'{"offer":"opened_ms":"until_ms":"asker":"answers":{"round":1,"move":"seat":'
    b'"2S","3S","4S","5S","6S","7S","8S","9S","TS","JS","QS","KS","AS",'
    b'"2H","3H","4H","5H","6H","7H","8H","9H","TH","JH","QH","KH","AH",'
    b'"2D","3D","4D","5D","6D","7D","8D","9D","TD","JD","QD","KD","AD",'
    b'"2C","3C","4C","5C","6C","7C","8C","9C","TC","JC","QC","KC","AC","JK"],'
)
"""The preset dictionary of ``z`` records: words common in answers. Frozen:
a record written with it is read with it (a new one would be another kind)."""

_HEAD = 1 + 1 + 3 + FINGERPRINT_BYTES


@dataclass(frozen=True, slots=True)
class Recorded:
    """A recorded answer: ``body`` is the JSON text, or the Fernet token when
    ``sealed``; ``fingerprint`` as stored (hex of an old record's full digest,
    else its first :data:`FINGERPRINT_BYTES` bytes)."""

    fingerprint: bytes | str
    status: int
    headers: dict[str, str]
    body: bytes
    sealed: bool = False

    def same_request(self, fingerprint: str) -> bool:
        """Whether this answers the request of ``fingerprint`` (SHA-256 hex)."""
        if isinstance(self.fingerprint, str):
            return self.fingerprint == fingerprint
        return self.fingerprint == bytes.fromhex(fingerprint)[:FINGERPRINT_BYTES]


def encode(
    fingerprint: str, status: int, headers: dict[str, str], body: bytes, sealed: bool = False
) -> bytes:
    """The record of an answer (``body``: its JSON text, or a Fernet token when
    ``sealed``); ``fingerprint`` is the request's SHA-256 in hex."""
    kept = {k: v for k, v in headers.items() if k in KEPT_HEADERS}
    head = json.dumps(kept, separators=(",", ":")).encode() if kept else b""
    kind, payload = b"s", body
    if not sealed:
        deflate = zlib.compressobj(9, zlib.DEFLATED, -15, 9, zdict=DICTIONARY_1)
        packed = deflate.compress(body) + deflate.flush()
        kind, payload = (b"z", packed) if len(packed) < len(body) else (b"j", body)
    if not 100 <= status <= 999:
        raise ValueError(f"status {status}")
    fp = bytes.fromhex(fingerprint)[:FINGERPRINT_BYTES]
    return b"D" + kind + str(status).encode() + fp + head + b"\n" + payload


def decode(held: bytes) -> Recorded:
    """A record (``b"D..."``) back, of this release or the one before."""
    if held[1:2] == b"{":
        data = json.loads(held[1:])
        sealed = "sealed" in data
        body = (data["sealed"] if sealed else data["body"]).encode()
        return Recorded(data["fp"], int(data["status"]), data["headers"], body, sealed)
    kind = held[1:2]
    status = int(held[2:5])
    fingerprint = held[5:_HEAD]
    end = held.index(b"\n", _HEAD)
    headers = json.loads(held[_HEAD:end]) if end > _HEAD else {}
    payload = held[end + 1 :]
    if kind == b"z":
        inflate = zlib.decompressobj(-15, zdict=DICTIONARY_1)
        payload = inflate.decompress(payload) + inflate.flush()
    elif kind not in (b"j", b"s"):
        raise ValueError(f"unknown record kind {kind!r}")
    return Recorded(fingerprint, status, headers, payload, kind == b"s")
