"""Bearer tokens: one for the host, one per seat, each shown once: at
creation, or for an open seat to the player who takes it, or to the seat
when the host reissues it (:mod:`.seating`; an open seat's digest is "").

Only SHA-256 hashes are stored (a token has 256 random bits, so a plain hash is
enough: there is nothing to guess), in the auth record as base64url without
padding (43 characters; records written before held 64 hex digits, still read).
Comparison is constant-time, on the 32-byte digests.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from functools import lru_cache
from typing import Any

from flask import g, has_request_context, request

from . import presence
from .problems import Problem

TOKEN_BYTES = 32
TABLE_ID_BYTES = 18  # 144 random bits


def new_table_id() -> str:
    """An unguessable table id (URL-safe)."""
    return secrets.token_urlsafe(TABLE_ID_BYTES)


def new_token() -> str:
    """A fresh bearer token."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    """A token's SHA-256 in hex: what rate-limit counters and idempotency
    records are keyed by (unchanged, so that records made before still match)."""
    return token_digest(token).hex()


def token_digest(token: str) -> bytes:
    """A token's SHA-256 (32 bytes). Within a request it is computed once:
    the limiter, the idempotency key and the view all ask for the bearer's."""
    if not has_request_context():
        return _digest(token)
    here = g._get_current_object()
    held: tuple[str, bytes] | None = here.get("bearer_digest")
    if held is not None and held[0] == token:
        return held[1]
    digest = _digest(token)
    here.bearer_digest = (token, digest)
    return digest


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def stored_digest(token: str) -> str:
    """What the auth record keeps of a token: its SHA-256, base64url, no padding."""
    return base64.urlsafe_b64encode(_digest(token)).rstrip(b"=").decode()


@lru_cache(maxsize=4096)
def _digest_of(stored: str) -> bytes:
    """The 32 bytes of a stored digest: base64url, or hex (records written
    before the base64url form). Kept for the tables in play: every request
    compares its token with every digest of its table's record (these are
    hashes, not tokens)."""
    try:
        if len(stored) == 64:
            return bytes.fromhex(stored)
        return base64.urlsafe_b64decode(stored + "=")
    except ValueError:  # binascii.Error too: a damaged record matches no token
        return b""


def digest_of_stored(stored: str) -> bytes:
    """The 32 bytes of a digest as the auth record keeps it (b"" when damaged)."""
    return _digest_of(stored)


def auth_record(host_token: str, seat_tokens: list[str]) -> dict[str, Any]:
    """The stored auth record: ``{"h": host digest, "s": [seat digests]}``
    (:func:`stored_digest`)."""
    return {"h": stored_digest(host_token), "s": [stored_digest(t) for t in seat_tokens]}


def _bearer() -> str:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if not header:
        raise Problem(
            401,
            "token-missing",
            "Send your token as 'Authorization: Bearer <token>'.",
            headers={"WWW-Authenticate": 'Bearer realm="card-referee"'},
        )
    if scheme.lower() != "bearer" or not token.strip() or len(token) > 200:
        raise Problem(
            401,
            "token-malformed",
            "The Authorization header must be 'Bearer <token>'.",
            headers={"WWW-Authenticate": 'Bearer realm="card-referee", error="invalid_token"'},
        )
    return token.strip()


def unknown_token() -> Problem:
    """401 ``token-unknown``: the token belongs to no table by this id."""
    return Problem(
        401,
        "token-unknown",
        "This token does not belong to this table.",
        headers={"WWW-Authenticate": 'Bearer realm="card-referee", error="invalid_token"'},
    )


def require_token() -> None:
    """401 ``token-missing`` or ``token-malformed`` before any table is read.

    A call that needs a token and names a table that does not exist (or no
    longer does) is then 401 ``token-unknown``, not 404: without the table no
    token can be checked, and an unauthenticated caller learns nothing."""
    _bearer()


def caller(auth: dict[str, Any]) -> str | int:
    """Who the request's token belongs to at this table: ``"host"`` or a seat.

    Raises 401 ``token-missing``, ``token-malformed`` or ``token-unknown``.
    Every stored hash is compared, so the time taken does not tell which matched.
    """
    digest = token_digest(_bearer())
    found: str | int | None = None
    if hmac.compare_digest(digest, _digest_of(auth["h"])):
        found = "host"
    for seat, stored in enumerate(auth["s"]):
        if hmac.compare_digest(digest, _digest_of(stored)):
            found = seat
    if found is None:
        raise unknown_token()
    if found != "host":  # a seat's request: presence, once it is answered (RULES.md 5.5)
        presence.note(found)  # type: ignore[arg-type]
    return found


def require_host(auth: dict[str, Any]) -> None:
    """401 without a valid token; 403 ``host-only`` for a seat's token."""
    if caller(auth) != "host":
        raise Problem(403, "host-only", "Only the host's token may do this.")


def require_seat(auth: dict[str, Any], seat: int | None = None) -> int:
    """The caller's seat; 403 ``seat-only`` for the host's token, ``wrong-seat``
    when ``seat`` is given and the token is another seat's."""
    who = caller(auth)
    if who == "host":
        raise Problem(403, "seat-only", "This needs a seat's token, not the host's.")
    assert isinstance(who, int)
    if seat is not None and who != seat:
        raise Problem(403, "wrong-seat", f"This token is not seat {seat}'s.")
    return who
