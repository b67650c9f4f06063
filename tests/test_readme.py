"""README's curl walk-throughs (a Sevens round; a May I? turn with a May I?
request that is denied), run as a reader would (bash, curl, python3) against
a real ``referee serve``: the lines each prints are the lines README says it
prints. Both submit their deal, so their output is the same on every run."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import RedisProcess, Served
from .worker.test_worker import WorkerProcess

README = Path(__file__).resolve().parents[1] / "README.md"


def section(title: str) -> str:
    text = README.read_text()
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end >= 0 else None]


def block(text: str, language: str, after: int = 0) -> str:
    found = re.findall(rf"```{language}\n(.*?)```", text[after:], flags=re.S)
    assert found, f"no {language} block"
    return found[0]


def run_walk_through(served: Served, title: str, files: dict[str, Path]) -> None:
    """Run the first ``sh`` block of README's section ``title`` against
    ``served`` (its temporary ``files`` moved to the test's own) and compare
    its output with the section's ``text`` block after "It prints", each
    line's trailing comment left out."""
    text = section(title)
    script = block(text, "sh").replace("http://127.0.0.1:8000", served.base)
    for name, path in files.items():
        script = script.replace(name, str(path))
    run = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, run.stderr
    printed = block(text, "text", text.index("It prints"))
    expected = [re.split(r"\s{2,}# ", line)[0].rstrip() for line in printed.splitlines()]
    assert run.stdout.splitlines() == expected


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_sevens_walk_through_prints_what_readme_says(served: Served, tmp_path: Path) -> None:
    run_walk_through(
        served, "Play a Sevens round with curl", {"/tmp/sevens.json": tmp_path / "sevens.json"}
    )


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_may_i_walk_through_prints_what_readme_says(served: Served, tmp_path: Path) -> None:
    run_walk_through(
        served, "Play a May I? turn with curl", {"/tmp/may-i.json": tmp_path / "may-i.json"}
    )


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_joining_walk_through_prints_what_readme_says(served: Served, tmp_path: Path) -> None:
    run_walk_through(
        served,
        "Joining by code",
        {"/tmp/open.json": tmp_path / "open.json", "/tmp/ben.json": tmp_path / "ben.json"},
    )


@pytest.fixture()
def served_with_worker(tmp_path: Path) -> Iterator[Served]:
    """A ``referee serve`` and a ``referee worker`` on a Redis of their own
    (a worker on the suite's Redis would move other tests' tables)."""
    server = RedisProcess(tmp_path / "redis").start()
    service = Served(server.url, tmp_path)
    worker = WorkerProcess(server.url, tmp_path, "worker")
    try:
        yield service
    finally:
        worker.stop()
        service.stop()
        server.stop()


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
