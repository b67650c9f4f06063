"""The reference web table (/play) in a real browser: headless Chromium
(Debian's ``chromium``, driven by Playwright) opens ``/play`` on a real
``referee serve``, creates a table of each game, shares its join links, deals
and plays a whole shuffled round by clicks and keys, while scripted players
take the open seats through the API (they stand in for the bots of issue 19,
not in this branch). After each step the page is checked against the API:
the hand sorted by suit, the cards highlighted as playable, whose move it is,
and at the end the round's result and the standings. Every response the page
received (JSON and its streams) is checked: it only ever held its own seat's
hand and no other seat's token. A second test has two browser contexts join
one table by link and play it. Screenshots go to ``tmp/artefacts/play/``
(named in the test run's summary).

Skipped where ``/usr/bin/chromium`` is missing (``.ci/run`` installs it)."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ..browser import CHROMIUM
from ..conftest import RedisProcess, Served
from ..test_cors_browser import browser
from .players import Players, may_i_move, ship_pass, ship_target, ship_wins

__all__ = ["browser"]  # the fixture, imported to be used here

pytestmark = [
    pytest.mark.skipif(
        not CHROMIUM.exists(),
        reason="needs Debian's chromium at /usr/bin/chromium "
        "(apt-get install chromium; .ci/run does)",
    ),
    # A My Ship Sails round may run many exchanges, each settled in the page:
    # on a loaded 2-core machine once over the suite's 300 s (no hang).
    pytest.mark.timeout(600),
]

ARTEFACTS = Path(__file__).resolve().parents[2] / "tmp" / "artefacts" / "play"
SUITS, RANKS = "SHCD", "AKQJT98765432"


def by_suit(hand: list[str]) -> list[str]:
    """The order the page shows a hand in: spades, hearts, clubs, diamonds, high first."""
    return sorted(
        hand, key=lambda c: (SUITS.index(c[-1]), RANKS.index(c[:-1])) if c != "JK" else (9, 0)
    )


@pytest.fixture(scope="module")
def live(redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    # Streams end every 2 s, so that each page's EventSource comes back with its
    # spent ticket and the page opens it again with a new one, many times a round.
    service = Served(
        redis_server.url, tmp_path_factory.mktemp("served-play"), STREAM_LIFETIME_SECONDS="2"
    )
    yield service
    service.stop()


class Seen:
    """Every response body a page received (fetches, and streams once they end)."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.bodies: list[tuple[str, str]] = []
        page.on("requestfinished", self._finished)

    def _finished(self, request: Any) -> None:
        response = request.response()
        if response is None or "/v1/" not in request.url:
            return
        # A body the browser no longer holds (a page closed under it) is skipped.
        with contextlib.suppress(Exception):
            self.bodies.append((request.url, response.body().decode()))

    def documents(self) -> Iterator[Any]:
        """Each JSON document: a whole body, or one stream event's data."""
        for url, body in self.bodies:
            if "/stream" in url:
                for line in body.splitlines():
                    if line.startswith("data: "):
                        yield json.loads(line[6:])
            elif body.startswith(("{", "[")):
                yield json.loads(body)


def hands_in(document: Any) -> Iterator[dict[str, Any]]:
    """Every object that holds a ``hand``, however deep."""
    if isinstance(document, dict):
        if "hand" in document:
            yield document
        for value in document.values():
            yield from hands_in(value)
    elif isinstance(document, list):
        for value in document:
            yield from hands_in(value)


def assert_only_own_cards(
    seen: Seen, seat: int, others: dict[int, str], table: dict[str, Any], held: set[str]
) -> None:
    """Every hand the page received is its own seat's, or one an accepted claim
    showed to everyone (RULES.md 2.6: the table's ``round.claims``); no other
    seat's token ever reached it."""
    shown = [(c["seat"], c["hand"]) for c in (table["round"] or {}).get("claims") or []]
    # A stream's body is seen once it ends (the served lifetime is 2 s): a
    # round played faster than that has not ended one yet.
    deadline = time.monotonic() + 15
    while True:
        streamed = [u for u, b in seen.bodies if "/stream" in u and "event: seat" in b]
        if streamed or time.monotonic() > deadline:
            break
        seen.page.wait_for_timeout(100)  # Playwright delivers its events while it waits
    views = list(hands_in(list(seen.documents())))
    assert views and streamed, "the page read its seat's view and its stream"
    for holder in views:
        if (holder.get("seat"), holder["hand"]) in shown:
            continue
        assert holder.get("seat") == seat, holder
        # ... and holds only cards the API gave that seat (no other seat's hand).
        assert set(holder["hand"]) <= held, holder
    text = "\n".join(b for _, b in seen.bodies)
    for other, token in others.items():
        assert token not in text, f"seat {other}'s token reached the page"


