"""The TypeScript client: openapi-typescript writes the spec's types
(``web/src/api/schema.d.ts``, committed: the page's source is checked
against them, and a spec change shows in the diff) and openapi-fetch calls
the API with them. The tests check that the committed types and the
committed bundle of the web table (``service/site/static/play/``, so that a
plain ``pip install`` serves /play) are what the pinned tools make from the
sources now, that the page and the example type-check, and play the README's
walk-throughs through the client with node against a real server.

Node packages come from ``web/package-lock.json`` (``npm ci``; ``make test``
and ``.ci/run`` install them). Skipped where node is missing."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from ..conftest import Served
from .expected import EXPECTED

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "web"
BIN = WEB / "node_modules" / ".bin"
STATIC = ROOT / "service" / "site" / "static" / "play"

pytestmark = pytest.mark.skipif(
    shutil.which("node") is None or shutil.which("npm") is None,
    reason="needs node and npm (apt-get install nodejs npm)",
)


@pytest.fixture(scope="module", autouse=True)
def node_modules() -> None:
    """The lockfiles' packages (``npm ci``), when ``make`` has not installed them:
    the web table's, and the client package's that /play is built from."""
    client = ROOT / "clients" / "typescript"
    for folder in (WEB, client):
        if not (folder / "node_modules" / ".bin" / "tsc").exists():
            subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=folder, check=True)


def run(*command: str) -> str:
    done = subprocess.run(command, cwd=WEB, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_the_committed_types_are_generated_from_openapi_yaml(tmp_path: Path) -> None:
    # The same command as `npm run client` (make clients), into another file.
    out = tmp_path / "schema.d.ts"
    script = json.loads((WEB / "package.json").read_text())["scripts"]["client"]
    command = script.replace("openapi-typescript", str(BIN / "openapi-typescript"), 1)
    run(*command.replace("src/api/schema.d.ts", str(out)).split())
    assert out.read_text() == (WEB / "src" / "api" / "schema.d.ts").read_text(), (
        "web/src/api/schema.d.ts is out of date: run `make clients web`"
    )


def test_the_page_and_the_example_type_check() -> None:
    run(str(BIN / "tsc"), "--noEmit", "-p", ".")


def test_the_committed_bundle_is_built_from_the_sources(tmp_path: Path) -> None:
    script = json.loads((WEB / "package.json").read_text())["scripts"]["build"]
    bundle = script.split(" && ")[0].replace("esbuild", str(BIN / "esbuild"), 1)
    run(*bundle.replace("../service/site/static/play/play.js", str(tmp_path / "play.js")).split())
    assert (tmp_path / "play.js").read_text() == (STATIC / "play.js").read_text(), (
        "service/site/static/play/play.js is out of date: run `make web`"
    )
    for name in ("index.html", "play.css"):
        assert (WEB / "static" / name).read_text() == (STATIC / name).read_text(), name


def test_the_typescript_client_plays_the_readme(served: Served, tmp_path: Path) -> None:
    script = tmp_path / "readme.mjs"
    run(str(BIN / "esbuild"), "tests/readme.ts", "--bundle", "--platform=node", "--format=esm",
        "--target=node18", f"--outfile={script}")  # fmt: skip
    examples = ROOT / "tests" / "clients" / "examples.json"
    got = json.loads(run("node", str(script), str(examples), served.base))
    assert got == EXPECTED
