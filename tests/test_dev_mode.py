"""``make dev`` (``referee serve --dev``) as a front-end developer meets it:
a real ``referee serve --dev`` with no setting changed (no ``CORS_ORIGINS``,
no rate limit set; the embedded Redis, as from a fresh clone) prints where
/play, the guide and the API reference are, and a Vite-style page on another
port of ``localhost`` (headless Chromium, Debian's ``chromium`` driven by
Playwright) creates twelve tables in a row (more than the ten a minute an
address gets by default), deals one, follows a seat's stream (a ticket and
an EventSource across origins) and plays the whole round with ``fetch``.
Pages of other sites still get no CORS header, and ``--dev`` refuses to
listen on anything but a loopback address. The settings' and CORS's side:
``http://localhost:*`` (a loopback host, any port) and nothing wider.

The browser test is skipped where ``/usr/bin/chromium`` is missing."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
import requests

from benchmarks.processes import free_port, stop_process, wait_ready
from service import create_app
from service.config import LOOPBACK_ORIGINS, Settings, SettingsError

from .browser import CHROMIUM
from .streams.test_live_table_browser import SEVENS_HANDS
from .test_cors_browser import PageServer, browser, open_page

__all__ = ["browser"]  # the fixture, imported to be used here

PAGE = b"""<!doctype html>
<html><head><meta charset="utf-8"><title>my card game (vite dev server)</title></head><body>
<script>
// A front end in development, served by its own dev server on another port:
// every call goes to the referee's `make dev` on http://127.0.0.1:8000.
const JSON_BODY = {"Content-Type": "application/json"};
const call = async (method, url, token, body) => {
  const headers = {...(body === undefined ? {} : JSON_BODY)};
  if (token) headers.Authorization = `Bearer ${token}`;
  const text = body === undefined ? undefined : JSON.stringify(body);
  const answer = await fetch(url, {method, headers, body: text});
  return {status: answer.status, body: await answer.json()};
};

async function play(base, hands) {
  const created = [];
  for (let i = 0; i < 12; i += 1) {
    created.push(await call("POST", `${base}/v1/tables`, null,
      {variant: "sevens", players: ["Ann", "Ben", "Cat", "Dan"], first_dealer: 0}));
  }
  const table = created[created.length - 1].body;
  const url = `${base}/v1/tables/${table.table_id}`;
  const tokens = table.seat_tokens.map((s) => s.token);
  // Ann follows her seat's stream: a ticket, then an EventSource on the API's origin.
  const ticket = await call("POST", `${url}/seats/0/tickets`, tokens[0]);
  const streamed = [];
  const source = new EventSource(`${base}${ticket.body.stream}`);
  source.onmessage = (message) => streamed.push(JSON.parse(message.data).type);
  const dealt = await call("POST", `${url}/rounds`, table.host_token, {hands});
  const turns = [];
  for (let i = 0; i < 200; i += 1) {
    const view = (await call("GET", url)).body;
    if (view.round.status !== "playing") break;
    const seat = view.round.on_turn;
    const mine = (await call("GET", `${url}/seats/${seat}`, tokens[seat])).body;
    const body = mine.playable.length ? {play: mine.playable[0]} : {pass: true};
    const turn = `${url}/rounds/1/turns/${mine.turn}`;
    turns.push((await call("PUT", turn, tokens[seat], body)).status);
  }
  const last = (await call("GET", url)).body;
  for (let i = 0; i < 100 && streamed[streamed.length - 1] !== "round-won"; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  source.close();
  return {created: created.map((c) => c.status), dealt: dealt.status, turns, streamed,
          result: last.last_result, last_event: last.last_event};
}
</script></body></html>
"""


@pytest.fixture(scope="module")
def dev(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """``referee serve --dev`` as ``make dev`` runs it: no CORS_ORIGINS, no
    limit set, the embedded Redis in a folder of its own. Its base URL, and
    its output's file."""
    folder = tmp_path_factory.mktemp("dev")
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "CORS_ORIGINS" and not k.startswith(("RATE_LIMIT_", "LOBBY_LISTED_"))
    }
    port = free_port()
    env.update(PORT=str(port), REFEREE_DATA_DIR=str(folder / "referee-data"), SERVE_WORKER="0")
    log = folder / "serve.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "service.cli", "serve", "--dev"],
            env=env, stdout=out, stderr=subprocess.STDOUT, cwd=folder,
        )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        assert wait_ready(proc, f"{base}/readyz", 60, port), log.read_text()
        yield base, log
    finally:
        stop_process(proc, 30)  # it stops its embedded Redis too


