"""Rate limits (flask-limiter, counters in the service's Redis).

| limit | key | setting |
|---|---|---|
| requests with a token, every route together | the token's hash | ``RATE_LIMIT_PER_TOKEN`` |
| requests without a token, every route together | the client address | ``RATE_LIMIT_ANONYMOUS`` |
| ``POST /v1/tables`` | the client address | ``RATE_LIMIT_TABLES`` |
| refused claims (4xx of ``POST …/claims``) | the token's hash | ``RATE_LIMIT_FAILED_CLAIMS`` |

Over a limit the answer is 429 ``rate-limited`` with ``Retry-After`` (seconds
until the window resets). Every limit uses the fixed-window strategy: one Lua
call (``INCR`` and ``EXPIRE``) per request; on one Redis server, a request
that reads a table sends that read in the same round trip (:mod:`.prefetch`),
so the limit costs no round trip of its own. The table and claim limits add
theirs only on their route. Health checks, metrics and the spec are not
limited. Counters are keyed by the token's SHA-256, never the token.
"""

from __future__ import annotations

import math
import time
from typing import Any

from flask import Flask, Response, request
from flask_limiter import ApplicationLimit, Limiter, RateLimitExceeded
from redis.cluster import RedisCluster

from ..config import Settings
from ..storage.client import Client, cluster_call_options, parse_cluster_url
from . import prefetch
from .auth import token_hash
from .problems import Problem

UNLIMITED_ENDPOINTS = {
    "health.Health",
    "health.Ready",
    "metrics",
    "openapi_yaml",
    "api-docs.openapi_json",
}


def _token() -> str | None:
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def caller_key() -> str:
    """Whose counter a request counts on: its token's hash, else its address."""
    token = _token()
    return f"token:{token_hash(token)}" if token else f"addr:{request.remote_addr}"


def client_address() -> str:
    """The client's address (``TRUSTED_PROXIES`` says how far to trust X-Forwarded-For)."""
    return f"addr:{request.remote_addr}"


def _unlimited() -> bool:
    return request.endpoint in UNLIMITED_ENDPOINTS or request.endpoint is None


def cluster_storage(url: str, timeout_seconds: float) -> dict[str, Any]:
    """flask-limiter's storage for the Redis Cluster of ``url`` (any form the
    service takes: ``rediss+cluster://``, seeds without a port, an encoded
    password): the limits library wants ``redis+cluster://host:port,…`` and
    takes credentials, TLS, timeouts and retries as options."""
    nodes, options = parse_cluster_url(url)
    hosts = ",".join(f"[{h}]:{p}" if ":" in h else f"{h}:{p}" for h, p in nodes)
    return {
        "storage_uri": f"redis+cluster://{hosts}",
        "storage_options": {**options, **cluster_call_options(timeout_seconds)},
    }


def init_app(app: Flask, settings: Settings, client: Client) -> Limiter:
    """Attach the limiter to ``app``: on one server it shares ``client``'s
    connection pool, and a request's table read rides on its counter's round
    trip (:mod:`.prefetch`); on a Redis Cluster it keeps its counters in the same
    cluster through the limits library's own cluster storage."""
    if isinstance(client, RedisCluster):
        assert settings.redis_url is not None  # a cluster client comes from a cluster URL
        storage = cluster_storage(settings.redis_url, settings.redis_timeout_seconds)
    else:
        storage = {
            "storage_uri": "referee+redis://",
            "storage_options": {"connection_pool": client.connection_pool},
        }

    def creating() -> bool:
        return request.method == "POST" and request.endpoint == "tables.Tables"

    def claiming() -> bool:
        return request.method == "POST" and request.endpoint == "tables.Claims"

    if not isinstance(client, RedisCluster):
        app.before_request(prefetch.plan)  # before the limiter's own hook
    limiter = Limiter(
        caller_key,
        app=app,
        **storage,
        strategy="fixed-window",
        key_prefix="referee-limits",
        headers_enabled=False,
        application_limits=[
            ApplicationLimit(
                settings.rate_limit_per_token,
                key_function=caller_key,
                scope="token",
                exempt_when=lambda: _unlimited() or _token() is None,
            ),
            ApplicationLimit(
                settings.rate_limit_anonymous,
                key_function=caller_key,
                scope="anonymous",
                exempt_when=lambda: _unlimited() or _token() is not None,
            ),
            ApplicationLimit(
                settings.rate_limit_tables,
                key_function=client_address,
                scope="tables",
                exempt_when=lambda: not creating(),
            ),
            ApplicationLimit(
                settings.rate_limit_failed_claims,
                key_function=caller_key,
                scope="failed-claims",
                exempt_when=lambda: not claiming(),
                deduct_when=lambda response: 400 <= response.status_code < 500,
            ),
        ],
    )

    @app.errorhandler(RateLimitExceeded)
    def _limited(error: RateLimitExceeded) -> Response:
        current = limiter.current_limit
        wait = max(1, math.ceil(current.window.reset_time - time.time())) if current else 1
        return Problem(
            429,
            "rate-limited",
            f"Too many requests ({error.limit.limit}); retry in {wait} s.",
            headers={"Retry-After": str(wait)},
        ).response()

    return limiter
