"""Gunicorn settings shared by ``referee serve`` and ``deploy/gunicorn.conf.py``.

Every value comes from the environment so that one file serves a laptop, a
container and a cluster: ``HOST``/``PORT`` (or ``GUNICORN_BIND``),
``WEB_CONCURRENCY`` (worker processes), ``GUNICORN_WORKER_CLASS``,
``GUNICORN_THREADS``, ``GUNICORN_TIMEOUT``, ``GUNICORN_GRACEFUL_TIMEOUT``,
``GUNICORN_MAX_REQUESTS``, ``GUNICORN_WORKER_CONNECTIONS`` (gevent: the
connections a process holds at once, open event streams included; streams
take at most half of them, ``service.edge.stream_caps``).

Metrics: every worker is a process, so prometheus_client keeps each worker's
values in files under ``PROMETHEUS_MULTIPROC_DIR`` and ``/metrics`` sums them.
This module sets that variable (a fresh temporary folder) before any worker
starts, unless it is set already (e.g. to a volume); the master empties it at
start, and the files of a worker that exits are kept (its counts stay in the
totals) except its live gauges.

On SIGTERM gunicorn stops accepting connections, lets each worker finish the
requests it is serving for up to ``graceful_timeout`` seconds (less 3: a worker
then closes what is left, logs it, and exits before the master would SIGKILL it;
see ``service/workers.py``), and exits. Ctrl-C (SIGINT) stops at once.
"""

from __future__ import annotations

import os
import shutil
import signal
import tempfile
from pathlib import Path
from typing import Any

# The app's modules (Flask, flask-smorest, every endpoint: about half a second
# of CPU) are imported here, in the master, once: the workers it forks have
# them already. Each worker still makes its own app (its own Redis clients
# and threads). The endpoints' modules are imported on the app's first
# making (service.resources.blueprints): here, not once in every worker.
from . import app as _app  # noqa: F401
from .resources import blueprints
from .workers import CLASSES

blueprints()

bind = os.environ.get(
    "GUNICORN_BIND", f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
)
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
# gevent: a greenlet per connection, so that slow clients (and, soon, event
# streams) hold no thread; gthread and sync hold one per connection. Each is
# gunicorn's, with the changes of service/workers.py. gthread measured about a
# fifth more passes/s and a third of gevent's p99 at the same CPU per request
# (issue 13), but slow clients starve it: see deploy/README.md.
_worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gevent")
worker_class = CLASSES.get(_worker_class, _worker_class)
threads = int(os.environ.get("GUNICORN_THREADS", "4"))  # gthread only
worker_connections = int(os.environ.get("GUNICORN_WORKER_CONNECTIONS", "1000"))  # gevent
# A request waits on Redis for at most REDIS_TIMEOUT_SECONDS per command; a
# worker silent for this long is stuck and is replaced.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "20"))
keepalive = 5
# Replace a worker after this many requests (0: never), to bound slow leaks.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "0"))
# The app logs one JSON access line per request, with its request id
# (service/logs.py); gunicorn's own lines are JSON too.
errorlog = "-"
logconfig_dict = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"json": {"()": "service.logs.json_formatter"}},
    # gunicorn merges these sections over its own, one whole section at a time.
    "handlers": {
        name: {"class": "logging.StreamHandler", "formatter": "json", "stream": stream}
        for name, stream in (("console", "ext://sys.stdout"), ("error_console", "ext://sys.stderr"))
    },
    "root": {"level": "INFO", "handlers": ["console"]},
    "loggers": {
        "gunicorn.error": {"level": "INFO", "handlers": ["error_console"], "propagate": False},
        # Off: its lines hold query strings; the app's access line holds only the path.
        "gunicorn.access": {"level": "WARNING", "handlers": [], "propagate": False},
    },
}
# gunicorn's logger, which skips building the access line gunicorn.access drops.
logger_class = "service.workers.Logger"
# gunicorn 27's control socket is one path per user: two services on one
# machine would fight over it, and nothing here uses it.
control_socket_disable = True

# Set in the master, before the workers import prometheus_client (see above).
_metrics_dir_is_ours = not os.environ.get("PROMETHEUS_MULTIPROC_DIR")
if _metrics_dir_is_ours:
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="referee-metrics-")


def on_starting(server: Any) -> None:
    """Start from zero: drop the metric files of an earlier run in this folder."""
    folder = Path(os.environ["PROMETHEUS_MULTIPROC_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.db"):
        stale.unlink()
    _end_at_once_while_booting(os.getpid())


# Signals that stop a worker; blocked in the master across each fork (below).
_STOPS = (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT)


def _end_at_once_while_booting(master: int) -> None:
    """Until a worker sets its own signal handlers (gunicorn's
    ``init_signals``, after gevent's patching), SIGTERM, SIGINT and SIGQUIT end
    it at once: it holds no request yet. The handlers it inherits are the
    master's, which queue the signal in the child's copy of the master's
    queue, where nothing reads it: a stop that came while a worker booted was
    lost, and the master waited ``graceful_timeout`` (20 s) to SIGKILL it.

    The stops are blocked in the master from just before each fork until the
    new process has its handlers (``os.register_at_fork``), so none falls
    between the fork and them (gunicorn's ``post_fork`` hook came after the
    "Booting worker" line: a busy machine's stop landed there); one sent in
    that instant is delivered when they are unblocked. ``master`` is the
    master's pid: a process the workers fork themselves is left alone."""
    saved: list[set[int | signal.Signals]] = []

    def before() -> None:
        if os.getpid() == master:
            saved.append(signal.pthread_sigmask(signal.SIG_BLOCK, _STOPS))

    def in_master() -> None:
        if saved and os.getpid() == master:
            signal.pthread_sigmask(signal.SIG_SETMASK, saved.pop())

    def in_worker() -> None:
        if saved and os.getppid() == master:
            for sig in _STOPS:
                signal.signal(sig, _quit_while_booting)
            signal.pthread_sigmask(signal.SIG_SETMASK, saved.pop())

    os.register_at_fork(before=before, after_in_parent=in_master, after_in_child=in_worker)


def _quit_while_booting(sig: int, frame: Any) -> None:
    os._exit(0)


def post_worker_init(worker: Any) -> None:
    """A worker has loaded the app and takes requests from now on (gunicorn's
    "Booting worker" line is its fork, a second or so before). What it
    loaded lives as long as it does: out of the cyclic garbage collector's
    sight (``gc.freeze``), so that a collection set off by a request's
    objects does not walk the 150,000 objects of the app every time."""
    import gc

    gc.freeze()
    worker.log.info("Worker ready (pid: %s)", worker.pid)


def child_exit(server: Any, worker: Any) -> None:
    """A worker exited: drop its live gauges (its counters stay in the totals)."""
    from prometheus_client import multiprocess

    multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def on_exit(server: Any) -> None:
    """Remove the metrics folder this module made."""
    if _metrics_dir_is_ours:
        shutil.rmtree(os.environ["PROMETHEUS_MULTIPROC_DIR"], ignore_errors=True)
