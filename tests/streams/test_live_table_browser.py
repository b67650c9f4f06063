"""A live table in a real browser, for each game: headless Chromium (Debian's
``chromium``, driven by Playwright) loads ``live_table.html`` from a second
local origin; its script creates a table of named seats (a submitted
deal is the host's only where no person joined: RULES.md 5.1), opens each
seat's stream with ``EventSource`` (a single-use ticket), deals a
submitted deal and plays the whole round with
``fetch`` through a real gunicorn with two workers, each seat choosing its
moves from the view its own stream last sent (no GET until the round is
over). Mid-round the page closes one seat's stream and opens it again with a
new ticket and ``after`` its last id; a little later every gunicorn worker is
SIGKILLed, which cuts every stream server-side: each EventSource comes back
by itself (``Last-Event-ID``, its spent ticket), is told ``ticket-invalid``
and is opened anew. Every stream still carries every event of the log once,
in order.

Skipped where ``/usr/bin/chromium`` is missing (``.ci/run`` installs it)."""

from __future__ import annotations

import os
import signal
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
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

PAGE = (Path(__file__).parent / "live_table.html").read_bytes()

NAMED4 = ["P0", "P1", "P2", "P3"]

# My Ship Sails (mein-schiff, passes go left to seat + 1). With the page's
# policy (keep the longest suit, pass the first other card of the view's
# hand; claim seven of a suit) seat 0 receives 9H and JH from seat 3 and
# holds seven hearts after exchange 2; nobody else wins.
SHIP_HANDS = [
    ["AH", "KH", "8H", "5H", "2H", "QC", "4S"],
    ["3C", "4C", "5C", "6C", "7C", "9D", "TD"],
    ["2D", "3D", "4D", "5D", "8C", "9C", "TC"],
    ["9H", "JH", "2S", "3S", "5S", "6S", "7S"],
]

# Sevens: seat 2 holds every diamond, opens with 7D and always has the next
# one: it plays its last card at turn 49, before anyone else can.
SEVENS_HANDS = [
    ["8S", "9S", "TS", "JS", "QS", "KS", "AS", "8C", "9C", "TC", "JC", "QC", "KC"],
    ["7S", "7H", "7C", "8H", "9H", "TH", "JH", "QH", "KH", "AH", "5C", "6C", "AC"],
    [r + "D" for r in "23456789TJQKA"],
    ["2S", "3S", "4S", "5S", "6S", "2H", "3H", "4H", "5H", "6H", "2C", "3C", "4C"],
]


def may_i_deal() -> dict[str, Any]:
    """Three seats, two decks: seat 1 (first on turn) holds five kings and
    five queens; it takes the 5H on the discard pile, lays down two sets,
    lays off the rest and goes out discarding 5H, in its first turn."""
    pool = Counter(r + s for s in "SHDC" for r in "23456789TJQKA")
    pool = pool + pool
    ben = ["KS", "KH", "KD", "KC", "KS", "QS", "QH", "QD", "QC", "QS"]
    pool.subtract([*ben, "5H"])
    rest = sorted(pool.elements())
    return {"hands": [rest[:10], ben, rest[10:20]], "discard": "5H", "stock": rest[20:]}


GAMES = {
    "my-ship-sails": {
        "create": {"variant": "mein-schiff", "players": NAMED4, "first_dealer": 0,
                   "options": {"max_exchanges": 10}},
        "deal": {"hands": SHIP_HANDS}, "cut_at": 3, "cut_seat": 1, "kill_at": 5,
    },
    "sevens": {
        "create": {"variant": "sevens", "players": NAMED4, "first_dealer": 0},
        "deal": {"hands": SEVENS_HANDS}, "cut_at": 3, "cut_seat": 1, "kill_at": None,
    },
    "may-i": {
        "create": {"variant": "may-i", "players": NAMED4[:3], "first_dealer": 0},
        "deal": may_i_deal(), "cut_at": 1, "cut_seat": 2, "kill_at": None,
    },
}  # fmt: skip


@pytest.fixture(scope="module")
def live_page() -> Iterator[PageServer]:
    origin = PageServer(PAGE)
    yield origin
    origin.stop()