STREAM_LOG = """
(() => {
  // What the page's event streams received, for a test that fails to say
  // (window.__streamLog: the last 50 opens, frames, errors).
  const log = (window.__streamLog = []);
  const note = (what) => {
    log.push(`${Date.now() % 1e6} ${what}`);
    log.splice(0, log.length - 50);
  };
  const Original = window.EventSource;
  window.EventSource = function (url, init) {
    const stream = new Original(url, init);
    note(`open ${String(url).replace(/ticket=[^&]*/, "ticket=…")}`);
    stream.addEventListener("open", () => note("opened"));
    stream.addEventListener("error", () => note(`error, readyState ${stream.readyState}`));
    for (const type of ["message", "seat", "heartbeat", "events-gone", "ticket-invalid"]) {
      stream.addEventListener(type, (m) => note(`${type} ${m.lastEventId}`));
    }
    return stream;
  };
  window.EventSource.prototype = Original.prototype;
  Object.assign(window.EventSource, { CONNECTING: 0, OPEN: 1, CLOSED: 2 });
})();
"""


def open_play(browser: Any, live: Served, name: str, *scripts: str) -> tuple[Any, Any, Seen]:
    """A new browser context on ``/play``, with ``scripts`` run before the page's own."""
    context = browser.new_context(viewport={"width": 400, "height": 860})
    for script in (STREAM_LOG, *scripts):
        context.add_init_script(script)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    seen = Seen(page)
    page.errors = errors
    page.goto(f"{live.base}/play")
    page.wait_for_selector("#create")
    return context, page, seen


def create(page: Any, preset: str, name: str, window_ms: int | None = None) -> list[str]:
    """Create a table in the page's form; the join links it shows."""
    page.select_option("#preset", preset)
    page.fill("#name", name)
    if window_ms is not None:
        page.fill("#window", str(window_ms))
    page.click("#create-table")
    page.wait_for_selector("#links input")
    return list(page.eval_on_selector_all("#links input", "els => els.map(e => e.value)"))


def table_of(link: str) -> str:
    """The table id in a join link (``…/play#/join/<table>/<code>``)."""
    return link.split("/join/")[1].split("/")[0]


def stored(page: Any, table_id: str) -> dict[str, Any]:
    """What the page keeps in localStorage for the table (its seat and token)."""
    return dict(page.evaluate(f"JSON.parse(localStorage.getItem('card-referee:{table_id}'))"))


def wait_for(check: Callable[[], Any], what: str, seconds: float = 60) -> Any:
    """``check()`` once it is truthy; a hang guard of ``seconds`` (15 s was
    short while two suites shared the machine's 2 cores)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got = check()
        if got:
            return got
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def settle(
    page: Any, players: Players, seat: int, token: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Wait until the page shows the table and the seat's view as the API has
    them now; then check the hand it shows against the API's."""

    def same() -> tuple[dict[str, Any], dict[str, Any]] | None:
        table, view = players.table(), players.view(seat, token)
        shown = page.eval_on_selector("#table", "e => [e.dataset.lastEvent, e.dataset.viewEvent]")
        if shown == [str(table["last_event"]), str(view["last_event"])]:
            return table, view
        return None

    table, view = wait_for(same, "the page to show the table as the API has it")
    if table["round"] and table["round"]["status"] != "over":
        cards = page.eval_on_selector_all("#hand button", "els => els.map(e => e.dataset.card)")
        assert cards == by_suit(view["hand"])
        awaited = page.eval_on_selector_all(
            "#seats li.waiting", "els => els.map(e => +e.dataset.seat)"
        )
        assert awaited == table["awaiting"]["seats"]
    assert page.inner_text("#status") == "", page.inner_text("#status")
    return table, view


def marked(page: Any) -> list[str]:
    return list(
        page.eval_on_selector_all("#hand button.playable", "els => els.map(e => e.dataset.card)")
    )


def press(page: Any, key: str) -> None:
    page.locator("body").press(key)


