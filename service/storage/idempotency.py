"""Idempotency records in Redis (the ``Idempotency-Key`` header): Redis only,
no HTTP.

A record is one string key. While its first request runs it holds a lock,
``"L" + JSON`` with a short life; once that request has an answer it holds
``"D" + …`` (the fingerprint of the request and the answer, in the form of
``service.edge.recorded``; Redis only tells ``D`` from ``L``), kept
:data:`KEEP_SECONDS`. A move on a table writes its record in the same Lua call
that commits the move (``commit.lua``), so "the move happened" and "its answer
is recorded" never diverge; the key therefore lives in the table's hash tag::

    referee:{<table id>}:idem:<sha256(token hash, key)>   a move on a table
    referee:{<table id>}:idem:create                      its creation
    referee:{<table id>}:idem-index:<token hash>          the token's records (zset)
    referee:{<table id>}:idem-index:anon-<caller hash>   a caller's joins' records (zset)
    referee:{<table id>}:idem-index:-                    the callers' indexes (zset)

What one token can keep on one table is bounded: its records are listed in
its index, by the last part of their key (the digest: short enough for
Redis's compact sorted set; an entry of the release before names the whole
key, and the Lua scripts take both), scored by when they were written, and the commit that writes a
record deletes the oldest beyond the cap (``IDEMPOTENCY_RECORDS_PER_TOKEN``),
in the same Lua call. A table has at most one token per seat and the host's,
so what a table keeps is bounded too; deleting the table deletes the records
listed in its tokens' indexes, the indexes and its creation's record
(:meth:`IdempotencyStore.delete_table`), all in its hash tag, without a SCAN.

A join has no token: its records are its caller's (:func:`anonymous_scope`:
the client address or client key, hashed), capped alike per caller, so
that strangers cannot evict a joiner's answer (one shared scope let them).
The Lua scripts list each caller's index by its whole name in
``idem-index:-`` (:data:`ANONYMOUS_SCOPES`; scored by its last write,
entries older than :data:`KEEP_SECONDS` dropped), where the table's
delete finds it. What a caller keeps is bounded by its cap per table and
by its joins' rate limit.

A creation has no token and no table yet: the key alone names it (see
``service.edge.idempotency``), and the new table's id is derived from the key
(:func:`created_table_id`), so that its record too is committed with the table.
"""

from __future__ import annotations

import base64
import hashlib
from importlib import resources

import redis

from .client import Client
from .replicas import Acknowledgement
from .store import KEY_PREFIX, NO_WAIT, TableStore

KEEP_SECONDS = 24 * 3600
"""How long an answer is kept for replay (the IETF draft's suggestion: 24 hours)."""


ANONYMOUS_SCOPES = "-"
"""The scope whose index lists the anonymous callers' indexes on a table."""


def anonymous_scope(caller: str) -> str:
    """The scope of the records of an anonymous ``caller`` (``addr:…`` or
    ``client:…``): a hash, so that no address is stored; the scripts know
    an anonymous index by its ``anon-`` prefix."""
    return "anon-" + hashlib.sha256(b"card-referee caller\0" + caller.encode()).hexdigest()[:32]


def table_record_key(table_id: str, scope: str, key: str) -> str:
    """The record of ``key`` sent with the token whose hash is ``scope``, on a table."""
    digest = hashlib.sha256(f"{scope}\0{key}".encode()).hexdigest()
    return f"{KEY_PREFIX}:{{{table_id}}}:idem:{digest}"


def index_key(table_id: str, scope: str) -> str:
    """The sorted set of the records of the token whose hash is ``scope`` on a table."""
    return f"{KEY_PREFIX}:{{{table_id}}}:idem-index:{scope}"


def created_table_id(key: str) -> str:
    """The id of the table that a creation with ``key`` makes (144 bits of
    SHA-256 of the key: its retries find it, nobody else can derive the key)."""
    digest = hashlib.sha256(b"card-referee table id\0" + key.encode()).digest()
    return base64.urlsafe_b64encode(digest[:18]).decode()


def create_record_key(key: str) -> str:
    """The record of ``key`` sent with a table creation: in the new table's
    hash tag, so that the table and its answer are written in one commit."""
    return create_record_key_of(created_table_id(key))


def create_record_key_of(table_id: str) -> str:
    """The record of the creation of ``table_id`` (made with a key, else none)."""
    return f"{KEY_PREFIX}:{{{table_id}}}:idem:create"


def _script(client: Client, name: str) -> redis.commands.core.Script:
    text = resources.files(__package__).joinpath(f"lua/{name}.lua").read_text()
    return client.register_script(text)


class IdempotencyStore:
    """Begin, record and release idempotency records (one round trip each;
    a replayed answer waits for ``acknowledgement``'s replicas, one more)."""

    def __init__(self, client: Client, acknowledgement: Acknowledgement = NO_WAIT) -> None:
        self.client = client
        self.acknowledgement = acknowledgement
        self._begin = _script(client, "idem_begin")
        self._record = _script(client, "idem_record")
        self._release = _script(client, "idem_release")
        self._drop = _script(client, "delete_table")

    def begin(self, record_key: str, lock: str, lock_ms: int) -> bytes | None:
        """Take the lock ``lock`` for ``lock_ms`` ms; ``None`` when taken, else
        what the key holds (``"L..."`` running, ``"D..."`` done)."""
        held = self._begin(keys=[record_key], args=[lock, lock_ms])
        if held is None:
            return None
        if _text(held).startswith(b"D"):  # a replay: once replicas hold it too
            self.acknowledgement.settle(self.client, record_key)
        return _text(held)

    def record(
        self,
        record_key: str,
        record: bytes,
        keep_seconds: int = KEEP_SECONDS,
        index: tuple[str, str, int] | None = None,
    ) -> bytes | None:
        """Store ``record`` (``"D..."``); ``None`` when stored, else the record
        that was already there and stands. With ``index`` (the token's index,
        the table's hash, the cap), the record is listed in the index, the
        oldest beyond the cap are deleted, and nothing is stored when the table
        is gone."""
        keys = [record_key] if index is None else [record_key, index[0], index[1]]
        cap = 0 if index is None else index[2]
        held = self._record(keys=keys, args=[record, keep_seconds, cap])
        return None if held is None else _text(held)

    def delete_table(self, store: TableStore, table_id: str, scopes: list[str]) -> bool:
        """Delete the table with the records of the tokens whose hashes are
        ``scopes`` (one atomic step). Its creation's record stays until it
        expires (one per table, sealed): a retried creation then finds the
        table gone and is answered so, instead of making the table again."""
        return store.delete(
            table_id,
            owned=[],
            indexes=[index_key(table_id, scope) for scope in scopes],
        )

    def forget_token(self, table_id: str, scope: str) -> None:
        """Delete the records of the token whose hash is ``scope`` on a table,
        with its index: the token no longer works (reissued, or its seat
        left), so no retry can use them, and the table's delete, which
        finds the indexes of its current tokens, would not find them."""
        self._drop(keys=[index_key(table_id, scope)], args=[0])

    def release(self, record_key: str, lock: str) -> None:
        """Drop the lock ``lock`` if the key still holds it."""
        self._release(keys=[record_key], args=[lock])


def _text(value: bytes | str) -> bytes:
    return value.encode() if isinstance(value, str) else value
