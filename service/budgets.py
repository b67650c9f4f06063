"""Requests per client address in one worker process, before the app (HTTP-
and game-free; the gevent worker keeps one: ``service.workers``).

Issue 39, fourth attacker: the app's own limit (``RATE_LIMIT_PER_ADDRESS``,
counted in Redis over every instance) refused one address's flood 429, yet
each refusal was a whole request (Flask, a Redis count, a log line): 50
keep-alive connections got 1,300 answers a second and everyone else's
requests waited seconds behind them. So each worker process keeps a
:class:`Budget` of that same rate per address, and a request over it is
answered by the worker, never reaching the app. When the app refuses an
address for its limit over every instance (:func:`cool`), the address's
budget in this process is emptied until that refusal's ``Retry-After``:
its next requests here are refused by the worker too.
"""

from __future__ import annotations

import time
from urllib.parse import unquote

HOLD_SECONDS = 1
"""How long a worker holds a request over its address's budget before it
answers it 429 and closes the connection (the refusal's ``Retry-After`` is
at least this): a connection of a flood gets one refusal a second, not one
per refill, and a client that opens more meets its connections' cap."""

LOG_SECONDS = 1.0
"""A worker logs at most one refusal a second per address."""

COSTS = {"/metrics": 20.0}
"""What a request to these paths costs the budget, in ordinary requests:
``/metrics`` renders every worker's metrics, and the app never refuses it
(it answers in a Redis outage), so a flood of it from one address within
an even budget held every worker (issue 39, fifth attacker). It costs 20
at least (5 ms), and what its last rendering in this process took
(:func:`price`): its series grow with what clients asked (every route,
method and status), and a rendering of 52 ms, flooded at the fixed 20,
held both workers (seventh attacker)."""

REQUEST_SECONDS = 0.00025
"""What an ordinary request costs a worker (a quarter of a millisecond):
the unit of :data:`COSTS`."""


def routed(path: str) -> str:
    """``path`` as the app routes it: percent-decoded, its slashes merged
    (werkzeug serves ``//metrics`` and ``/%6Detrics`` as ``/metrics``, which
    skipped its price: issue 39, eighth attacker)."""
    if "%" in path:
        path = unquote(path)
    while "//" in path:
        path = path.replace("//", "/")
    return path


def price(path: str, seconds: float) -> None:
    """``path``'s answer took ``seconds`` to render: its next request costs
    that many ordinary requests' worth (never less than :data:`FLOORS`
    says; one dearer than a whole budget leaves a debt: :meth:`Budget.take`)."""
    COSTS[path] = max(FLOORS.get(path, 1.0), seconds / REQUEST_SECONDS)


FLOORS = dict(COSTS)
"""The least each path of :data:`COSTS` costs, however fast its last answer."""


class LogThrottle:
    """Which refusals of an address a worker logs: at most one a second per
    address, however many it answers, whatever it refused (a flood of
    refusals wrote a line each: some 40 KB a second from one address)."""

    MAX_ADDRESSES = 4096

    def __init__(self) -> None:
        self.noted: dict[str, float] = {}
        """Per address, until when its refusals are not logged again."""

    def due(self, key: str, now: float) -> bool:
        """Whether a refusal of ``key`` at ``now`` is logged (and the next
        one a second later at the soonest)."""
        if self.noted.get(key, 0.0) > now:
            return False
        self.noted[key] = now + LOG_SECONDS
        if len(self.noted) > self.MAX_ADDRESSES:
            self.noted = {k: until for k, until in self.noted.items() if until > now}
        return True


class Budget:
    """A token bucket per address key of ``amount`` requests refilled over
    ``period`` seconds (``RATE_LIMIT_PER_ADDRESS``'s, e.g. 100 a second)."""

    MAX_ADDRESSES = 4096
    """Past this many addresses, those whose bucket is full again are forgotten."""

    def __init__(self, amount: int, period: float) -> None:
        self.amount = float(amount)
        self.rate = amount / period  # tokens a second
        self.buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, at)

    def take(self, key: str, now: float, cost: float = 1.0) -> float:
        """Count one request of ``key`` at ``now`` (``time.monotonic``) that
        costs ``cost`` requests' worth: 0 when it may go on, else the seconds
        until it may (nothing counted). One dearer than the whole budget
        goes on with a full budget and leaves a debt the refill pays first
        (a 60 ms ``/metrics`` costs 2.4 s of a 100-a-second budget: the
        ninth attacker got 1.6 to 1.9 a second at a cost capped at 100)."""
        tokens, at = self.buckets.get(key, (self.amount, now))
        tokens = min(self.amount, tokens + (now - at) * self.rate)
        needed = min(cost, self.amount)  # a dearer one needs a full budget, and
        if tokens < needed:
            self.buckets[key] = (tokens, now)
            return (needed - tokens) / self.rate
        self._room(key, now)
        self.buckets[key] = (tokens - cost, now)  # ... leaves the rest as a debt
        return 0.0

    def _room(self, key: str, now: float) -> None:
        """Room for ``key``: past :data:`MAX_ADDRESSES`, the full buckets go,
        and if that leaves more than half of them, the oldest go too (many
        addresses cost each new one a scan only once in a while; an address
        forgotten while it waits is still the app's limit's)."""
        if len(self.buckets) < self.MAX_ADDRESSES or key in self.buckets:
            return
        kept = {
            k: (tokens, at)
            for k, (tokens, at) in self.buckets.items()
            if tokens + (now - at) * self.rate < self.amount
        }
        if len(kept) > self.MAX_ADDRESSES // 2:
            kept = dict(list(kept.items())[-(self.MAX_ADDRESSES // 2) :])
        self.buckets = kept

    def cool(self, key: str, seconds: float, now: float) -> None:
        """Empty ``key``'s bucket for ``seconds`` from ``now``: its next
        request may go on no sooner."""
        self._room(key, now)
        self.buckets[key] = (1.0 - seconds * self.rate, now)


_installed: Budget | None = None


def install(budget: Budget | None) -> None:
    """Make ``budget`` this process's (the worker's, at its start)."""
    global _installed
    _installed = budget


def cool(key: str, seconds: float) -> None:
    """The app refused ``key`` (an address's quota key) for its limit over
    every instance, for ``seconds``: this process's budget refuses it that
    long too (nothing when no budget is installed: gthread, sync, tests'
    in-process apps)."""
    budget = _installed
    if budget is not None:
        budget.cool(key, seconds, time.monotonic())
