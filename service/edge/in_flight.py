"""Requests in flight per client address in one process (``IN_FLIGHT_PER_ADDRESS``).

Each request this process is handling holds one of its Redis connections
(``REDIS_MAX_CONNECTIONS``, 64) while it counts its rate limits, reads and
commits; a request over a rate limit still needs one to be counted. So one
address with many connections (150 of them, each pipelining
``GET /v1/variants``: issue 39, second attacker) held the whole pool with
requests that were mostly refused 429, and everyone else's waited
``REDIS_POOL_TIMEOUT_SECONDS`` for 503 ``redis-busy``, ``/readyz`` too.

Here one address (its quota key, :func:`service.addresses.address_key`;
behind ``TRUSTED_PROXIES`` the client ``X-Forwarded-For`` names) has at most
``IN_FLIGHT_PER_ADDRESS`` requests in flight in a process, never more than a
quarter of ``REDIS_MAX_CONNECTIONS``: the next is answered 429
``rate-limited`` with ``Retry-After`` at once, before any Redis call. A
request counts from the first ``before_request`` that may use Redis until
its view has returned its answer (``after_request``; ``teardown_request``
when that never ran): an event stream whose answer is being sent no longer
counts. ``/healthz`` and ``OPTIONS`` (no Redis) do not count; ``/metrics``
does (a flood of it slowed everyone).
"""

from __future__ import annotations

import threading

from flask import Flask, Response, g, request

from ..addresses import address_key
from ..config import Settings
from .problems import Problem

NOT_COUNTED = {"health.Health"}
"""Endpoints that use no Redis connection: never counted nor refused here."""


class InFlight:
    """Requests in flight per address in this process (see the module docstring)."""

    def __init__(self, per_address: int, retry_after: int) -> None:
        self.per_address = per_address
        self.retry_after = retry_after
        self.held: dict[str, int] = {}
        self._lock = threading.Lock()  # gthread's threads share the counts

    def take(self, key: str) -> bool:
        """Count one request of ``key``; False (nothing counted) at its cap."""
        with self._lock:
            held = self.held.get(key, 0)
            if held >= self.per_address:
                return False
            self.held[key] = held + 1
            return True

    def give(self, key: str) -> None:
        with self._lock:
            left = self.held[key] - 1
            if left:
                self.held[key] = left
            else:
                del self.held[key]

    def before(self) -> None:
        """Before every request: count it on its address, or 429 at once."""
        if request.endpoint in NOT_COUNTED or request.method == "OPTIONS":
            return
        key = address_key(request.remote_addr)
        if not self.take(key):
            raise Problem(
                429,
                "rate-limited",
                f"This address has {self.per_address} requests in flight in this process "
                "already (IN_FLIGHT_PER_ADDRESS): wait for their answers, or retry later.",
                headers={"Retry-After": str(self.retry_after)},
            )
        g.in_flight_key = key

    def after(self, response: Response) -> Response:
        """Once the view has returned its answer (a stream's too): no longer counted."""
        self.release()
        return response

    def release(self, _error: BaseException | None = None) -> None:
        key: str | None = g.pop("in_flight_key", None)
        if key is not None:
            self.give(key)


def per_address(settings: Settings) -> int:
    """The cap in effect: ``IN_FLIGHT_PER_ADDRESS``, at most a quarter of
    ``REDIS_MAX_CONNECTIONS`` (at least 1); 0: no cap."""
    if not settings.in_flight_per_address:
        return 0
    return max(1, min(settings.in_flight_per_address, settings.redis_max_connections // 4))


def init_app(app: Flask, settings: Settings) -> InFlight | None:
    """Count requests in flight in hooks of ``app``: register it before the
    rate limiter (whose counting is the first Redis call); None when off."""
    cap = per_address(settings)
    if not cap:
        return None
    counted = InFlight(cap, settings.retry_after_seconds)
    app.before_request(counted.before)
    app.after_request(counted.after)
    app.teardown_request(counted.release)
    app.extensions["referee_in_flight"] = counted
    return counted