def human_move(
    page: Any, game: str, table: dict[str, Any], view: dict[str, Any], target: str | None = None
) -> bool:
    """Play the page's seat by clicks and keys, if it has a move; whether it
    did (My Ship Sails: it collects ``target``, :func:`.players.ship_pass`)."""
    if game == "my-ship-sails":
        if ship_wins(view["hand"], table["options"]["win_count"]):
            press(page, "c")
            return True
        if not view["to_choose"]:
            return False
        assert marked(page) == by_suit(view["hand"])  # any card may be passed
        card = ship_pass(view["hand"], 1, target)[0]
        page.click(f"#hand button[data-card='{card}']")
        press(page, "p")
        return True
    if game == "sevens":
        if not view["on_turn"]:
            assert marked(page) == []
            return False
        assert sorted(marked(page)) == sorted(view["playable"])
        if view["playable"]:
            page.focus(f"#hand button[data-card='{view['playable'][0]}']")
            page.keyboard.press("Enter")
        else:
            press(page, "s")
        return True
    if "answer" in view["may"]:  # a bot asked "May I?": Ann allows it (RULES.md 4.6)
        press(page, "a")
        return True
    if not view["on_turn"] or not set(view["may"]) - {"ask"}:
        return False
    move = may_i_move(view)
    keys = {"decline": "n", "draw": "d", "lay_down": "l", "done": "e", "take_discard": "t"}
    name = next(iter(move))
    if name in keys:
        press(page, keys[name])
    elif name == "lay_off":
        page.click(f"#hand button[data-card='{move['lay_off']['card']}'] >> nth=0")
        page.click(f"button[data-action='Lay off on meld {move['lay_off']['meld']}']")
    else:
        assert set(marked(page)) >= set(view["discardable"])
        page.click(f"#hand button[data-card='{move['discard']}'] >> nth=0")
        press(page, "x")
    return True


def play_round(page: Any, players: Players, seat: int, token: str, shots: str) -> dict[str, Any]:
    """Play round 1 to its end: the scripted seats by the API, ``seat`` in the page."""
    game = players.table()["game"]
    if game == "my-ship-sails":
        hands = [players.view(s)["hand"] for s in players.tokens]
        players.target = ship_target([*hands, players.view(seat, token)["hand"]])
    for step in range(1500):
        table = players.table()
        if table["round"]["status"] == "over":
            break
        for other in players.tokens:
            players.act(other)
        table, view = settle(page, players, seat, token)
        if table["round"]["status"] == "over":
            break
        before = table["last_event"]
        if human_move(page, game, table, view, players.target):
            wait_for(lambda b=before: players.table()["last_event"] > b, "the page's move")
        if step == 3:
            page.screenshot(path=str(ARTEFACTS / f"{shots}-playing.png"), full_page=True)
    table, _ = settle(page, players, seat, token)
    assert table["round"]["status"] == "over"
    page.screenshot(path=str(ARTEFACTS / f"{shots}-over.png"), full_page=True)
    return table


def check_result(page: Any, table: dict[str, Any]) -> None:
    result, names = table["last_result"], [s["name"] for s in table["seats"]]
    winners = result.get("winners") or (
        [result["winner"]] if result.get("winner") is not None else []
    )
    text = page.inner_text("#result-winners")
    if winners:
        assert text == "Won by " + ", ".join(names[w] for w in winners)
    elif result.get("out") is not None:
        assert text == f"{names[result['out']]} went out"
    standings = page.eval_on_selector_all("#standings li", "els => els.map(e => e.textContent)")
    assert [line.split(":")[0] for line in standings] == [s["name"] for s in table["standings"]]
    # Numbered by rank: tied seats share a place.
    places = page.eval_on_selector_all("#standings li", "els => els.map(e => e.value)")
    ranks = sorted(s["rank"] for s in table["seats"])
    assert places == ranks, (places, table["seats"])


@pytest.mark.parametrize(("preset", "window"), [("classic", None), ("sevens", None), ("may-i", 0)])
def test_one_person_and_three_scripted_players_play_a_round(
    browser: Any, live: Served, preset: str, window: int | None
) -> None:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    context, page, seen = open_play(browser, live, "Ann")
    links = create(page, preset, "Ann", window)
    assert len(links) == 3 and all("/play#/join/" in link for link in links)
    table_id = table_of(links[0])
    players = Players(live.base, table_id)
    for i, link in enumerate(links):
        players.join(link, f"Scripted {i + 1}")  # a person: "Bot …" is the bots' (RULES.md 5.1)
    page.wait_for_selector("#deal")
    page.screenshot(path=str(ARTEFACTS / f"{preset}-ready.png"), full_page=True)
    page.focus("#deal")
    page.keyboard.press("Enter")
    # The page deals by a request of its own: the round exists once it is answered.
    wait_for(lambda: players.table()["round"] is not None, "the page's deal")
    mine = stored(page, table_id)
    assert mine["seat"] == 0
    table = play_round(page, players, 0, mine["token"], preset)
    check_result(page, table)
    assert_only_own_cards(seen, 0, players.tokens, table, players.held[0])
    assert page.errors == []
    context.close()


