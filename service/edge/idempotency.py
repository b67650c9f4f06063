"""The ``Idempotency-Key`` request header (IETF httpapi draft "The
Idempotency-Key HTTP Header Field"), HTTP side.

Every POST that creates or changes something accepts the header. The first
request with a key runs and its answer is recorded; a repeat with the same key
and the same request (method, path, and body: a JSON body by its value; an
endpoint that takes no body ignores one) gets
that answer again, status, headers and body, with ``Idempotent-Replayed:
true``, and acts no second time.
The same key with a different request is 422 ``idempotency-key-reused``; a
repeat while the first still runs is 409 ``idempotency-key-in-use`` with
``Retry-After``.

What is recorded: every answer of a request that reached the rules (2xx, and
the 409/422 refusals of the rules: a :class:`RuleViolation`). An answer given
before that (400, 401, 403, 404, 413, 415, 429, 503), or a refusal that
depends on the moment (a :class:`Problem` 409: ``seat-is-bot``,
``seat-not-bot``, ``seat-not-away``, ``seat-connected``, ``seeds-missing``),
records nothing and frees the key, so a retry runs. A kept refusal is the
one write a refused request makes (the refusals sweep,
tests/api/test_refusals_write_nothing.py, allows exactly it); it is bounded
like any answer: 32 per token (or joining caller) and table, and a
creation's by ``RATE_LIMIT_TABLES``, which counts every attempt.

What a record holds, and in what form: :mod:`.recorded`.

Bounds: a token keeps at most ``IDEMPOTENCY_RECORDS_PER_TOKEN`` records on
a table; the commit of a newer one deletes the oldest (see
``service.storage.idempotency``), and deleting the table deletes them all.

Scope: on a table, a key belongs to the token it came with (the record key
hashes the token's hash with the key) and lives in the table's hash tag,
written in the same Lua call as the move. A join has no token: its key
belongs to its caller (the client address, or the client key), each with
its own cap, so that strangers cannot evict a joiner's answer. ``POST /v1/tables`` has no token:
there the key alone is the scope; the new table's id is derived from it, so
that the table and its answer are one commit too. Since that answer holds
every token, its body is kept encrypted with a key derived from the
Idempotency-Key, which Redis never holds (only hashes of it). Such a key must
therefore be unguessable (a random UUID); keys are 16 to 255 visible ASCII
characters.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

import redis
from cryptography.fernet import Fernet
from flask import Response, current_app, request
from webargs.core import missing

from ..games.errors import RuleViolation
from ..storage import idempotency as records
from ..storage.store import Loaded, Record, table_key
from . import limits, recorded
from .auth import digest_of_stored, token_hash
from .common import UNREAD, parsed_body, referee
from .problems import PROBLEM_JSON, Problem

HEADER = "Idempotency-Key"
REPLAYED = "Idempotent-Replayed"
KEY_PATTERN = re.compile(r"[\x21-\x7e]{16,255}")
"""An Idempotency-Key (``fullmatch``: ``$`` would let a trailing newline in)."""

HEADER_DOC = {
    "in": "header",
    "name": HEADER,
    "required": False,
    "description": "16 to 255 visible ASCII characters, e.g. a random UUID. A repeat with the "
    "same key and request gets the first answer again (`Idempotent-Replayed: true`) without "
    "acting twice, for 24 hours (the newest 32 answers of a token on a table; a join's: of "
    "its client address or client key on the table); the same key "
    "with another request is 422 "
    "`idempotency-key-reused`; a repeat while the first still runs is 409 "
    "`idempotency-key-in-use`.",
    "schema": {"type": "string", "minLength": 16, "maxLength": 255, "pattern": "^[!-~]+$"},
}
"""The header as an OpenAPI parameter."""


def request_key() -> str | None:
    """The request's Idempotency-Key (an sf-string's quotes removed), or None;
    400 ``idempotency-key-invalid`` when it is not 16..255 visible ASCII."""
    raw = request.headers.get(HEADER)
    if raw is None:
        return None
    value = raw.strip()
    if len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    if not KEY_PATTERN.fullmatch(value):
        raise Problem(
            400,
            "idempotency-key-invalid",
            "Idempotency-Key must be 16 to 255 visible ASCII characters (a random UUID fits).",
        )
    return value


def token_scope() -> str:
    """Whose keys these are: the hash of the bearer token as sent ('-' for none)."""
    _, _, token = request.headers.get("Authorization", "").partition(" ")
    return token_hash(token.strip()) if token.strip() else "-"


def anonymous_scope() -> str:
    """Whose keys a request without a token of the table uses (a join):
    its caller's, as the rate limits count it (the client key's name, else
    the client address: :func:`.limits.client_address`), hashed, so that
    strangers never evict each other's answers."""
    client = limits.client_name()
    caller = limits.client_address() if client is None else f"client:{client}"
    return records.anonymous_scope(caller)


