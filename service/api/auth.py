"""Bearer tokens: one for the host, one per seat, each shown once at creation.

Only SHA-256 hashes are stored (a token has 256 random bits, so a plain hash is
enough: there is nothing to guess). Comparison is constant-time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from flask import request

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
    """What is stored of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


def auth_record(host_token: str, seat_tokens: list[str]) -> dict[str, Any]:
    """The stored auth record: ``{"h": host hash, "s": [seat hashes]}``."""
    return {"h": token_hash(host_token), "s": [token_hash(t) for t in seat_tokens]}


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
    digest = token_hash(_bearer())
    found: str | int | None = None
    if hmac.compare_digest(digest, auth["h"]):
        found = "host"
    for seat, stored in enumerate(auth["s"]):
        if hmac.compare_digest(digest, stored):
            found = seat
    if found is None:
        raise unknown_token()
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