def test_two_people_join_one_table_by_link_and_play(browser: Any, live: Served) -> None:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    ann_context, ann, ann_seen = open_play(browser, live, "Ann")
    links = create(ann, "sevens", "Ann")
    table_id = table_of(links[0])
    ben_context, ben, ben_seen = open_play(browser, live, "Ben")
    ben.goto(links[1])
    ben.fill("#join-name", "Ben")
    ben.keyboard.press("Enter")
    ben.wait_for_selector("#table")
    players = Players(live.base, table_id)
    players.join(links[0], "Cat")
    players.join(links[2], "Dan")
    ann.wait_for_selector("#deal")
    assert ann.eval_on_selector_all("#seats .name", "els => els.map(e => e.textContent)") == [
        "Ann",
        "Cat",
        "Ben",
        "Dan",
    ]
    assert ben.query_selector("#deal") is None  # only the host deals
    ann.click("#deal")
    for _ in range(100):  # the click's request is the page's own: wait for the deal it makes
        if players.table()["round"] is not None:
            break
        ann.wait_for_timeout(100)
    assert players.table()["round"] is not None, "the host's click dealt no round"
    pages = {0: (ann, stored(ann, table_id)["token"]), 2: (ben, stored(ben, table_id)["token"])}
    assert stored(ben, table_id)["seat"] == 2
    for _ in range(400):
        if players.table()["round"]["status"] == "over":
            break
        for other in players.tokens:
            players.act(other)
        for seat, (page, token) in pages.items():
            table, view = settle(page, players, seat, token)
            before = table["last_event"]
            if table["round"]["status"] != "over" and human_move(page, "sevens", table, view):
                wait_for(lambda b=before: players.table()["last_event"] > b, "the page's move")
    table = players.table()
    assert table["round"]["status"] == "over"
    for seat, (page, token) in pages.items():
        settle(page, players, seat, token)
        check_result(page, table)
        page.screenshot(path=str(ARTEFACTS / f"two-seats-{seat}.png"), full_page=True)
    assert_only_own_cards(ann_seen, 0, {**players.tokens, 2: pages[2][1]}, table, players.held[0])
    assert_only_own_cards(ben_seen, 2, {**players.tokens, 0: pages[0][1]}, table, players.held[2])
    ann_context.close()
    ben_context.close()


HOLD_PASS_ANSWERS = """
(() => {
  // Holds the answer to the page's pass until window.__release(), as a slow
  // network can: the stream brings the seat's next view first. Counts the
  // seat reads answered after the release (the page reads again after a move).
  const original = window.fetch;
  let release;
  const held = new Promise((resolve) => (release = resolve));
  window.__release = () => {
    window.__readsAfter = 0;
    release();
  };
  window.fetch = async (input, init) => {
    const method = input instanceof Request ? input.method : init?.method ?? "GET";
    const url = String(input instanceof Request ? input.url : input);
    const answer = await original(input, init);
    if (method === "PUT" && url.includes("/passes/")) await held;
    if (method === "GET" && /[/]seats[/][0-9]+$/.test(url) && window.__readsAfter !== undefined) {
      window.__readsAfter += 1;
    }
    return answer;
  };
})();
"""


def test_a_card_picked_before_the_moves_answer_arrives_stays_picked(
    browser: Any, live: Served
) -> None:
    """The stream can bring the seat's next view before the answer to the
    page's own move. A card picked in that view stays picked when the answer
    arrives: picks end with the view they were made in, not with an answer
    (the page once cleared them on every answer, and a pick made in between
    was lost: the bots test of May I? then found no "Lay off" button)."""
    context, page, _ = open_play(browser, live, "Ann", HOLD_PASS_ANSWERS)
    links = create(page, "classic", "Ann")
    players = Players(live.base, table_of(links[0]))
    for i, link in enumerate(links):
        players.join(link, f"Scripted {i + 1}")  # a person: "Bot …" is the bots' (RULES.md 5.1)
    page.click("#deal")
    wait_for(lambda: players.table()["round"] is not None, "the page's deal")
    token = stored(page, players.table_id)["token"]
    for other in players.tokens:
        players.act(other)
    _, view = settle(page, players, 0, token)
    page.click(f"#hand button[data-card='{view['hand'][0]}']")
    press(page, "p")  # the last pass of the exchange: its answer is held
    resolved = view["exchange"] + 1
    wait_for(lambda: players.view(0, token)["exchange"] == resolved, "the exchange to resolve")
    _, after = settle(page, players, 0, token)  # the stream's view, before the answer
    assert after["to_choose"], after  # (a deal that won at once would end here)
    card = by_suit(after["hand"])[-1]
    page.click(f"#hand button[data-card='{card}']")
    assert marked_picked(page) == [card]
    page.evaluate("window.__release()")
    page.wait_for_function("() => window.__readsAfter >= 1")
    page.wait_for_timeout(300)  # the read's answer drawn, had it cleared the pick
    assert marked_picked(page) == [card]
    press(page, "p")
    wait_for(lambda: players.view(0, token)["pending"] == [card], "the picked card's pass")
    assert page.errors == []
    context.close()


def marked_picked(page: Any) -> list[str]:
    return list(
        page.eval_on_selector_all(
            "#hand button[aria-pressed='true']", "els => els.map(e => e.dataset.card)"
        )
    )
