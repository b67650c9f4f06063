"""/play as a card table, in a real browser at a phone's width (390 px) and a
laptop's (1366 px): headless Chromium (Debian's ``chromium``, driven by
Playwright) on a ``referee serve`` with its worker (bots, clocks), a table
of each game against three bots with a turn clock, the page's seat played
through the API (the page follows it live), and at both widths:

- the seats round the table tell who is here, away, a bot or open;
- the layout is the game's: Sevens' rows by suit and rank holding exactly
  the cards played, May I?'s stock, discard pile and melds (and the card
  just drawn marked in the hand), My Ship Sails' passing;
- a countdown under the clock, the game's goal in a line, words only (no
  API name such as ``first-dealer-drawn``), plurals right, every character
  in a font the machine has (Debian's chromium drew ⏱ as a missing glyph),
  nothing wider than the screen, no badge broken over two lines, keyboard
  hints only where there is a keyboard;
- scores as the game keeps them: chips paid into the pot count at once.

Screenshots of all three games at both widths go to ``tmp/artefacts/play/``
(``table-<game>-<width>.png`` and ``.jpg``); docs/play/ keeps a set of the
JPEGs, and docs/play.png (README's) the Sevens table at phone width.

Skipped where ``/usr/bin/chromium`` is missing (``.ci/run`` installs it)."""

from __future__ import annotations

import re
import subprocess
import time
from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest

from ..browser import CHROMIUM
from ..conftest import Served
from ..test_cors_browser import browser
from .players import Players, may_i_move, ship_pass
from .test_play_bots import with_worker
from .test_play_browser import ARTEFACTS, open_play, stored, wait_for

__all__ = ["browser", "with_worker"]  # the fixtures, imported to be used here

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's chromium (/usr/bin/chromium)"),
    pytest.mark.timeout(300),
]

WIDTHS = {"phone": (390, 844), "laptop": (1366, 900)}
KEBAB = re.compile(r"\b[a-z]+(?:-[a-z]+)+\b")
"""An API name (a preset's key, an event's type): no word a person reads is written so."""
SINGULAR = re.compile(r"\b1 (?:cards|chips|points|wins|seats|exchanges|melds|open seats)\b")
ALLOWED_KEBAB = {"card-referee"}  # the project's name, in the top bar


@cache
def has_glyph(char: str) -> bool:
    """Whether a font on this machine draws ``char`` (fontconfig, which Chromium uses)."""
    found = subprocess.run(
        ["fc-list", f":charset={ord(char):x}", "family"], capture_output=True, text=True
    )
    return bool(found.stdout.strip())


def check_page(page: Any, width: str) -> str:
    """The checks every table passes at every width; the page's text."""
    text: str = page.inner_text("body")
    leaked = set(KEBAB.findall(text)) - ALLOWED_KEBAB
    assert not leaked, f"API names on the page: {leaked}"
    assert not SINGULAR.findall(text), SINGULAR.findall(text)
    missing = sorted({c for c in text if ord(c) > 127 and not has_glyph(c)})
    assert not missing, f"characters no font here draws: {missing}"
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), (
        "wider than the screen"
    )
    # Badges and pills stay on one line.
    broken = page.evaluate(
        """() => [...document.querySelectorAll(
              '.presence, .score, .count, .turn-mark, .connection, .clock, .dealer-chip, .action')]
            .filter((e) => e.offsetParent !== null)
            .filter((e) => {
              const s = getComputedStyle(e);
              const edges = ['paddingTop', 'paddingBottom', 'borderTopWidth', 'borderBottomWidth']
                .reduce((sum, k) => sum + parseFloat(s[k]), 0);
              return e.getBoundingClientRect().height - edges > 1.5 * parseFloat(s.lineHeight);
            })
            .map((e) => e.textContent)"""
    )
    assert broken == [], f"broken over two lines: {broken}"
    assert page.inner_text("#goal").strip()
    hints = page.evaluate(
        "[...document.querySelectorAll('kbd')].filter((k) => k.offsetParent !== null).length"
    )
    if width == "phone":
        assert hints == 0, "keyboard hints on a phone"
    else:
        assert hints > 0, "no keyboard hints on a laptop"
    return text


