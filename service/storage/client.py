"""Redis clients from a URL: one server, or a Redis Cluster.

``REDIS_URL`` forms:

- ``redis://[[user]:password@]host:port/db``, ``rediss://…`` (TLS),
  ``unix:///path/redis.sock``: one server (``redis.Redis``);
- ``redis+cluster://[[user]:password@]host:port[,host:port…]`` and
  ``rediss+cluster://…`` (TLS): a Redis Cluster reached through one or more
  seed nodes (``redis.RedisCluster``), which discovers the rest itself;
- ``redis+sentinel://[[user]:password@]host:port[,host:port…]/service[/db]``
  and ``rediss+sentinel://…`` (TLS to the data nodes): the primary that the
  Redis Sentinels name for ``service`` (redis-py's ``Sentinel``). Every new
  connection asks them for the primary, and a connection to a primary that
  died or was demoted fails, so the service follows a failover without a
  restart (requests meanwhile answer 503 ``redis-unavailable``). The
  credentials are the data nodes'; the Sentinels are asked without them.

**Connections.** Each process holds at most ``REDIS_MAX_CONNECTIONS`` (64)
connections to each Redis server (redis-py's ``BlockingConnectionPool``):
a command that finds them all in use waits up to
``REDIS_POOL_TIMEOUT_SECONDS`` (1 s) for one to come back, then raises
:class:`RedisBusy` (503 ``redis-busy``: this process is busy, Redis may be
well). redis-py's default pool refused at once past 100, with the error of
a Redis that is down, while a gevent worker serves 1,000 connections.

Every key of a table carries the table's hash tag, so the store's reads and its
commit script touch one slot, and the cluster client routes them to that
slot's primary.
"""

from __future__ import annotations

import select
import sys
from queue import Empty, LifoQueue
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import redis
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.connection import BlockingConnectionPool, DefaultParser
from redis.exceptions import MaxConnectionsError
from redis.retry import Retry
from redis.sentinel import Sentinel, SentinelConnectionPool

# The URL forms are the settings' (config.py, below storage), re-exported here.
from ..config import CLUSTER_SCHEMES, SENTINEL_SCHEMES, is_cluster_url, is_sentinel_url
from . import feeds
from .embedded import ensure_embedded_redis

if TYPE_CHECKING:
    from ..config import Settings

Client = redis.Redis | RedisCluster

MAX_CONNECTIONS = 64
"""Connections of one process to one Redis server (``REDIS_MAX_CONNECTIONS``)."""
POOL_TIMEOUT_SECONDS = 1.0
"""How long a command waits for a free connection (``REDIS_POOL_TIMEOUT_SECONDS``)."""


class RedisBusy(MaxConnectionsError):
    """Every connection of this process to Redis stayed in use for the
    pool's timeout: the process is busy, not Redis down (503 ``redis-busy``).
    A :class:`redis.exceptions.MaxConnectionsError`, so that redis-py's
    cluster client does not take it for a failed node."""


class _Slots(LifoQueue):  # type: ignore[type-arg]
    """The pool's queue of connections, which says why it is empty."""

    def get(self, block: bool = True, timeout: float | None = None) -> Any:
        try:
            return super().get(block, timeout)
        except Empty:
            raise RedisBusy(
                f"all {self.maxsize} connections to Redis stayed in use for {timeout} s"
            ) from None


class BoundedPool(BlockingConnectionPool):
    """redis-py's blocking pool, raising :class:`RedisBusy` when it waited in vain."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(queue_class=_Slots, **kwargs)  # type: ignore[no-untyped-call]


class BoundedSentinelPool(SentinelConnectionPool, BoundedPool):
    """The pool of the Sentinels' primary, bounded as :class:`BoundedPool`."""