def _fingerprint() -> str:
    """The request as a key's record remembers it: method, path, query and,
    for an endpoint that reads a body, the body as its parser read it (once
    a request: :func:`.common.parsed_body`). A JSON body counts as its value,
    so a client that serialises the same body anew on a retry (other key
    order, other spacing) sends the same request; an empty body and ``{}``
    stay different. An endpoint that takes no body ignores one, and so does
    this: parsing it here cost a keyed request 14 to 16 ms for 64 KiB of
    numbers, a made-up token's included, and skipped the bound on a body's
    containers for one not sent as JSON (issue 39, eighteenth attacker). By
    the time a view asks, its body passed its schema: what is written here
    is small and bounded."""
    digest = hashlib.sha256()
    for part in (request.method, request.path, request.query_string.decode("latin-1")):
        digest.update(part.encode() + b"\0")
    value = parsed_body()
    if value is not UNREAD and value is not missing:
        canonical = json.dumps(value, sort_keys=True, separators=(",", ":"))
        digest.update(b"json\0" + canonical.encode())
    return digest.hexdigest()


def _fernet(key: str) -> Fernet:
    secret = hashlib.sha256(b"card-referee idempotency seal\0" + key.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(secret))


@dataclass
class Pending:
    """A request that holds its key's lock: it records its answer or releases.
    ``table`` names the table and the token's index of a move's record."""

    record_key: str
    fingerprint: str
    lock: str
    seal: str | None  # the Idempotency-Key, when the answer must be encrypted
    table: tuple[str, str] | None = None  # (table id, token scope) of a move

    def _index(self) -> tuple[str, str, int] | None:
        if self.table is None:
            return None
        table_id, scope = self.table
        cap = referee().settings.idempotency_records_per_token
        return records.index_key(table_id, scope), table_key(table_id), cap

    def as_record(self, make: Callable[[Loaded, Any], bytes]) -> Record:
        """The record a move commits with it (listed in its token's index)."""
        index = self._index()
        if index is None:
            return Record(self.record_key, records.KEEP_SECONDS, make)
        return Record(self.record_key, records.KEEP_SECONDS, make, index[0], index[2])

    def success_record(self, body: Any, status: int, headers: dict[str, str]) -> bytes:
        """The record of a success answer (``body`` as serialised; see :mod:`.recorded`)."""
        text = json.dumps(body, separators=(",", ":")).encode()
        if self.seal is None:
            return recorded.encode(self.fingerprint, status, headers, text)
        sealed = _fernet(self.seal).encrypt(text)
        return recorded.encode(self.fingerprint, status, headers, sealed, sealed=True)

    def refusal_record(self, refused: RuleViolation) -> bytes:
        """The record of a refusal by the rules."""
        problem = Problem.from_violation(refused)
        text = json.dumps(problem.body(), separators=(",", ":")).encode()
        return recorded.encode(self.fingerprint, problem.status, {}, text)

    def record(self, text: bytes) -> Response | None:
        """Store ``text`` unless an answer is already there; that answer, if so."""
        held = referee().idempotency.record(
            self.record_key, text, records.KEEP_SECONDS, self._index()
        )
        return None if held is None else answer_held(held, self.fingerprint, self.seal)

    def record_refusal(self, refused: RuleViolation) -> Response | None:
        """Store the rules' refusal (a 409 or 422) as the answer; the answer
        already there, if any. Any other refusal (404 ``move-not-in-game``:
        the table plays another game, before its rules are asked) keeps
        nothing and frees the key, as docs/api.md says of a 404."""
        if Problem.from_violation(refused).status not in KEPT_REFUSALS:
            self.release()
            return None
        return self.record(self.refusal_record(refused))

    def release(self) -> None:
        """Free the key (the request never reached the rules); best effort."""
        with contextlib.suppress(redis.RedisError):  # the lock expires by itself
            referee().idempotency.release(self.record_key, self.lock)