def test_make_dev_says_where_everything_is(dev: tuple[str, Path]) -> None:
    base, log = dev
    said = [line for line in log.read_text().splitlines() if not line.startswith("{")]
    assert said[0] == f"referee serve --dev: listening on {base}"
    assert f"  play in a browser:  {base}/play" in said
    assert f"  the guide:          {base}/docs/guide/" in said
    assert any(line.startswith(f"  API reference:      {base}/docs ") for line in said)
    # Each a first render: over 10 s while two suites shared the machine.
    for path in ("/play", "/docs/guide/", "/docs", "/openapi.yaml"):
        assert requests.get(base + path, timeout=60).status_code == 200, path


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (/usr/bin/chromium)")
def test_a_page_on_another_localhost_port_creates_tables_and_plays(
    browser: Any, dev: tuple[str, Path]
) -> None:
    base, _ = dev
    server = PageServer(PAGE)
    try:
        # The page's own origin: localhost on another port, as a Vite dev server serves it.
        page, console = open_page(browser, server.origin.replace("127.0.0.1", "localhost"))
        assert page.evaluate("location.origin").startswith("http://localhost:")
        got = page.evaluate("([base, hands]) => play(base, hands)", [base, SEVENS_HANDS])
        page.close()
    finally:
        server.stop()
    assert got["created"] == [201] * 12  # more than the ten a minute of RATE_LIMIT_TABLES's default
    assert got["dealt"] == 201
    assert got["turns"] == [200] * 49 and got["result"]["winner"] == 2
    # The seat's stream (an EventSource on the API's origin) carried the round.
    assert got["streamed"][-1] == "round-won" and got["streamed"].count("card-played") >= 40
    assert not [m for m in console if "CORS" in m or "blocked" in m], console


def test_other_sites_still_get_no_cors_header(dev: tuple[str, Path]) -> None:
    base, _ = dev
    for origin, allowed in (
        ("http://localhost:5173", True),
        ("http://127.0.0.1:3000", True),
        ("http://[::1]:8080", True),
        ("https://evil.example.com", False),
        ("http://localhost.evil.example.com:5173", False),
    ):
        answer = requests.get(f"{base}/v1/games", headers={"Origin": origin}, timeout=10)
        assert answer.headers.get("Access-Control-Allow-Origin") == (origin if allowed else None)


def test_dev_refuses_an_address_others_reach(tmp_path: Path) -> None:
    env = {**os.environ, "HOST": "0.0.0.0", "PORT": str(free_port())}
    env["REFEREE_DATA_DIR"] = str(tmp_path / "data")
    done = subprocess.run(
        [sys.executable, "-m", "service.cli", "serve", "--dev"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("referee: cannot serve --dev: it listens on 0.0.0.0")
    assert not (tmp_path / "data").exists()  # no embedded Redis was started


def test_a_loopback_host_on_any_port_is_one_origin_setting() -> None:
    settings = Settings.from_env({"CORS_ORIGINS": " ".join(LOOPBACK_ORIGINS)})
    assert settings.cors_origins == LOOPBACK_ORIGINS
    # A preflight reads no Redis: this app's is never started (none answers at port 1).
    client = create_app(settings, client=redis.Redis(port=1, socket_timeout=0.2)).test_client()
    for origin in ("http://localhost:5173", "http://localhost", "https://127.0.0.1:8443"):
        answer = client.options(
            "/v1/tables", headers={"Origin": origin, "Access-Control-Request-Method": "POST"}
        )
        assert answer.headers["Access-Control-Allow-Origin"] == origin
    for origin in ("http://localhost.example.com:5173", "http://127.0.0.2:80", "http://[::2]:1"):
        answer = client.options(
            "/v1/tables", headers={"Origin": origin, "Access-Control-Request-Method": "POST"}
        )
        assert "Access-Control-Allow-Origin" not in answer.headers, origin


@pytest.mark.parametrize(
    "value", ["https://app.example.com:*", "http://10.0.0.1:*", "http://localhost:*:*"]
)
def test_a_port_wildcard_is_for_this_machine_only(value: str) -> None:
    with pytest.raises(SettingsError) as refused:
        Settings.from_env({"CORS_ORIGINS": value})
    assert str(refused.value).startswith("CORS_ORIGINS")
