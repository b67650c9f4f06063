"""Settings, read from the environment, typed, with defaults.

| variable | default | meaning |
|---|---|---|
| ``REDIS_URL`` | unset | ``redis[s]://``, ``unix://``, ``redis[s]+cluster://``; unset: embedded |
| ``REFEREE_DATA_DIR`` | ``./referee-data`` | the embedded Redis's data (AOF) and socket |
| ``TABLE_TTL_SECONDS`` | ``604800`` (7 days) | an untouched table expires after this long |
| ``EVENTS_KEPT`` | ``48`` | the newest events kept per table (older: 410 ``events-gone``) |
| ``ROUNDS_KEPT`` | ``100`` | finished rounds kept per table (older: 410 ``rounds-gone``) |
| ``REDIS_TIMEOUT_SECONDS`` | ``1.0`` | connect and command timeout towards Redis |
| ``REDIS_MAX_CONNECTIONS`` | ``64`` | connections of one process to one Redis server |
| ``REDIS_POOL_TIMEOUT_SECONDS`` | ``1.0`` | the wait for a free one (then 503 ``redis-busy``) |
| ``REDIS_PUBSUB`` | ``classic`` | how commits reach streams: ``classic``, ``sharded``; see below |
| ``RETRY_AFTER_SECONDS`` | ``2`` | the ``Retry-After`` sent with a 503 |
| ``IDEMPOTENCY_LOCK_SECONDS`` | ``10`` | how long a running Idempotency-Key request holds its key |
| ``IDEMPOTENCY_RECORDS_PER_TOKEN`` | ``32`` | answers kept per token (or joiner) and table |
| ``RATE_LIMIT_PER_TOKEN`` | ``20/second`` | requests with a token, per token |
| ``RATE_LIMIT_ANONYMOUS`` | ``50/second`` | requests without a token, per client address |
| ``RATE_LIMIT_TABLES`` | ``10/minute`` | table creations per client address |
| ``RATE_LIMIT_FAILED_CLAIMS`` | ``5/minute`` | refused claims per token |
| ``RATE_LIMIT_RECORD_CHECKS`` | ``60/minute`` | deal-proof checks (per 64 KiB), records rendered |
| ``JOIN_CODE_SECONDS`` | ``86400`` (24 h) | a join code's life (never past the table's expiry) |
| ``LOBBY_TABLES_KEPT`` | ``10000`` | the newest listed tables the lobby keeps per preset |
| ``LOBBY_LISTED_PER_ADDRESS`` | ``3`` | listed tables one client address may have at once (429) |
| ``CLIENT_KEY_LOBBY_LISTED`` | ``12`` | listed tables one client key may have at once (429) |
| ``RATE_LIMIT_PER_ADDRESS`` | ``100/second`` | every request of an address (and in each worker) |
| ``TRUSTED_PROXIES`` | ``0`` | proxies in front whose ``X-Forwarded-For`` names the client |
| ``CONNECTIONS_PER_ADDRESS`` | ``100`` | open connections of one address per worker process (429) |
| ``REQUEST_READ_TIMEOUT_SECONDS`` | ``10`` | a request's head and body arrive within this (408) |
| ``RESPONSE_WRITE_TIMEOUT_SECONDS`` | ``30`` | a write with no progress this long closes it |
| ``SOCKET_SEND_BUFFER_BYTES`` | ``131072`` | a connection's kernel send buffer (0: the kernel's) |
| ``REQUESTS_PER_CONNECTION`` | ``1000`` | requests on one keep-alive connection, then it closes |
| ``IN_FLIGHT_PER_ADDRESS`` | ``16`` | one address's requests at once per process (429) |
| ``HOST`` / ``PORT`` | ``127.0.0.1`` / ``8000`` | where ``referee serve`` listens |
| ``WEB_CONCURRENCY`` | ``2`` | gunicorn worker processes |
| ``STREAM_HEARTBEAT_SECONDS`` | ``15`` | a stream's heartbeat after this long without an event |
| ``STREAM_LIFETIME_SECONDS`` | ``300`` | a stream ends after this long (EventSource reconnects) |
| ``STREAM_TICKET_SECONDS`` | ``60`` | how long a seat's stream ticket may wait to be used |
| ``STREAM_MAX_OPEN`` | ``500`` | streams per worker process, at most half its connections (503) |
| ``STREAM_MAX_PER_ADDRESS`` | ``32`` | open streams of one client address, all instances (429) |
| ``STREAM_MAX_PER_TABLE`` | ``32`` | open public streams of one table, all instances (429) |
| ``STREAM_MAX_PER_SEAT`` | ``4`` | open streams of one seat, all instances (429) |
| ``CLIENT_KEY_STREAMS`` | ``2000`` | open streams of one client key, all instances (429) |
| ``STREAM_LEASE_SECONDS`` | ``30`` | how long a dead worker's streams still count in those caps |
| ``PRESENCE_SECONDS`` | ``15`` | a seat is ``connected`` while seen this recently (RULES.md 5.5) |
| ``CLIENT_KEY_TABLES_PER_MINUTE`` | ``600`` | a client key's creations (and joins) a minute |
| ``CLIENT_KEY_REQUESTS_PER_SECOND`` | ``500`` | a client key's requests a second |
| ``RATE_LIMIT_REFEREE_MOVES`` | ``10/second`` | bot and default moves at an address's tables |
| ``CLIENT_KEY_REFEREE_MOVES_PER_SECOND`` | ``100`` | the same at a client key's tables |
| ``DOCS_DIR`` | ``docs`` of the checkout | pages (``*.md``, ``guide/*.md``) at ``/docs/``… |
| ``RULES_DOCS_DIR`` | ``docs/rules`` of the checkout | the rules pages served at ``/docs/rules/`` |
| ``DEPLOY_DOCS_DIR`` | ``deploy`` of the checkout | the pages served at ``/docs/deploy/`` |
| ``CORS_ORIGINS`` | none | the web origins whose pages may call the API (``*``: any); see below |
| ``STORED_FORMAT`` | ``previous`` | the stored formats written: ``previous`` or ``current`` |
| ``REDIS_WAIT_REPLICAS`` | ``0`` | replicas that must hold a move before it is answered; ``all`` |
| ``REDIS_WAIT_TIMEOUT_MS`` | ``500`` | how long a move waits for them (then 503); see below |
| ``JOBS_REDIS_URL`` | ``REDIS_URL``'s | ``referee worker``'s jobs (a Redis, not a cluster) |
| ``WORKER_THREADS`` | ``4`` | ``referee worker``'s job threads (and as many to look at tables) |
| ``WORKER_HEALTH_FILE`` | ``/tmp/referee-worker-alive`` | touched while the worker is healthy |
| ``WORKER_METRICS_PORT`` | ``0`` | ``referee worker``'s ``/metrics`` port (0: none) |

``STORED_FORMAT`` (deploy/README, "Upgrading"): ``previous`` writes the
previous release's stored formats, so that pods of it running beside this
one read everything (an update's expand step); ``current`` writes this
release's, once no pod of the previous release runs (its contract step).

``REDIS_WAIT_REPLICAS`` (N): after each commit of a move, Redis ``WAIT`` N
``REDIS_WAIT_TIMEOUT_MS``; fewer replicas in time answer 503
``replicas-behind`` with ``Retry-After`` (the move is made; its retry with
the same Idempotency-Key is answered from its record). 0, the default: a
move is answered once the primary has it. On a Redis Cluster the replicas
are those of the table's shard. ``all``, behind Sentinels only
(``redis+sentinel://``): every replica that could take the primary's place
or answer its ``WAIT`` (``service.storage.watch``), at least one; no
failover, planned or not, loses a move so acknowledged (deploy/README,
"Failovers"). ``REDIS_WAIT_TIMEOUT_MS`` must be below
``REDIS_TIMEOUT_SECONDS`` (the connection's own timeout, which a longer
``WAIT`` would outlast); the settings refuse it otherwise.

``CONNECTIONS_PER_ADDRESS`` and ``REQUEST_READ_TIMEOUT_SECONDS``
(``service.workers``, gevent's worker class): the connections one client
address (an IPv6 address's /64) holds open at once in one worker process,
never more than a quarter of its ``GUNICORN_WORKER_CONNECTIONS`` (0: no
cap; off with ``TRUSTED_PROXIES``, where the proxy counts them); the
seconds within which a request's head and body must arrive from its first
byte (0: none).

``RATE_LIMIT_REFEREE_MOVES`` and ``CLIENT_KEY_REFEREE_MOVES_PER_SECOND``
(:mod:`service.storage.quota`, RULES.md 5.4): the bots' and default moves
the worker makes at the tables one client address (or client key) created,
together; a spent budget puts that creator's tables off to the end of its
window, nobody else's.

``REDIS_PUBSUB`` (:mod:`service.storage.feeds`): ``classic``, the default,
announces each commit with ``PUBLISH`` (any Redis; a cluster copies it to
every node); ``sharded``, for a ``redis[s]+cluster://`` URL only, with
``SPUBLISH`` on the table's shard, which needs Redis 7.0 or newer on every
node of the cluster, replicas included (a 6.2 node promoted later would fail
the commits). Every process of a deployment must use the same value.

``CORS_ORIGINS`` is ``*``, or origins separated by commas or spaces, each
written as a browser sends it in ``Origin``: ``scheme://host[:port]``, lower
case, no path (not even ``/``), no default port, no wildcard
(``https://app.example.com,http://localhost:5173``), except the port of a
loopback host (``localhost``, ``127.0.0.1``, ``[::1]``): ``http://localhost:*``
is that host on any port, for a development server's pages (``referee serve
--dev`` allows :data:`LOOPBACK_ORIGINS`). Anything else stops the service at
start-up with :class:`SettingsError` naming the value and the fix.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

# The forms of REDIS_URL (storage/client.py connects to each; it and the
# settings' checks both need to tell them apart).
CLUSTER_SCHEMES = {"redis+cluster": False, "rediss+cluster": True}
SENTINEL_SCHEMES = {"redis+sentinel": False, "rediss+sentinel": True}


def is_cluster_url(url: str) -> bool:
    """Whether ``url`` names a Redis Cluster (``redis+cluster://`` or
    ``rediss+cluster://``)."""
    return url.partition("://")[0].lower() in CLUSTER_SCHEMES


def is_sentinel_url(url: str) -> bool:
    """Whether ``url`` names a Sentinel set (``redis+sentinel://``, ``rediss+sentinel://``)."""
    return url.partition("://")[0].lower() in SENTINEL_SCHEMES


@dataclass(frozen=True, slots=True)
class Settings:
    """The service's settings; see the module docstring for each one."""

    redis_url: str | None = None
    data_dir: str = "referee-data"
    table_ttl_seconds: int = 7 * 24 * 3600
    events_kept: int = 48
    rounds_kept: int = 100
    redis_timeout_seconds: float = 1.0
    redis_max_connections: int = 64
    redis_pool_timeout_seconds: float = 1.0
    retry_after_seconds: int = 2
    idempotency_lock_seconds: float = 10.0
    idempotency_records_per_token: int = 32
    rate_limit_per_token: str = "20/second"
    rate_limit_anonymous: str = "50/second"
    rate_limit_tables: str = "10/minute"
    rate_limit_failed_claims: str = "5/minute"
    rate_limit_record_checks: str = "60/minute"
    join_code_seconds: int = 24 * 3600
    lobby_tables_kept: int = 10000
    lobby_listed_per_address: int = 3
    client_key_lobby_listed: int = 12
    rate_limit_per_address: str = "100/second"
    trusted_proxies: int = 0
    connections_per_address: int = 100
    request_read_timeout_seconds: float = 10.0
    response_write_timeout_seconds: float = 30.0
    socket_send_buffer_bytes: int = 131072
    requests_per_connection: int = 1000
    in_flight_per_address: int = 16
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 2
    stream_heartbeat_seconds: float = 15.0
    stream_lifetime_seconds: float = 300.0
    stream_ticket_seconds: int = 60
    stream_max_open: int = 500
    stream_max_per_address: int = 32
    stream_max_per_table: int = 32
    stream_max_per_seat: int = 4
    client_key_streams: int = 2000
    stream_lease_seconds: float = 30.0
    presence_seconds: float = 15.0
    client_key_tables_per_minute: int = 600
    client_key_requests_per_second: int = 500
    rate_limit_referee_moves: str = "10/second"
    client_key_referee_moves_per_second: int = 100
    docs_dir: str = str(Path(__file__).resolve().parents[1] / "docs")
    rules_docs_dir: str = str(Path(__file__).resolve().parents[1] / "docs" / "rules")
    deploy_docs_dir: str = str(Path(__file__).resolve().parents[1] / "deploy")
    cors_origins: tuple[str, ...] = ()
    stored_format: str = "previous"
    redis_wait_replicas: int | str = 0
    redis_wait_timeout_ms: int = 500
    redis_pubsub: str = "classic"
    jobs_redis_url: str | None = None
    worker_threads: int = 4
    worker_health_file: str = "/tmp/referee-worker-alive"
    worker_metrics_port: int = 0

    def __post_init__(self) -> None:
        check_origins(self.cors_origins)
        if self.stored_format not in STORED_FORMATS:
            raise SettingsError(
                f"STORED_FORMAT={self.stored_format!r}: write 'previous' (the previous release's"
                " formats, while pods of it may run) or 'current' (once none does)."
            )
        wait = str(self.redis_wait_replicas).strip().lower()
        if wait != "all":
            if not wait.isascii() or not wait.isdigit():
                raise SettingsError(
                    f"REDIS_WAIT_REPLICAS={self.redis_wait_replicas!r}: write a number of"
                    " replicas (0 or more) or 'all' (behind Sentinels)."
                )
            object.__setattr__(self, "redis_wait_replicas", int(wait))
        elif not is_sentinel_url(self.redis_url or ""):
            raise SettingsError(
                "REDIS_WAIT_REPLICAS='all' needs Redis Sentinels (REDIS_URL=redis+sentinel://…),"
                " which say what replicas there are: write a number of replicas instead."
            )
        else:
            object.__setattr__(self, "redis_wait_replicas", "all")
        if self.redis_wait_timeout_ms < 1:
            raise SettingsError(
                f"REDIS_WAIT_REPLICAS={self.redis_wait_replicas} and REDIS_WAIT_TIMEOUT_MS="
                f"{self.redis_wait_timeout_ms}: the replicas are 0 or more, the timeout 1 ms"
                " or more (WAIT's 0 would wait for ever)."
            )
        if self.redis_pubsub not in PUBSUB_KINDS:
            raise SettingsError(
                f"REDIS_PUBSUB={self.redis_pubsub!r}: write 'classic' (PUBLISH, any Redis) or"
                " 'sharded' (SPUBLISH, a Redis Cluster of 7.0 or newer)."
            )
        if self.redis_pubsub == "sharded" and not is_cluster_url(self.redis_url or ""):
            raise SettingsError(
                "REDIS_PUBSUB='sharded' needs a Redis Cluster (REDIS_URL=redis+cluster://…):"
                " one server has one shard. Write 'classic', or leave it out."
            )
        waits = self.redis_wait_replicas != 0
        if waits and self.redis_wait_timeout_ms >= 1000 * self.redis_timeout_seconds:
            # The WAIT would outlast the connection's own timeout: a move the
            # replicas did not confirm would be 503 redis-unavailable, not
            # replicas-behind, and its retry would not know it was made.
            raise SettingsError(
                f"REDIS_WAIT_TIMEOUT_MS={self.redis_wait_timeout_ms} is not below "
                f"REDIS_TIMEOUT_SECONDS={self.redis_timeout_seconds:g} (in ms): a WAIT that long "
                "outlasts the connection's timeout. Lower it, or raise REDIS_TIMEOUT_SECONDS."
            )

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, **overrides: Any) -> Settings:
        """Settings from ``env`` (default ``os.environ``), then ``overrides``."""
        env = dict(os.environ if env is None else env)
        values: dict[str, Any] = {}
        types = {f.name: f.type for f in fields(cls)}
        for name, var in ENVIRONMENT.items():
            raw = env.get(var)
            if raw in (None, ""):
                continue
            kind = types[name]
            if kind == "tuple[str, ...]":
                values[name] = tuple(raw.replace(",", " ").split())
            else:
                values[name] = int(raw) if kind == "int" else float(raw) if kind == "float" else raw
        values.update(overrides)
        return cls(**values)