def chips(n: int) -> str:
    """How the page writes a chip count: ``+2 chips``, ``0 chips``, ``−1 chip``."""
    sign = "+" if n > 0 else "\u2212" if n < 0 else ""
    return f"{sign}{abs(n)} {'chip' if abs(n) == 1 else 'chips'}"


def presences(page: Any) -> list[str]:
    return list(page.eval_on_selector_all("#seats li", "els => els.map(e => e.dataset.presence)"))


def start(browser: Any, live: Served, preset: str, clock_s: int = 60) -> tuple[Any, Any, Players]:
    """Ann and three basic bots at ``preset`` (a turn clock of ``clock_s``), dealt by the page."""
    context, page, _ = open_play(browser, live, "Ann")
    page.set_viewport_size({"width": 1366, "height": 900})
    page.select_option("#preset", preset)
    page.fill("#name", "Ann")
    if preset.startswith("may-i"):
        page.fill("#window", "1000")
    page.check("#clocked")
    page.fill("#turn-seconds", str(clock_s))
    page.fill("#bot-delay", "150")
    page.click("#play-bots")
    page.wait_for_selector("#deal")
    table_id = page.evaluate("location.hash").split("/")[2]
    players = Players(live.base, table_id)
    players.tokens[0] = stored(page, table_id)["token"]
    page.click("#deal")
    wait_for(lambda: players.table()["round"] is not None, "the page's deal")
    return context, page, players


def ann_moves(players: Players) -> bool:
    """One move of Ann's (seat 0) through the API, if she has one; whether she moved."""
    table, view = players.table(), players.view(0)
    game, rnd = table["game"], table["round"]
    if rnd["status"] == "over":
        return False
    if game == "sevens" and view["on_turn"]:
        body = {"play": view["playable"][0]} if view["playable"] else {"pass": True}
        return players.send("PUT", f"/rounds/1/turns/{view['turn']}", 0, body).ok
    if game == "my-ship-sails" and view["to_choose"]:
        cards = ship_pass(view["hand"], int(table["options"]["pass_count"]))
        path = f"/rounds/1/exchanges/{view['exchange']}/passes/0"
        return players.send("PUT", path, 0, {"cards": cards}).ok
    if game == "may-i" and "answer" in view["may"]:
        path = f"/rounds/1/may-i/{rnd['may_i']['offer']}/answers/0"
        return players.send("PUT", path, 0, {"allow": True}).ok
    if game == "may-i" and view["on_turn"] and set(view["may"]) - {"ask"}:
        return players.send("PUT", f"/rounds/1/moves/{view['move']}", 0, may_i_move(view)).ok
    return False


def shows_now(page: Any, players: Players) -> tuple[dict[str, Any], dict[str, Any]]:
    """The table and Ann's view once the page shows them as the API has them."""

    def same() -> tuple[dict[str, Any], dict[str, Any]] | None:
        table, view = players.table(), players.view(0)
        shown = page.eval_on_selector("#table", "e => [e.dataset.lastEvent, e.dataset.viewEvent]")
        return (table, view) if shown == [str(table["last_event"])] * 2 else None

    return wait_for(same, "the page to show the table as the API has it", 30)  # type: ignore[no-any-return]


def steady(page: Any, players: Players, read: Callable[[], Any]) -> tuple[dict[str, Any], Any]:
    """The table and what ``read`` reads off the page, both at one event: the
    page showed the table's last event before the read and still does after,
    and the table has not moved on."""

    def once() -> tuple[dict[str, Any], Any] | None:
        table, _ = shows_now(page, players)
        seen = read()
        shown = page.eval_on_selector("#table", "e => e.dataset.lastEvent")
        now = players.table()["last_event"]
        return (table, seen) if shown == str(table["last_event"]) == str(now) else None

    return wait_for(once, "a moment the table stands still", 30)  # type: ignore[no-any-return]


