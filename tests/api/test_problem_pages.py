"""Every problem's ``type`` leads to a page of the service that explains its code."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import pytest

import service
from service.edge.problems import _CODES_OF_STATUS
from service.games.errors import CODES
from service.site import problem_pages

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


def test_the_index_links_every_code_to_its_page(client: Any) -> None:
    html_index = client.get("/problems/")
    assert html_index.status_code == 200 and html_index.mimetype == "text/html"
    text = client.get("/problems/", headers={"Accept": "text/markdown"}).get_data(as_text=True)
    linked = set(re.findall(r"\| \[`([a-z-]+)`\]\(/problems/\1\) \| (\d{3}) \|", text))
    assert {code for code, _ in linked} == set(problem_pages.PAGES) | set(CODES)
    assert ("not-your-turn", "409") in linked and ("malformed-request", "400") in linked


def test_a_codes_md_path_answers_its_markdown(client: Any) -> None:
    answer = client.get("/problems/not-your-turn.md")
    assert answer.status_code == 200 and answer.mimetype == "text/markdown"
    assert answer.get_data(as_text=True).startswith("# not-your-turn\n")
    assert client.get("/problems/no-such-code.md").status_code == 404


@pytest.mark.parametrize(
    ("code", "games"),
    [
        ("not-your-turn", ["My Ship Sails", "Sevens", "May I?"]),
        ("options-invalid", ["my-ship-sails#", "sevens#", "may-i#"]),
        ("deal-invalid", ["my-ship-sails#the-deal", "sevens#", "may-i#the-deal"]),
        ("stale-round", ["current_exchange", "current_turn", "current_move"]),
    ],
)
def test_a_code_every_game_answers_speaks_of_every_game(
    client: Any, code: str, games: list[str]
) -> None:
    """Codes the three games share say what each game's answer holds (a
    Sevens player was once told of exchanges only)."""
    text = client.get(f"/problems/{code}", headers={"Accept": "text/markdown"}).get_data(
        as_text=True
    )
    assert [g for g in games if g not in text] == []
