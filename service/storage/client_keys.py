"""Client keys: one per front end's server, issued by the operator (``referee
keys``), Redis only.

One hash outside every table (its own hash tag: one slot on a cluster)::

    referee:{client-keys}   hash  n:<name> -> the key's SHA-256 (hex)
                                  d:<SHA-256> -> {"name", "tables_per_minute",
                                  "requests_per_second", "created_ms"} (JSON;
                                  a quota ``null``: the service's default)

A key is 256 bits from the CSPRNG (``ck_`` and 43 URL-safe characters); only
its SHA-256 is kept, so a copy of Redis holds no usable key (there is
nothing to guess in 256 bits, so a plain hash is enough). A request's key is
looked up on every request (one ``HGET``), never cached: a revoked key is
refused at once by every worker and machine.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from dataclasses import asdict, dataclass
from importlib import resources
from typing import Any

from .store import KEY_PREFIX

KEYS_HASH = f"{KEY_PREFIX}:{{client-keys}}"
"""The hash that holds every client key's record."""

KEY_BYTES = 32
PREFIX = "ck_"
NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,39}")
"""A key's name (a metric label: short, fixed by the operator)."""

LONGEST = len(PREFIX) + 43
"""The length of every key; a longer value is not looked up."""


@dataclass(frozen=True, slots=True)
class ClientKey:
    """A client key's record (never the key)."""

    name: str
    tables_per_minute: int | None = None
    requests_per_second: int | None = None
    created_ms: int = 0


class NameTaken(ValueError):
    """A client key by this name exists already."""


def digest(key: str) -> str:
    """A key's SHA-256 (hex): what Redis keeps."""
    return hashlib.sha256(key.encode()).hexdigest()


class ClientKeys:
    """The client keys on ``client`` (a redis-py client, standalone or cluster)."""

    def __init__(self, client: Any) -> None:
        self.client = client
        lua = resources.files(__package__).joinpath("lua")
        self._create = client.register_script(lua.joinpath("client_key_create.lua").read_text())
        self._revoke = client.register_script(lua.joinpath("client_key_revoke.lua").read_text())

    def create(
        self,
        name: str,
        tables_per_minute: int | None = None,
        requests_per_second: int | None = None,
    ) -> str:
        """Issue a key named ``name``; returns the key (shown once). Raises
        :class:`ValueError` for a name that is not :data:`NAME` or a quota
        below 1, :class:`NameTaken` when the name is in use."""
        if not NAME.fullmatch(name):
            raise ValueError(
                f"{name!r} is not a key name: 1 to 40 of a-z 0-9 . _ - (first a letter or digit)"
            )
        for quota in (tables_per_minute, requests_per_second):
            if quota is not None and quota < 1:
                raise ValueError(f"a quota must be at least 1, not {quota}")
        key = PREFIX + secrets.token_urlsafe(KEY_BYTES)
        record = ClientKey(name, tables_per_minute, requests_per_second, int(time.time() * 1000))
        text = json.dumps(asdict(record), separators=(",", ":"))
        if not self._create(keys=[KEYS_HASH], args=[name, digest(key), text]):
            raise NameTaken(f"a client key named {name!r} exists; revoke it first")
        return key

    def revoke(self, name: str) -> bool:
        """Revoke the key named ``name`` at once; False when there is none."""
        return bool(self._revoke(keys=[KEYS_HASH], args=[name]))

    def find(self, key: str) -> ClientKey | None:
        """The record of ``key`` (as sent), ``None`` for an unknown or revoked one."""
        if len(key) != LONGEST or not key.startswith(PREFIX):
            return None
        text = self.client.hget(KEYS_HASH, f"d:{digest(key)}")
        return None if text is None else _record(text)

    def all(self) -> list[ClientKey]:
        """Every key's record, by name."""
        held = self.client.hgetall(KEYS_HASH)
        found = []
        for field, text in held.items():
            if (field.decode() if isinstance(field, bytes) else field).startswith("d:"):
                record = _record(text)
                if record is not None:
                    found.append(record)
        return sorted(found, key=lambda k: k.name)


def _record(text: bytes | str) -> ClientKey | None:
    try:
        return ClientKey(**json.loads(text))
    except (ValueError, TypeError):
        return None
