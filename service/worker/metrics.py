"""The worker's Prometheus metrics (prometheus_client), served by the worker
itself at ``http://<host>:WORKER_METRICS_PORT/metrics`` (0, the default:
not served; deploy/ sets 9191).

- ``referee_worker_moves_total`` (counter, ``kind``): moves made, ``default``
  (a person out of time), ``bot`` or ``settle`` (what fell due, a step's clock);
- ``referee_worker_lateness_seconds`` (histogram): how long after its deadline
  a default or bot move was made, by Redis's clock;
- ``referee_worker_notes_total``: clock notes followed (a commit said when to
  look at its table); ``referee_worker_buckets_total``: bucket jobs run;
  ``referee_worker_looks_total``: tables looked at;
- ``referee_worker_stuck_total``: deadlines that passed with no move to make
  (looked at again later); ``referee_worker_paused_total``: tables whose bots
  and clocks paused (RULES.md 5.4, no person); ``referee_worker_held_total``:
  moves put off until the window of the table's creator's budget of referee
  moves ends (RULES.md 5.4, ``service.storage.quota``);
  ``referee_worker_errors_total``: looks that failed (logged; looked at
  again later).

Every worker process serves its own (labels: none a caller can add); sum
them over the workers. A registry of its own, never the API's multiprocess
files: ``referee worker`` drops ``PROMETHEUS_MULTIPROC_DIR`` before this
module is imported.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram, start_http_server

LATENESS_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
KINDS = ("default", "bot", "settle")


class WorkerMetrics:
    """The worker's counters, in a registry of their own."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        moves = Counter("referee_worker_moves_total", "Moves the worker made", ["kind"], registry=r)
        self.moves = {kind: moves.labels(kind) for kind in KINDS}
        self.lateness = Histogram(
            "referee_worker_lateness_seconds",
            "How late after its deadline a default or bot move was made",
            buckets=LATENESS_BUCKETS,
            registry=r,
        )
        self.notes = Counter("referee_worker_notes_total", "Clock notes followed", registry=r)
        self.buckets = Counter("referee_worker_buckets_total", "Bucket jobs run", registry=r)
        self.looks = Counter("referee_worker_looks_total", "Tables looked at", registry=r)
        self.stuck = Counter(
            "referee_worker_stuck_total", "Deadlines passed with no move to make", registry=r
        )
        self.paused = Counter(
            "referee_worker_paused_total", "Tables whose bots and clocks paused", registry=r
        )
        self.errors = Counter("referee_worker_errors_total", "Looks that failed", registry=r)
        self.held = Counter(
            "referee_worker_held_total",
            "Moves put off because the table's creator had spent its referee moves (RULES.md 5.4)",
            registry=r,
        )

    def serve(self, port: int, host: str = "0.0.0.0") -> None:  # noqa: S104 - a pod's port
        """Serve ``/metrics`` on ``port`` from a background thread (0: not at all)."""
        if port:
            start_http_server(port, addr=host, registry=self.registry)
