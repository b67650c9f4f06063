"""The curl walk-throughs of README.md and of the guide pages (docs/guide/:
a Sevens round; a May I? turn with a May I? request that is denied; joining
by code; following a table's streams with ``curl -N``), run as a reader
would (bash, curl, python3) against a real ``referee serve``: the lines each
prints are the lines its page says it
prints. Each submits its deal, so its output is the same on every run."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.games import GAMES

from .conftest import RedisProcess, Served
from .worker.test_worker import WorkerProcess

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").glob("*.md"))]
"""Where a walk-through may be: README or any guide page."""


def section(title: str) -> str:
    """The section ``## title`` of whichever page holds it, up to the next
    ``## `` section (a page's only ``# `` heading is its title, on top)."""
    holding = [p for p in PAGES if f"\n## {title}\n" in p.read_text()]
    assert len(holding) == 1, f"## {title} is in {holding}, not in one page"
    text = holding[0].read_text()
    start = text.index(f"\n## {title}\n") + 1
    end = text.find("\n## ", start)
    return text[start : end if end >= 0 else None]


def block(text: str, language: str, after: int = 0) -> str:
    found = re.findall(rf"```{language}\n(.*?)```", text[after:], flags=re.S)
    assert found, f"no {language} block"
    return found[0]


def bash(script: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """``script`` run by bash, as a reader pastes it, with the suite's own
    Python first on ``PATH`` as its ``python3``: a version manager's shim
    (pyenv's, on these machines) adds some 80 ms of CPU to each start, and a
    walk-through starts ``python3`` once or twice a turn."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**os.environ, "PATH": path},
    )


def run_walk_through(served: Served, title: str, files: dict[str, Path]) -> None:
    """Run the first ``sh`` block of the section ``title`` against
    ``served`` (its temporary ``files`` moved to the test's own) and compare
    its output with the section's ``text`` block after "It prints", each
    line's trailing comment left out."""
    text = section(title)
    script = block(text, "sh").replace("http://127.0.0.1:8000", served.base)
    for name, path in files.items():
        script = script.replace(name, str(path))
    run = bash(script, 300)
    assert run.returncode == 0, run.stderr
    printed = block(text, "text", text.index("It prints"))
    expected = [re.split(r"\s{2,}# ", line)[0].rstrip() for line in printed.splitlines()]
    assert run.stdout.splitlines() == expected


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_sevens_walk_through_prints_what_its_page_says(served: Served, tmp_path: Path) -> None:
    run_walk_through(
        served, "Play a Sevens round with curl", {"/tmp/sevens.json": tmp_path / "sevens.json"}
    )


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_may_i_walk_through_prints_what_its_page_says(served: Served, tmp_path: Path) -> None:
    run_walk_through(
        served, "Play a May I? turn with curl", {"/tmp/may-i.json": tmp_path / "may-i.json"}
    )


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_joining_walk_through_prints_what_its_page_says(served: Served, tmp_path: Path) -> None:
    run_walk_through(
        served,
        "Joining by code",
        {"/tmp/open.json": tmp_path / "open.json", "/tmp/ben.json": tmp_path / "ben.json"},
    )


@pytest.fixture(scope="module")
def streaming(
    redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """A service with the streams of ``make serve`` (the suite's ``served``
    ends its streams at once)."""
    service = Served(redis_server.url, tmp_path_factory.mktemp("served-readme-streams"))
    yield service
    service.stop()


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_streams_walk_through_prints_what_readme_says(
    streaming: Served, tmp_path: Path
) -> None:
    files = {
        f"/tmp/{name}": tmp_path / name
        for name in ("live.json", "public.txt", "ann.txt", "ben.txt")
    }
    run_walk_through(streaming, "Following a table live", files)


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_readmes_taste_of_the_api_ends_with_an_accepted_move(served: Served) -> None:
    """A shuffled deal, so the taste asks the table who opens (the seat that
    holds 7D, RULES.md 3.4) and plays 7D with that seat's token: accepted on
    every run (it once passed with Ben's token, refused as not his turn)."""
    text = (ROOT / "README.md").read_text()
    script = block(text, "sh", text.index("## A taste of the API"))
    script = script.replace("http://127.0.0.1:8000", served.base)
    for _ in range(5):  # five shuffles
        run = bash(script, 60)
        assert run.returncode == 0 and run.stderr == "", run.stderr
        games, seat, turn = [json.loads(line) for line in run.stdout.splitlines()]
        assert [g["name"] for g in games["games"]] == list(GAMES)
        assert seat["on_turn"] is True and seat["playable"] == ["7D"] and len(seat["hand"]) == 13
        assert (turn["action"], turn["card"], turn["turn"]) == ("play", "7D", 1), turn


JSON_HELPER = re.compile(r"^json\(\) \{.*?^\}$", re.M | re.S)
"""The walk-throughs' ``json`` helper, as each page defines it."""


def test_the_walk_throughs_json_helper_says_why_a_call_was_refused(tmp_path: Path) -> None:
    """Every walk-through reads answers with one ``json`` helper. When an
    answer is a refusal (a 429 after ten tables in a minute, say) and lacks
    what is asked for, it says the refusal's status, code and detail on
    stderr (and exits 1), not ``KeyError: 'table_id'``."""
    helpers = {h for page in PAGES for h in JSON_HELPER.findall(page.read_text())}
    assert len(helpers) == 1, helpers  # one definition, the same on every page
    [helper] = helpers
    problem = {
        "type": "/problems/rate-limited",
        "title": "Too Many Requests",
        "status": 429,
        "code": "rate-limited",
        "detail": "Too many tables created from this address; retry in 42 s.",
    }
    (tmp_path / "refused.json").write_text(json.dumps(problem))
    (tmp_path / "table.json").write_text(json.dumps({"table_id": "t1", "round": None}))
    run = bash(
        f"{helper}\n"
        f"json 'd[\"table_id\"]' < {tmp_path / 'table.json'}\n"
        f'T=$(json \'d["table_id"]\' < {tmp_path / "refused.json"}); echo "[$T] $?"\n'
        f'json \'d["code"], d["status"]\' < {tmp_path / "refused.json"}\n'
        f'json \'d["round"]["number"]\' < {tmp_path / "table.json"}; echo $?\n',
        60,
    )
    assert run.stdout.splitlines() == ["t1", "[] 1", "rate-limited 429", "1"]
    assert run.stderr.splitlines() == [
        "429 rate-limited: Too many tables created from this address; retry in 42 s.",
        "not in {'table_id': 't1', 'round': None}",
    ]


@pytest.fixture()
def served_with_worker(tmp_path: Path) -> Iterator[Served]:
    """A ``referee serve`` and a ``referee worker`` on a Redis of their own
    (a worker on the suite's Redis would move other tests' tables)."""
    with contextlib.ExitStack() as started:  # each stopped, whatever fails after it started
        server = started.enter_context(RedisProcess(tmp_path / "redis"))
        service = started.enter_context(Served(server.url, tmp_path))
        started.callback(WorkerProcess(server.url, tmp_path, "worker").stop)
        yield service


@pytest.mark.timeout(300)
@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_bots_walk_through_prints_what_readme_says(
    served_with_worker: Served, tmp_path: Path
) -> None:
    run_walk_through(
        served_with_worker,
        "A table with bots and a clock",
        {"/tmp/bots.json": tmp_path / "bots.json"},
    )
