"""The pages for people under ``/docs/`` and ``/problems/``: HTML rendered from
``docs/*.md`` (Markdown to whoever asks), links and anchors that resolve, and
lists of games, presets, options and codes that follow the game registry."""

from __future__ import annotations

import re
from dataclasses import fields
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urlsplit

import pytest

from service import config, create_app
from service.config import ENVIRONMENT, Settings
from service.edge.rules_links import RULES_PAGES
from service.games import GAMES
from service.games.errors import CODES, RULES_OF_CODE, Kind
from service.site import docs_generated, docs_render, problem_pages

from ..conftest import RedisProcess, settings_for
from ..helpers import openapi_spec

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


class Links(HTMLParser):
    """The ``href`` of every link, the ``id`` of every element, the asset URLs."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.hrefs: list[str] = []
        self.ids: set[str] = set()
        self.assets: list[str] = []
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(str(values["id"]))
        if tag == "a" and values.get("href"):
            self.hrefs.append(str(values["href"]))
        if tag == "link" and values.get("rel") in ("stylesheet", "icon"):
            self.assets.append(str(values["href"]))
        if tag in ("script", "img") and values.get("src"):
            self.assets.append(str(values["src"]))


def html_of(client: Any, url: str) -> str:
    answer = client.get(url, headers={"Accept": "text/html"})
    assert answer.status_code == 200, url
    assert answer.mimetype == "text/html", url
    return str(answer.get_data(as_text=True))


def pages() -> list[str]:
    rules = [f"/docs/rules/{g.rules}" for g in GAMES.values()]
    tops = [f"/docs/{p.stem}" for p in sorted(DOCS.glob("*.md"))]
    guide = [f"/docs/guide/{p.stem}" for p in sorted((DOCS / "guide").glob("*.md"))]
    deploy = [f"/docs/deploy/{p.stem}" for p in sorted((ROOT / "deploy").glob("*.md"))]
    pages = ["/docs/rules/", *rules, *tops, *guide, *deploy]
    return [p.replace("/README", "/") for p in pages] + [
        "/problems/",
        "/problems/discard-fits",
        "/problems/not-playable",
        "/problems/not-your-turn",
    ]


# --- HTML for people, Markdown for who asks ---------------------------------------------


def test_the_rules_index_is_an_html_page_whose_links_are_the_served_pages(client: Any) -> None:
    answer = client.get("/docs/rules/", headers={"Accept": "text/html,*/*;q=0.8"})
    assert answer.status_code == 200 and answer.mimetype == "text/html"
    assert answer.headers["Vary"] == "Accept"
    text = answer.get_data(as_text=True)
    assert '<a href="/docs/rules/sevens">Sevens (Parliament, Fan Tan, Dominoes)</a>' in text
    assert '<a href="/docs/rules/my-ship-sails#cards">' in text
    assert '<a href="/docs/api">Calling the API</a>' in text
    assert "<table>" in text and "<code>fan-tan-two-decks</code>" in text
    assert 'href="sevens.md' not in text and "`" not in text
    assert Links(text).assets == ["/docs/style.css"]


def test_markdown_goes_to_who_asks_for_it_and_on_the_md_path(client: Any) -> None:
    source = (DOCS / "rules" / "sevens.md").read_text()
    asked = client.get("/docs/rules/sevens", headers={"Accept": "text/markdown"})
    assert asked.mimetype == "text/markdown" and asked.get_data(as_text=True) == source
    for accept in ("text/html", "*/*"):
        raw = client.get("/docs/rules/sevens.md", headers={"Accept": accept})
        assert raw.mimetype == "text/markdown" and raw.get_data(as_text=True) == source
    index = client.get("/docs/rules/README.md").get_data(as_text=True)
    assert index == (DOCS / "rules" / "README.md").read_text()
    assert client.get("/docs/rules/sevens", headers={"Accept": "*/*"}).mimetype == "text/html"
    assert client.get("/docs/rules/sevens").mimetype == "text/html"  # no Accept: a page


def test_docs_with_or_without_a_slash_is_swagger_ui(client: Any) -> None:
    slash = client.get("/docs/")
    assert slash.status_code == 308 and slash.headers["Location"] == "/docs"
    assert "swagger-ui" in client.get("/docs", follow_redirects=True).get_data(as_text=True)
    assert "swagger-ui" in client.get("/docs/", follow_redirects=True).get_data(as_text=True)


def test_the_address_the_server_prints_leads_to_the_guide(client: Any) -> None:
    root = client.get("/")
    assert root.status_code == 302 and root.headers["Location"] == "/docs/guide/"
    assert client.get("/", follow_redirects=True).mimetype == "text/html"


@pytest.mark.parametrize(
    ("url", "page"),
    [
        ("/docs/api/", "/docs/api"),
        ("/docs/rules/sevens/", "/docs/rules/sevens"),
        ("/docs/guide/walk-throughs/", "/docs/guide/walk-throughs"),
        ("/docs/deploy/REDIS/", "/docs/deploy/REDIS"),
    ],
)
def test_a_page_asked_with_a_trailing_slash_redirects_to_it(
    client: Any, url: str, page: str
) -> None:
    answer = client.get(url)
    assert answer.status_code == 308 and answer.headers["Location"] == page
    assert client.get(page).status_code == 200


def test_the_stylesheet_is_served_here(client: Any) -> None:
    answer = client.get("/docs/style.css")
    assert answer.status_code == 200 and answer.mimetype == "text/css"
    assert b"font" in answer.get_data() and b"http" not in answer.get_data()


@pytest.mark.parametrize(
    "url",
    [
        "/docs/chess",
        "/docs/chess.md",
        "/docs/rules/chess",
        "/docs/rules/chess.md",
        "/docs/rules/../README.md",
        "/docs/rules/sevens.txt",
        "/docs/rules/.md",
    ],
)
def test_an_unknown_page_is_404(client: Any, url: str) -> None:
    answer = client.get(url)
    assert answer.status_code == 404
    assert answer.get_json()["code"] in ("page-not-found", "not-found")


def test_a_new_guide_page_is_served_with_its_links_rewritten(
    redis_server: RedisProcess, tmp_path: Path
) -> None:
    (tmp_path / "first-hour.md").write_text(
        "# The first hour\n\n## Start\n\nRead [the layout](rules/sevens.md#the-layout), "
        "[the index](rules/README.md), [this](#start), [the spec](/openapi.yaml).\n"
    )
    app = create_app(settings_for(redis_server.url, docs_dir=str(tmp_path)))
    text = html_of(app.test_client(), "/docs/first-hour")
    assert "<title>The first hour · card-referee</title>" in text
    assert '<h2 id="start">Start' in text
    wanted = ["/docs/rules/sevens#the-layout", "/docs/rules/", "#start", "/openapi.yaml"]
    paragraph = text[text.index("<p>Read") :]
    assert [h for h in Links(paragraph).hrefs if h in wanted] == wanted
    assert ("The first hour", "/docs/first-hour") in app.extensions["docs_nav"]


def test_a_problem_page_is_rendered_markdown(client: Any) -> None:
    text = html_of(client, "/problems/discard-fits")
    assert "<h1>discard-fits</h1>" in text
    assert "<code>discardable</code>" in text and "`" not in text
    assert '<a href="/docs/rules/may-i#a-turn">May I?: a turn</a>' in text
    assert Links(text).assets == ["/docs/style.css"]
    source = client.get("/problems/discard-fits", headers={"Accept": "text/markdown"})
    assert source.mimetype == "text/markdown" and source.headers["Vary"] == "Accept"
    assert source.get_data(as_text=True).startswith("# discard-fits\n")
    assert "[May I?: a turn](/docs/rules/may-i#a-turn)" in source.get_data(as_text=True)
    token = html_of(client, "/problems/token-malformed")
    assert "<code>Bearer &lt;token&gt;</code>" in token  # text, never markup


def test_the_guide_and_the_deployment_pages_are_served_from_their_files(client: Any) -> None:
    guide = sorted((DOCS / "guide").glob("*.md"))
    assert {"walk-throughs", "guarantees", "settings", "variants", "performance"} <= {
        p.stem for p in guide
    }
    index = html_of(client, "/docs/guide/")
    readme = (ROOT / "README.md").read_text()
    for page in guide:
        assert client.get(f"/docs/guide/{page.name}").get_data(as_text=True) == page.read_text()
        if page.stem != "README":
            # Each is linked from the guide's index and from README (the front door).
            assert f'href="/docs/guide/{page.stem}"' in index, page.name
            assert f"](docs/guide/{page.name}" in readme, page.name
    deploy = html_of(client, "/docs/deploy/")
    assert "<h1>" in deploy and 'href="/docs/deploy/README.md"' in deploy
    raw = client.get("/docs/deploy/REDIS.md").get_data(as_text=True)
    assert raw == (ROOT / "deploy" / "REDIS.md").read_text()
    # From a guide page to deploy/ and back into docs/ as the service serves them.
    settings = html_of(client, "/docs/guide/settings")
    assert 'href="/docs/deploy/"' in settings and 'href="/docs/guide/api-tour#call' in settings
    nav = Links(index).hrefs[:5]
    assert nav == ["/docs", "/docs/api", "/docs/guide/", "/docs/rules/", "/docs/deploy/"]


def test_readme_stays_a_front_door() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 100  # one screen or two
    head = readme[: readme.index("## ")]
    assert "make serve" in head and "make test" in head and "/healthz" in head


# --- every link and anchor resolves -----------------------------------------------------


def test_every_link_and_anchor_of_the_pages_resolves(client: Any) -> None:
    ids: dict[str, set[str]] = {}
    broken = []
    for page in pages():
        for href in Links(html_of(client, page)).hrefs:
            if urlsplit(href).netloc:  # a reference (a spec): named, never loaded
                assert href.startswith("https://"), f"{page}: {href}"
                continue
            url, fragment = urldefrag(href)
            url = url or page
            if url == "/docs":  # Swagger UI: drawn by script, its ids are no anchors
                assert client.get(url).status_code == 200
                continue
            if url not in ids:
                answer = client.get(url, headers={"Accept": "text/html"})
                if answer.status_code != 200:
                    broken.append(f"{page}: {href} answers {answer.status_code}")
                    continue
                ids[url] = Links(answer.get_data(as_text=True)).ids
            if fragment and fragment not in ids[url]:
                broken.append(f"{page}: {href}: no id {fragment!r} there")
    assert broken == []
    assert len(ids) > 8


def test_every_section_the_api_cites_is_an_anchor_of_its_page(client: Any) -> None:
    cited = {f"{page}#{anchor}" for page, anchor, _ in RULES_PAGES.values() if anchor}
    cited |= set(RULES_OF_CODE.values())
    missing = []
    for target in sorted(cited):
        page, _, anchor = target.partition("#")
        if anchor not in Links(html_of(client, f"/docs/rules/{page}")).ids:
            missing.append(target)
    assert missing == []


# --- the lists follow the registry --------------------------------------------------------


def test_the_generated_blocks_of_the_docs_are_up_to_date() -> None:
    files = sorted(DOCS.rglob("*.md"))
    assert docs_generated.stale(files, DOCS / "rules") == [], "run `referee docs`"
    assert {"codes", "games"} <= {
        m["name"] for f in files for m in docs_generated.BLOCK.finditer(f.read_text())
    }


def test_a_newly_registered_code_makes_the_docs_stale(monkeypatch: pytest.MonkeyPatch) -> None:
    # What a game that registers a code without `referee docs` meets.
    monkeypatch.setitem(CODES, "card-on-fire", Kind.INVALID)
    monkeypatch.setitem(
        problem_pages.PAGES, "card-on-fire", problem_pages.Page(422, "It burns.", "Drop it.")
    )
    assert docs_generated.stale([DOCS / "api.md"], DOCS / "rules") == [DOCS / "api.md"]
    assert "[`card-on-fire`](/problems/card-on-fire)" in docs_generated.codes_by_status(
        lambda c: f"[`{c}`](/problems/{c})"
    )


def committed_spec() -> dict[str, Any]:
    spec: dict[str, Any] = openapi_spec()
    return spec


def test_the_spec_lists_every_code_every_game_and_every_preset() -> None:
    spec = committed_spec()
    codes = spec["components"]["schemas"]["Problem"]["properties"]["code"]["description"]
    every = set(CODES) | set(problem_pages.PAGES)
    assert {"discard-fits", "may-i-taken", "may-i-closed", "stale-move"} <= every
    assert sorted(c for c in every if f"[`{c}`](/problems/{c})" not in codes) == []
    intro = spec["info"]["description"]
    for game in GAMES.values():
        assert f"| {game.title} | `{game.name}` |" in intro
        assert f"(/docs/rules/{game.rules})" in intro
        assert [p for p in game.presets if f"`{p}`" not in intro] == []
    assert "(/docs/api)" in intro
    assert len(intro) < 2500  # Swagger UI shows the endpoints near the top


def test_the_rules_pages_name_every_game_preset_and_option(client: Any) -> None:
    index = client.get("/docs/rules/README.md").get_data(as_text=True)
    for game in GAMES.values():
        assert f"]({game.rules}.md)" in index, game.name
        page = (DOCS / "rules" / f"{game.rules}.md").read_text()
        options = {k for p in game.presets.values() for k in p.options}
        for preset in game.presets:
            assert f"`{preset}`" in index and f"`{preset}`" in page, preset
        assert sorted(o for o in options if f"`{o}`" not in page) == [], game.name
    assert "coming" not in index


def test_the_guide_names_every_code_and_event_type() -> None:
    guide = (DOCS / "api.md").read_text()
    every = set(CODES) | set(problem_pages.PAGES)
    assert sorted(c for c in every if f"| `{c}` |" not in guide) == []
    events = {e for g in GAMES.values() for e in g.event_layouts}
    assert sorted(e for e in events if f"`{e}`" not in guide) == []


READS_ENVIRONMENT = re.compile(r"""os\.environ(?:\.get\(|\[)\s*["']([A-Z][A-Z0-9_]+)["']""")
"""A variable the service reads itself, outside :class:`Settings` (gunicorn's, the metrics')."""


def test_the_settings_page_names_every_setting() -> None:
    # docs/guide/settings.md says it lists every environment variable; config.py's
    # table, every setting of its own.
    assert set(ENVIRONMENT) == {f.name for f in fields(Settings)}  # each one read from one
    source = "".join(p.read_text() for p in sorted((ROOT / "service").rglob("*.py")))
    read = set(ENVIRONMENT.values()) | set(READS_ENVIRONMENT.findall(source))
    assert {"GUNICORN_BIND", "GUNICORN_WORKER_CLASS", "SERVE_WORKER"} <= read
    page = (DOCS / "guide" / "settings.md").read_text()
    assert sorted(v for v in read if not re.search(rf"`{v}[`=]", page)) == []
    table = str(config.__doc__)
    assert sorted(v for v in ENVIRONMENT.values() if f"``{v}``" not in table) == []


@pytest.mark.parametrize(
    ("source", "href", "served"),
    [
        ("rules/README.md", "sevens.md#the-layout", "/docs/rules/sevens#the-layout"),
        ("rules/sevens.md", "README.md", "/docs/rules/"),
        ("rules/sevens.md", "../api.md#errors", "/docs/api#errors"),
        ("api.md", "rules/may-i.md", "/docs/rules/may-i"),
        ("api.md", "README.md", "/docs/README"),  # /docs is Swagger UI
        ("guide/settings.md", "../../deploy/README.md", "/docs/deploy/"),
        ("guide/settings.md", "../../deploy/REDIS.md#aof", "/docs/deploy/REDIS#aof"),
        ("guide/settings.md", "api-tour.md#x", "/docs/guide/api-tour#x"),
        ("../deploy/README.md", "../docs/api.md#errors", "/docs/api#errors"),
        ("../deploy/README.md", "REDIS.md", "/docs/deploy/REDIS"),
        ("../deploy/README.md", "k8s/README.md", "k8s/README.md"),  # not served: kept
        ("rules/sevens.md", "../../README.md", "../../README.md"),  # not under docs/: kept
        ("guide/settings.md", "../../service/config.py", "../../service/config.py"),
        ("rules/sevens.md", "#goal", "#goal"),
        ("rules/sevens.md", "/openapi.yaml", "/openapi.yaml"),
        ("rules/sevens.md", "https://example.org/x.md", "https://example.org/x.md"),
        ("rules/sevens.md", "cards.txt", "cards.txt"),
    ],
)
def test_relative_md_links_become_the_served_urls(source: str, href: str, served: str) -> None:
    body = docs_render.render_markdown(f"[x]({href})\n", source).body
    assert body == f'<p><a href="{served}">x</a></p>\n'


def presets_table(page: str) -> dict[str, str]:
    """The players cell of each preset named in the first column of a rules
    page's Presets table."""
    section = page.split("\n## Presets\n", 1)[1].split("\n## ", 1)[0]
    players = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith("| `") and len(cells) > 1:
            for name in re.findall(r"`([a-z0-9-]+)`", cells[0]):
                players[name] = cells[1]
    return players


def test_the_presets_tables_give_each_preset_its_registered_players() -> None:
    for game in GAMES.values():
        table = presets_table((DOCS / "rules" / f"{game.rules}.md").read_text())
        assert set(table) == set(game.presets), game.name
        for name, preset in game.presets.items():
            low, high = preset.min_players, preset.max_players
            written = {str(low)} if low == high else {f"{low}-{high}", f"{low}–{high}"}
            assert table[name] in written, (name, table[name], low, high)
