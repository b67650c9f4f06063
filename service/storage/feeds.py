"""How a write announces itself on its table's feed channel
(``referee:{<id>}:feed``), which :mod:`service.streams.hub` follows;
``REDIS_PUBSUB`` chooses (``service.config``).

- ``classic`` (the default; any Redis, the embedded 6.2 included): ``PUBLISH``.
  A cluster copies each message to every node; a process's hub holds one
  pattern subscription on any node.
- ``sharded`` (a Redis Cluster whose every node, replicas included, runs
  Redis 7.0 or newer): sharded pub/sub, ``SPUBLISH``. The channel carries the
  table's hash tag, so a table's messages stay on the shard that holds the
  table; a process's hub subscribes (``SSUBSCRIBE``) to the feed of each
  table its streams follow.

The choice is a setting, not read off the servers: a worker must boot while a
node is down, and a replica still on 6.2 that is promoted later would fail
every commit's ``SPUBLISH`` (and a script is not rolled back), which no look
at the primaries can foresee.

The scripts that announce (``commit.lua``, ``choose.lua``, ``presence.lua``,
``delete_table.lua``) name the command in their :data:`FEED_LINE`, which
:func:`register` rewrites for ``sharded``. The clock notes
(``referee:{<id>}:clock``) stay classic: the deadline worker follows every
table's with one pattern subscription, which sharded pub/sub does not have.
"""

from __future__ import annotations

from typing import Any

FEED_LINE = "local FEED = 'PUBLISH'"
"""The line of each announcing script that names the feed's command."""

_SHARDED_LINE = "local FEED = 'SPUBLISH'"

PAGES_LINE = "local PAGES = true"
"""The line of ``commit.lua`` and ``choose.lua`` that has them publish, with
each commit of a table a stream follows, the page its streams read after it
on the table's page channel
(``referee:{<id>}:page``, classic ``PUBLISH``: :mod:`service.streams.hub`);
``sharded`` turns it off (the hub subscribes to each table's feed alone there)."""

_CHOICE = "_referee_sharded_feeds"


def choose(client: Any, sharded: bool) -> None:
    """Make ``client``'s writes announce on sharded channels (``True``) or
    classic ones; before any script is registered on it."""
    setattr(client, _CHOICE, sharded)


def sharded(client: Any) -> bool:
    """Whether ``client``'s writes announce on sharded channels (:func:`choose`;
    classic unless chosen)."""
    return bool(getattr(client, _CHOICE, False))


def register(client: Any, text: str) -> Any:
    """``client.register_script(text)`` for a script that announces on its
    table's feed, with its :data:`FEED_LINE` naming ``SPUBLISH`` when
    :func:`sharded`."""
    if FEED_LINE not in text:
        raise ValueError("an announcing script without its FEED line")
    if sharded(client):
        text = text.replace(FEED_LINE, _SHARDED_LINE, 1)
        text = text.replace(PAGES_LINE, "local PAGES = false", 1)
    return client.register_script(text)
