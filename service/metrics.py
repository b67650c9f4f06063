"""Prometheus metrics at ``GET /metrics`` (text exposition format).

| metric | type | labels |
|---|---|---|
| ``referee_request_duration_seconds`` | histogram | ``method``, ``endpoint`` (the URL rule) |
| ``referee_requests_total`` | counter | ``method``, ``endpoint``, ``status`` |
| ``referee_tables_created_total`` | counter | ``variant`` |
| ``referee_client_tables_created_total`` | counter | ``client`` (a client key's name) |
| ``referee_exchanges_resolved_total`` | counter | ``variant`` |
| ``referee_claims_total`` | counter | ``outcome`` (``accepted``, ``rejected``) |
| ``referee_rounds_won_total``, ``referee_rounds_void_total`` | counter | ``variant`` |
| ``referee_events_total`` | counter | ``game``, ``type`` (every public event) |
| ``referee_redis_errors_total`` | counter | ``error`` (the exception's class) |
| ``referee_stream_renders_total`` | counter | ``audience`` (``public`` events, ``seat`` views) |
| ``referee_commit_conflicts_total`` | counter | none (moves that lost a version race, ran again) |
| ``referee_active_tables`` | gauge | none |
| ``referee_build_info`` | gauge (always 1) | ``version`` (the release, :mod:`service.version`) |

``method`` is one of :data:`METHODS` (any other method counts as ``OTHER``)
and ``endpoint`` one of the app's URL rules (``unmatched`` for a request that
matched none), so no client can add series; ``game`` is a game of
:mod:`service.games` and ``type`` one of its events' types (the games'
event layouts: a fixed set).

The game counters come from the public events a move committed (a refused
claim is committed too, as ``claim-rejected``), so a retried or repeated
request that wrote nothing counts nothing.

Under gunicorn every worker is a process: ``PROMETHEUS_MULTIPROC_DIR`` (which
``service.gunicorn_settings`` sets before the workers start) makes
prometheus_client keep each worker's values in files there, and a scrape of
any worker sums them all. prometheus_client picks that mode when it is first
imported, so this module imports it only inside :class:`Metrics`, i.e. in a
worker's ``create_app``, never when the ``service`` package is imported by the
gunicorn master. A scrape skips a worker's file that is still empty: a
worker makes its file and sizes it a moment later, and one killed in between
leaves it empty for good, which prometheus_client's own collector cannot read
(prometheus/client_python#1199), so every scrape would fail.

**Active tables** are the tables with a committed move in the last
:data:`ACTIVE_WINDOW_MINUTES` minutes, counted in Redis and not per process,
so the number is the same whichever worker, machine or cluster node answers.
A move adds its table id to a HyperLogLog for the current minute (``PFADD``,
O(1), a key that expires after the window); a scrape counts the union of the
window's minutes (``PFCOUNT``). Each worker gathers the ids of its moves and
adds them once a second (:data:`FLUSH_SECONDS`) from a background thread, in
one pipeline, so that a move costs no Redis round trip for its metric; a
scrape adds its own worker's pending ids first, and another worker's show
within a second. The HyperLogLogs are split
into :data:`ACTIVE_SHARDS` shards by table id, each shard under its own hash
tag, so no single key or cluster node takes every move, and a scrape costs
:data:`ACTIVE_SHARDS` commands in one pipeline, whatever the number of tables.
HyperLogLog counts are estimates: for a few dozen tables, one low now and
then (two ids fall in one register, about once in a hundred counts of
twenty), and within about 1% beyond.
Scraping every replica gives the same gauge from each: aggregate it with
``max``, not ``sum``. (The alternatives: ``SCAN`` over the table keys at each
scrape costs O(all keys) on every node; per-process counters cannot see
expiry, restarts or another worker's tables.)
"""

from __future__ import annotations

import atexit
import glob
import hashlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

import redis
from flask import Flask, Response, current_app, g, got_request_exception, request

from . import budgets
from .games import VARIANTS
from .games.codec import LAYOUTS
from .version import release

if TYPE_CHECKING:  # prometheus_client is imported late; see the module docstring
    from prometheus_client import CollectorRegistry
    from prometheus_client.core import Metric

EVENT_TYPES = frozenset(LAYOUTS)
"""Every public event type of every game (the label ``type`` takes no other)."""

HEADER_BYTES = 8
"""A worker's metric file starts with how much of it is used (4 bytes) and
padding (4): prometheus_client's layout (``prometheus_client.mmap_dict``)."""

ACTIVE_WINDOW_MINUTES = 15
ACTIVE_SHARDS = 16
FLUSH_SECONDS = 1.0
# Request latency buckets (seconds): a move is two Redis round trips.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
"""The ``method`` label's values; any other method is counted as ``OTHER``, so
that a client inventing methods cannot add series (each is a file entry in
every worker's multiprocess folder, read by every scrape)."""