@pytest.fixture(scope="module")
def live_api(
    live_page: PageServer, redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    service = Served(
        redis_server.url,
        tmp_path_factory.mktemp("served-live-table"),
        CORS_ORIGINS=live_page.origin,
        EVENTS_KEPT=str(EVERY_EVENT),
        STREAM_HEARTBEAT_SECONDS="5",
    )
    yield service
    service.stop()


def play(browser: Any, page_origin: PageServer, api: Served, name: str) -> dict[str, Any]:
    page, console = open_page(browser, page_origin.origin)
    killed: list[int] = []

    def kill_workers() -> int:
        for pid in api.workers():
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        return len(killed)

    page.expose_function("killWorkers", kill_workers)
    got = page.evaluate(
        "([base, game]) => playRound(base, game)", [api.base, {"name": name, **GAMES[name]}]
    )
    page.close()
    assert not [m for m in console if "CORS" in m], console
    # Both workers, when the game says when: every stream was cut under the page.
    assert len(killed) == (0 if GAMES[name]["kill_at"] is None else 2)
    got["console"] = console
    return got  # type: ignore[no-any-return]


def check_streams(got: dict[str, Any], seats: int, cut_seat: int, killed: bool) -> None:
    log = got["log"]
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    assert all(status == 200 for _, status, _ in got["played"]), str(got["played"])
    for seat, stream in enumerate(got["streams"]):
        # Every event of the log, once each and in order, across the cuts.
        assert stream["events"] == log, seat
        assert [i.split(".")[0] for i in stream["ids"]] == [str(e["seq"]) for e in log]
        assert stream["view"]["round_status"] == "over"
        # A ticket to open, one after the page's cut, one after the kill's
        # ticket-invalid (the EventSource came back with its spent ticket).
        assert stream["invalid"] == (1 if killed else 0), (seat, stream)
        assert stream["cuts"] == (1 if seat == cut_seat else 0)
        assert stream["tickets"] == 1 + stream["cuts"] + stream["invalid"], (seat, stream)
    assert [s["seat"] for s in got["created"]["seat_tokens"]] == list(range(seats))
    assert got["created"]["join_codes"] == []
    # No event nor any seat's view holds a token.
    shown = str([log, [s["view"] for s in got["streams"]]])
    assert len(set(got["tokens"])) == seats
    assert not [t for t in got["tokens"] if t in shown]


def test_a_page_plays_my_ship_sails_live(
    browser: Any, live_page: PageServer, live_api: Served
) -> None:
    got = play(browser, live_page, live_api, "my-ship-sails")
    check_streams(got, 4, cut_seat=1, killed=True)
    types = [e["type"] for e in got["log"]]
    assert types.count("exchange-resolved") == 2
    assert types[-2:] == ["claim-accepted", "round-won"]
    assert [k for k, _, _ in got["played"]][-1] == "claim-1-0"
    assert sorted(got["streams"][0]["view"]["hand"]) == sorted(
        ["AH", "KH", "JH", "9H", "8H", "5H", "2H"]
    )
    assert (got["log"][-1]["winners"], got["log"][-1]["exchanges"]) == ([0], 2)


def test_a_page_plays_sevens_live(browser: Any, live_page: PageServer, live_api: Served) -> None:
    got = play(browser, live_page, live_api, "sevens")
    check_streams(got, 4, cut_seat=1, killed=False)
    assert [k for k, _, _ in got["played"]] == [f"turn-{n}" for n in range(1, 50)]
    won = got["log"][-1]
    assert (won["type"], won["winner"], won["cards_left"], won["pot"]) == (
        "round-won", 2, [4, 1, 0, 3], 5)  # fmt: skip
    assert [len(s["view"]["hand"]) for s in got["streams"]] == [4, 1, 0, 3]


def test_a_page_plays_may_i_live(browser: Any, live_page: PageServer, live_api: Served) -> None:
    got = play(browser, live_page, live_api, "may-i")
    check_streams(got, 3, cut_seat=2, killed=False)
    assert [e["type"] for e in got["log"]][-2:] == ["went-out", "round-over"]
    assert (got["log"][-1]["out"], got["log"][-1]["points"]) == (1, [-50, 20, -50])
    assert [k for k, _, _ in got["played"]] == [f"move-{n}" for n in range(1, 8)]
    assert got["streams"][1]["view"]["hand"] == []
    assert requests.get(f"{live_api.base}/readyz", timeout=5).status_code == 200
