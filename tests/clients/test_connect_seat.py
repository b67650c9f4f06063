"""The TypeScript client's live seat (``connectSeat``, and ``connectTable``
for a spectator) in a real browser: headless Chromium (Debian's
``chromium``, driven by Playwright) loads a page from a second local origin
whose script (``live_seat_page.ts``, bundled with the client's sources)
follows one seat of a Sevens table and the table itself, through a real
``referee serve`` (gunicorn, two worker processes) whose streams end every
2 s and whose log keeps 6 events. The test plays the round through the API,
one move at a time, and meanwhile:

- SIGKILLs every gunicorn worker (every stream is cut server-side; the
  master starts new workers);
- SIGTERMs every worker (each drains its streams, asking clients back soon);
- hides one stream's end from the client, so that the browser comes back by
  itself with the spent ticket and is told ``ticket-invalid``;
- holds the page's ticket requests while more moves are made than the log
  keeps, so that the seat's next stream starts with ``events-gone``;
- holds the answer to the page's own read of the seat view while the stream
  brings two newer views.

The client hands each public event once, in order (the spectator, which
needs no ticket, every one; the seat, every one but the gap it is told of),
never an older view after a newer one, and ends with the API's own views.
Then the table is deleted and both connections close, saying why.

Skipped where ``/usr/bin/chromium`` or node's packages are missing."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from ..browser import CHROMIUM
from ..conftest import RedisProcess, Served
from ..streams.test_live_table_browser import SEVENS_HANDS
from ..test_cors_browser import PageServer, browser, open_page

__all__ = ["browser"]  # the fixture, imported to be used here

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "typescript"
ESBUILD = ROOT / "web" / "node_modules" / ".bin" / "esbuild"
TSC = CLIENT / "node_modules" / ".bin" / "tsc"
KEPT = 6
"""The service's EVENTS_KEPT here: a seat away for more moves gets ``events-gone``."""

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (/usr/bin/chromium)"),
    pytest.mark.skipif(shutil.which("npm") is None, reason="needs node and npm"),
    pytest.mark.timeout(300),
]


def node_packages() -> None:
    """The client's and the web table's node packages (``npm ci``), unless installed."""
    for folder, tool in ((CLIENT, TSC), (ROOT / "web", ESBUILD)):
        if not tool.exists():
            subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=folder, check=True)


