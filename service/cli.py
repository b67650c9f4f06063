"""The ``referee`` command: ``serve`` and ``openapi``."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from .config import Settings


def _serve(args: argparse.Namespace) -> int:
    """Run the service under gunicorn; start an embedded Redis if needed."""
    from gunicorn.app.base import BaseApplication

    from . import gunicorn_settings, logs
    from .storage.embedded import ensure_embedded_redis, stop_embedded_redis

    logs.configure()  # every line the service writes is JSON
    settings = Settings.from_env()
    started_pid = None
    if not settings.redis_url:
        url, started_pid = ensure_embedded_redis(settings.data_dir)
        os.environ["REDIS_URL"] = url  # the workers share this one server
        logs.logger.info(
            "embedded redis", extra={"url": url, "data": str(Path(settings.data_dir).resolve())}
        )
    # Every setting of the shared module; load_config skips what gunicorn lacks.
    options: dict[str, Any] = {
        k: v
        for k, v in vars(gunicorn_settings).items()
        if not k.startswith("_") and isinstance(v, str | int | float | dict)
    }
    if args.port or args.host:
        host, _, port = options["bind"].rpartition(":")
        options["bind"] = f"{args.host or host}:{args.port or port}"
    if args.workers:
        options["workers"] = args.workers

    class Referee(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            for key, value in options.items():
                if key in self.cfg.settings:  # older gunicorns lack some settings
                    self.cfg.set(key, value)

        def load(self) -> Any:
            from . import create_app

            return create_app()

    logs.logger.info("serving", extra={"url": f"http://{options['bind']}", "docs": "/docs"})
    try:
        Referee().run()
    finally:
        if started_pid is not None:
            stop_embedded_redis(os.environ["REDIS_URL"])
    return 0


def _openapi(args: argparse.Namespace) -> int:
    """Write the OpenAPI document generated from the code."""
    import redis

    from . import create_app, spec_yaml

    # The spec needs no store: give the app a client that is never used.
    app = create_app(Settings(), client=redis.Redis(host="127.0.0.1", port=1))
    text = spec_yaml(app.extensions["referee_api"])
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``referee`` console script."""
    parser = argparse.ArgumentParser(prog="referee", description="A rules referee for card games.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the HTTP service under gunicorn")
    serve.add_argument("--host", help="address to bind (default $HOST or 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default $PORT or 8000)")
    serve.add_argument(
        "--workers", type=int, help="worker processes (default $WEB_CONCURRENCY or 2)"
    )
    serve.set_defaults(func=_serve)
    spec = sub.add_parser("openapi", help="write the OpenAPI document")
    spec.add_argument("-o", "--output", default="openapi.yaml", help="file, or - for stdout")
    spec.set_defaults(func=_openapi)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