ENVIRONMENT: dict[str, str] = {
    "redis_url": "REDIS_URL",
    "data_dir": "REFEREE_DATA_DIR",
    "table_ttl_seconds": "TABLE_TTL_SECONDS",
    "events_kept": "EVENTS_KEPT",
    "rounds_kept": "ROUNDS_KEPT",
    "redis_timeout_seconds": "REDIS_TIMEOUT_SECONDS",
    "redis_max_connections": "REDIS_MAX_CONNECTIONS",
    "redis_pool_timeout_seconds": "REDIS_POOL_TIMEOUT_SECONDS",
    "retry_after_seconds": "RETRY_AFTER_SECONDS",
    "idempotency_lock_seconds": "IDEMPOTENCY_LOCK_SECONDS",
    "idempotency_records_per_token": "IDEMPOTENCY_RECORDS_PER_TOKEN",
    "rate_limit_per_token": "RATE_LIMIT_PER_TOKEN",
    "rate_limit_anonymous": "RATE_LIMIT_ANONYMOUS",
    "rate_limit_tables": "RATE_LIMIT_TABLES",
    "rate_limit_failed_claims": "RATE_LIMIT_FAILED_CLAIMS",
    "rate_limit_record_checks": "RATE_LIMIT_RECORD_CHECKS",
    "join_code_seconds": "JOIN_CODE_SECONDS",
    "lobby_tables_kept": "LOBBY_TABLES_KEPT",
    "lobby_listed_per_address": "LOBBY_LISTED_PER_ADDRESS",
    "client_key_lobby_listed": "CLIENT_KEY_LOBBY_LISTED",
    "rate_limit_per_address": "RATE_LIMIT_PER_ADDRESS",
    "trusted_proxies": "TRUSTED_PROXIES",
    "connections_per_address": "CONNECTIONS_PER_ADDRESS",
    "request_read_timeout_seconds": "REQUEST_READ_TIMEOUT_SECONDS",
    "response_write_timeout_seconds": "RESPONSE_WRITE_TIMEOUT_SECONDS",
    "socket_send_buffer_bytes": "SOCKET_SEND_BUFFER_BYTES",
    "requests_per_connection": "REQUESTS_PER_CONNECTION",
    "in_flight_per_address": "IN_FLIGHT_PER_ADDRESS",
    "host": "HOST",
    "port": "PORT",
    "workers": "WEB_CONCURRENCY",
    "stream_heartbeat_seconds": "STREAM_HEARTBEAT_SECONDS",
    "stream_lifetime_seconds": "STREAM_LIFETIME_SECONDS",
    "stream_ticket_seconds": "STREAM_TICKET_SECONDS",
    "stream_max_open": "STREAM_MAX_OPEN",
    "stream_max_per_address": "STREAM_MAX_PER_ADDRESS",
    "stream_max_per_table": "STREAM_MAX_PER_TABLE",
    "stream_max_per_seat": "STREAM_MAX_PER_SEAT",
    "client_key_streams": "CLIENT_KEY_STREAMS",
    "stream_lease_seconds": "STREAM_LEASE_SECONDS",
    "presence_seconds": "PRESENCE_SECONDS",
    "client_key_tables_per_minute": "CLIENT_KEY_TABLES_PER_MINUTE",
    "client_key_requests_per_second": "CLIENT_KEY_REQUESTS_PER_SECOND",
    "rate_limit_referee_moves": "RATE_LIMIT_REFEREE_MOVES",
    "client_key_referee_moves_per_second": "CLIENT_KEY_REFEREE_MOVES_PER_SECOND",
    "docs_dir": "DOCS_DIR",
    "rules_docs_dir": "RULES_DOCS_DIR",
    "deploy_docs_dir": "DEPLOY_DOCS_DIR",
    "cors_origins": "CORS_ORIGINS",
    "stored_format": "STORED_FORMAT",
    "redis_wait_replicas": "REDIS_WAIT_REPLICAS",
    "redis_wait_timeout_ms": "REDIS_WAIT_TIMEOUT_MS",
    "redis_pubsub": "REDIS_PUBSUB",
    "jobs_redis_url": "JOBS_REDIS_URL",
    "worker_threads": "WORKER_THREADS",
    "worker_health_file": "WORKER_HEALTH_FILE",
    "worker_metrics_port": "WORKER_METRICS_PORT",
}
"""Each :class:`Settings` field and the environment variable it is read from
(every one is in the table above and in docs/guide/settings.md)."""


