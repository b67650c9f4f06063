"""The pages for people as a browser shows them: headless Chromium (Debian's
``chromium``, driven by Playwright) on a real ``referee serve``.

Opens Swagger UI (``/docs``), the rules index and every game's rules page, a
problem page, every page of ``docs/`` and of the guide (``docs/guide/``)
and the deployment pages (``deploy/*.md``); every link on them answers
200 and every ``#id`` it names exists on its target page; no request leaves
the service's host. Screenshots go to ``tests/artifacts/docs/`` (git-ignored).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urlsplit

import pytest
import requests

from service.games import GAMES

from .browser import CHROMIUM as CHROMIUM_PATH
from .browser import CHROMIUM_ARGS as ARGS
from .conftest import Served

CHROMIUM = str(CHROMIUM_PATH)

ARTIFACTS = Path(__file__).resolve().parent / "artifacts" / "docs"
DOCS = Path(__file__).resolve().parents[1] / "docs"

if not os.access(CHROMIUM, os.X_OK):
    pytest.skip(
        f"no {CHROMIUM}: install Debian's chromium (apt-get install -y chromium; .ci/run does)",
        allow_module_level=True,
    )
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')"
)


def pages() -> list[str]:
    """The pages a new user opens first."""
    rules = [f"/docs/rules/{g.rules}" for g in GAMES.values()]
    tops = [f"/docs/{p.stem}" for p in sorted(DOCS.glob("*.md"))]
    guide = [f"/docs/guide/{p.stem}" for p in sorted((DOCS / "guide").glob("*.md"))]
    deploy = [f"/docs/deploy/{p.stem}" for p in sorted((DOCS.parent / "deploy").glob("*.md"))]
    pages = ["/docs", "/docs/rules/", *rules, "/problems/discard-fits", *tops, *guide, *deploy]
    return [p.replace("/README", "/") for p in pages]


class Browser:
    """One Chromium page on ``base``; records every request to another host."""

    def __init__(self, page: Any, base: str, other: Any) -> None:
        self.page = page
        self.other = other  # a second tab, where the pages linked to are drawn
        self.base = base
        self.foreign: list[str] = []
        self._ids: dict[str, set[str]] = {}
        host = urlsplit(base).netloc
        page.on("request", lambda r: self._check(r.url, host))
        other.on("request", lambda r: self._check(r.url, host))

    def _check(self, url: str, host: str) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("data", "blob", "about") and parts.netloc != host:
            self.foreign.append(url)

    def open(self, path: str, page: Any = None) -> None:
        """``path`` drawn in ``page`` (the first tab): loaded with its
        stylesheet, and Swagger UI's operations drawn from the spec."""
        page = page or self.page
        answer = page.goto(self.base + path, wait_until="load")
        assert answer is not None and answer.status == 200, path
        if urlsplit(self.base + path).path.rstrip("/") == "/docs":
            page.wait_for_selector(".opblock", timeout=30_000)

    def links(self) -> list[str]:
        hrefs: list[str] = self.page.eval_on_selector_all("a[href]", "as => as.map(a => a.href)")
        # Swagger UI's own routes (`#/tag/operation`) are no element ids.
        return [h for h in hrefs if not urldefrag(h).fragment.startswith("/")]

    def ids(self, url: str) -> set[str]:
        """The element ids of the page at ``url`` (no fragment), as drawn."""
        if url not in self._ids:
            self.open(url[len(self.base) :], self.other)
            self._ids[url] = set(self.other.eval_on_selector_all("[id]", "es => es.map(e => e.id)"))
        return self._ids[url]


@pytest.fixture(scope="module")
def browser(served: Served) -> Iterator[Browser]:
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = chromium.new_page(viewport={"width": 1280, "height": 900})
        try:
            yield Browser(page, served.base, chromium.new_page())
        finally:
            chromium.close()


def test_every_link_and_anchor_of_the_first_pages_resolves(browser: Browser) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    checked: dict[str, int] = {}
    broken = []
    for path in pages():
        browser.open(path)
        name = path.strip("/").replace("/", "-") or "index"
        browser.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
        for link in browser.links():
            url, fragment = urldefrag(link)
            if not url.startswith(browser.base):  # a reference (a spec): named, never loaded
                assert url.startswith("https://"), f"{path}: {link}"
                continue
            if url not in checked:
                answer = requests.get(url, headers={"Accept": "text/html"}, timeout=10)
                checked[url] = answer.status_code
            if checked[url] != 200:
                broken.append(f"{path}: {link} answers {checked[url]}")
            elif fragment and fragment not in browser.ids(url):
                broken.append(f"{path}: {link}: no id {fragment!r} there")
    assert broken == []
    # Among them: the guide and the rules pages (Swagger UI's description links them).
    assert {"/docs/api", "/docs/rules/may-i", "/docs/rules/sevens", "/docs/guide/settings"} <= {
        urlsplit(u).path for u in checked
    }
    assert browser.foreign == []


def test_swagger_ui_shows_the_endpoints_near_the_top(browser: Browser) -> None:
    browser.open("/docs")
    top = browser.page.eval_on_selector(".opblock", "e => e.getBoundingClientRect().top")
    browser.page.screenshot(path=str(ARTIFACTS / "docs-top.png"))
    assert top < 900, f"the first endpoint is {top}px down, below the first screen"
    assert browser.foreign == []


def test_docs_with_a_trailing_slash_is_swagger_ui(browser: Browser) -> None:
    browser.open("/docs/")
    assert browser.page.url == browser.base + "/docs"
    assert browser.page.locator(".opblock").count() > 10


def test_a_rules_page_reads_as_a_page(browser: Browser) -> None:
    browser.open("/docs/rules/sevens#the-layout")
    heading = browser.page.locator("h2#the-layout")
    assert heading.inner_text().startswith("The layout")
    # The anchor scrolled the section into view; the table and code are drawn.
    assert 0 <= heading.evaluate("e => e.getBoundingClientRect().top") < 200
    assert browser.page.locator("table").count() >= 1
    assert browser.page.locator("code").count() > 10
    style = browser.page.locator("code").first.evaluate("e => getComputedStyle(e).fontFamily")
    assert "mono" in style.lower()  # the stylesheet is applied
