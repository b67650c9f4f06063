"""Caps on open streams (HTTP only; the counting is
:mod:`service.storage.stream_leases`'s), so that nobody can hold an
instance's connections with streams, nor multiply the cost of a table:

- the process (``STREAM_MAX_OPEN``, never more than half the worker's
  connections): 503 ``streams-full``;
- the caller, across every process and instance: a client address
  (``STREAM_MAX_PER_ADDRESS``), or a client key (``CLIENT_KEY_STREAMS``);
- the table: its public streams (``GET …/stream``), anyone's
  (``STREAM_MAX_PER_TABLE``), and one caller's of them, a quarter of
  that (:func:`per_caller_at_table`: one address took all 32 of a
  table's and every other spectator was refused, issue 39's fourth
  attacker; a client key did alike, the nineteenth), across every
  process and instance;
- the seat: its own streams (``GET …/seats/{seat}/stream``,
  ``STREAM_MAX_PER_SEAT``), across every process and instance.

Past the last three the answer is 429 ``too-many-streams``, naming the cap.
A table's public streams and its seats' streams are counted apart, so
that watchers holding the table's cap never keep its players from their
own streams. The caller is the client address (``TRUSTED_PROXIES`` says how
far ``X-Forwarded-For`` is trusted, as for the rate limits) or, with a
valid ``Referee-Client-Key``, the key (a front end's server that relays
streams for many players from one address). A stream's place in its
process is taken first (no Redis), then its leases (one script, one round
trip; two on a Redis Cluster), and everything is given back when the stream
ends or when it cannot open. The worker's connection limit comes from
gunicorn (:func:`set_worker_connections`, called by ``service.workers``):
gevent's ``worker_connections``, gthread's threads, sync's one; half of
them at most hold streams, so that a full instance still answers health
checks and ordinary requests, with the other half.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from flask import current_app, g, request

from ..addresses import address_key
from ..storage.stream_leases import Lease, StreamLeases, caller_key, table_streams_key
from .common import referee
from .problems import Problem

log = logging.getLogger(__name__)

RETRY_SECONDS = 5
"""``Retry-After`` of a stream refused at a caller's, table's or seat's cap:
a stream whose client went away is found at its next keepalive (5 s) or
heartbeat, and gives its place back then."""

_worker_connections: int | None = None
"""The connections this worker process serves at once (None: not under gunicorn)."""


def set_worker_connections(connections: int) -> None:
    """What the worker class serves at once (gevent's ``worker_connections``,
    gthread's threads, 1 for sync): streams take at most half of it."""
    global _worker_connections
    _worker_connections = connections


def process_cap(configured: int) -> int:
    """How many streams this process may hold: ``STREAM_MAX_OPEN``
    (``configured``), never more than half the worker's connections."""
    if _worker_connections is None:
        return configured
    ceiling = _worker_connections // 2
    if configured > ceiling:
        warned = current_app.extensions.setdefault("referee_stream_cap_warned", [])
        if not warned:
            warned.append(True)
            log.warning(
                "STREAM_MAX_OPEN=%s is more than half the worker's %s connections: "
                "this worker holds at most %s streams, so that it still answers the rest",
                configured,
                _worker_connections,
                ceiling,
            )
    return min(configured, ceiling)


def leases() -> StreamLeases:
    """The app's :class:`StreamLeases`, made on first use."""
    found = current_app.extensions.get("referee_stream_leases")
    if found is None:
        lease_ms = int(referee().settings.stream_lease_seconds * 1000)
        found = current_app.extensions["referee_stream_leases"] = StreamLeases(
            referee().store.client, lease_ms, lease_ms / 3000
        )
    return found


def place(hub_reserve: Callable[[int], Callable[[], None] | None]) -> Callable[[], None]:
    """A place for one more stream of this process (``hub_reserve``:
    :meth:`.Hub.reserve`); call the function it returns to give it back.
    503 ``streams-full`` when the process holds as many as it may."""
    settings = referee().settings
    release = hub_reserve(process_cap(settings.stream_max_open))
    if release is None:
        raise Problem(
            503,
            "streams-full",
            "This instance holds as many streams as it may; try again shortly.",
            headers={"Retry-After": str(settings.retry_after_seconds)},
        )
    return release


def per_caller_at_table(per_table: int) -> int:
    """How many of a table's public streams one caller (a client address or
    a client key) may hold: a quarter of ``STREAM_MAX_PER_TABLE`` (at least
    1), so that three others can still watch however one caller floods. A
    relay (a front end's server with a client key) needs one public stream
    of a table for all the watchers it serves; a key held to its own cap
    alone took all of a table's, and its creator's stream was 429 (issue
    39, nineteenth attacker)."""
    return max(1, per_table // 4)


def lease(table_id: str, seat: int | None) -> Callable[[], None]:
    """Count one more stream of the caller and of the table (``seat``:
    ``None`` for a public stream) across every process; call the function it
    returns when the stream ends. 429 ``too-many-streams`` at a cap, naming
    it; nothing is written then."""
    settings = referee().settings
    key = g.get("client_key")
    if key is not None:
        who, cap, caller = f"key:{key.name}", settings.client_key_streams, "This client key"
        setting = "CLIENT_KEY_STREAMS"
    else:
        who, cap = address_key(request.remote_addr), settings.stream_max_per_address
        caller, setting = "This address", "STREAM_MAX_PER_ADDRESS"
    caps = [(caller_key(who), cap)]
    if seat is None:
        caps.append((table_streams_key(table_id), settings.stream_max_per_table))
        whose, own_setting = "This table's public streams", "STREAM_MAX_PER_TABLE"
        share = per_caller_at_table(settings.stream_max_per_table)
        caps.append((table_streams_key(table_id, by=who), share))
    else:
        caps.append((table_streams_key(table_id, seat), settings.stream_max_per_seat))
        whose, own_setting = f"Seat {seat}'s streams", "STREAM_MAX_PER_SEAT"
    store = leases()
    taken = store.take(caps)
    if isinstance(taken, Lease):
        held = taken
        return lambda: store.release(held)
    if taken == 0:
        detail = f"{caller} holds {cap} open streams already ({setting})"
    elif taken == 1:
        detail = f"{whose} are {caps[1][1]} already ({own_setting})"
    else:
        detail = (
            f"{caller} holds {caps[2][1]} of this table's public streams already, a "
            "quarter of STREAM_MAX_PER_TABLE"
        )
    raise Problem(
        429,
        "too-many-streams",
        f"{detail}: close one, or retry later.",
        headers={"Retry-After": str(RETRY_SECONDS)},
    )


def both(*releases: Callable[[], None]) -> Callable[[], None]:
    """One function that gives back every place and lease of ``releases``,
    each once, the last taken first."""
    done = [False]

    def release() -> None:
        if done[0]:
            return
        done[0] = True
        for one in reversed(releases):
            one()

    return release
