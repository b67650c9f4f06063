"""The reference web table at ``/play``: static files (``static/play/``, built
from ``web/`` by ``make web`` and committed, so a plain ``pip install`` serves
them). The page calls only the public API, from this origin, with the
TypeScript client generated from the spec. Not part of the API's contract
(like ``/docs``).

- ``GET /play``: the page (``index.html``); ``GET /play/<file>``: its script
  and stylesheet (``play.js``, ``play.css``); any other name is 404.
- ``GET /favicon.ico``: the site's icon (a card with a spade, drawn by
  ``web/favicon.py``), which browsers ask for on every page of the service.
"""

from __future__ import annotations

from pathlib import Path

from flask import Flask, Response
from werkzeug.exceptions import NotFound

FOLDER = Path(__file__).parent / "static" / "play"
FAVICON = Path(__file__).parent / "static" / "favicon.ico"
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
    """Serve the page and its two assets (read once: three small files)."""
    files = {
        name: (FOLDER.joinpath(name).read_bytes(), mimetype)
        for name, mimetype in (
            ("index.html", "text/html"),
            ("play.js", "text/javascript"),
            ("play.css", "text/css"),
        )
    }

    def send(name: str) -> Response:
        body, mimetype = files[name]
        return Response(body, mimetype=mimetype, headers=HEADERS)

    def asset(name: str) -> Response:
        if name not in FILES:
            raise NotFound()
        return send(name)

    icon = FAVICON.read_bytes()

    def favicon() -> Response:
        # A day in caches: browsers ask for it with every page.
        return Response(
            icon,
            mimetype="image/vnd.microsoft.icon",
            headers={"Cache-Control": "public, max-age=86400"},
        )

    app.add_url_rule("/favicon.ico", "favicon", favicon)
    app.add_url_rule("/play", "play_page", lambda: send("index.html"))
    app.add_url_rule("/play/", "play_page_slash", lambda: send("index.html"))
    app.add_url_rule("/play/<name>", "play_asset", asset)
