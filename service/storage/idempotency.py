"""Idempotency records in Redis (the ``Idempotency-Key`` header): Redis only,
no HTTP.

A record is one string key. While its first request runs it holds a lock,
``"L" + JSON`` with a short life; once that request has an answer it holds
``"D" + JSON`` (the fingerprint of the request and the answer), kept
:data:`KEEP_SECONDS`. A move on a table writes its record in the same Lua call
that commits the move (``commit.lua``), so "the move happened" and "its answer
is recorded" never diverge; the key therefore lives in the table's hash tag::

    referee:{<table id>}:idem:<sha256(token hash, key)>   a move on a table
    referee:{<table id>}:idem:create                      its creation

A creation has no token and no table yet: the key alone names it (see
``service.api.idempotency``), and the new table's id is derived from the key
(:func:`created_table_id`), so that its record too is committed with the table.
"""

from __future__ import annotations

import base64
import hashlib
from importlib import resources

import redis

from .client import Client
from .store import KEY_PREFIX

KEEP_SECONDS = 24 * 3600
"""How long an answer is kept for replay (the IETF draft's suggestion: 24 hours)."""


def table_record_key(table_id: str, scope: str, key: str) -> str:
    """The record of ``key`` sent with the token whose hash is ``scope``, on a table."""
    digest = hashlib.sha256(f"{scope}\0{key}".encode()).hexdigest()
    return f"{KEY_PREFIX}:{{{table_id}}}:idem:{digest}"


def created_table_id(key: str) -> str:
    """The id of the table that a creation with ``key`` makes (144 bits of
    SHA-256 of the key: its retries find it, nobody else can derive the key)."""
    digest = hashlib.sha256(b"card-referee table id\0" + key.encode()).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


def create_record_key(key: str) -> str:
    """The record of ``key`` sent with a table creation: in the new table's
    hash tag, so that the table and its answer are written in one commit."""
    return f"{KEY_PREFIX}:{{{created_table_id(key)}}}:idem:create"


def _script(client: Client, name: str) -> redis.commands.core.Script:
    text = resources.files(__package__).joinpath(f"lua/{name}.lua").read_text()
    return client.register_script(text)


class IdempotencyStore:
    """Begin, record and release idempotency records (one round trip each)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self._begin = _script(client, "idem_begin")
        self._record = _script(client, "idem_record")
        self._release = _script(client, "idem_release")

    def begin(self, record_key: str, lock: str, lock_ms: int) -> str | None:
        """Take the lock ``lock`` for ``lock_ms`` ms; ``None`` when taken, else
        what the key holds (``"L..."`` running, ``"D..."`` done)."""
        held = self._begin(keys=[record_key], args=[lock, lock_ms])
        return None if held is None else _text(held)

    def record(self, record_key: str, record: str, keep_seconds: int = KEEP_SECONDS) -> str | None:
        """Store ``record`` (``"D..."``); ``None`` when stored, else the record
        that was already there and stands."""
        held = self._record(keys=[record_key], args=[record, keep_seconds])
        return None if held is None else _text(held)

    def release(self, record_key: str, lock: str) -> None:
        """Drop the lock ``lock`` if the key still holds it."""
        self._release(keys=[record_key], args=[lock])


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
