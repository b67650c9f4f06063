"""``referee serve`` (``--dev``: a front end's development on this machine)
and ``referee worker``: the service and its deadline worker."""

from __future__ import annotations

import argparse
import errno
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

from ..config import Settings, SettingsError


def _serve(args: argparse.Namespace) -> int:
    """Run the service under gunicorn; start an embedded Redis if needed."""
    from gunicorn.app.base import BaseApplication

    from .. import gunicorn_settings, logs
    from ..storage.embedded import ensure_embedded_redis, stop_embedded_redis

    # Every setting and server hook of the shared module; load_config skips
    # what gunicorn lacks (and the module's imports, which are no settings).
    options: dict[str, Any] = {
        k: v
        for k, v in vars(gunicorn_settings).items()
        if not k.startswith("_") and (isinstance(v, str | int | float | dict) or callable(v))
    }
    if args.port or args.host:
        host, _, port = options["bind"].rpartition(":")
        options["bind"] = f"{args.host or host}:{args.port or port}"
    if args.workers:
        options["workers"] = args.workers
    if args.dev:
        wrong = _dev_mode(options["bind"])
        if wrong:
            print(f"referee: cannot serve --dev: {wrong}", file=sys.stderr)
            gunicorn_settings.on_exit(None)
            return 2
        options["when_ready"] = lambda server: print(_dev_banner(options["bind"]), flush=True)
    # Before any "serving" line: a second `make serve` says why it cannot.
    refused = _cannot_listen(options["bind"])
    if refused:
        print(f"referee: cannot serve on {options['bind']}: {refused}", file=sys.stderr)
        gunicorn_settings.on_exit(None)  # the metrics folder it made at import
        return 1

    try:
        settings = Settings.from_env()
    except SettingsError as error:  # before anything starts: a line that says what to fix
        print(f"referee: cannot serve: {error}", file=sys.stderr)
        gunicorn_settings.on_exit(None)
        return 2
    logs.configure()  # every line the service writes is JSON
    started_pid = None
    if not settings.redis_url:
        url, started_pid = ensure_embedded_redis(settings.data_dir)
        os.environ["REDIS_URL"] = url  # the workers share this one server
        logs.logger.info(
            "embedded redis", extra={"url": url, "data": str(Path(settings.data_dir).resolve())}
        )

    class Referee(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            for key, value in options.items():
                if key in self.cfg.settings:  # older gunicorns lack some settings
                    self.cfg.set(key, value)

        def load(self) -> Any:
            from .. import create_app

            return create_app()

    # A child `referee worker` moves bots and ends turns at their clocks
    # (RULES.md 5.3, 5.4), so `make serve` alone is a playable table.
    worker = None
    if not args.no_worker and os.environ.get("SERVE_WORKER", "1") != "0":
        worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"])
        logs.logger.info("deadline worker", extra={"pid": worker.pid})
    logs.logger.info("serving", extra={"url": f"http://{options['bind']}", "docs": "/docs"})
    master = os.getpid()
    try:
        Referee().run()
    finally:
        # gunicorn's workers are forks of this process, and one that exits
        # (sys.exit on the SIGABRT of a timed-out request) unwinds through
        # here too: only the master stops the child worker and the embedded
        # Redis that every worker shares.
        if os.getpid() == master:
            if worker is not None:
                worker.terminate()
                try:
                    worker.wait(10)
                except subprocess.TimeoutExpired:
                    worker.kill()
            if started_pid is not None:
                stop_embedded_redis(os.environ["REDIS_URL"])
    return 0


DEV_LIMITS = {
    "RATE_LIMIT_TABLES": "100000/second",
    "RATE_LIMIT_ANONYMOUS": "100000/second",
    "RATE_LIMIT_PER_ADDRESS": "100000/second",
    "RATE_LIMIT_RECORD_CHECKS": "100000/second",
    "RATE_LIMIT_PER_TOKEN": "100000/second",
    "LOBBY_LISTED_PER_ADDRESS": "100000",
}
"""The limits ``serve --dev`` lifts (each unless set): on a developer's
machine every page, test and walk-through comes from one address, and a
script plays every seat as fast as it can. (Refused claims stay limited:
their limit is part of what a front end meets in play.)"""


def _dev_mode(bind: str) -> str | None:
    """Set the environment of ``referee serve --dev`` (before any setting is
    read): pages on this machine's origins may call the API (CORS, any port:
    :data:`service.config.LOOPBACK_ORIGINS` added to ``CORS_ORIGINS``) and
    the per-address and per-token limits are lifted (:data:`DEV_LIMITS`,
    each unless set).
    Returns why it cannot (a bind that is not a loopback address: lifted
    limits must not face a network), else None."""
    from ..config import LOOPBACK_ORIGINS

    host = bind.rpartition(":")[0].strip("[]")
    if host not in ("127.0.0.1", "localhost", "::1"):
        return (
            f"it listens on {host or bind}, and --dev lifts the per-address limits: "
            "bind it to 127.0.0.1 (the default), or run `referee serve` with your own settings"
        )
    origins = os.environ.get("CORS_ORIGINS", "").replace(",", " ").split()
    if origins != ["*"]:
        os.environ["CORS_ORIGINS"] = " ".join(dict.fromkeys([*origins, *LOOPBACK_ORIGINS]))
    for name, value in DEV_LIMITS.items():
        os.environ.setdefault(name, value)
    return None


def _dev_banner(bind: str) -> str:
    """What ``referee serve --dev`` prints once it listens: where to go."""
    url = f"http://{bind}"
    return "\n".join(
        [
            f"referee serve --dev: listening on {url}",
            f"  play in a browser:  {url}/play",
            f"  the guide:          {url}/docs/guide/",
            f"  API reference:      {url}/docs   (the spec: {url}/openapi.yaml)",
            "  CORS:               pages on http(s)://localhost, 127.0.0.1 or [::1], any port,"
            " may call it",
            "  limits:             lifted per address and per token (RATE_LIMIT_TABLES,"
            " _ANONYMOUS, _PER_ADDRESS, _RECORD_CHECKS, _PER_TOKEN)",
            "  Not for a server others reach: README says how CORS and the limits work there.",
        ]
    )


def _cannot_listen(bind: str) -> str | None:
    """Why gunicorn could not listen at ``bind`` (``host:port``), or None.

    It binds the address the way gunicorn will (``SO_REUSEADDR``) and lets it
    go at once: a port another process listens on is refused here.
    """
    host, colon, port = bind.rpartition(":")
    if not colon or not port.isdigit() or bind.startswith(("unix:", "fd://")):
        return None  # a Unix socket or a file descriptor: gunicorn says it
    host = host.strip("[]") or "0.0.0.0"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, int(port)))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return "the address is already in use (is the service running already?)"
            return error.strerror or str(error)
    return None


