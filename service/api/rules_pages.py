"""The games' rules pages (``docs/rules/*.md``), served as they are written:
``GET /docs/rules/`` is the index, ``GET /docs/rules/<page>.md`` a game's
page. The spec's descriptions and the problems link here, so a client that
follows a link reads the rules the referee enforces. Not part of the API's
contract (like ``/docs``): plain Markdown, cacheable for an hour.
"""

from __future__ import annotations

import re
from pathlib import Path

from flask import Flask, Response

from .problems import Problem

PAGE = re.compile(r"[A-Za-z0-9-]{1,40}\.md")
"""A page's file name: no path, no dot-dot."""


def init_app(app: Flask, folder: str) -> None:
    """Serve the Markdown pages of ``folder`` (the ``RULES_DOCS_DIR`` setting)."""
    root = Path(folder)

    def page(name: str) -> Response:
        path = root / name
        if not PAGE.fullmatch(name) or not path.is_file():
            raise Problem(404, "page-not-found", f"There is no rules page {name!r}.")
        return Response(
            path.read_bytes(),
            mimetype="text/markdown",
            headers={"Cache-Control": "public, max-age=3600"},
        )

    app.add_url_rule("/docs/rules/", "rules_index", lambda: page("README.md"))
    app.add_url_rule("/docs/rules/<name>", "rules_page", page)
