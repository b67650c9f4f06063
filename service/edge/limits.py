"""Rate limits, counted with the ``limits`` library from one hook of our own.

| limit | key | setting |
|---|---|---|
| requests with a valid token of the table they name | the token's hash | ``RATE_LIMIT_PER_TOKEN`` |
| every other request (see below) | the client address | ``RATE_LIMIT_ANONYMOUS`` |
| ``POST /v1/tables`` | the client address | ``RATE_LIMIT_TABLES`` |
| ``POST /v1/tables/{id}/join`` | the client address | ``RATE_LIMIT_TABLES`` (its own counter) |
| refused claims (4xx of ``POST …/claims``) | the token's hash | ``RATE_LIMIT_FAILED_CLAIMS`` |
| ``POST /v1/checks/deal-proof``, a record rendered | the address | ``RATE_LIMIT_RECORD_CHECKS`` |
| every request, with a token or not | the client address | ``RATE_LIMIT_PER_ADDRESS`` |

A client address is an IPv4 address, or an IPv6 address's /64 (one
subscriber's block: :mod:`service.addresses`).

The record check has its own counter because one costs up to some 40 ms
(a whole round's record, up to 1 MiB: its chain of 2,000 moves and its
shuffles recomputed), where a move costs 2 or 3; it counts one unit per
started 64 KiB of its ``Content-Length``, before the body is read (reading
1 MiB of empty objects or deep lists costs 240-350 ms); a record's moves are run
again too, one unit more per started 250 beyond the first (some 40 ms
each: :data:`.proofs.MOVES_UNIT`). A round record that a
process renders anew (not in its cache) counts there too, one per started
250 entries (:meth:`RateLimits.charge_record_work`): a 2,000-move record is
some 30 ms to render, so cycling through more records than the cache holds
is held by the same budget. The last row bounds all
that one address does, whatever tokens it holds: a
token's limit alone multiplies with the tokens an address can make (ten
tables a minute of up to eleven tokens each). It rides in the same pipeline
as the others (no round trip of its own on one Redis server; on a cluster,
one more, as every counter there).

**Client keys.** A front end's own server speaks for many players from one
address: it sends its client key (``referee keys create``;
:mod:`service.storage.client_keys`) in ``Referee-Client-Key``, and the key's
own quotas replace the address's counters:

- every request with the key, in place of the address's two counters:
  the key's ``requests_per_second`` (else ``CLIENT_KEY_REQUESTS_PER_SECOND``);
- ``POST /v1/tables`` and ``POST …/join``, a counter each: the key's
  ``tables_per_minute`` (else ``CLIENT_KEY_TABLES_PER_MINUTE``);
- ``POST /v1/checks/deal-proof``: ``RATE_LIMIT_RECORD_CHECKS``, counted for
  the key instead of the address.

A token's own counter and the refused-claims one still apply. The key is
looked up on every request (one ``HGET`` before the pipeline; never cached,
so a revoked key is refused at once everywhere). An unknown or revoked key
is 401 ``client-key-unknown``, after counting the request on its address as
a caller without a key would (so guessing keys is held by the address's
budget). The key never reaches a counter's name, a log line or a metric: a
counter is named by the key's name.

**A missing token is told first.** A request to an operation whose only
security is a bearer token (``SECURITY`` in its documentation) that carries no
``Bearer`` value is answered 401 ``token-missing`` or ``token-malformed``
before any counter: no Redis, no body read, cheaper than counting it, and
the caller learns what it must fix rather than to wait (429).

"Every other request": no token, a bearer value that is not a token of the
table, a route that names no table, a request that matches no route.

Over a limit the answer is 429 ``rate-limited`` with ``Retry-After`` (seconds
until the window resets). Over a limit of all an address's requests (its
anonymous ones, or every one), the gevent worker that answered refuses the
address itself, before the app, until then (:func:`service.budgets.cool`).
Every limit is a fixed window: the ``limits`` library's ``incr_expire``
script (``INCRBY``, ``EXPIRE`` on the first hit) on the keys flask-limiter
used before (``LIMITS:LIMITER/referee-limits/<who>/<scope>/<amount>/
<multiples>/<unit>``), so counters carry over a deploy.
Health checks, metrics and ``OPTIONS`` (a browser's CORS preflight,
which reads nothing) are not limited; a request that matches no
route (an unknown path or method) is, on its address.

**Which counter.** A token is known valid only once its table is read. A
request that names a table and carries a bearer value counts on the token's
counter, and the table's read rides in the same pipeline (one round trip, on
one Redis server: :mod:`.prefetch`). When the read shows that the value is not
a token of that table (junk, another table's, a table that does not exist),
the request also counts on its address's anonymous counter (one more round
trip, paid only by such requests) and is refused when that is spent. So a
flood of made-up bearer values is held by the address's budget, whatever
route it hits, and a valid token never spends the address's budget (players
behind one NAT do not share it). A request that names no table cannot carry
a token of its table: it counts on its address, whatever bearer value it
sends. The refused-claims counter is read in the same pipeline, and
incremented after a claim with a token of the table answered 4xx. A made-up
bearer value leaves at most one counter key of its own, for one window of
``RATE_LIMIT_PER_TOKEN`` (a second by default).

On a Redis Cluster the counters are in other slots than the table: they go
through the library's cluster storage (a round trip each), then the table is
read (one round trip), and the view uses that read.
"""

