"""Gunicorn settings shared by ``referee serve`` and ``deploy/gunicorn.conf.py``.

Every value comes from the environment so that one file serves a laptop, a
container and a cluster: ``HOST``/``PORT`` (or ``GUNICORN_BIND``),
``WEB_CONCURRENCY`` (worker processes), ``GUNICORN_WORKER_CLASS``,
``GUNICORN_THREADS``, ``GUNICORN_TIMEOUT``.
"""

from __future__ import annotations

import os

bind = os.environ.get(
    "GUNICORN_BIND", f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
)
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = os.environ.get("GUNICORN_WORKER_CLASS", "gthread")
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
# A request waits on Redis for at most REDIS_TIMEOUT_SECONDS per command; a
# worker silent for this long is stuck and is replaced.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", "20"))
keepalive = 5
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
# gunicorn 27's control socket is one path per user: two services on one
# machine would fight over it, and nothing here uses it.
control_socket_disable = True
