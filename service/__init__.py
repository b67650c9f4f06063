"""card-referee: a rules referee for card games as a REST microservice.

The rooms, in floors (a module imports only rooms below its own; ``make
lint`` checks it, and that nothing imports in a circle)::

    cli/, wsgi       the commands (a module per family: serve, docs, keys, simulate,
                     records); gunicorn's entry
    app, workers     create_app: the Flask app, its hooks and spec; the worker class
    resources/       one package per resource: endpoints.py beside schemas.py
                     (tables, seats, streams, proofs, catalog; ship, sevens, may_i),
                     moves.py (how every move is made), seating.py, clocks.py
    spec/            the Api and its description, shared schemas, per-game unions, links
    site/            pages for people: docs, problem pages, /play, static files
    edge/            what every request passes: auth, CORS, limits, input bounds,
                     Idempotency-Key, problem+json, presence, stream caps
    streams/ worker/ the fan-out of commits; deadlines and bots as jobs (no game)
    storage/         Redis only: key layout, load, commit, choose, records (no rules)
    config, games/   settings; THE referee, pure: one package per game

A request passes the edge's hooks, its resource validates it (schemas) and
hands the table's id to the store, which loads it; the game computes the
move or refuses it, the store commits it, the resource answers and the
streams fan the commit out: edge → resource → game → storage.

The app (:mod:`service.app`: Flask, flask-smorest, every endpoint) is imported
on first use of its names, so that ``referee --version``, ``referee keys`` and
the deadline worker start without it (about half a second of CPU each).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import API_VERSION, create_app, spec_yaml
    from .storage.client import redis_client

__all__ = ["API_VERSION", "create_app", "redis_client", "spec_yaml"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from . import app

        return getattr(app, name)
    raise AttributeError(f"module 'service' has no attribute {name!r}")