from __future__ import annotations

import hmac
import json
import math
import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import redis
from flask import Flask, Response, current_app, g, request
from limits import RateLimitItem, RateLimitItemPerMinute, RateLimitItemPerSecond, parse
from limits.storage import RedisStorage
from redis.cluster import RedisCluster

from .. import budgets
from ..addresses import address_key
from ..config import Settings
from ..storage.client import Client
from ..storage.client_keys import ClientKey, ClientKeys
from ..storage.quota import KEY_PREFIX, limits_storage
from ..storage.store import table_key
from . import prefetch
from .auth import digest_of_stored, require_token, token_digest, token_hash
from .common import SECURITY, TABLE_ID, referee
from .inputs import MAX_BODY, RECORD_BODY
from .problems import Problem

UNLIMITED_ENDPOINTS = {"health.Health", "health.Ready", "metrics"}
"""What no rate limit counts (probes and the scraper; the spec counts: issue 39)."""
CLIENT_KEY_HEADER = "Referee-Client-Key"
"""The header a front end's server sends its client key in."""


def _token() -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def caller_key() -> str:
    """Whose counter a request with a token counts on: its token's hash, else its address."""
    token = _token()
    return f"token:{token_hash(token)}" if token else client_address()


def client_address() -> str:
    """The client's address as a quota key (``addr:…``, an IPv6 address's
    /64: :func:`service.addresses.address_key`); ``TRUSTED_PROXIES`` says how
    far to trust X-Forwarded-For."""
    return address_key(request.remote_addr)


def token_of(auth_text: bytes | str | None, token: str) -> bool:
    """Whether ``token`` is the host's or a seat's token in the stored auth
    record ``auth_text`` (None: no such table). Every digest is compared."""
    if auth_text is None:
        return False
    digest = token_digest(token)
    found = False
    for one in _record_digests(auth_text):
        found |= hmac.compare_digest(digest, one)
    return found


@lru_cache(maxsize=4096)
def _record_digests(auth_text: bytes | str) -> tuple[bytes, ...]:
    """The digests of an auth record (none when it is damaged), kept for the
    tables in play: a table's record is the same for every request to it."""
    try:
        auth = json.loads(auth_text)
        stored = [auth["h"], *auth["s"]]
        return tuple(digest_of_stored(one) for one in stored)
    except (ValueError, KeyError, TypeError):
        return ()


