"""Presence in the views (RULES.md 5.5; HTTP only: the keys are
:mod:`service.storage.presence`'s).

A seat is seen when a request authorised with its token is answered
below 400 (:func:`note` marks it when :func:`.auth.caller` finds the seat;
the write waits for the answer, so that a refused request, or a token that
is not the seat's, changes nothing) and while a stream of its own is open
(its loop calls :func:`mark` every ``window / 3``). Writes are throttled per
process (:class:`~service.storage.presence.Throttle`): a seat costs at most
one write per ``window / 3`` per worker, however many requests it makes.

``connected`` is computed from the last-seen instants read with the table
and the read's Redis clock; the seat whose request is being answered is
connected in its own answer (its write follows the answer).
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from flask import Flask, Response, current_app, g, has_request_context, request

from ..storage.presence import Presence, Throttle, connected, last_seen

log = logging.getLogger(__name__)


def presence() -> Presence:
    """The app's :class:`Presence`."""
    return current_app.extensions["referee_presence"]  # type: ignore[no-any-return]


def note(seat: int) -> None:
    """The request is authorised as ``seat`` (its write follows a 2xx/3xx answer)."""
    if has_request_context():
        g.seat_seen = seat


def _table_id() -> str | None:
    table_id = (request.view_args or {}).get("table_id")
    return table_id if isinstance(table_id, str) else None


def mark(table_id: str, seat: int, force: bool = False) -> None:
    """Note ``seat`` seen now, unless this process wrote it less than
    ``window / 3`` ago (``force``: write anyway, a stream's keepalive). A
    Redis error is logged, never raised: presence must not fail a move."""
    throttle: Throttle = current_app.extensions["referee_presence_throttle"]
    if not throttle.due(table_id, seat) and not force:
        return
    try:
        presence().seen(table_id, seat)
    except redis.RedisError as error:
        throttle.forget(table_id, seat)
        log.warning("presence not written (%s)", type(error).__name__)


def seats_connected(table_id: str, seen: dict[Any, Any] | None, now_ms: int) -> frozenset[int]:
    """The seats of ``table_id`` connected at ``now_ms`` (the read's Redis
    clock) by the presence hash ``seen`` as read, with the seat whose
    request this is."""
    return with_own_seat(table_id, seats_seen(seen, now_ms))


def seats_seen(seen: dict[Any, Any] | None, now_ms: int) -> frozenset[int]:
    """The seats the presence hash ``seen`` as read says are connected at
    ``now_ms``: the part of :func:`seats_connected` that is the same for
    every seat of one read."""
    return connected(last_seen(seen), now_ms, presence().window_ms)


def with_own_seat(table_id: str, found: frozenset[int]) -> frozenset[int]:
    """``found`` with the seat whose request on ``table_id`` this is (its
    write follows the answer)."""
    if has_request_context():
        seat = g.get("seat_seen")
        if seat is not None and _table_id() == table_id:
            found = found | {seat}
    return found


def seats_maybe_connected(
    table_id: str, seen: dict[Any, Any] | None, now_ms: int
) -> frozenset[int]:
    """:func:`seats_connected` with the throttle's slack: the seats seen within
    the window and a third of it more. A process writes a seat at most once
    per third of the window, so its last request may be that much newer
    than what Redis holds (issue 39, eighth attacker: a seat last seen 11.5 s
    before was reissued as not connected). For what must never take a
    connected seat from its player (a reissued token, RULES.md 5.1)."""
    slack = frozenset(seat for seat, at in last_seen(seen).items() if within_slack(at, now_ms))
    return slack | seats_connected(table_id, seen, now_ms)


def within_slack(at_ms: int | None, now_ms: int) -> bool:
    """Whether ``at_ms`` (a Redis clock, ``None``: never) is within the
    presence window and a third of it before ``now_ms`` (as
    :func:`seats_maybe_connected` counts)."""
    window_ms = presence().window_ms
    return at_ms is not None and now_ms - at_ms < window_ms + window_ms // 3


def with_connected(view: dict[str, Any], seats: frozenset[int]) -> dict[str, Any]:
    """A public view with each seat's ``connected`` (in ``seats`` and ``standings``)."""
    for key in ("seats", "standings"):
        for seat in view.get(key) or ():
            seat["connected"] = seat["seat"] in seats
    return view


def init_app(app: Flask, client: Any, window_ms: int) -> None:
    """The app's presence store and the hook that writes a seat seen."""
    app.extensions["referee_presence"] = Presence(client, window_ms)
    app.extensions["referee_presence_throttle"] = Throttle(window_ms / 3000)

    @app.after_request
    def _seen(response: Response) -> Response:
        seat = g.get("seat_seen")
        table_id = _table_id()
        if seat is not None and table_id is not None and response.status_code < 400:
            mark(table_id, seat)
        return response