def _worker(args: argparse.Namespace) -> int:
    """``referee worker``: run the deadline worker (``service.worker``)."""
    # Its metrics are its own (service.worker.metrics), never the files of the
    # gunicorn workers of a `referee serve` that started it.
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    from ..config import Settings
    from ..worker.run import Worker, healthy

    settings = Settings.from_env()
    if args.health:
        return 0 if healthy(settings) else 1
    from .. import logs

    logs.configure()  # JSON lines, as `referee serve` writes them
    Worker(settings).run()
    return 0


def add_serve(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``serve`` to the commands."""
    serve = sub.add_parser("serve", help="run the HTTP service under gunicorn")
    serve.add_argument("--host", help="address to bind (default $HOST or 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default $PORT or 8000)")
    serve.add_argument(
        "--workers", type=int, help="worker processes (default $WEB_CONCURRENCY or 2)"
    )
    serve.add_argument(
        "--no-worker",
        action="store_true",
        help="do not start a child `referee worker` (run your own for bots and clocks)",
    )
    serve.add_argument(
        "--dev",
        action="store_true",
        help="for a front end in development on this machine: pages on localhost origins "
        "(any port) may call it, the per-address and per-token limits are lifted; "
        "loopback addresses only",
    )
    serve.set_defaults(func=_serve)


def add_worker(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``worker`` to the commands."""
    work = sub.add_parser(
        "worker",
        help="run the deadline worker: turn clocks, bots, what falls due (any number of copies)",
    )
    work.add_argument(
        "--health", action="store_true", help="exit 0 if a worker here is alive, else 1"
    )
    work.set_defaults(func=_worker)