@dataclass(frozen=True, slots=True)
class Counter:
    """One limit on one caller: the limit and its key (without the storage's prefix)."""

    limit: RateLimitItem
    key: str
    units: int = 1
    """What this request counts on it."""


class RateLimits:
    """The service's limits on ``client``'s Redis (see the module docstring)."""

    def __init__(self, settings: Settings, client: Client) -> None:
        self.client = client
        self.settings = settings
        self.keys = ClientKeys(client)
        self.cluster = isinstance(client, RedisCluster)
        self.per_token = parse(settings.rate_limit_per_token)
        self.anonymous = parse(settings.rate_limit_anonymous)
        self.tables = parse(settings.rate_limit_tables)
        self.failed_claims = parse(settings.rate_limit_failed_claims)
        self.record_checks = parse(settings.rate_limit_record_checks)
        self.per_address = parse(settings.rate_limit_per_address)
        self._bearer_only: frozenset[tuple[str, str]] | None = None
        self.storage: RedisStorage = limits_storage(
            client,
            settings.redis_url,
            settings.redis_timeout_seconds,
            settings.redis_max_connections,
            settings.redis_pool_timeout_seconds,
        )

    def counter(self, limit: RateLimitItem, who: str, scope: str, units: int = 1) -> Counter:
        return Counter(limit, limit.key_for(KEY_PREFIX, who, scope), units)

    def address_counter(self, address: str, key: ClientKey | None = None) -> Counter:
        """The counter of every request from ``address``; with a client
        ``key`` (a front end's own server, many players behind one address),
        the key's requests counter in its place."""
        if key is not None:
            per_second = key.requests_per_second or self.settings.client_key_requests_per_second
            return self.counter(RateLimitItemPerSecond(per_second), f"client:{key.name}", "client")
        return self.counter(self.per_address, address, "address")

    def tables_counter(self, address: str, scope: str, key: ClientKey | None = None) -> Counter:
        """The counter of table creations (``scope`` ``tables``) or joins
        (``joins``) from ``address``, or of the client ``key``."""
        if key is not None:
            per_minute = key.tables_per_minute or self.settings.client_key_tables_per_minute
            return self.counter(RateLimitItemPerMinute(per_minute), f"client:{key.name}", scope)
        return self.counter(self.tables, address, scope)

    def client_key(self, req: Any) -> ClientKey | None:
        """The request's client key (``None`` without one); an unknown or
        revoked key is noted (``g.client_key_refused``) and counts as none."""
        sent = req.headers.get(CLIENT_KEY_HEADER)
        if sent is None:
            return None
        found = self.keys.find(sent.strip())
        if found is None:
            g.client_key_refused = True
        else:
            g.client_key = found
        return found

    def _refuse(self, counter: Counter) -> Problem:
        reset = self.storage.get_expiry(counter.key)
        wait = max(1, math.ceil(reset - time.time()))
        return Problem(
            429,
            "rate-limited",
            f"Too many requests ({counter.limit}); retry in {wait} s.",
            headers={"Retry-After": str(wait)},
        )

    def check(self) -> None:
        """Before every request: count it, read its table on the way, or 429."""
        req = request._get_current_object()  # type: ignore[attr-defined]  # one proxy lookup
        endpoint = req.endpoint
        if endpoint in UNLIMITED_ENDPOINTS or req.method == "OPTIONS":
            return  # OPTIONS: a browser's preflight, answered without Redis (.cors)
        token = _token()
        if token is None:
            if self._bearer_only is None:  # the app's routes are all registered by now
                self._bearer_only = bearer_only_operations(current_app)
            if (endpoint, req.method) in self._bearer_only:
                require_token()  # 401, before any counting (module docstring)
        address = address_key(req.remote_addr)  # client_address()
        key = self.client_key(req)
        table_id = (req.view_args or {}).get("table_id")
        if not (isinstance(table_id, str) and TABLE_ID.fullmatch(table_id)):
            table_id = None
        by_token = token is not None and table_id is not None
        hits = []
        if by_token and token is not None:
            hits.append(self.counter(self.per_token, f"token:{token_hash(token)}", "token"))
        elif key is None:
            hits.append(self.counter(self.anonymous, address, "anonymous"))
        by_address = self.address_counter(address, key)
        hits.append(by_address)
        # The counters of all the address's requests (anonymous, or any):
        # not one token's or endpoint's. A refusal by one stops the address.
        whole = hits[-2:] if key is None and not by_token else hits[-1:]
        post = req.method == "POST"
        if post and endpoint == "tables.Tables":
            hits.append(self.tables_counter(address, "tables", key))
        elif post and endpoint == "seats.Join":  # its own counter, as many as creations
            hits.append(self.tables_counter(address, "joins", key))
        elif post and endpoint == "checks.CheckProof":
            who = address if key is None else f"client:{key.name}"
            # A unit per started 64 KiB, before the body is read: a 1 MiB body
            # of empty objects or deep lists cost 240-350 ms to read (issue 39,
            # thirteenth attacker: 60 of them a minute held others' /readyz 1 s).
            length = req.content_length or 0  # over the endpoint's limit: 413, unread
            units = max(1, -(-length // MAX_BODY)) if length <= RECORD_BODY else 1
            hits.append(self.counter(self.record_checks, who, "record-checks", units))
        tested = None
        if post and endpoint == "tables.Claims":
            tested = self.counter(self.failed_claims, caller_key(), "failed-claims")
            g.failed_claims = tested
        reads = table_id is not None and endpoint not in prefetch.NOT_READING
        counts, failed, read, auth_text = self._send(
            hits, tested, table_id if reads else None, table_id if by_token and not reads else None
        )
        for counter, count in zip(hits, counts, strict=True):
            if count > counter.limit.amount:
                refusal = self._refuse(counter)
                if key is None and counter in whole:
                    # The address is over a limit of all its requests (over
                    # every instance): this process's workers refuse it before
                    # the app until then (service.budgets).
                    budgets.cool(address, float(refusal.headers["Retry-After"]))
                raise refusal
        if tested is not None and failed >= tested.limit.amount:
            raise self._refuse(tested)
        if g.get("client_key_refused"):
            raise Problem(
                401,
                "client-key-unknown",
                f"The {CLIENT_KEY_HEADER} header holds no key this service issued (unknown, "
                "revoked, or mistyped); send a key from `referee keys create`, or none.",
            )
        if read is not None:
            assert table_id is not None
            g.table_read = prefetch.TableRead(table_id, sent=True, read=read)
            auth_text = read.replies[0][3]
        if by_token and token is not None and key is None and not token_of(auth_text, token):
            # Not the table's token: no refused-claims counter of its own
            # (a new key per made-up value); its address's budget holds it.
            g.pop("failed_claims", None)
            anonymous = self.counter(self.anonymous, address, "anonymous")
            if self.storage.incr(anonymous.key, anonymous.limit.get_expiry()) > (
                anonymous.limit.amount
            ):
                raise self._refuse(anonymous)

    def _send(
        self,
        hits: list[Counter],
        tested: Counter | None,
        read_id: str | None,
        auth_id: str | None,
    ) -> tuple[list[int], int, Any, Any]:
        """Count ``hits``, read ``tested``'s counter, read the table
        ``read_id`` (as :meth:`TableStore.load` does) or only the auth record
        of ``auth_id``: in one pipeline on one server. Returns the counts,
        ``tested``'s count, the read (a ``Prefetched``, or None when it failed)
        and the auth record read alone."""
        store = referee().store
        if self.cluster:
            counts = [self.storage.incr(c.key, c.limit.get_expiry(), c.units) for c in hits]
            failed = self.storage.get(tested.key) if tested is not None else 0
            read = auth_text = None
            if read_id is not None:
                pipe = self.client.pipeline(transaction=False)
                read = store.queue_load(pipe, read_id)(pipe.execute())
            elif auth_id is not None:
                auth_text = self.client.hget(table_key(auth_id), "a")
            return counts, failed, read, auth_text
        storage = self.storage
        pipe = self.client.pipeline(transaction=False)
        for c in hits:
            pipe.evalsha(
                storage.lua_incr_expire.sha,
                1,
                storage.prefixed_key(c.key),
                c.limit.get_expiry(),
                c.units,
            )
        if tested is not None:
            pipe.get(storage.prefixed_key(tested.key))
        prefetched = store.queue_load(pipe, read_id) if read_id is not None else None
        if auth_id is not None:
            pipe.hget(table_key(auth_id), "a")
        replies = pipe.execute(raise_on_error=False)
        counts = []
        for c, reply in zip(hits, replies, strict=False):
            if isinstance(reply, redis.exceptions.NoScriptError):
                # Redis lost its script cache (a restart): the library loads it.
                reply = storage.incr(c.key, c.limit.get_expiry(), c.units)
            if isinstance(reply, Exception):
                raise reply
            counts.append(int(reply))
        rest = replies[len(hits) :]
        failed = 0
        if tested is not None:
            reply, rest = rest[0], rest[1:]
            if isinstance(reply, Exception):
                raise reply
            failed = int(reply or 0)
        read = auth_text = None
        if prefetched is not None and not any(isinstance(r, Exception) for r in rest):
            read = prefetched(rest)
        if auth_id is not None:
            if isinstance(rest[0], Exception):
                raise rest[0]
            auth_text = rest[0]
        return counts, failed, read, auth_text

    def charge_record_work(self, units: int) -> None:
        """Count ``units`` more on the caller's record-checks counter (its
        client key's, else its address's; ``RATE_LIMIT_RECORD_CHECKS``):
        whole-record work a request set in motion beyond a move's, such as a
        round record rendered anew. 429 ``rate-limited`` once it is spent."""
        key: ClientKey | None = g.get("client_key")
        who = client_address() if key is None else f"client:{key.name}"
        counter = self.counter(self.record_checks, who, "record-checks")
        if self.storage.incr(counter.key, counter.limit.get_expiry(), units) > (
            counter.limit.amount
        ):
            raise self._refuse(counter)

    def after(self, response: Response) -> Response:
        """After a claim answered 4xx: count it on the refused-claims counter."""
        tested: Counter | None = g.pop("failed_claims", None)
        if tested is not None and 400 <= response.status_code < 500:
            self.storage.incr(tested.key, tested.limit.get_expiry())
        return response


def bearer_only_operations(app: Flask) -> frozenset[tuple[str, str]]:
    """``(endpoint, METHOD)`` of every operation of ``app`` whose only
    security is the bearer token (documented ``security=SECURITY``; the seat
    stream, which also takes a ticket, is not one)."""
    found = set()
    for endpoint, view in app.view_functions.items():
        view_class = getattr(view, "view_class", None)
        for method in getattr(view_class, "methods", None) or ():
            doc = getattr(getattr(view_class, method.lower(), None), "_apidoc", {})
            if doc.get("manual_doc", {}).get("security") == SECURITY:
                found.add((endpoint, method))
    return frozenset(found)


def charge_record_work(units: int) -> None:
    """:meth:`RateLimits.charge_record_work` of the app's limits (none: nothing)."""
    found: RateLimits | None = current_app.extensions.get("referee_limits")
    if found is not None:
        found.charge_record_work(units)


def client_name() -> str | None:
    """The name of the request's client key, ``None`` without one."""
    key: ClientKey | None = g.get("client_key")
    return None if key is None else key.name


def init_app(app: Flask, settings: Settings, client: Client) -> RateLimits:
    """Count every request's limits in a ``before_request`` of ``app`` (the
    first the limiter adds: register it before any hook that reads a body)."""
    limits = RateLimits(settings, client)
    app.before_request(limits.check)
    app.after_request(limits.after)
    app.extensions["referee_limits"] = limits
    return limits
