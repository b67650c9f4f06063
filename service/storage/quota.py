"""The referee's moves charged to whoever created the table (RULES.md 5.4):
Redis only, no game, no HTTP.

A table remembers its creator in its auth record (``"q"``: ``addr:<address>``
or ``client:<key name>``, written at creation; a table made by an older
release has none and is charged as ``table:<id>``, on the address's limit).
Before the worker makes a bot's or a default move it charges one move to
that creator's counter; a creator whose budget for the window is spent gets
no move until the window ends: its tables wait, everyone else's do not
(``service.worker.run``). Its held tables then take turns (:meth:`RefereeMoves.turn`):
one is looked at again every ``1/budget`` seconds from the window's end, so
that the worker's reads of them keep the budget's pace however many there
are (before, each was read again at each window's end: 60 tables at a
budget of 8 a second made 89 reads a second; issue 39, fifteenth attacker).
The counters are the ``limits`` library's fixed windows, on the same keys'
layout as the request counters
(``LIMITS:LIMITER/referee-limits/<who>/referee-moves/...``).

| creator | budget | setting |
|---|---|---|
| a client address | ``RATE_LIMIT_REFEREE_MOVES`` | ``10/second`` |
| a client key | ``CLIENT_KEY_REFEREE_MOVES_PER_SECOND`` a second | ``100`` |

Why a budget of its own, not the creator's request counter: a move the
referee makes costs what a person's does (a commit, a record entry of some
60 to 200 bytes kept with the round for a week), but nobody sends it; at an
address's 100 requests a second, bots alone would grow Redis by some 60 MiB
an hour. Ten a second is a person with three bots at several tables at once.
"""

from __future__ import annotations

import math
import time
from importlib import resources
from typing import Any

import redis
from limits import RateLimitItem, RateLimitItemPerSecond, parse
from limits.storage import RedisStorage, storage_from_string
from limits.strategies import FixedWindowRateLimiter
from redis.cluster import RedisCluster

from .client import cluster_call_options, parse_cluster_url

KEY_PREFIX = "referee-limits"
"""The limits' namespace (the request counters' too: ``service.edge.limits``)."""

SCOPE = "referee-moves"

HELD_PREFIX = "referee-limits:held:"
"""The key of a creator's next free turn for a held table (:meth:`RefereeMoves.turn`),
before the creator (``addr:…``, ``client:…``)."""


def cluster_storage(url: str, timeout_seconds: float, *pool: Any) -> dict[str, Any]:
    """The limits library's storage for the Redis Cluster of ``url`` (any form
    the service takes: ``rediss+cluster://``, seeds without a port, an encoded
    password): the library wants ``redis+cluster://host:port,…`` and takes
    credentials, TLS, timeouts, retries and the pools (``pool``: the
    connections a node and the wait for one, as :func:`.cluster_call_options`)
    as options."""
    nodes, options = parse_cluster_url(url)
    hosts = ",".join(f"[{h}]:{p}" if ":" in h else f"{h}:{p}" for h, p in nodes)
    return {
        "storage_uri": f"redis+cluster://{hosts}",
        "storage_options": {**options, **cluster_call_options(timeout_seconds, *pool)},
    }


def limits_storage(
    client: Any, url: str | None, timeout_seconds: float, *pool: Any
) -> RedisStorage:
    """The limits library's storage on ``client``'s Redis: its connection
    pool on one server (Sentinel's too), the cluster of ``url`` on a cluster
    (with pools bounded as ``pool`` says: ``REDIS_MAX_CONNECTIONS``,
    ``REDIS_POOL_TIMEOUT_SECONDS``)."""
    if isinstance(client, RedisCluster):
        assert url is not None  # a cluster client comes from a cluster URL
        where = cluster_storage(url, timeout_seconds, *pool)
        found: RedisStorage = storage_from_string(  # type: ignore[assignment]
            where["storage_uri"], **where["storage_options"]
        )
        return found
    assert isinstance(client, redis.Redis)
    return RedisStorage("redis://", connection_pool=client.connection_pool)


def creator_of(table_id: str, auth: dict[str, Any]) -> str:
    """Whom a table's referee moves are charged to: its auth record's ``q``
    (``addr:…`` or ``client:…``), else the table itself (made by a release
    that kept no creator)."""
    who = auth.get("q")
    return who if isinstance(who, str) and who else f"table:{table_id}"


class RefereeMoves:
    """The creators' budgets of referee moves on ``storage``: ``per_address``
    (a limit string such as ``10/second``) for addresses (and tables of no
    known creator), ``per_key`` moves a second for client keys."""

    def __init__(self, storage: RedisStorage, per_address: str, per_key: int, client: Any) -> None:
        self.storage = storage
        self.limiter = FixedWindowRateLimiter(storage)
        self.per_address: RateLimitItem = parse(per_address)
        self.per_key: RateLimitItem = RateLimitItemPerSecond(max(1, per_key))
        lua = resources.files("service.storage").joinpath("lua", "held_turn.lua")
        self._turn = client.register_script(lua.read_text())

    def limit_of(self, who: str) -> RateLimitItem:
        """The budget of creator ``who``."""
        return self.per_key if who.startswith("client:") else self.per_address

    def charge(self, who: str) -> float | None:
        """Charge one move to ``who``: ``None`` when its budget had room,
        else the seconds until its window ends (nothing charged)."""
        limit = self.limit_of(who)
        if self.limiter.hit(limit, KEY_PREFIX, who, SCOPE):
            return None
        reset = self.limiter.get_window_stats(limit, KEY_PREFIX, who, SCOPE).reset_time
        return max(0.0, reset - time.time())

    def turn(self, who: str, earliest_ms: int) -> int:
        """When a table of ``who`` held for its spent budget is looked at
        again (ms, Redis's clock): the creator's next free turn from
        ``earliest_ms`` on (its window's end), the turns ``1/budget`` seconds
        apart. One key a creator (``HELD_PREFIX``), kept until its last turn
        has gone by."""
        limit = self.limit_of(who)
        spacing = max(1, math.ceil(limit.get_expiry() * 1000 / limit.amount))
        return int(self._turn(keys=[HELD_PREFIX + who], args=[int(earliest_ms), spacing]))


def wait_ms(seconds: float) -> int:
    """A wait in seconds as whole milliseconds, rounded up."""
    return max(1, math.ceil(seconds * 1000))
