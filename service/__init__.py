"""card-referee: a rules referee for card games as a REST microservice.

``create_app`` is the Flask app factory; ``service.games`` are the pure
referees, ``service.storage`` the Redis store, ``service.api`` the HTTP layer.

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
