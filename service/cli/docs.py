"""``referee openapi`` and ``referee docs``: the files written from the code
(the OpenAPI document; the docs' lists of games, presets and codes)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..config import Settings


def _openapi(args: argparse.Namespace) -> int:
    """Write the OpenAPI document generated from the code."""
    import redis

    from .. import create_app, spec_yaml

    # The spec needs no store: give the app a client that is never used.
    app = create_app(Settings(), client=redis.Redis(host="127.0.0.1", port=1))
    text = spec_yaml(app.extensions["referee_api"])
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text)
    return 0


def _docs(args: argparse.Namespace) -> int:
    """Rewrite the generated blocks of the Markdown files under ``args.folder``
    (``docs/``) from the game registry; with ``--check``, only list the stale
    files (exit 1 if any)."""
    from ..site.docs_generated import fill, stale

    folder = Path(args.folder)
    files = sorted(folder.rglob("*.md"))
    rules = folder / "rules"
    if args.check:
        for path in stale(files, rules):
            print(f"stale: {path} (run `referee docs`)")
        return 1 if stale(files, rules) else 0
    for path in files:
        text = path.read_text()
        if fill(text, rules) != text:
            path.write_text(fill(text, rules))
            print(f"wrote {path}")
    return 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``openapi`` and ``docs`` to the commands."""
    spec = sub.add_parser("openapi", help="write the OpenAPI document")
    spec.add_argument("-o", "--output", default="openapi.yaml", help="file, or - for stdout")
    spec.set_defaults(func=_openapi)
    docs = sub.add_parser(
        "docs", help="rewrite the docs' lists of games, presets and codes from the registry"
    )
    docs.add_argument("folder", nargs="?", default="docs", help="the docs folder (docs)")
    docs.add_argument("--check", action="store_true", help="only report stale files")
    docs.set_defaults(func=_docs)
