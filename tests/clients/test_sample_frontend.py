"""A sample front end of all three games (tests/clients/sample-frontend, in
TypeScript) against the types openapi-typescript generates from openapi.yaml
(``web/src/api/schema.d.ts``) and openapi-fetch (issue 42): it compiles with
``tsc --strict`` and no cast; its ``compile-errors.ts`` lines (a misspelt
problem code, an option of the wrong type or of another game, a member of
another game's view, an unknown event type) are each a compile error
(``@ts-expect-error`` fails the compile where a line compiles); and it plays
a move of each game against a real server with node.

Node packages come from ``web/package-lock.json``; skipped where node is missing."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ..conftest import Served

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "clients" / "sample-frontend"
BIN = ROOT / "web" / "node_modules" / ".bin"

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or shutil.which("npm") is None,
    reason="needs node and npm (apt-get install nodejs npm)",
)


@pytest.fixture(scope="module", autouse=True)
def node_modules() -> None:
    """The lockfile's packages (``npm ci``), when ``make`` has not installed them."""
    if not (BIN / "tsc").exists():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=ROOT / "web", check=True)


def tsc(project: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "tsc"), "-p", str(project)], cwd=ROOT, capture_output=True, text=True
    )


def test_the_sample_front_end_compiles_strictly_with_no_cast() -> None:
    config = (SAMPLE / "tsconfig.json").read_text()
    assert '"strict": true' in config
    done = tsc(SAMPLE)
    assert done.returncode == 0, done.stdout + done.stderr
    for source in (SAMPLE / "src").glob("*.ts"):
        # The code, not its comments (`/** ... */` blocks and `// ...` lines).
        text = re.sub(r"/\*.*?\*/|(^|\s)//[^\n]*", "", source.read_text(), flags=re.S)
        # A type assertion (`x as T`, `<T>x`) or a non-null assertion would
        # hide what the types say; `as const` and `satisfies` say nothing away.
        casts = re.findall(r"\bas\s+(?!const\b)[A-Za-z{\[(]|!\.|!\)|!;", text)
        assert not casts, (source.name, casts)


def test_the_types_refuse_each_mistake_of_compile_errors_ts(tmp_path: Path) -> None:
    """Each ``@ts-expect-error`` line of compile-errors.ts is an error of its
    own: with the directives taken out, the compile fails on each such line."""
    source = (SAMPLE / "src" / "compile-errors.ts").read_text().splitlines()
    directives = [i for i, line in enumerate(source) if re.match(r"\s*// @ts-expect-error", line)]
    assert len(directives) >= 10
    copy = tmp_path / "sample"
    shutil.copytree(SAMPLE, copy)
    # The copy's relative paths point back into the checkout.
    for name in ("tsconfig.json", "src/client.ts", "src/main.ts"):
        held = (copy / name).read_text()
        (copy / name).write_text(re.sub(r"(\.\./)+web", str(ROOT / "web"), held))
    bare = [line.replace("@ts-expect-error", "") for line in source]
    (copy / "src" / "compile-errors.ts").write_text("\n".join(bare) + "\n")
    done = tsc(copy)
    errors = {int(n) for n in re.findall(r"compile-errors\.ts\((\d+),", done.stdout)}
    for at in directives:  # the line after the directive (1-based: at + 2)
        assert at + 2 in errors, (source[at + 1], done.stdout[:3000])
    assert errors <= {at + 2 for at in directives}, done.stdout[:3000]


def test_the_sample_front_end_plays_a_move_of_each_game(served: Served, tmp_path: Path) -> None:
    script = tmp_path / "main.mjs"
    environment = {**os.environ, "NODE_PATH": str(ROOT / "web" / "node_modules")}
    bundled = subprocess.run(
        [str(BIN / "esbuild"), str(SAMPLE / "src" / "main.ts"), "--bundle", "--platform=node",
         "--format=esm", "--target=node18", f"--outfile={script}"],
        cwd=ROOT, capture_output=True, text=True, env=environment,
    )  # fmt: skip
    assert bundled.returncode == 0, bundled.stderr
    ran = subprocess.run(
        ["node", str(script), served.base], capture_output=True, text=True, timeout=120
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    seen = json.loads(ran.stdout)
    assert [s["game"] for s in seen] == ["my-ship-sails", "sevens", "may-i"]
    ship, sevens, may_i = seen
    # Every seat passed (the fourth pass resolved the exchange); a pass for the
    # resolved exchange is refused, and the refusal's code is the spec's.
    assert ship["moved"] == 4 and ship["events"][-1] == "exchange 1 resolved"
    assert ship["refused"] == "stale-exchange: The table moved on: read it again."
    # Sevens: the holder of 7D opened with it; a seat off turn is refused.
    assert sevens["moved"] == 1 and re.fullmatch(r"seat \d played 7D", sevens["events"][-1])
    assert sevens["refused"] == "not-your-turn: Wait for your turn."
    # May I?: the dealer's left took the first discard.
    assert may_i["moved"] == 1 and may_i["events"][-1].startswith("seat 1: discard-taken ")
    assert may_i["refused"] == "not-your-turn: Wait for your turn."
    assert all(s["events"][0].startswith("table of 4 seats") for s in seen)
