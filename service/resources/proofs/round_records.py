"""A finished round's record (RULES.md 5.2; HTTP only, no game named).

Redis keeps a round's record compactly (:mod:`service.games.record`); the
answer is rendered from it, with a strong ``ETag``, a long
``Cache-Control`` once nothing can change it, and compressed when the
client asks (``Accept-Encoding``: zstd, br, gzip, deflate) by
flask-compress, which also gives each content coding its own strong
``ETag`` (``"…:gzip"``).

The ``ETag`` of a round that is over and closed (nothing can change its
record any more) is derived from what names the record for good: the table,
its creation, the round, and the release that renders it
(:func:`settled_etag`); so a revalidation (304) reads the table and whether
the record is still kept, never the record itself. A record that may still
change (a release that keeps no record wrote its table since) is tagged by
a hash of what is kept of it.

Each process keeps the newest rendered and compressed records by ETag
(:data:`CACHE_BYTES` each): the ETag covers everything the answer is made
of, so a kept text is the answer. A record rendered anew (not kept) is
charged to its caller's ``RATE_LIMIT_RECORD_CHECKS`` budget, a unit per
:data:`RENDER_UNIT` entries: cycling through more records than the cache
holds costs the caller, not everyone.
"""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any

from cachetools import LRUCache
from flask import Flask, Response, g, request
from flask.views import MethodView
from flask_compress import Compress

from ...edge import limits
from ...edge.common import check_table_id, documented, referee
from ...edge.problems import Problem
from ...games import game_of
from ...games.record import parse_header
from ...games.record_render import render
from ...spec.links import operation
from ...storage.records import ChainState
from ...version import release
from ..moves import load
from .endpoints import blp
from .schemas import RecordSchema

compress = Compress()

RENDERING = f"record/2 {release()}"
"""What the ``ETag`` of a record hashes besides what Redis keeps: the
release that renders it (another may render the same kept record otherwise)."""

FOREVER = "public, max-age=31536000, immutable"
"""``Cache-Control`` of a record nothing can change any more."""

SHORTLY = "public, max-age=60"
"""``Cache-Control`` of a record that may still learn of moves missing from
it (a release that keeps no record wrote its table last)."""

ALGORITHMS = ("zstd", "br", "gzip", "deflate")
"""The content codings offered (flask-compress's ``COMPRESS_ALGORITHM``)."""

RENDER_UNIT = 250
"""Entries of a record per unit charged when it is rendered anew (some 4 ms
of rendering): :meth:`.limits.RateLimits.charge_record_work`."""

CACHE_BYTES = 16 * 2**20
"""How many bytes of rendered records a process keeps (the newest used), and
as many of their compressed forms: a record nothing can change any more is
rendered and compressed once per process, not per reader (a 2,000-entry
record is some 30 ms to render and 10 ms to compress, 380 KB)."""


class Rendered:
    """A byte-bounded LRU of texts by key (cachetools), safe across threads;
    flask-compress's cache backend (``get``, ``set``) too."""

    def __init__(self, budget: int) -> None:
        self._held: LRUCache[str, bytes] = LRUCache(maxsize=budget, getsizeof=len)
        self._lock = threading.Lock()

    def get(self, key: str) -> bytes | None:
        with self._lock:
            return self._held.get(key)

    def set(self, key: str, value: bytes) -> None:
        if key.endswith(";") or len(value) > self._held.maxsize // 4:
            return  # no ETag to keep it by; or one record pushing out all the others
        with self._lock:
            self._held[key] = value


RENDERED = Rendered(CACHE_BYTES)
COMPRESSED = Rendered(CACHE_BYTES)


def _compressed_key(_: Any) -> str:
    """flask-compress's cache key: the record's ETag (with the coding it adds)."""
    return str(g.get("record_etag", ""))


