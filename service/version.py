"""The release this code is: the version in pyproject.toml, as installed.

Reported by ``GET /healthz``, ``GET /readyz``, the ``referee_build_info``
metric and ``referee --version``; CHANGELOG.md names each release's commit."""

from __future__ import annotations

from functools import cache
from importlib.metadata import PackageNotFoundError, version

DISTRIBUTION = "card-referee"


@cache
def release() -> str:
    """The installed release's version (PEP 440), ``"0+unknown"`` when the
    package is run without being installed. Read once a process (the code
    it runs does not change under it): reading the package's metadata was
    two fifths of a ``/healthz``'s CPU."""
    try:
        return version(DISTRIBUTION)
    except PackageNotFoundError:  # pragma: no cover - run from a bare checkout
        return "0+unknown"