def play_until_ann_decides(
    page: Any, players: Players, moves: int
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Ann makes ``moves`` moves; then the table waits on her (or the round ended)."""
    made = 0
    deadline = time.monotonic() + 120
    while made < moves and time.monotonic() < deadline:
        if ann_moves(players):
            made += 1
            shows_now(page, players)
        elif players.table()["round"]["status"] == "over":
            break
        else:
            time.sleep(0.05)  # the bots' moves (the worker's)
    wait_for(
        lambda: (
            players.table()["round"]["status"] == "over"
            or 0 in players.table()["awaiting"]["seats"]
        ),
        "Ann's turn",
        60,
    )
    return shows_now(page, players)


def shoot(page: Any, game: str) -> None:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    for name, (width, height) in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": height})
        page.wait_for_timeout(300)  # the layout at the new width
        check_page(page, name)
        page.screenshot(path=str(ARTEFACTS / f"table-{game}-{width}.png"), full_page=True)
        # The same as JPEG (a tenth of the bytes), as docs/play/ keeps them.
        jpeg = ARTEFACTS / f"table-{game}-{width}.jpg"
        page.screenshot(path=str(jpeg), full_page=True, type="jpeg", quality=88)


def seen_cards(page: Any, selector: str) -> list[str]:
    return list(page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.card)"))


def check_common(page: Any, table: dict[str, Any]) -> None:
    """Ann is here, the bots are bots; the clock counts down under Ann's deadline."""
    assert presences(page) == ["online", "bot", "bot", "bot"]
    if 0 in table["awaiting"]["seats"] and table["round"]["status"] != "over":
        shown: list[Any] = []

        def counting() -> bool:
            # The seat's mark and the clock are drawn by one render but read
            # here a moment apart (a suite once read "to move" beside "60 s").
            shown[:] = page.evaluate(
                """() => [document.querySelector('#awaiting .clock')?.textContent,
                          document.querySelector("#seats li[data-seat='0'] .turn-mark")
                            ?.textContent]"""
            )
            left, mark = shown
            return bool(left and re.fullmatch(r"\d+ s", left.strip()) and mark == left)

        deadline = time.monotonic() + 10
        while not counting() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert counting(), shown


def test_sevens_at_both_widths(browser: Any, with_worker: Served) -> None:
    context, page, players = start(browser, with_worker, "sevens")
    table, view = play_until_ann_decides(page, players, 6)
    check_common(page, table)
    # The rows by suit, a slot per rank, holding exactly the cards played.
    rows = page.eval_on_selector_all("#layout .row", "els => els.map(e => e.dataset.suit)")
    assert rows == ["S", "H", "D", "C"]
    assert (
        page.eval_on_selector_all("#layout .slots", "els => els.map(e => e.children.length)")
        == [13] * 4
    )
    ranks = "23456789TJQKA"
    played = sorted(
        r + row["suit"]
        for row in table["round"]["layout"]
        for r in ranks[ranks.index(row["low"][0]) : ranks.index(row["high"][0]) + 1]
    )
    assert sorted(seen_cards(page, "#layout [data-card]")) == played
    assert "sevens" in page.inner_text("#goal").lower()
    assert page.inner_text("h2").startswith("Sevens · round 1 of 4")
    shoot(page, "sevens")
    assert page.errors == []
    context.close()


def test_may_i_at_both_widths_marks_the_card_just_drawn(browser: Any, with_worker: Served) -> None:
    context, page, players = start(browser, with_worker, "may-i")
    drawn: list[str] = []
    deadline = time.monotonic() + 120
    while not drawn and time.monotonic() < deadline:
        view = players.view(0)
        if view["on_turn"] and "draw" in view["may"]:
            before = Counter(view["hand"])
            assert players.send("PUT", f"/rounds/1/moves/{view['move']}", 0, {"draw": True}).ok
            _, after = shows_now(page, players)
            drawn = list((Counter(after["hand"]) - before).elements())
        elif not ann_moves(players):
            time.sleep(0.05)
    assert len(drawn) == 1, "Ann drew from the stock"
    assert seen_cards(page, "#hand .card.fresh") == drawn
    assert page.inner_text("#hand .card.fresh .tag") == "NEW"
    play_until_ann_decides(page, players, 4)

    def piles() -> tuple[list[str], str, list[int]]:
        return (
            seen_cards(page, "#discard [data-card]"),
            page.inner_text(".pile.stock .card"),
            page.eval_on_selector_all("#melds .meld", "els => els.map(e => +e.dataset.meld)"),
        )

    # The bots may still ask for the discard while Ann is on turn, and the
    # May I? window's close moves the discard: read the page at one event.
    table, (discard, stock, melds) = steady(page, players, piles)
    check_common(page, table)
    rnd = table["round"]
    assert discard == ([rnd["discard_top"]] if rnd["discard_top"] else [])
    assert stock == str(rnd["stock_size"])
    # Grouped by owner, owners in the order they laid down.
    owners = list(dict.fromkeys(m["owner"] for m in rnd["melds"]))
    assert melds == [m["id"] for o in owners for m in rnd["melds"] if m["owner"] == o]
    assert "Contract: two sets" in page.inner_text("#center")
    shoot(page, "may-i")
    assert page.errors == []
    context.close()


def test_my_ship_sails_at_both_widths(browser: Any, with_worker: Served) -> None:
    context, page, players = start(browser, with_worker, "classic")
    table, view = play_until_ann_decides(page, players, 2)
    check_common(page, table)
    # The bots pass while Ann decides: the page and the table read at one event.
    table, passing = steady(page, players, lambda: page.inner_text("#state"))
    assert f"Exchange {table['round']['exchange']}: passing left" in passing, passing
    assert seen_cards(page, "#received [data-card]") == view["received"]
    ready = sum(bool(s.get("chosen")) for s in table["seats"])
    assert f"{ready} of 4 ready" in passing
    assert "7 cards of one suit" in page.inner_text("#goal")
    shoot(page, "my-ship-sails")
    assert page.errors == []
    context.close()


def test_seats_tell_open_here_not_here_away_and_bots_apart_and_chips_paid_count_at_once(
    browser: Any, with_worker: Served
) -> None:
    """A Sevens table of Ann, a friend's open seat and two bots, with a
    two-second clock: the open seat, the friend not here once joined, here
    once seen; Ann away once the referee moved for her (RULES.md 5.3); and
    every seat's chips less what it paid into the pot this round (a pass
    pays a chip, and a round of Sevens all but never goes without one)."""
    context, page, _ = open_play(browser, with_worker, "Ann")
    page.select_option("#preset", "sevens")
    page.fill("#name", "Ann")
    page.select_option("#seat-2", "basic")
    page.select_option("#seat-3", "basic")
    page.check("#clocked")
    page.fill("#turn-seconds", "2")
    page.fill("#bot-delay", "0")
    page.click("#create-table")
    link = page.wait_for_selector("#links input").input_value()
    table_id = link.split("/join/")[1].split("/")[0]
    players = Players(with_worker.base, table_id)
    wait_for(lambda: presences(page) == ["online", "open", "bot", "bot"], "an open seat")
    assert page.inner_text("#awaiting") == "Waiting for players: 1 seat is open."
    players.join(link, "Ben")
    wait_for(lambda: presences(page) == ["online", "offline", "bot", "bot"], "Ben, not here yet")
    players.view(1)  # a request with his token: seen (RULES.md 5.5)
    wait_for(lambda: presences(page) == ["online", "online", "bot", "bot"], "Ben, here")
    host = stored(page, table_id)["host"]
    # Shuffled: Ben joined with the link, so the host may not choose the
    # hands (RULES.md 5.1). Ann never moves: at her deadline the referee
    # moves for her, and she is away (RULES.md 5.3).
    dealt = players.http.post(f"{players.url}/rounds", headers={"Authorization": f"Bearer {host}"})
    assert dealt.status_code == 201, dealt.text
    wait_for(lambda: presences(page)[0] == "away", "Ann away", 30)
    assert page.inner_text("#seats li[data-seat='0'] .presence") == "away"

    # The round plays itself (a move a second or two): on a busy machine the
    # page may show a state a read or two late, so it is checked against
    # every state read with a chip paid (chips do not change in a round, so
    # a page that did not take the paid chips off matches none of them).
    paid_states: set[tuple[str, ...]] = set()

    def scores_right() -> bool:
        table = players.table()
        if any(s["paid"] for s in table["seats"]):
            paid_states.add(tuple(chips(s["chips"] - s["paid"]) for s in table["seats"]))
        shown = page.eval_on_selector_all("#seats .score", "els => els.map(e => e.textContent)")
        return tuple(shown) in paid_states

    wait_for(scores_right, "each seat's chips less what it paid this round", 30)
    check_page(page, "phone")
    context.close()