STORED_FORMATS = ("previous", "current")
"""The values of ``STORED_FORMAT``."""

PUBSUB_KINDS = ("classic", "sharded")
"""The values of ``REDIS_PUBSUB``."""


class SettingsError(ValueError):
    """A setting's value the service cannot run with; the message names the
    variable, the value and what to write instead."""


ORIGIN = re.compile(
    r"[a-z][a-z0-9+.-]*://"  # scheme
    r"(?P<host>[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])"  # host name or [IPv6]
    r"(?::(?P<port>[0-9]{1,5}|\*))?"
)
"""An origin as browsers serialise it (``fullmatch``), for ``CORS_ORIGINS``;
a port ``*`` for a loopback host only (checked by :func:`check_origins`)."""

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
"""The hosts whose port may be ``*`` in ``CORS_ORIGINS``: pages served on this
machine only (a development server's), never another site's."""

LOOPBACK_ORIGINS = tuple(
    f"{scheme}://{host}:*" for scheme in ("http", "https") for host in LOOPBACK_HOSTS
)
"""The origins ``referee serve --dev`` allows: any page served on this machine."""

DEFAULT_PORTS = {"http": "80", "https": "443"}
"""Ports a browser leaves out of an origin: written in, it would never match."""


def check_origins(origins: tuple[str, ...]) -> None:
    """Raise :class:`SettingsError` unless ``origins`` is empty, ``("*",)``, or
    origins each written exactly as a browser sends them (see the module docstring)."""
    if isinstance(origins, str):  # a str would be checked one letter at a time
        raise SettingsError(f"cors_origins is a tuple of origins, not the string {origins!r}.")
    if "*" in origins and len(origins) > 1:
        raise SettingsError(
            f"CORS_ORIGINS={' '.join(origins)!r}: '*' allows every origin; give it alone"
            " or list the origins without it."
        )
    for origin in origins:
        if origin == "*":
            continue
        scheme, _, rest = origin.partition("://")
        match = ORIGIN.fullmatch(origin)
        if match is None:
            if origin == "null":
                why = "'null' is the origin of sandboxed and file:// pages: any page can claim it."
            elif "*" in origin:
                why = "wildcards are not supported; list each origin."
            elif "/" in rest:
                why = f"an origin has no path: write {scheme}://{rest.split('/', 1)[0]}."
            elif origin != origin.lower():
                why = f"browsers send it in lower case: write {origin.lower()}."
            else:
                why = "an origin is scheme://host[:port], e.g. https://app.example.com."
            raise SettingsError(f"CORS_ORIGINS: {origin!r} is not an origin: {why}")
        port = match.group("port")
        if port == "*":
            if match.group("host") not in LOOPBACK_HOSTS:
                raise SettingsError(
                    f"CORS_ORIGINS: {origin!r}: a port '*' is for this machine's pages only"
                    f" ({', '.join(LOOPBACK_HOSTS)}); name the port of another host."
                )
            continue
        if port is not None and not 0 < int(port) < 65536:
            raise SettingsError(f"CORS_ORIGINS: {origin!r} has no valid port (1 to 65535).")
        if port is not None and DEFAULT_PORTS.get(scheme) == port:
            raise SettingsError(
                f"CORS_ORIGINS: {origin!r} names {scheme}'s default port, which browsers leave"
                f" out of the origin: write {origin.rpartition(':')[0]}."
            )