KEPT_REFUSALS = (409, 422)
"""The statuses of the rules' refusals that an Idempotency-Key keeps."""


def begin_on_table(
    table_id: str, key: str, seal: str | None = None, tokened: bool = True
) -> Pending | Response:
    """:func:`begin` for a move on ``table_id`` with the Idempotency-Key ``key``
    (the record is this token's, listed in its index on the table; ``seal``:
    its answer is encrypted with it). A move that is not ``tokened`` (a
    join: it needs no token) keeps its record under ``-`` whatever
    ``Authorization`` it came with, under its caller's scope
    (:func:`anonymous_scope`): a made-up bearer value must not open a
    scope of its own, which no cap reaches; the table's delete finds the
    callers' scopes through their index (``storage.idempotency``)."""
    scope = token_scope() if tokened else anonymous_scope()
    pending = begin(records.table_record_key(table_id, scope, key), seal)
    if isinstance(pending, Pending):
        pending.table = (table_id, scope)
    return pending


def delete_table(table_id: str, auth_record: dict[str, Any]) -> bool:
    """Delete ``table_id`` with every idempotency record of its tokens (those
    of ``auth_record``, the table's) and of its creation."""
    # "-": the index of the joins' callers' indexes (and an older release's
    # answers of joins).
    scopes = [digest_of_stored(d).hex() for d in [auth_record["h"], *auth_record["s"]] if d]
    scopes.append(records.ANONYMOUS_SCOPES)
    ref = referee()
    return ref.idempotency.delete_table(ref.store, table_id, scopes)


def forget_token(table_id: str, stored: str) -> None:
    """Delete the answers kept for a token of ``table_id`` that no longer
    works (``stored``: its digest as the auth record kept it); best effort:
    they expire by themselves."""
    with contextlib.suppress(redis.RedisError):
        referee().idempotency.forget_token(table_id, digest_of_stored(stored).hex())


def begin(record_key: str, seal: str | None = None) -> Pending | Response:
    """Take the key ``record_key`` for this request: a :class:`Pending` to run,
    or the answer to give now (a replay). Raises 409 ``idempotency-key-in-use``
    and 422 ``idempotency-key-reused``."""
    ref = referee()
    fingerprint = _fingerprint()
    lock = "L" + json.dumps({"fp": fingerprint, "id": secrets.token_hex(8)})
    held = ref.idempotency.begin(
        record_key, lock, int(ref.settings.idempotency_lock_seconds * 1000)
    )
    if held is None:
        return Pending(record_key, fingerprint, lock, seal)
    return answer_held(held, fingerprint, seal)


def answer_held(held: bytes | str, fingerprint: str, seal: str | None) -> Response:
    """The answer to a request whose key already holds ``held`` (a lock, or a
    record of :mod:`.recorded`)."""
    held = held.encode() if isinstance(held, str) else held
    if held.startswith(b"L"):
        if json.loads(held[1:])["fp"] != fingerprint:
            raise _reused()
        raise Problem(
            409,
            "idempotency-key-in-use",
            "A request with this Idempotency-Key is still being processed; retry shortly.",
            headers={"Retry-After": "1"},
        )
    answer = recorded.decode(held)
    if not answer.same_request(fingerprint):
        raise _reused()
    text = answer.body
    if answer.sealed:
        assert seal is not None
        text = _fernet(seal).decrypt(text)
    # Serialised as the first answer was, byte for byte: a problem as
    # Problem.response writes it, a success as flask-smorest (jsonify) does.
    if answer.status >= 400:
        response = Response(
            json.dumps(json.loads(text)), status=answer.status, mimetype=PROBLEM_JSON
        )
    else:
        response = cast(Response, current_app.json.response(json.loads(text)))
        response.status_code = answer.status
    for name, value in answer.headers.items():
        response.headers[name] = value
    response.headers[REPLAYED] = "true"
    return response


def _reused() -> Problem:
    return Problem(
        422,
        "idempotency-key-reused",
        "This Idempotency-Key was already used with a different request.",
    )


def table_record_key(table_id: str, key: str) -> str:
    """The record key of ``key`` on ``table_id`` for this request's token."""
    return records.table_record_key(table_id, token_scope(), key)
