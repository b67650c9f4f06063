"""README's curl walk-through of a Sevens round, run as a reader would (bash,
curl, python3) against a real ``referee serve``: the lines it prints are the
lines README says it prints."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import Served

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


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_sevens_walk_through_prints_what_readme_says(served: Served, tmp_path: Path) -> None:
    text = section("Play a Sevens round with curl")
    script = block(text, "sh").replace("http://127.0.0.1:8000", served.base)
    script = script.replace("/tmp/sevens.json", str(tmp_path / "sevens.json"))
    run = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, timeout=300, check=False
    )
    assert run.returncode == 0, run.stderr
    printed = block(text, "text", text.index("It prints"))
    expected = [re.split(r"\s{2,}# ", line)[0].rstrip() for line in printed.splitlines()]
    assert run.stdout.splitlines() == expected