@pytest.fixture(scope="module")
def page_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PageServer]:
    node_packages()
    source = Path(__file__).with_name("live_seat_page.ts")
    # The page's script type-checks (strict) against the client's sources...
    checked = subprocess.run(
        [str(TSC), "--noEmit", "--strict", "--target", "ES2022", "--module", "NodeNext",
         "--moduleResolution", "NodeNext", "--lib", "ES2022,DOM,DOM.Iterable",
         "--skipLibCheck", str(source)],
        cwd=CLIENT, capture_output=True, text=True,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    # ... and is bundled with them (esbuild, as the web table is).
    bundle = tmp_path_factory.mktemp("live-seat-page") / "page.js"
    subprocess.run(
        [str(ESBUILD), str(source), "--bundle", "--format=esm", "--target=es2020",
         f"--outfile={bundle}"],
        check=True, capture_output=True,
    )  # fmt: skip
    script = bundle.read_bytes()
    page = b'<!doctype html><html><head><meta charset="utf-8"><title>a live seat</title></head>'
    page += b'<body><script type="module">' + script + b"</script></body></html>"
    server = PageServer(page)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def api(
    page_server: PageServer, redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    service = Served(
        redis_server.url,
        tmp_path_factory.mktemp("served-connect-seat"),
        CORS_ORIGINS=page_server.origin,
        STREAM_LIFETIME_SECONDS="2",
        EVENTS_KEPT=str(KEPT),
        GUNICORN_GRACEFUL_TIMEOUT="5",
    )
    yield service
    service.stop()


def wait_for(
    check: Callable[[], Any], what: str, seconds: float = 60, show: Callable[[], Any] = str
) -> Any:
    """``check()`` once it is true; an AssertionError naming ``what`` and
    ``show()`` (what the page holds) after ``seconds``: long enough for the
    client's longest pause between reconnections (15 s) on a busy machine."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}: {show()}")


def ready(base: str) -> bool:
    """Whether ``base`` answers ``/readyz`` (new workers are slow on a busy machine)."""
    try:
        return requests.get(f"{base}/readyz", timeout=5).ok
    except requests.RequestException:
        return False


class Round:
    """A Sevens table of four named seats, played through the API one move at a time."""

    def __init__(self, base: str) -> None:
        self.http = requests.Session()
        created = self.http.post(
            f"{base}/v1/tables",
            json={"variant": "sevens", "players": ["Ann", "Ben", "Cat", "Dan"], "first_dealer": 0},
        ).json()
        self.id, self.host = created["table_id"], created["host_token"]
        self.tokens = [s["token"] for s in created["seat_tokens"]]
        self.url = f"{base}/v1/tables/{self.id}"

    def auth(self, token: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {token}"}

    def table(self) -> dict[str, Any]:
        return dict(self.http.get(self.url, timeout=5).json())

    def view(self, seat: int) -> dict[str, Any]:
        answer = self.http.get(f"{self.url}/seats/{seat}", headers=self.auth(self.tokens[seat]))
        return dict(answer.json())

    def deal(self) -> None:
        answer = self.http.post(
            f"{self.url}/rounds", json={"hands": SEVENS_HANDS}, headers=self.auth(self.host)
        )
        assert answer.status_code == 201, answer.text

    def move(self) -> bool:
        """The seat on turn plays its first playable card, or passes; False once over."""
        table = self.table()
        if table["round"]["status"] == "over":
            return False
        seat = table["round"]["on_turn"]
        view = self.view(seat)
        body = {"play": view["playable"][0]} if view["playable"] else {"pass": True}
        path = f"{self.url}/rounds/1/turns/{view['turn']}"
        answer = self.http.put(path, json=body, headers=self.auth(self.tokens[seat]))
        assert answer.status_code == 200, answer.text
        return True


def test_a_seat_follows_a_round_through_cuts_drains_and_a_gap(
    browser: Any, page_server: PageServer, api: Served
) -> None:
    page, console = open_page(browser, page_server.origin)
    game = Round(api.base)

    def state() -> dict[str, Any]:
        return dict(page.evaluate("live.state()"))

    follow = "a => live.follow(...a)"
    # Its stream may be open already by the time the spectator's has connected.
    assert page.evaluate(follow, [api.base, game.id, 0, game.tokens[0]]) in ("connecting", "open")
    game.deal()

    def caught_up() -> bool:
        last = game.table()["last_event"]
        now = state()
        seat, spectator = now["seen"]["seat"], now["seen"]["table"]
        # The last event handed, or the last one a gap said was missed.
        handed = max([0, *seat["events"][-1:], *[g["last_event"] for g in seat["gaps"]]])
        return bool(
            handed == last and seat["views"][-1]["last_event"] == last
            and spectator["events"] and spectator["events"][-1] == last
            and seat["tables"][-1:] == spectator["tables"][-1:] == [last]
        )  # fmt: skip

    def where() -> dict[str, Any]:
        """What each connection holds last, for a timeout's message."""
        now = state()
        last = {k: v[-3:] for who in ("seat", "table") for k, v in now["seen"][who].items()}
        streams = [(s["url"][-40:], s["frames"][-3:], s["errors"]) for s in now["streams"][-3:]]
        return {
            "table": game.table()["last_event"],
            "last": last,
            "seat": now["seat"],
            "streams": streams,
        }

    def move() -> None:
        assert game.move()
        wait_for(caught_up, "the move on both connections", show=where)

    def signal_workers(sig: signal.Signals) -> None:
        before = api.workers()
        for pid in before:
            os.kill(pid, sig)
        wait_for(lambda: len(set(api.workers()) - set(before)) == 2, "two new workers")
        wait_for(lambda: ready(api.base), "the service")

    def frames(kind: str) -> int:
        return sum(f.startswith(kind) for s in state()["streams"] for f in s["frames"])

    def more(count: str) -> Callable[[], bool]:
        before = state()[count]
        return lambda: state()[count] > before

    wait_for(caught_up, "the deal on both connections", show=where)
    for _ in range(5):
        move()
    # Every worker killed: every stream cut under the page.
    signal_workers(signal.SIGKILL)
    for _ in range(5):
        move()
    # Every worker stopped: each drains its streams, asking clients back soon.
    signal_workers(signal.SIGTERM)
    for _ in range(5):
        move()
    # The browser comes back with the spent ticket by itself: ticket-invalid.
    page.evaluate("live.swallowNextEnd()")
    wait_for(lambda: frames("ticket-invalid") == 1, "a ticket-invalid frame")
    for _ in range(5):
        move()
    # A slow network: the seat's next ticket waits for more moves than the log keeps.
    page.evaluate("live.hold()")
    wait_for(more("ticketsAsked"), "the seat's next ticket request")
    gap_after = state()["seen"]["seat"]["events"][-1]
    for _ in range(KEPT + 2):
        assert game.move()
    page.evaluate("live.release()")
    wait_for(caught_up, "the moves made while the seat was away", show=where)
    # The page reads the seat's view; the stream brings two newer ones before the answer.
    page.evaluate("live.holdReads(); live.refresh()")
    late = more("readsAnswered")
    move()
    move()
    page.evaluate("live.releaseReads()")
    wait_for(late, "the late answer")
    while game.move():
        wait_for(caught_up, "the move on both connections", show=where)
    table = game.table()
    last = table["last_event"]
    got = state()
    seat, spectator = got["seen"]["seat"], got["seen"]["table"]

    # Each event once, in order: the spectator every one; the seat every one
    # but those it was told it missed (one gap, after the held tickets).
    assert spectator["events"] == list(range(2, last + 1))
    assert spectator["gaps"] == []
    [gap] = seat["gaps"]
    assert gap["last_event"] >= gap_after + KEPT + 2
    assert seat["events"] == [*range(2, gap_after + 1), *range(gap["last_event"] + 1, last + 1)]
    assert [i.split(".")[0] for i in seat["eventIds"]] == [str(s) for s in seat["events"]]
    # Never an older view after a newer one (the late answer was not taken);
    # the last ones are the API's.
    shown = [v["last_event"] for v in seat["views"]]
    assert shown == sorted(shown)
    assert seat["tables"] == sorted(seat["tables"]) and seat["tables"][-1] == last
    assert spectator["tables"] == sorted(spectator["tables"]) and spectator["tables"][-1] == last
    final = game.view(0)
    # (who is connected follows presence's own clock: RULES.md 5.5)
    assert {**got["seat"]["view"], "connected": []} == {**final, "connected": []}
    assert final["round_status"] == "over"
    # It came back after each cut, drain and stream end; never closed.
    assert "reconnecting" in seat["statuses"]
    # (Its 2-s streams end and come back all along: open again soon.)
    wait_for(lambda: state()["seen"]["seat"]["statuses"][-1] == "open", "the seat open again")
    assert not [s for s in seat["statuses"] + spectator["statuses"] if s.startswith("closed")]
    assert (frames("ticket-invalid"), frames("events-gone")) == (1, 1)
    seat_streams = [s for s in got["streams"] if "/seats/0/stream" in s["url"]]
    # A ticket a stream, none wasted: every ticket issued opened a stream (a
    # request refused, say 503 while the workers came back, opened none).
    assert got["ticketsIssued"] == len(seat_streams) >= 6, got["ticketsRefused"]
    assert got["ticketsAsked"] == got["ticketsIssued"] + len(got["ticketsRefused"])

    # The table goes while the seat is between two streams (its next ticket
    # held: a busy machine had it so, and its refused ticket was told as
    # `refused`), and while the spectator is (its `table-deleted` frame
    # unseen: a busy machine had it so too, and its streams, each 404, were
    # tried again for good): both connections close for good, saying why.
    page.evaluate("live.missNextDeletion()")
    page.evaluate("live.hold()")
    wait_for(more("ticketsAsked"), "the seat's next ticket request")
    deleted = game.http.delete(game.url, headers=game.auth(game.host))
    assert deleted.status_code == 204
    page.evaluate("live.release()")
    wait_for(lambda: state()["seat"]["status"] == "closed", "the seat to close")
    wait_for(lambda: state()["spectator"]["status"] == "closed", "the spectator to close")
    got = state()
    assert got["seen"]["seat"]["statuses"][-1] == "closed:table-deleted"
    assert got["seen"]["table"]["statuses"][-1] == "closed:table-deleted"
    assert not [m for m in console if "CORS" in m or "Uncaught" in m], console
    page.close()


def test_a_refused_seat_is_told_why(browser: Any, page_server: PageServer, api: Served) -> None:
    page, _ = open_page(browser, page_server.origin)
    game = Round(api.base)
    refusal = "a => live.refusal(...a)"
    assert page.evaluate(refusal, [api.base, game.id, 0, "x" * 43]) == "401 token-unknown"
    assert page.evaluate(refusal, [api.base, game.id, 1, game.tokens[0]]) == "403 wrong-seat"
    # A table that does not exist: a token of no table (the API tells no more).
    assert page.evaluate(refusal, [api.base, "nosuchtable1234567890abc", 0, game.tokens[0]]) == (
        "401 token-unknown"
    )
    assert page.evaluate(refusal, [api.base, game.id, 0, game.tokens[0]]) == "connected"
    page.close()


def test_the_client_is_a_package_that_builds_and_packs(tmp_path: Path) -> None:
    """The package builds with its own tsc (ES modules with their types) and
    `npm pack` holds what package.json promises; its generated types are
    what openapi-typescript makes from openapi.yaml now."""
    node_packages()
    manifest = json.loads((CLIENT / "package.json").read_text())
    out = tmp_path / "schema.ts"
    script = manifest["scripts"]["types"].replace("openapi-", "node_modules/.bin/openapi-", 1)
    command = script.replace("src/schema.ts", str(out)).split()
    subprocess.run(command, cwd=CLIENT, check=True, capture_output=True)
    assert out.read_text() == (CLIENT / "src" / "schema.ts").read_text(), (
        "clients/typescript/src/schema.ts is out of date: run `make clients`"
    )
    packed = subprocess.run(
        ["npm", "pack", "--dry-run", "--json", "--ignore-scripts=false"],
        cwd=CLIENT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    files = {f["path"] for f in json.loads(packed.stdout)[0]["files"]}
    for entry in (manifest["types"], manifest["main"], *manifest["exports"]["."].values()):
        assert entry.removeprefix("./") in files, entry
    assert {"README.md", "package.json", "dist/live.js", "dist/live.d.ts", "src/live.ts"} <= files
    # The built module loads in node and exports what the README shows.
    loaded = subprocess.run(
        ["node", "--input-type=module", "-e",
         "const m = await import('./dist/index.js'); console.log(Object.keys(m).sort().join(' '))"],
        cwd=CLIENT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert loaded.stdout.split() == sorted(
        ["Live", "Refused", "bearer", "connectSeat", "connectTable", "createApi", "notOlder", "ok"]
    )


PRELUDE = """import type { PublicTable, SeatView } from "CLIENT";
declare const tableId: string;
declare const joined: { seat: number; token: string };
declare function drawHand(view: SeatView): void;
declare function drawTable(table: PublicTable): void;
declare function log(what: unknown): void;
declare function addToFeed(what: unknown): void;
declare function showConnection(status: string, reason?: string): void;
declare function showRefusal(code?: string, detail?: string): void;
"""
"""What the README's snippets take as given (the page's own functions)."""


def test_the_readmes_typescript_compiles_against_the_package(tmp_path: Path) -> None:
    """Every ``ts`` block of the package's README (and the guide's
    ``connectSeat`` one) type-checks, strict, against the package's sources."""
    node_packages()
    client = str(CLIENT / "src" / "index.js")
    pages = [CLIENT / "README.md", ROOT / "docs" / "guide" / "clients.md"]
    blocks = [
        b
        for page in pages
        for b in re.findall(r"```ts\n(.*?)```", page.read_text(), re.S)
        if "card-referee-client" in b
    ]
    assert len(blocks) >= 3
    for i, block in enumerate(blocks):
        source = block.replace('"card-referee-client"', f'"{client}"')
        (tmp_path / f"block{i}.mts").write_text(PRELUDE.replace("CLIENT", client) + source)
    checked = subprocess.run(
        [str(TSC), "--noEmit", "--strict", "--target", "ES2022", "--module", "NodeNext",
         "--moduleResolution", "NodeNext", "--lib", "ES2022,DOM", "--skipLibCheck",
         *map(str, sorted(tmp_path.glob("*.mts")))],
        cwd=CLIENT, capture_output=True, text=True,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout
