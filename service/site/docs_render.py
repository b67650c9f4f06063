"""Markdown pages as HTML for people: ``docs/*.md`` and the problem pages.

One renderer (markdown-it-py: CommonMark with tables, heading ids from
mdit-py-plugins' anchors, GitHub's slugs), one page frame and one small
stylesheet served by the service itself (no asset from another host).

The Markdown files link each other with relative ``.md`` links, which work on
a code host; :func:`render_markdown` rewrites them to the URLs the service
serves the pages at (:func:`served_url`). Knows no game.
"""

from __future__ import annotations

import functools
import html
import posixpath
from dataclasses import dataclass
from importlib import resources
from urllib.parse import urlsplit

from flask import request
from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.anchors import anchors_plugin

DOCS = "/docs"
"""Where the pages are served: ``docs/x.md`` at ``/docs/x``."""
STYLESHEET = DOCS + "/style.css"
DEPLOY_SOURCE = "../deploy/"
"""``deploy/``, as seen from ``docs/``: its pages are served at ``/docs/deploy/``."""


def _parser(*, html_blocks: bool) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": html_blocks}).enable("table")
    # Ids for h2-h4 only: a page's title (h1) often shares its name with a
    # section ("May I?"), whose anchor the API links.
    md.use(anchors_plugin, min_level=2, max_level=4, permalink=True, permalinkSymbol="#")
    return md


_DOCS_MD = _parser(html_blocks=True)  # our own files: their comments mark generated blocks
_TEXT_MD = _parser(html_blocks=False)  # texts such as a problem's: `<token>` is text


def wants_markdown() -> bool:
    """Whether the request prefers ``text/markdown`` to ``text/html``; ties
    (a browser, ``Accept: */*``, no ``Accept``) go to HTML."""
    best = request.accept_mimetypes.best_match(["text/html", "text/markdown"])
    return best == "text/markdown"


def served_url(source: str, *, markdown: bool = False) -> str:
    """The URL of the page of ``source``, a path under ``docs/``:
    ``rules/sevens.md`` -> ``/docs/rules/sevens``, ``rules/README.md`` ->
    ``/docs/rules/``, ``guide/settings.md`` -> ``/docs/guide/settings``,
    ``api.md`` -> ``/docs/api`` (``/docs`` itself is Swagger UI: a
    ``docs/README.md`` is ``/docs/README``), ``../deploy/README.md`` ->
    ``/docs/deploy/``. ``markdown``: the URL of its Markdown instead
    (``/docs/rules/README.md``)."""
    if source.startswith(DEPLOY_SOURCE):
        source = "deploy/" + source.removeprefix(DEPLOY_SOURCE)
    if markdown:
        return f"{DOCS}/{source}"
    folder, name = posixpath.split(source)
    stem = name.removesuffix(".md")
    if not folder:
        return f"{DOCS}/{stem}"
    return f"{DOCS}/{folder}/" + ("" if stem == "README" else stem)


def _rewrite(href: str, source: str) -> str:
    """``href`` as served: a relative link to a ``.md`` file under ``docs/``
    becomes its page's URL; every other link stays."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc or parts.path.startswith("/") or not parts.path:
        return href
    if not parts.path.endswith(".md"):
        return href
    target = posixpath.normpath(posixpath.join(posixpath.dirname(source), parts.path))
    if target.startswith("../docs/"):  # from deploy/ back into docs/
        target = target.removeprefix("../docs/")
    elif target.startswith("../") and not _is_deploy_page(target):
        return href  # outside docs/ and deploy/: not served
    return served_url(target) + (f"#{parts.fragment}" if parts.fragment else "")


def _is_deploy_page(target: str) -> bool:
    rest = target.removeprefix(DEPLOY_SOURCE)
    return target.startswith(DEPLOY_SOURCE) and "/" not in rest


def _rewrite_links(tokens: list[Token], source: str) -> None:
    for token in tokens:
        if token.type == "link_open":
            href = str(token.attrs.get("href", ""))
            token.attrs["href"] = _rewrite(href, source)
        if token.children:
            _rewrite_links(token.children, source)


def _title(tokens: list[Token]) -> str:
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h1":
            return tokens[i + 1].content.replace("`", "")
    return ""


@dataclass(frozen=True)
class Rendered:
    """A page's title (its h1, in plain text) and its body (HTML)."""

    title: str
    body: str


@functools.lru_cache(maxsize=128)  # the docs' files and the problem pages
def render_markdown(text: str, source: str = "", *, trusted: bool = True) -> Rendered:
    """``text`` (Markdown) as HTML; ``source`` is its path under ``docs/``
    (relative links are resolved against it). ``trusted`` texts (our files)
    may hold HTML (comments); others show ``<`` as text."""
    md = _DOCS_MD if trusted else _TEXT_MD
    tokens = md.parse(text)
    _rewrite_links(tokens, source)
    return Rendered(_title(tokens), md.renderer.render(tokens, md.options, {}))


def page(rendered: Rendered, nav: list[tuple[str, str]], markdown_url: str | None) -> str:
    """A whole HTML page: ``nav`` lists (title, URL) of the other pages;
    ``markdown_url`` is where the page's Markdown is served, if it is."""
    links = " · ".join(f'<a href="{html.escape(u)}">{html.escape(t)}</a>' for t, u in nav)
    source = (
        f'<footer>This page as Markdown: <a href="{markdown_url}">{markdown_url}</a>.</footer>\n'
        if markdown_url
        else ""
    )
    alternate = (
        f'<link rel="alternate" type="text/markdown" href="{markdown_url}">\n'
        if markdown_url
        else ""
    )
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(rendered.title)} · card-referee</title>\n"
        f'<link rel="stylesheet" href="{STYLESHEET}">\n'
        f"{alternate}"
        "</head>\n<body>\n"
        f"<nav>card-referee: {links}</nav>\n"
        f"<main>\n{rendered.body}</main>\n"
        f"{source}"
        "</body></html>\n"
    )


def stylesheet() -> bytes:
    """The pages' stylesheet (``service/site/static/docs.css``)."""
    return resources.files(__package__).joinpath("static/docs.css").read_bytes()
