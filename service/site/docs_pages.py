"""The pages for people under ``/docs/``, rendered from the Markdown of
``docs/`` (:mod:`.docs_render`), their generated blocks filled from the game
registry (:mod:`.docs_generated`):

- ``GET /docs/rules/`` (``docs/rules/README.md``), the index of the games'
  rules, and ``GET /docs/rules/<page>`` a game's rules (``<page>.md``);
- ``GET /docs/<page>``: a page of ``docs/`` itself, any ``docs/<page>.md``
  (``api``: the API's conventions, linked from the spec);
- ``GET /docs/guide/`` (``docs/guide/README.md``), the guide's index, and
  ``GET /docs/guide/<page>`` a guide page (walk-throughs, guarantees,
  settings, variants, performance, how it is built);
- ``GET /docs/deploy/`` (``deploy/README.md``) and ``GET /docs/deploy/<page>``
  (``deploy/REDIS.md``): how to deploy it, kept beside the deployment files;
- ``GET /docs/style.css``: their stylesheet. ``/docs`` (and ``/docs/``) is
  Swagger UI; ``/`` redirects to the guide's index, and a page's path with
  a trailing slash to the page.

A page is HTML unless the request prefers ``text/markdown`` (``Accept``); its
``.md`` path (``/docs/rules/sevens.md``) always answers the Markdown. The spec
and the problems link here. Not part of the API's contract (like ``/docs``):
cacheable for an hour; an unknown page is 404 ``page-not-found``.
"""

from __future__ import annotations

import re
from pathlib import Path

from flask import Flask, Response, redirect, request
from flask.typing import ResponseReturnValue

from ..edge.problems import Problem
from . import docs_render
from .docs_generated import fill

PAGE = re.compile(r"[A-Za-z0-9-]{1,40}")
"""A page's name: no path, no dot-dot."""
CACHE = {"Cache-Control": "public, max-age=3600", "Vary": "Accept"}


def _title(path: Path) -> str:
    for line in path.read_text().splitlines():
        if line.startswith("# "):
            return line[2:].replace("`", "").strip()
    return path.stem


def init_app(app: Flask, docs_folder: str, rules_folder: str, deploy_folder: str) -> None:
    """Serve ``docs_folder``'s pages and its ``guide/`` (the ``DOCS_DIR``
    setting), ``rules_folder``'s rules pages (``RULES_DOCS_DIR``) and
    ``deploy_folder``'s (``DEPLOY_DOCS_DIR``)."""
    docs, rules, deploy = Path(docs_folder), Path(rules_folder), Path(deploy_folder)
    guide_folder = docs / "guide"
    tops = sorted(docs.glob("*.md")) if docs.is_dir() else []
    nav = [
        ("API reference", docs_render.DOCS),
        *((_title(g), docs_render.served_url(g.name)) for g in tops),
        ("Guide", docs_render.served_url("guide/README.md")),
        ("Rules of the games", docs_render.served_url("rules/README.md")),
        ("Deployment", docs_render.served_url(docs_render.DEPLOY_SOURCE + "README.md")),
    ]
    app.extensions["docs_nav"] = nav  # the problem pages' too

    def serve(folder: Path, name: str, source: str) -> Response:
        """``folder/name`` (``source``: its path under ``docs/``), as asked."""
        stem = name.removesuffix(".md")
        path = folder / f"{stem}.md"
        if not PAGE.fullmatch(stem) or not path.is_file():
            raise Problem(404, "page-not-found", f"There is no page {name!r}.")
        text = fill(path.read_text(), rules)
        markdown_url = docs_render.served_url(source, markdown=True)
        if name.endswith(".md") or docs_render.wants_markdown():
            return Response(text, mimetype="text/markdown", headers=CACHE)
        body = docs_render.page(docs_render.render_markdown(text, source), nav, markdown_url)
        return Response(body, mimetype="text/html", headers=CACHE)

    def rules_page(name: str) -> Response:
        return serve(rules, name, f"rules/{name.removesuffix('.md')}.md")

    def top_page(name: str) -> Response:
        return serve(docs, name, f"{name.removesuffix('.md')}.md")

    def guide_page(name: str) -> Response:
        return serve(guide_folder, name, f"guide/{name.removesuffix('.md')}.md")

    def deploy_page(name: str) -> Response:
        return serve(deploy, name, f"{docs_render.DEPLOY_SOURCE}{name.removesuffix('.md')}.md")

    def stylesheet() -> Response:
        return Response(docs_render.stylesheet(), mimetype="text/css", headers=CACHE)

    app.add_url_rule("/docs/rules/", "rules_index", lambda: rules_page("README"))
    app.add_url_rule("/docs/rules/<name>", "rules_page", rules_page)
    app.add_url_rule("/docs/guide/", "guide_index", lambda: guide_page("README"))
    app.add_url_rule("/docs/guide/<name>", "guide_page", guide_page)
    app.add_url_rule("/docs/deploy/", "deploy_index", lambda: deploy_page("README"))
    app.add_url_rule("/docs/deploy/<name>", "deploy_page", deploy_page)
    app.add_url_rule("/docs/<name>", "top_page", top_page)
    app.add_url_rule("/docs/style.css", "docs_stylesheet", stylesheet)
    # Swagger UI is at /docs; a trailing slash is the same page.
    app.add_url_rule("/docs/", "docs_slash", lambda: redirect(docs_render.DOCS, code=308))

    def unslashed(name: str) -> ResponseReturnValue:
        """A page's path with a trailing slash: 308 to the page (as a
        folder's path without one goes to its index)."""
        if not PAGE.fullmatch(name.removesuffix(".md")):
            raise Problem(404, "page-not-found", f"There is no page {name!r}.")
        return redirect(request.path.removesuffix("/"), code=308)

    for folder in ("/docs/rules/", "/docs/guide/", "/docs/deploy/", "/docs/"):
        endpoint = "unslashed_" + folder.strip("/").replace("/", "_")  # unslashed_docs_rules
        app.add_url_rule(folder + "<name>/", endpoint, unslashed)
    # The address `referee serve` prints: a browser opened on it finds the guide.
    app.add_url_rule(
        "/", "root", lambda: redirect(docs_render.served_url("guide/README.md"), code=302)
    )
