"""The reference web table at ``/play``: static files (``static/play/``, built
from ``web/`` by ``make web`` and committed, so a plain ``pip install`` serves
them). The page calls only the public API, from this origin, with the
TypeScript client generated from the spec. Not part of the API's contract
(like ``/docs``).

- ``GET /play``: the page (``index.html``); ``GET /play/<file>``: its script
  and stylesheet (``play.js``, ``play.css``); any other name is 404.
"""

from __future__ import annotations

from pathlib import Path

from flask import Flask, Response, send_from_directory
from werkzeug.exceptions import NotFound

FOLDER = Path(__file__).parent / "static" / "play"
FILES = frozenset({"play.js", "play.css"})
# The page runs only its own script and talks only to this origin; join codes
# travel in the URL's fragment and no Referer leaves the page.
HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-cache",
}


def init_app(app: Flask) -> None:
    """Serve the page and its two assets."""

    def page() -> Response:
        response = send_from_directory(FOLDER, "index.html", max_age=0)
        response.headers.update(HEADERS)
        return response

    def asset(name: str) -> Response:
        if name not in FILES:
            raise NotFound()
        response = send_from_directory(FOLDER, name, max_age=0)
        response.headers.update(HEADERS)
        return response

    app.add_url_rule("/play", "play_page", page)
    app.add_url_rule("/play/", "play_page_slash", page)
    app.add_url_rule("/play/<name>", "play_asset", asset)