log = logging.getLogger(__name__)


CLIENT_LABELS = 100
"""Client key names a worker labels its tables with (then ``other``)."""


def method_label(method: str) -> str:
    """The ``method`` label of a request: a fixed set of values."""
    return method if method in METHODS else "OTHER"


def endpoint_label() -> str:
    """The ``endpoint`` label: the URL rule matched (a fixed set: the app's
    routes), ``unmatched`` for a request that matched none (404, 405)."""
    rule = request.url_rule
    return rule.rule if rule is not None else "unmatched"


def multiprocess_dir() -> str | None:
    """The folder of prometheus_client's multiprocess mode, or ``None``."""
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


def active_key(shard: int, minute: int) -> str:
    """The HyperLogLog of the tables of ``shard`` moved in ``minute`` (minutes
    since the epoch); the shard is the key's hash tag."""
    return f"referee:active:{{{shard}}}:{minute}"


class ActiveTables:
    """Counts distinct tables moved recently, in Redis (see the module docstring).

    ``client`` is a ``redis.Redis`` or ``redis.RedisCluster``; ``clock`` gives
    seconds since the epoch.
    """

    def __init__(
        self,
        client: Any,
        clock: Any = time.time,
        on_error: Callable[[BaseException], None] | None = None,
    ) -> None:
        self.client = client
        self.clock = clock
        self.on_error = on_error
        self._pending: dict[str, set[str]] = {}
        self._lock = threading.Lock()
        self._flusher: tuple[int, threading.Thread] | None = None

    def _key(self, table_id: str) -> str:
        digest = hashlib.blake2b(table_id.encode(), digest_size=4).digest()
        return active_key(int.from_bytes(digest, "big") % ACTIVE_SHARDS, int(self.clock() // 60))

    def mark(self, table_id: str) -> None:
        """Record a move on ``table_id`` now; raises ``redis.RedisError``."""
        self.note(table_id)
        self.flush()

    def note(self, table_id: str) -> None:
        """Record a move on ``table_id``, to be added within :data:`FLUSH_SECONDS`
        by this process's background thread (started on first use, after fork)."""
        with self._lock:
            self._pending.setdefault(self._key(table_id), set()).add(table_id)
            if self._flusher is None or self._flusher[0] != os.getpid():
                thread = threading.Thread(target=self._run, name="active-tables", daemon=True)
                self._flusher = (os.getpid(), thread)
                thread.start()
                atexit.register(self._last_flush)  # a worker that exits keeps its marks

    def flush(self) -> None:
        """Add the pending table ids in one pipeline; raises ``redis.RedisError``
        (the ids are then dropped: a metric, not a move)."""
        with self._lock:
            pending, self._pending = self._pending, {}
        if not pending:
            return
        pipe = self.client.pipeline(transaction=False)
        for key, table_ids in pending.items():
            pipe.pfadd(key, *table_ids)
            pipe.expire(key, (ACTIVE_WINDOW_MINUTES + 1) * 60)
        pipe.execute()

    def _last_flush(self) -> None:
        try:
            self.flush()
        except (redis.RedisError, redis.exceptions.RedisClusterException) as error:
            # At exit the Redis may be gone on purpose (tests, shutdown): no alarm.
            log.info("could not mark tables active at exit: %s", error)

    def _run(self) -> None:
        while True:
            time.sleep(FLUSH_SECONDS)
            try:
                self.flush()
            except (redis.RedisError, redis.exceptions.RedisClusterException) as error:
                if self.on_error is not None:
                    self.on_error(error)
                log.warning("could not mark tables active: %s", error)
            except Exception:  # keep flushing whatever went wrong once
                log.exception("could not mark tables active")

    def count(self) -> int:
        """Distinct tables moved in the last :data:`ACTIVE_WINDOW_MINUTES`
        minutes (this minute included); raises ``redis.RedisError``."""
        self.flush()
        now = int(self.clock() // 60)
        minutes = range(now - ACTIVE_WINDOW_MINUTES + 1, now + 1)
        pipe = self.client.pipeline(transaction=False)
        for shard in range(ACTIVE_SHARDS):
            # execute_command: the cluster pipeline refuses pfcount() for fear of
            # keys in several slots; these share the shard's hash tag.
            pipe.execute_command("PFCOUNT", *(active_key(shard, m) for m in minutes))
        return sum(int(n) for n in pipe.execute())


class Metrics:
    """The service's metrics. ``registry`` is where they live in one process;
    ``None`` in multiprocess mode, where the values go to files and a scrape
    collects them (see :meth:`exposition`)."""

    def __init__(self, client: Any) -> None:
        from prometheus_client import CollectorRegistry, Counter, Histogram

        self._children: dict[tuple[Any, tuple[str, ...]], Any] = {}
        self.multiprocess = multiprocess_dir() is not None
        self.registry: CollectorRegistry | None = None if self.multiprocess else CollectorRegistry()
        self.active = ActiveTables(client, on_error=self.redis_error)
        r = self.registry
        if r is not None:
            # First, so that a Redis error while counting shows in this very scrape.
            r.register(_ActiveTablesCollector(self))
        self.latency = Histogram(
            "referee_request_duration_seconds",
            "Time to answer a request that was not refused (status below 400), by endpoint "
            "(the URL rule); GET, POST, PUT, PATCH and DELETE only.",
            ["method", "endpoint"],
            buckets=LATENCY_BUCKETS,
            registry=r,
        )
        self.requests = Counter(
            "referee_requests",
            "Requests answered, by endpoint and HTTP status.",
            ["method", "endpoint", "status"],
            registry=r,
        )
        self.tables_created = Counter(
            "referee_tables_created", "Tables created.", ["variant"], registry=r
        )
        self.client_tables = Counter(
            "referee_client_tables_created",
            "Tables created with a client key, by the key's name (never the key).",
            ["client"],
            registry=r,
        )
        self._client_names: set[str] = set()
        self.exchanges = Counter(
            "referee_exchanges_resolved", "Exchanges resolved.", ["variant"], registry=r
        )
        self.claims = Counter(
            "referee_claims", "Claims, by outcome (accepted, rejected).", ["outcome"], registry=r
        )
        self.rounds_won = Counter(
            "referee_rounds_won", "Rounds won (a shared win counts once).", ["variant"], registry=r
        )
        self.rounds_void = Counter(
            "referee_rounds_void", "Rounds ended with no winner.", ["variant"], registry=r
        )
        self.events = Counter(
            "referee_events",
            "Public events committed, by game and event type.",
            ["game", "type"],
            registry=r,
        )
        self.commit_conflicts = Counter(
            "referee_commit_conflicts",
            "Moves that lost their table's version race to another move and ran again.",
            registry=r,
        )
        self.stream_renders = Counter(
            "referee_stream_renders",
            "Frames rendered for a process's streams, by audience: once per announced "
            "commit and audience, however many streams write them.",
            ["audience"],
            registry=r,
        )
        self.redis_errors = Counter(
            "referee_redis_errors",
            "Redis commands that failed, by exception class.",
            ["error"],
            registry=r,
        )

    def child(self, metric: Any, *values: str) -> Any:
        """``metric.labels(*values)``, made once: a labelled child is looked up
        under a lock and checked on every ``labels`` call, and every label of
        these metrics takes values from a fixed set (see the module docstring),
        so the children kept are few."""
        key = (metric, values)
        found = self._children.get(key)
        if found is None:
            found = self._children[key] = metric.labels(*values)
        return found

    def stream_rendered(self, audience: str) -> None:
        """Count one rendering of a stream read's frames (``public`` or ``seat``)."""
        self.child(self.stream_renders, audience).inc()

    def redis_error(self, error: BaseException) -> None:
        """Count one failed Redis operation."""
        self.child(self.redis_errors, type(error).__name__).inc()

    def committed(
        self, table_id: str, variant: str | None, events: Iterable[dict[str, Any]]
    ) -> None:
        """Count what a committed move did (its public ``events``) and mark its
        table active (in the background: no Redis call here)."""
        found = VARIANTS.get(variant or "")
        game = found[0].name if found is not None else "unknown"
        child = self.child
        for event in events:
            kind = event.get("type")
            if kind in EVENT_TYPES:
                child(self.events, game, kind).inc()
            if kind == "exchange-resolved":
                child(self.exchanges, variant or "unknown").inc()
            elif kind == "claim-accepted":
                child(self.claims, "accepted").inc()
            elif kind == "claim-rejected":
                child(self.claims, "rejected").inc()
            elif kind == "round-won":
                child(self.rounds_won, variant or "unknown").inc()
            elif kind == "round-void":
                child(self.rounds_void, variant or "unknown").inc()
            elif kind == "table-created":
                child(self.tables_created, variant or "unknown").inc()
        self.active.note(table_id)

    def client_table(self, name: str) -> None:
        """Count a table created with the client key named ``name``: the
        operator names the keys, and past :data:`CLIENT_LABELS` names (keys
        issued and revoked over a worker's life) the rest count as ``other``."""
        if name not in self._client_names:
            if len(self._client_names) >= CLIENT_LABELS:
                name = "other"
            else:
                self._client_names.add(name)
        self.child(self.client_tables, name).inc()

    def exposition(self) -> tuple[bytes, str]:
        """The text exposition of every metric and its content type. What it
        took (seconds, wall) becomes what the next ``GET /metrics`` costs
        an address's budget in this process (:func:`.budgets.price`)."""
        from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest

        started = time.perf_counter()
        registry = self.registry
        if registry is None:
            registry = CollectorRegistry()
            registry.register(_ActiveTablesCollector(self))
            registry.register(_WorkerFilesCollector(multiprocess_dir() or ""))
        body = generate_latest(registry)
        budgets.price("/metrics", time.perf_counter() - started)
        return body, CONTENT_TYPE_LATEST


class _WorkerFilesCollector:
    """prometheus_client's sum over the workers' files, without the files a
    worker made but has not sized yet (fewer bytes than the header that says
    how much of the file is used: nothing is recorded in them), which its own
    collector fails on (prometheus/client_python#1199)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder

    def describe(self) -> list[Metric]:
        return []

    def collect(self) -> Iterable[Metric]:
        from prometheus_client.multiprocess import MultiProcessCollector

        files = []
        for path in glob.glob(os.path.join(self.folder, "*.db")):
            try:
                if os.path.getsize(path) >= HEADER_BYTES:  # a file only grows
                    files.append(path)
            except FileNotFoundError:
                continue  # a dead worker's live gauges, removed since the listing
        return MultiProcessCollector.merge(files, accumulate=True)  # type: ignore[no-any-return,no-untyped-call]


class _ActiveTablesCollector:
    """Computes ``referee_active_tables`` at scrape time, from Redis; omits it
    (and counts a Redis error) when Redis does not answer. Also gives
    ``referee_build_info``, which needs no Redis."""

    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def describe(self) -> list[Metric]:
        return []  # unchecked: its name cannot clash with the others

    def collect(self) -> Iterator[Metric]:
        from prometheus_client.core import GaugeMetricFamily

        yield _build_info()
        try:
            count = self.metrics.active.count()
        except (redis.RedisError, redis.exceptions.RedisClusterException) as error:
            self.metrics.redis_error(error)
            log.warning("could not count active tables: %s", error)
            return
        yield GaugeMetricFamily(
            "referee_active_tables",
            f"Tables with a committed move in the last {ACTIVE_WINDOW_MINUTES} minutes "
            "(the same on every replica: aggregate with max).",
            value=count,
        )


def _build_info() -> Metric:
    from prometheus_client.core import GaugeMetricFamily

    info = GaugeMetricFamily(
        "referee_build_info", "The release this process runs (always 1).", labels=["version"]
    )
    info.add_metric([release()], 1)
    return info


TIMED_METHODS = frozenset(("GET", "POST", "PUT", "PATCH", "DELETE"))
"""The methods whose answers are timed (``referee_request_duration_seconds``):
not a preflight's ``OPTIONS`` nor ``HEAD``, which every route answers."""


def current() -> Metrics:
    """The current app's :class:`Metrics`."""
    return current_app.extensions["referee_metrics"]  # type: ignore[no-any-return]


def init_app(app: Flask, client: Any) -> Metrics:
    """Attach metrics to ``app``: time and count every request, serve
    ``GET /metrics``. ``client`` is the store's Redis client."""
    metrics = Metrics(client)
    app.extensions["referee_metrics"] = metrics

    @app.before_request
    def _start_timer() -> None:
        g.referee_started = time.perf_counter()

    @app.after_request
    def _observe(response: Response) -> Response:
        started = g.pop("referee_started", None)
        if started is not None:
            req = request._get_current_object()  # type: ignore[attr-defined]
            rule = req.url_rule.rule if req.url_rule is not None else "unmatched"
            method = method_label(req.method)  # rule: endpoint_label()
            status = response.status_code
            if status < 400 and method in TIMED_METHODS:
                # A histogram is 17 series: refusals of every route and method
                # grew the scrape to 238 KB and 52 ms (issue 39, seventh
                # attacker), and so did preflights and HEADs (ninth).
                metrics.child(metrics.latency, method, rule).observe(time.perf_counter() - started)
            metrics.child(metrics.requests, method, rule, str(status)).inc()
        return response

    def _unhandled(sender: Flask, exception: BaseException, **extra: Any) -> None:
        # Connection and cluster failures are answered (503) and counted by
        # their handler; any other Redis error ends here, as a 500.
        if isinstance(exception, redis.RedisError | redis.exceptions.RedisClusterException):
            metrics.redis_error(exception)

    got_request_exception.connect(_unhandled, app, weak=False)

    def _metrics_view() -> Response:
        body, content_type = metrics.exposition()
        return Response(body, content_type=content_type)

    app.add_url_rule("/metrics", "metrics", _metrics_view, methods=["GET"])
    return metrics
