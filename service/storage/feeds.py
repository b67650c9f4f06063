"""How a write announces itself on its table's feed channel
(``referee:{<id>}:feed``), which :mod:`service.streams.hub` follows.

- One Redis server (any version; the embedded Redis is 6.2), or a Redis
  Cluster with a primary older than 7.0: classic ``PUBLISH``. A cluster
  copies each message to every node; a process's hub holds one pattern
  subscription on any node.
- A Redis Cluster whose primaries are all 7.0 or newer: sharded pub/sub
  (``SPUBLISH``, Redis 7.0). The channel carries the table's hash tag, so a
  table's messages stay on the shard that holds the table; a process's hub
  subscribes (``SSUBSCRIBE``) to the feed of each table its streams follow.

The scripts that announce (``commit.lua``, ``choose.lua``, ``presence.lua``,
``delete_table.lua``) name the command in their :data:`FEED_LINE`, which
:func:`register` rewrites for a sharded cluster. Every process of a
deployment makes the same choice, from the servers' versions. While a
cluster's primaries are being upgraded to 7.0, processes started before the
last one was upgraded keep classic pub/sub; restart them afterwards.

The clock notes (``referee:{<id>}:clock``) stay classic everywhere: the
deadline worker follows every table's with one pattern subscription, which
sharded pub/sub does not have.
"""

from __future__ import annotations

from typing import Any

from redis.cluster import RedisCluster

FEED_LINE = "local FEED = 'PUBLISH'"
"""The line of each announcing script that names the feed's command."""

_SHARDED_LINE = "local FEED = 'SPUBLISH'"

_CHOICE = "_referee_sharded_feeds"


def sharded(client: Any) -> bool:
    """Whether ``client``'s writes announce on sharded channels: a cluster
    client whose primaries all run Redis 7.0 or newer (asked once per
    client; raises ``redis.RedisError`` when a primary does not answer)."""
    known = getattr(client, _CHOICE, None)
    if known is not None:
        return bool(known)
    choice = False
    if isinstance(client, RedisCluster):
        found = client.info("server", target_nodes=RedisCluster.PRIMARIES)
        infos = found.values() if "redis_version" not in found else [found]
        choice = bool(infos) and all(_major(info["redis_version"]) >= 7 for info in infos)
    setattr(client, _CHOICE, choice)
    return choice


def _major(version: Any) -> int:
    head = str(version).split(".", 1)[0]
    return int(head) if head.isascii() and head.isdigit() else 0


def register(client: Any, text: str) -> Any:
    """``client.register_script(text)`` for a script that announces on its
    table's feed, with its :data:`FEED_LINE` naming ``SPUBLISH`` when
    :func:`sharded`."""
    if FEED_LINE not in text:
        raise ValueError("an announcing script without its FEED line")
    if sharded(client):
        text = text.replace(FEED_LINE, _SHARDED_LINE, 1)
    return client.register_script(text)
