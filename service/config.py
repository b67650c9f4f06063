"""Settings, read from the environment, typed, with defaults.

| variable | default | meaning |
|---|---|---|
| ``REDIS_URL`` | unset | ``redis[s]://``, ``unix://``, ``redis[s]+cluster://``; unset: embedded |
| ``REFEREE_DATA_DIR`` | ``./referee-data`` | the embedded Redis's data (AOF) and socket |
| ``TABLE_TTL_SECONDS`` | ``604800`` (7 days) | an untouched table expires after this long |
| ``EVENTS_KEPT`` | ``48`` | the newest events kept per table (older: 410 ``events-gone``) |
| ``REDIS_TIMEOUT_SECONDS`` | ``1.0`` | connect and command timeout towards Redis |
| ``RETRY_AFTER_SECONDS`` | ``2`` | the ``Retry-After`` sent with a 503 |
| ``IDEMPOTENCY_LOCK_SECONDS`` | ``10`` | how long a running Idempotency-Key request holds its key |
| ``IDEMPOTENCY_RECORDS_PER_TOKEN`` | ``32`` | answers kept per token and table (the oldest go) |
| ``RATE_LIMIT_PER_TOKEN`` | ``20/second`` | requests with a token, per token |
| ``RATE_LIMIT_ANONYMOUS`` | ``50/second`` | requests without a token, per client address |
| ``RATE_LIMIT_TABLES`` | ``10/minute`` | table creations per client address |
| ``RATE_LIMIT_FAILED_CLAIMS`` | ``5/minute`` | refused claims per token |
| ``RATE_LIMIT_PER_ADDRESS`` | ``100/second`` | every request per client address, tokens or none |
| ``TRUSTED_PROXIES`` | ``0`` | proxies in front whose ``X-Forwarded-For`` names the client |
| ``HOST`` / ``PORT`` | ``127.0.0.1`` / ``8000`` | where ``referee serve`` listens |
| ``WEB_CONCURRENCY`` | ``2`` | gunicorn worker processes |
| ``RULES_DOCS_DIR`` | ``docs/rules`` of the checkout | the rules pages served at ``/docs/rules/`` |
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class Settings:
    """The service's settings; see the module docstring for each one."""

    redis_url: str | None = None
    data_dir: str = "referee-data"
    table_ttl_seconds: int = 7 * 24 * 3600
    events_kept: int = 48
    redis_timeout_seconds: float = 1.0
    retry_after_seconds: int = 2
    idempotency_lock_seconds: float = 10.0
    idempotency_records_per_token: int = 32
    rate_limit_per_token: str = "20/second"
    rate_limit_anonymous: str = "50/second"
    rate_limit_tables: str = "10/minute"
    rate_limit_failed_claims: str = "5/minute"
    rate_limit_per_address: str = "100/second"
    trusted_proxies: int = 0
    host: str = "127.0.0.1"
    port: int = 8000
    workers: int = 2
    rules_docs_dir: str = str(Path(__file__).resolve().parents[1] / "docs" / "rules")

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None, **overrides: Any) -> Settings:
        """Settings from ``env`` (default ``os.environ``), then ``overrides``."""
        env = dict(os.environ if env is None else env)
        names = {
            "redis_url": "REDIS_URL",
            "data_dir": "REFEREE_DATA_DIR",
            "table_ttl_seconds": "TABLE_TTL_SECONDS",
            "events_kept": "EVENTS_KEPT",
            "redis_timeout_seconds": "REDIS_TIMEOUT_SECONDS",
            "retry_after_seconds": "RETRY_AFTER_SECONDS",
            "idempotency_lock_seconds": "IDEMPOTENCY_LOCK_SECONDS",
            "idempotency_records_per_token": "IDEMPOTENCY_RECORDS_PER_TOKEN",
            "rate_limit_per_token": "RATE_LIMIT_PER_TOKEN",
            "rate_limit_anonymous": "RATE_LIMIT_ANONYMOUS",
            "rate_limit_tables": "RATE_LIMIT_TABLES",
            "rate_limit_failed_claims": "RATE_LIMIT_FAILED_CLAIMS",
            "rate_limit_per_address": "RATE_LIMIT_PER_ADDRESS",
            "trusted_proxies": "TRUSTED_PROXIES",
            "host": "HOST",
            "port": "PORT",
            "workers": "WEB_CONCURRENCY",
            "rules_docs_dir": "RULES_DOCS_DIR",
        }
        values: dict[str, Any] = {}
        types = {f.name: f.type for f in fields(cls)}
        for name, var in names.items():
            raw = env.get(var)
            if raw in (None, ""):
                continue
            kind = types[name]
            values[name] = int(raw) if kind == "int" else float(raw) if kind == "float" else raw
        values.update(overrides)
        return cls(**values)
