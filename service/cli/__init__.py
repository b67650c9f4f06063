"""The ``referee`` command: ``serve``, ``worker``, ``openapi``, ``docs``,
``simulate``, ``verify``, ``replay`` and ``keys`` (client keys: ``create``,
``list``, ``revoke``).

One module per command family: :mod:`.serve` (``serve``, ``--dev``,
``worker``), :mod:`.docs` (``openapi``, ``docs``), :mod:`.keys`,
:mod:`.simulate`, :mod:`.records` (``verify``, ``replay``); each adds its own
commands' arguments. ``python -m service.cli`` runs :func:`main`.
"""

from __future__ import annotations

import argparse

from ..version import release
from . import docs, keys, records, serve, simulate
from .simulate import PIECE_ROUNDS

__all__ = ["PIECE_ROUNDS", "main"]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``referee`` console script."""
    parser = argparse.ArgumentParser(prog="referee", description="A rules referee for card games.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {release()}")
    sub = parser.add_subparsers(dest="command", required=True)
    serve.add_serve(sub)
    docs.add_parsers(sub)
    keys.add_parsers(sub)
    simulate.add_parsers(sub)
    records.add_parsers(sub)
    serve.add_worker(sub)
    args = parser.parse_args(argv)
    return int(args.func(args))