def init_app(app: Flask) -> None:
    """Compression for the record's view only (``COMPRESS_REGISTER`` off),
    its results kept by ETag (:data:`COMPRESSED`)."""
    app.config.setdefault("COMPRESS_REGISTER", False)
    app.config.setdefault("COMPRESS_ALGORITHM", list(ALGORITHMS))
    app.config.setdefault("COMPRESS_MIMETYPES", ["application/json"])
    app.config.setdefault("COMPRESS_CACHE_BACKEND", lambda: COMPRESSED)
    app.config.setdefault("COMPRESS_CACHE_KEY", _compressed_key)
    compress.init_app(app)


def record_text(table_id: str, round_no: int) -> tuple[bytes, dict[str, Any], str]:
    """Round ``round_no``'s record once the round is over: its JSON text,
    its strong ``ETag`` (unquoted) and its ``Cache-Control``, the text
    rendered only when the request's ``If-None-Match`` does not match (then
    ``b""``). 404 ``round-not-found``, 409 ``round-not-over`` while it is
    played (its secret is never shown before), 404 ``record-not-found``
    when it is not kept."""
    loaded = load(table_id)
    table = loaded.table
    game = game_of(table)
    finished, held = game.rounds_of(table)
    ended = game.ended_round(table)
    if round_no < 1 or round_no > finished + 1:
        raise Problem(404, "round-not-found", f"This table has no round {round_no}.")
    if round_no > finished and ended is None:
        raise Problem(
            409,
            "round-not-over",
            f"Round {round_no} is not over: its record (and its secret) is shown once it is.",
        )
    store = referee().store
    chain = ChainState.parse(loaded.chain)
    created = loaded.auth.get("c")
    if (
        round_no <= finished
        and not (chain is not None and chain.round == round_no and not chain.over)
        and isinstance(created, int)
    ):
        # Over and closed: nothing can change it any more, so its tag is
        # derived from what names it (no read of it, no hash of it).
        etag = settled_etag(table_id, created, round_no)
        text = b"" if _matches(etag) else RENDERED.get(etag)
        if text is not None:  # a revalidation, or a text this process keeps
            if not store.round_record_kept(table_id, round_no):
                raise _not_kept(round_no)
            if text:
                g.record_etag = etag
            return text, {"etag": etag, "cache": FOREVER}, etag
    else:
        etag = ""
    kept = store.round_record(table_id, round_no)
    result = None
    if round_no > finished:
        result = ended
    elif round_no == finished and held:
        result = game.round_result(table, held[-1])
    else:
        page = referee().store.rounds(table_id, round_no - 1, 1)
        if page.rounds and page.rounds[0][0] == round_no:
            result = game.round_result(page.table, page.rounds[0][1])
    header = None if kept is None else parse_header(kept[0])
    if kept is None or header is None or result is None:
        raise _not_kept(round_no)
    _, items, still_open = kept
    trailing = None
    settled = True
    if still_open and chain is not None and chain.round == round_no and not chain.over:
        settled = False
        if chain.version != loaded.version:
            # Written since by a release that keeps no record, the round not
            # over before: its last moves may be missing.
            trailing = {"writes": loaded.version - chain.version, "seats": []}
    if not etag:
        digest = hashlib.sha256(RENDERING.encode())
        for part in (kept[0], *items, json.dumps([result, trailing], sort_keys=True).encode()):
            digest.update(len(part).to_bytes(4, "big") + part)
        etag = digest.hexdigest()[:32]
    cache = FOREVER if settled and trailing is None else SHORTLY
    if _matches(etag):
        return b"", {"etag": etag, "cache": cache}, etag
    g.record_etag = etag
    text = RENDERED.get(etag)
    if text is None:
        # Rendered anew: whole-record work, on the caller's budget.
        limits.charge_record_work(-(-(len(items) + 1) // RENDER_UNIT))
        record = render(table_id, round_no, header, items, result, trailing)
        text = json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode()
        RENDERED.set(etag, text)
    return text, {"etag": etag, "cache": cache}, etag


def settled_etag(table_id: str, created_ms: int, round_no: int) -> str:
    """The strong ``ETag`` (unquoted, 32 hex) of the record of a round that
    is over and closed: what names that record for good (the table, its
    creation, the round) and :data:`RENDERING` (the release that renders
    it), hashed. Computed without reading the record."""
    digest = hashlib.sha256(f"{RENDERING}\0settled\0{table_id}\0{created_ms}\0{round_no}".encode())
    return digest.hexdigest()[:32]


def _not_kept(round_no: int) -> Problem:
    return Problem(
        404,
        "record-not-found",
        f"Round {round_no}'s record is not kept: a table keeps its newest "
        f"{referee().store.records_kept} records, of rounds dealt by this release.",
    )


def _matches(etag: str) -> bool:
    """Whether ``If-None-Match`` names this record in any content coding
    (flask-compress tags each ``"<etag>:<coding>"``)."""
    wanted = request.if_none_match
    if not wanted:
        return False
    return any(wanted.contains_weak(t) for t in (etag, *(f"{etag}:{a}" for a in ALGORITHMS)))


HEADERS = {
    "ETag": {"$ref": "#/components/headers/ETAG"},
    "Cache-Control": {
        "description": "`public, max-age=31536000, immutable` once nothing can change the "
        "record; `public, max-age=60` while moves may yet be found missing from it.",
        "schema": {"type": "string"},
    },
    "Content-Encoding": {
        "description": "`zstd`, `br`, `gzip` or `deflate` when `Accept-Encoding` asked "
        "(`Vary: Accept-Encoding`); each coding has its own strong `ETag`.",
        "schema": {"type": "string"},
    },
}
"""The headers of a record's answer, for the spec."""


@blp.route("/<table_id>/rounds/<int:round_no>/record")
class Record(MethodView):
    @blp.response(200, RecordSchema, headers=HEADERS)
    @blp.alt_response(304, response="NOT_MODIFIED")
    @blp.doc(parameters=["IF_NONE_MATCH"], **operation("getRoundRecord"))
    @documented(blp, 404, 409)
    @compress.compressed()
    def get(self, table_id: str, round_no: int) -> Response:
        """Read a finished round's record (public)

        Everything needed to check and replay the round (RULES.md 5.2,
        [deal proofs](/docs/guide/deal-proofs)): the table, the release
        and the rules' version that made it, the options and seats, the
        table as it stood before the deal (`start_state`, the game's stored
        form), the deal's body and what was dealt (hands, stock or set-aside
        cards), the proof (the commitment, the secret it commits to, every
        seat's seed, the game and options the starting deck follows from,
        each shuffle's deck and order, each rebuilt stock), every accepted
        move in order with its seat, author (`by`), time (`at_ms`) and
        `link` in the chain of moves, the moves missing from it, if any,
        and the result. A round the host ended is shown at once, marked
        `abandoned`. `referee verify` and `referee replay` check it;
        `POST /v1/checks/deal-proof` too. A strong `ETag` (`If-None-Match`
        gives 304), `Cache-Control: public` with a year's `max-age` once
        nothing can change it, and zstd, brotli, gzip or deflate when
        `Accept-Encoding` asks. 409 `round-not-over` while the round is
        played (its secret is never shown before), 404 `record-not-found`
        for a round whose record is not kept (the newest 20 are). A record
        this instance renders anew counts on the caller's
        `RATE_LIMIT_RECORD_CHECKS` (one per started 250 entries; 429
        `rate-limited` once spent); a 304 never does.
        """
        check_table_id(table_id)
        text, meta, etag = record_text(table_id, round_no)
        headers = {"Cache-Control": meta["cache"]}
        if not text:
            answer = Response(status=304, headers=headers)
            answer.set_etag(_matched(etag))
            return answer
        answer = Response(text, 200, headers, mimetype="application/json")
        answer.set_etag(etag)
        return answer


def _matched(etag: str) -> str:
    """The tag of ``If-None-Match`` that names this record (with its coding)."""
    for tag in (*(f"{etag}:{a}" for a in ALGORITHMS), etag):
        if request.if_none_match.contains_weak(tag):
            return tag
    return etag