def parse_sentinel_url(url: str) -> tuple[list[tuple[str, int]], str, int, dict[str, Any]]:
    """The Sentinels ``[(host, port), …]`` (port 26379 by default), the
    service name, the database and the connection options (``username``,
    ``password``, ``ssl``) of a Sentinel URL; ``ValueError`` when it has no
    service name, a bad database, or a query string."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in SENTINEL_SCHEMES:
        raise ValueError(f"not a Sentinel URL: {url!r}")
    netloc, _, path = rest.partition("/")
    name, _, db = path.partition("/")
    if not name:
        raise ValueError(f"a Sentinel URL names its service: {scheme}://host:26379/mymaster")
    if db and not db.isdigit():
        raise ValueError(f"a bad database {db!r} in {url!r}")
    nodes, options = parse_cluster_url(f"redis+cluster://{netloc}", default_port=26379)
    options["ssl"] = SENTINEL_SCHEMES[scheme.lower()]
    return nodes, unquote(name), int(db or 0), options


def parse_cluster_url(
    url: str, default_port: int = 6379
) -> tuple[list[tuple[str, int]], dict[str, Any]]:
    """The seed nodes ``[(host, port), …]`` and the connection options
    (``username``, ``password``, ``ssl``) of a cluster URL.

    The port defaults to 6379; IPv6 hosts are written in brackets. A path other
    than ``/`` or ``/0`` and any query string raise ``ValueError`` (a cluster
    has only database 0, and no option is read from the URL).
    """
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in CLUSTER_SCHEMES:
        raise ValueError(f"not a cluster URL: {url!r}")
    if "?" in rest or "#" in rest:
        raise ValueError("a cluster URL takes no query string or fragment")
    netloc, _, path = rest.partition("/")
    if path not in ("", "0"):
        raise ValueError("a Redis Cluster has only database 0")
    options: dict[str, Any] = {"ssl": CLUSTER_SCHEMES[scheme.lower()]}
    credentials, at, hosts = netloc.rpartition("@")
    if at:
        user, colon, password = credentials.partition(":")
        if user:
            options["username"] = unquote(user)
        if colon:
            options["password"] = unquote(password)
    nodes = []
    for item in hosts.split(","):
        item = item.strip()
        if item.startswith("["):  # [v6 address]:port
            host, _, tail = item[1:].partition("]")
            port = tail.removeprefix(":")
        else:
            host, _, port = item.partition(":")
        if not host:
            raise ValueError(f"a seed node without a host in {url!r}")
        if port and not port.isdigit():
            raise ValueError(f"a seed node with a bad port in {url!r}")
        nodes.append((host, int(port or default_port)))
    return nodes, options


def os_poll() -> Any:
    """``select.poll`` as the OS gives it, also where gevent patched it."""
    monkey = sys.modules.get("gevent.monkey")
    if monkey is not None and monkey.is_module_patched("select"):
        return monkey.get_original("select", "poll")
    return select.poll


class QuickCheckParser(DefaultParser):  # type: ignore[valid-type,misc]
    """redis-py's parser, with a cheaper answer to the question its pool asks
    before it hands out a connection: is anything unread on it?

    redis-py asks with ``can_read(0)`` on every command, through
    ``select.poll``; under gunicorn's gevent workers that is gevent's poll,
    which sets up watchers and a timeout and switches to gevent's hub each
    time (with it, a pass of the 7-seat stream load cost 3.25 ms of server
    CPU; without, 2.3 to 2.5 ms). A zero-timeout poll never blocks, so the
    OS's own poll answers here; only a connection that has something to
    read is asked the whole question (closed, or left with data) as before.
    The one-server client and the Sentinel-named primary's use it (not the
    connections to the Sentinels themselves); redis-py's cluster client takes
    no parser of ours (``REDIS_ALLOWED_KEYS``).
    """

    _poll: Any = select.poll

    def on_connect(self, connection: Any) -> None:
        super().on_connect(connection)
        self._poll = os_poll()  # gevent patches in the worker, after imports

    def can_read(self, timeout: float = 0) -> bool:
        sock = getattr(self, "_sock", None)
        reader = getattr(self, "_reader", None)
        buffered = reader is None or reader.has_data() or getattr(sock, "pending", bool)()
        if timeout == 0 and sock is not None and not buffered:  # TLS buffers above the socket
            poller = self._poll()
            try:
                poller.register(sock, select.POLLIN)
                ready = poller.poll(0)
            except (ValueError, OSError):  # closed under us: redis-py's check says so
                ready = True
            if not ready:
                return False
        return bool(super().can_read(timeout))


def redis_client(settings: Settings) -> Client:
    """A Redis (or Redis Cluster) client for ``settings.redis_url``, or for the
    embedded Redis in ``settings.data_dir`` (started when none answers there),
    announcing on the feeds ``settings.redis_pubsub`` names (:mod:`.feeds`)."""
    url = settings.redis_url
    if not url:
        url, _ = ensure_embedded_redis(settings.data_dir)
    client = connect(
        url,
        settings.redis_timeout_seconds,
        settings.redis_max_connections,
        settings.redis_pool_timeout_seconds,
    )
    feeds.choose(client, settings.redis_pubsub == "sharded")
    return client


def connect(
    url: str,
    timeout_seconds: float,
    max_connections: int = MAX_CONNECTIONS,
    pool_timeout_seconds: float = POOL_TIMEOUT_SECONDS,
) -> Client:
    """A client for ``url``, with ``timeout_seconds`` to connect and per command,
    and at most ``max_connections`` per server, a command waiting up to
    ``pool_timeout_seconds`` for one (then :class:`RedisBusy`).

    Every connect and every command gives up after ``timeout_seconds``, so a
    request never waits on Redis for long: it answers 503. On one server, a
    connection that broke (Redis restarted) is retried once, at once, on a new
    connection; a timeout is not retried, since the command may have run.
    Connections are made anew as needed, so the service recovers by itself
    when Redis returns. A one-server client connects on first use; a cluster
    client reads the slot map from a seed node now, so it raises
    ``redis.RedisError`` (or ``RedisClusterException``) when no seed node
    answers.
    """
    common: dict[str, Any] = {
        "socket_timeout": timeout_seconds,
        "socket_connect_timeout": timeout_seconds,
    }
    pool: dict[str, Any] = {"max_connections": max_connections, "timeout": pool_timeout_seconds}
    retry = Retry(
        ExponentialBackoff(cap=0.05, base=0.01),
        retries=1,
        supported_errors=(redis.ConnectionError,),
    )
    if is_sentinel_url(url):
        sentinels, name, db, options = parse_sentinel_url(url)
        ask = Sentinel(sentinels, sentinel_kwargs=dict(common), **common)
        # A failed connection is retried once on a new one, which asks the
        # Sentinels for the primary again (the new one after a failover).
        primary: redis.Redis = ask.master_for(
            name,
            db=db,
            health_check_interval=30,
            retry=retry,
            parser_class=QuickCheckParser,
            connection_pool_class=BoundedSentinelPool,
            **pool,
            **options,
            **common,
        )
        return primary
    if not is_cluster_url(url):
        return redis.Redis.from_pool(
            BoundedPool.from_url(
                url,
                health_check_interval=30,
                retry=retry,
                parser_class=QuickCheckParser,
                **pool,
                **common,
            )
        )
    nodes, options = parse_cluster_url(url)
    seeds = [ClusterNode(host, port) for host, port in nodes]  # type: ignore[no-untyped-call]
    return RedisCluster(
        startup_nodes=seeds,
        **options,
        **cluster_call_options(timeout_seconds, max_connections, pool_timeout_seconds),
    )


def cluster_call_options(
    timeout_seconds: float,
    max_connections: int = MAX_CONNECTIONS,
    pool_timeout_seconds: float = POOL_TIMEOUT_SECONDS,
) -> dict[str, Any]:
    """Timeouts, retries and pools for a cluster client: every call gives up
    after ``timeout_seconds`` and is tried once more at most (redis-py's
    default of 10 tries, with the slot map reloaded between them, would hold
    a request for half a minute while a primary is frozen, and would send a
    timed-out commit again); each node's pool is a :class:`BoundedPool`."""
    return {
        "socket_timeout": timeout_seconds,
        "socket_connect_timeout": timeout_seconds,
        "retry": Retry(NoBackoff(), retries=1),
        "connection_pool_class": BoundedPool,
        "max_connections": max_connections,
        "timeout": pool_timeout_seconds,
    }
