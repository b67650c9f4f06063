"""A real browser calls the service from another origin: headless Chromium
(Debian's ``chromium``), driven by Playwright, loads a page from a second
local origin (another port) whose script, with ``fetch``, creates a table,
reads its view, deals and plays a pass through a real ``referee serve``, and
reads ``Location``, ``ETag``, ``Idempotent-Replayed`` and ``Retry-After``. The
same script from an origin ``CORS_ORIGINS`` does not name gets no answer.

Skipped where ``/usr/bin/chromium`` is missing (``.ci/run`` installs it)."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from benchmarks.processes import free_port

from .browser import CHROMIUM, CHROMIUM_ARGS
from .conftest import RedisProcess, Served

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium; .ci/run does)",
)

PAGE = b"""<!doctype html>
<html><head><meta charset="utf-8"><title>front end</title></head><body>
<script>
// What a front end does: every call is cross-origin (another port).
const JSON_BODY = {"Content-Type": "application/json"};
const DEAL = {hands: [["AH","KH","8H","5H","2H","QC","4S"], ["3C","4C","5C","6C","7C","8C","9C"],
                      ["2D","3D","4D","5D","6D","7D","8D"], ["9H","JH","2S","3S","5S","6S","7S"]]};

function readable(response, name) {
  const value = response.headers.get(name);
  if (value === null) throw new Error(`${name} of ${response.url} is not readable`);
  return value;
}

async function play(base) {
  const key = crypto.randomUUID();
  const create = () => fetch(`${base}/v1/tables`, {
    method: "POST",
    headers: {...JSON_BODY, "Idempotency-Key": key},
    body: JSON.stringify({variant: "circle", players: ["Ann", "Ben", "Cat", "Dan"],
                          first_dealer: 0, options: {claim_window_ms: 0}}),
  });
  const created = await create();
  const location = readable(created, "Location");
  const table = await created.json();
  const replay = await create();
  const replayed = readable(replay, "Idempotent-Replayed");

  const host = {Authorization: `Bearer ${table.host_token}`};
  const dealt = await fetch(`${base}${location}/rounds`,
                            {method: "POST", headers: {...host, ...JSON_BODY},
                             body: JSON.stringify(DEAL)});
  const roundLocation = readable(dealt, "Location");

  const view = await fetch(`${base}${location}`);
  const etag = readable(view, "ETag");
  const round = (await view.json()).round.number;
  const unchanged = await fetch(`${base}${location}`, {headers: {"If-None-Match": etag}});

  const seat = {Authorization: `Bearer ${table.seat_tokens[0].token}`};
  const passed = await fetch(`${base}${location}/rounds/1/exchanges/1/passes/0`,
                             {method: "PUT", headers: {...seat, ...JSON_BODY},
                              body: JSON.stringify({cards: ["4S"]})});
  const pass = await passed.json();
  const seatView = await (await fetch(`${base}${location}/seats/0`, {headers: seat})).json();

  // A third creation in the minute (RATE_LIMIT_TABLES=2/minute): 429.
  const refused = await fetch(`${base}/v1/tables`, {
    method: "POST", headers: JSON_BODY, body: JSON.stringify({players: ["a", "b", "c", "d"]}),
  });
  const refusal = await refused.json();
  // A request line gunicorn refuses before the app (over 4094 bytes).
  const long = await fetch(`${base}/v1/variants?pad=${"a".repeat(5000)}`);

  return {
    table_id: table.table_id, location, created: created.status, replay: replay.status, replayed,
    dealt: dealt.status, round_location: roundLocation, etag, round,
    unchanged: unchanged.status, unchanged_etag: readable(unchanged, "ETag"),
    pass_status: passed.status, resolved: pass.resolved, hand: seatView.hand,
    pending: seatView.pending,
    pass_request_id: readable(passed, "X-Request-Id"),
    refused: refused.status, refusal: refusal.code, retry_after: readable(refused, "Retry-After"),
    long: long.status, long_code: (await long.json()).code,
    long_request_id: readable(long, "X-Request-Id"),
  };
}

async function variants(base) {
  try {
    const answer = await fetch(`${base}/v1/variants`);
    return `read ${answer.status}`;
  } catch (error) {
    return `${error.name}: ${error.message}`;
  }
}
</script></body></html>
"""


class PageServer:
    """Serves ``page`` (:data:`PAGE` unless told) at ``/`` of
    ``http://127.0.0.1:<port>``: an origin of its own."""

    def __init__(self, page: bytes = PAGE) -> None:
        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def pages() -> Iterator[tuple[PageServer, PageServer]]:
    """Two page origins: the first is allowed, the second is not."""
    allowed, other = PageServer(), PageServer()
    yield allowed, other
    allowed.stop()
    other.stop()


@pytest.fixture(scope="module")
def api(
    pages: tuple[PageServer, PageServer],
    redis_server: RedisProcess,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Served]:
    service = Served(
        redis_server.url,
        tmp_path_factory.mktemp("served-browser"),
        CORS_ORIGINS=pages[0].origin,
        RATE_LIMIT_TABLES="2/minute",
    )
    yield service
    service.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def open_page(browser: Any, origin: str) -> tuple[Any, list[str]]:
    """A fresh page at ``origin``, and the console's messages as they come."""
    page = browser.new_page()
    console: list[str] = []
    page.on("console", lambda message: console.append(message.text))
    page.goto(origin + "/")
    return page, console


def test_a_page_on_an_allowed_origin_plays_and_reads_the_headers(
    browser: Any, pages: tuple[PageServer, PageServer], api: Served
) -> None:
    page, console = open_page(browser, pages[0].origin)
    got = page.evaluate("base => play(base)", api.base)
    page.close()
    table = got["table_id"]
    assert got["location"] == f"/v1/tables/{table}"
    assert (got["created"], got["replay"], got["replayed"]) == (201, 201, "true")
    assert (got["dealt"], got["round_location"], got["round"]) == (
        201,
        f"/v1/tables/{table}/rounds/1",
        1,
    )
    assert got["etag"].startswith('"') and got["etag"].endswith('"')
    assert (got["unchanged"], got["unchanged_etag"]) == (304, got["etag"])
    assert (got["pass_status"], got["resolved"]) == (200, False)
    assert (got["hand"], got["pending"]) == (["4S", "AH", "KH", "8H", "5H", "2H", "QC"], ["4S"])
    assert len(got["pass_request_id"]) == 32
    assert (got["refused"], got["refusal"]) == (429, "rate-limited")
    assert 1 <= int(got["retry_after"]) <= 60
    assert (got["long"], got["long_code"]) == (414, "request-line-too-long")
    assert len(got["long_request_id"]) == 32
    assert not [m for m in console if "CORS" in m], console


def test_a_page_on_another_origin_reads_nothing(
    browser: Any, pages: tuple[PageServer, PageServer], api: Served
) -> None:
    page, console = open_page(browser, pages[1].origin)
    assert page.evaluate("base => variants(base)", api.base) == "TypeError: Failed to fetch"
    page.close()
    assert any(
        f"from origin '{pages[1].origin}' has been blocked by CORS policy" in m for m in console
    ), console
    # The allowed origin's page reads the same call.
    page, _ = open_page(browser, pages[0].origin)
    assert page.evaluate("base => variants(base)", api.base) == "read 200"
    page.close()
