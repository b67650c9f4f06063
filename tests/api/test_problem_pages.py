"""Every problem's ``type`` leads to a page of the service that explains its code."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import service
from service.api import problem_pages
from service.api.problems import _CODES_OF_STATUS
from service.games.errors import CODES

from ..helpers import TableClient, bearer

SOURCE = Path(service.__file__).resolve().parent


def follow(client: Any, answer: Any) -> str:
    """GET the answer's problem ``type`` (resolved against the request URL)."""
    body = answer.get_json()
    assert answer.content_type == "application/problem+json"
    url = urljoin(answer.request.url, body["type"])
    assert url.startswith("http://localhost/problems/")
    page = client.get(url)
    assert page.status_code == 200, (body, page.status_code)
    assert page.content_type.startswith("text/html")
    text = page.get_data(as_text=True)
    assert f"<h1>{body['code']}</h1>" in text and str(body["status"]) in text
    return text


def test_the_type_of_several_problems_leads_to_their_page(tables: TableClient) -> None:
    c = tables.client
    t = tables.create(4)
    answers = {
        "table-not-found": c.get("/v1/tables/" + "x" * 20),
        "token-missing": c.post(f"{t.url}/rounds"),
        "host-only": c.post(f"{t.url}/rounds", headers=bearer(t.seats[0])),
        "invalid-request": c.post("/v1/tables", json={"players": ["a"], "bogus": 1}),
        "malformed-request": c.post("/v1/tables", data="{", content_type="application/json"),
        "no-round-in-play": c.put(
            f"{t.url}/rounds/1/exchanges/1/passes/0",
            json={"cards": ["AS"]},
            headers=bearer(t.seats[0]),
        ),  # fmt: skip
        "not-found": c.get("/nowhere"),
    }
    for code, answer in answers.items():
        assert answer.get_json()["code"] == code
        assert answer.get_json()["type"] == f"/problems/{code}"
        text = follow(c, answer)
        page = problem_pages.page_of(code)
        assert page is not None
        # Markdown rendered: `code` spans are <code>, never backticks.
        assert "`" not in text and "<code>" in text
        for words in (page.meaning, page.remedy):
            first = words.split("`")[0].split("(RULES.md")[0]  # up to the first markup
            assert html.escape(first, quote=False) in text, (code, first)


def test_an_unknown_code_has_no_page(client: Any) -> None:
    r = client.get("/problems/no-such-code")
    assert r.status_code == 404 and r.get_json()["code"] == "not-found"


def test_every_code_the_service_answers_has_a_page_of_its_own() -> None:
    raised = set()
    for path in SOURCE.rglob("*.py"):
        text = path.read_text()
        raised |= set(re.findall(r'Problem\(\s*\d+,\s*"([a-z-]+)"', text))
        raised |= set(re.findall(r'RuleViolation\(\s*"([a-z-]+)"', text))
    codes = raised | set(CODES) | set(_CODES_OF_STATUS.values()) | {"http-error"}
    assert len(raised) > 15
    missing = sorted(c for c in codes if c not in problem_pages.PAGES)
    assert missing == []
