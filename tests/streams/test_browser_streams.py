"""Streams in a real browser: headless Chromium (Debian's ``chromium``, driven
by Playwright) loads a page from another origin whose script creates a table,
opens the public stream and seat 0's stream with ``EventSource`` (the seat's
with a single-use ticket), plays the worked example (RULES.md 2.10) with
``fetch`` through a real gunicorn with two workers, and checks that every
event arrived once and in order: also after the page cut the public stream
and opened it again with ``after``, after the server ended it and the
browser reconnected by itself with ``Last-Event-ID``, and after the server
ended the seat's
stream, whose EventSource came back by itself with its spent ticket, was told
``ticket-invalid`` and was opened anew with a fresh ticket.

Skipped where ``/usr/bin/chromium`` is missing (``.ci/run`` installs it)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import requests

from ..browser import CHROMIUM
from ..conftest import EVERY_EVENT, RedisProcess, Served
from ..test_cors_browser import PageServer, browser, open_page

__all__ = ["browser"]  # the fixture, imported to be used here

pytestmark = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="needs Debian's chromium at /usr/bin/chromium (apt-get install chromium; .ci/run does)",
)

SCRIPT = """
async ({base, hands, passes}) => {
  const json = {"Content-Type": "application/json"};
  const created = await (await fetch(`${base}/v1/tables`, {method: "POST", headers: json,
    body: JSON.stringify({variant: "mein-schiff", players: ["Ann", "Ben", "Cat", "Dan"],
                          first_dealer: 0})})).json();
  const url = `${base}/v1/tables/${created.table_id}`;
  const host = {Authorization: `Bearer ${created.host_token}`};
  const seat = (s) => ({Authorization: `Bearer ${created.seat_tokens[s].token}`});
  const log = {public: [], seat: [], views: [], tickets: 0, reopened: 0, invalid: 0, opens: 0};
  const done = (n) => new Promise((resolve) => {
    const check = () => (log.public.length >= n && log.seat.length >= n) ? resolve() :
      setTimeout(check, 20);
    check();
  });

  let publicStream;
  const openPublic = (after) => new Promise((resolve) => {
    publicStream = new EventSource(after ? `${url}/stream?after=${after}` : `${url}/stream`);
    publicStream.onmessage = (e) => log.public.push([e.lastEventId, JSON.parse(e.data)]);
    publicStream.onopen = () => { log.opens += 1; resolve(); };
  });

  let seatStream, seatLast = "";
  const openSeat = async () => {
    const ticket = await (await fetch(`${url}/seats/0/tickets`, {method: "POST",
                                                                 headers: seat(0)})).json();
    log.tickets += 1;
    const query = seatLast ? `&after=${seatLast}` : "";
    seatStream = new EventSource(`${base}${ticket.stream}${query}`);
    seatStream.onmessage = (e) => { seatLast = e.lastEventId; log.seat.push(JSON.parse(e.data)); };
    seatStream.addEventListener("seat", (e) => log.views.push(JSON.parse(e.data)));
    seatStream.addEventListener("ticket-invalid", () => {
      log.invalid += 1;
      seatStream.close();   // what a page does: a new ticket, after the last id seen
      // Reopened once the new ticket's stream is open (the wait below reads it).
      openSeat().then(() => { log.reopened += 1; });
    });
    await new Promise((resolve) => { seatStream.onopen = () => resolve(); });
  };

  await openPublic("");
  await openSeat();
  await fetch(`${url}/rounds`, {method: "POST", headers: {...host, ...json},
                                body: JSON.stringify({hands})});
  for (const [i, exchange] of passes.entries()) {
    for (const [s, card] of exchange.entries()) {
      await fetch(`${url}/rounds/1/exchanges/${i + 1}/passes/${s}`, {method: "PUT",
        headers: {...seat(s), ...json}, body: JSON.stringify({cards: [card]})});
    }
    if (i === 0) {  // cut the public stream and resume it from the last id it saw
      publicStream.close();
      const last = log.public[log.public.length - 1][0];
      await openPublic(last);
    }
  }
  await fetch(`${url}/rounds/1/claims`, {method: "POST", headers: seat(0)});
  const all = await (await fetch(`${url}/events?limit=1000`)).json();
  // The streams end by themselves (STREAM_LIFETIME_SECONDS=3): the public
  // EventSource comes back by itself with Last-Event-ID; the seat's comes back
  // with its spent ticket, and the page reopens it.
  await new Promise((resolve) => {
    const check = () => log.reopened > 0 && log.opens >= 3 &&
      log.seat.length >= all.events.length ? resolve() : setTimeout(check, 50);
    check();
  });
  await done(all.events.length);
  publicStream.close();
  seatStream.close();
  return {log, events: all.events, hand: log.views[log.views.length - 1].hand};
}
"""


@pytest.fixture(scope="module")
def page_origin() -> Iterator[PageServer]:
    origin = PageServer()
    yield origin
    origin.stop()


@pytest.fixture(scope="module")
def live(
    page_origin: PageServer, redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    service = Served(
        redis_server.url,
        tmp_path_factory.mktemp("served-streams-browser"),
        CORS_ORIGINS=page_origin.origin,
        EVENTS_KEPT=str(EVERY_EVENT),
        STREAM_LIFETIME_SECONDS="3",
    )
    yield service
    service.stop()


def test_a_page_follows_a_round_with_eventsource(
    browser: Any, page_origin: PageServer, live: Served
) -> None:
    from ..helpers import WORKED_HANDS, WORKED_PASSES

    page, console = open_page(browser, page_origin.origin)
    got = page.evaluate(SCRIPT, {"base": live.base, "hands": WORKED_HANDS, "passes": WORKED_PASSES})
    page.close()
    events = got["events"]
    assert [e["type"] for e in events][-2:] == ["claim-accepted", "round-won"]
    public = got["log"]["public"]
    assert [e for _, e in public] == events  # once each, in order, across the cut
    assert got["log"]["seat"] == events  # and on the seat's stream, across its reopening
    assert got["log"]["invalid"] >= 1 and got["log"]["tickets"] >= 2
    assert got["log"]["opens"] >= 3  # one reconnection by the browser itself
    assert sorted(got["hand"]) == sorted(["AH", "KH", "8H", "5H", "2H", "9H", "JH"])
    assert not [m for m in console if "CORS" in m], console
    table = events[0]
    assert table["type"] == "table-created"
    assert requests.get(f"{live.base}/readyz", timeout=5).status_code == 200
