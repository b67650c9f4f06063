"""``/play`` is served by the app itself (after a plain ``pip install``): the
page, its script and stylesheet with a policy that lets it run only its own
script and call only this origin; any other name under it is 404."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def test_the_page_and_its_assets_are_served(client: Any) -> None:
    page = client.get("/play")
    assert page.status_code == 200
    assert page.mimetype == "text/html"
    assert b'<script type="module" src="/play/play.js"></script>' in page.data
    policy = page.headers["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "connect-src 'self'" in policy
    assert page.headers["Referrer-Policy"] == "no-referrer"
    script = client.get("/play/play.js")
    assert (script.status_code, script.mimetype) == (200, "text/javascript")
    assert b"/v1/tables/{table_id}/seats/{seat}/tickets" in script.data
    assert client.get("/play/play.css").mimetype == "text/css"


def test_no_other_file_is_served(client: Any) -> None:
    for path in ("/play/index.html", "/play/../__init__.py", "/play/schema.d.ts"):
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert answer.json["code"] == "not-found"


def test_the_site_has_an_icon(client: Any) -> None:
    """Browsers ask every page's origin for ``/favicon.ico``: it is an icon, not a 404."""
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200
    assert icon.mimetype == "image/vnd.microsoft.icon"
    assert icon.data[:4] == b"\x00\x00\x01\x00"  # an ICO: reserved 0, type 1 (icon)
    assert int.from_bytes(icon.data[4:6], "little") == 2  # 16 and 32 pixels
    assert "max-age" in icon.headers["Cache-Control"]


def test_the_guide_and_the_page_link_each_other() -> None:
    """A newcomer finds /play from the guide's first page, and the guide from /play."""
    root = Path(__file__).resolve().parents[2]
    guide = (root / "docs" / "guide" / "README.md").read_text()
    assert "](/play)" in guide or "](/play/)" in guide
    page = (root / "web" / "static" / "index.html").read_text()
    assert 'href="/docs/guide/"' in page and 'href="/docs/rules/"' in page
