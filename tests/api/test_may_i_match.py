"""A whole five-round May I? match played by two clients in separate
processes (tests/api/may_i_client.py, two seats each, with their tokens)
through a real gunicorn with several workers: random legal moves from the
seat views' hints, random May I? requests and answers on a real (short)
window. The test is the host: it deals each round and, while the match
runs, reads Redis. Checked against Redis: cards are conserved (hands +
stock + discards + melds = the decks) whenever it looks; every round is
scored as RULES.md 4.8 (+20 out, minus the cards' values); the totals and
winners; and no hidden card (the stock, another seat's hand) is in any
public answer, seat view or event that anyone saw."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis

from service.games.codec import decode
from service.games.may_i.melds import hand_value
from service.games.may_i.options import deck_for
from service.games.may_i.state import Table as MayITable
from service.storage.store import table_key

from ..conftest import EVERY_EVENT, RedisProcess, Served
from ..may_i.test_properties import card_strings
from ..test_gunicorn import send
from .may_i_deals import near_contract_deal

SECONDS = 240
"""At most this long for the whole match (it takes 15 to 40 s; a CI run on a
slow day ran out of 100 s): a bound on a failure, not a speed."""


@pytest.fixture(scope="module")
def served_many(
    redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """A gunicorn with three workers that keeps every event."""
    service = Served(
        redis_server.url,
        tmp_path_factory.mktemp("served-may-i"),
        WEB_CONCURRENCY="3",
        EVENTS_KEPT=str(EVERY_EVENT),
    )
    yield service
    service.stop()


def state(r: redis.Redis, table_id: str) -> MayITable:
    table = decode(r.hget(table_key(table_id), "s"))
    assert isinstance(table, MayITable)
    return table


def conserved(table: MayITable) -> None:
    rnd = table.round
    if rnd is None:
        return
    cards: Counter[str] = Counter(rnd.stock) + Counter(rnd.pile)
    for hand in rnd.hands:
        cards.update(hand)
    for meld in rnd.melds:
        cards.update(meld.cards)
    assert cards == Counter(deck_for(table.options)), f"round {rnd.number}"


def scored(table: MayITable) -> None:
    """The round just over scored as RULES.md 4.8, from the hands left."""
    rnd = table.round
    assert rnd is not None and rnd.result is not None and not rnd.result.abandoned
    result = rnd.result
    if result.out is None:  # blocked (docs/rules/may-i.md), or the stock ran dry (4.7)
        assert all(rnd.down) or not rnd.stock
    else:
        assert rnd.hands[result.out] == ()
    for s, hand in enumerate(rnd.hands):
        assert result.penalties[s] == hand_value(hand)
        assert result.points[s] == (20 if s == result.out else -hand_value(hand))


class PublicCards:
    """What the event log has made public, per round, as the log goes on:
    the first discard, every card discarded, declined, laid down or off. It
    also follows the discard pile and checks that each card taken from it,
    declined, offered or given by May I? is its top."""

    def __init__(self) -> None:
        self.by_round: dict[int, list[tuple[int, set[str]]]] = {}
        self.pile: list[str] = []
        self.offered: dict[int, str] = {}

    def add(self, event: dict[str, Any]) -> None:
        kind, number = event["type"], event.get("round")
        cards = set(card_strings({k: v for k, v in event.items() if k != "type"}))
        for key, value in event.items():
            if key not in ("card", "discard", "melds", "type", "contract", "variant"):
                assert not card_strings(value), event  # a card only where one is shown
        if kind == "round-dealt":
            self.pile = [event["discard"]]
            self.offered = {}
        elif kind in ("discard-taken", "discard-declined"):
            assert self.pile and self.pile[-1] == event["card"], event
            if kind == "discard-taken":
                self.pile.pop()
        elif kind == "may-i-offered":
            assert self.pile[-1] == event["card"], event
            self.offered[event["offer"]] = event["card"]
        elif kind == "may-i-given":
            assert self.pile.pop() == event["card"] == self.offered[event["offer"]], event
            assert isinstance(event["stock_cards"], int), event  # how many, never which
        elif kind == "stock-drawn":
            assert set(event) == {"type", "round", "move", "seat", "count", "seq", "at_ms"}
        elif kind == "stock-reshuffled":
            self.pile = self.pile[-1:]
        elif kind == "discarded":
            self.pile.append(event["card"])
        if number is not None and cards:
            seen = self.by_round.setdefault(number, [(0, set())])
            seen.append((event["seq"], seen[-1][1] | cards))

    def at(self, number: int, seq: int | None = None) -> set[str]:
        """The cards made public in round ``number`` by event ``seq`` (all: None)."""
        public: set[str] = set()
        for at, cards in self.by_round.get(number, []):
            if seq is None or at <= seq:
                public = cards
        return public


def test_two_client_processes_play_a_whole_match(
    served_many: Served, redis_client: redis.Redis, tmp_path: Path
) -> None:
    base = served_many.base
    body = {
        "variant": "may-i",
        "players": ["Ann", "Ben", "Cat", "Dan"],
        "first_dealer": 0,
        "options": {"may_i_window_ms": 200},
    }
    status, _, created = send(served_many, "POST", "/v1/tables", body)
    assert status == 201, created
    table_id, host = created["table_id"], created["host_token"]
    tokens = [s["token"] for s in created["seat_tokens"]]
    url = f"/v1/tables/{table_id}"
    clients = []
    for number, seats in enumerate(((0, 2), (1, 3))):
        out = tmp_path / f"client{number}.jsonl"
        clients.append(
            (
                out,
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "tests.api.may_i_client",
                        "--seed",
                        str(number + 1),
                        "--out",
                        str(out),
                        "--seconds",
                        str(SECONDS),
                        # A token may begin with "-": no option after this.
                        "--",
                        base,
                        table_id,
                        *(f"{s}={tokens[s]}" for s in seats),
                    ],
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                ),
            )
        )
    rng = random.Random(14)
    events: list[dict[str, Any]] = []
    rounds_seen: set[int] = set()
    deadline = time.monotonic() + SECONDS
    try:
        while time.monotonic() < deadline:
            table = state(redis_client, table_id)
            conserved(table)
            rnd = table.round
            if rnd is not None and not rnd.playing and rnd.number not in rounds_seen:
                scored(table)
                rounds_seen.add(rnd.number)
            if table.match_status.value != "in-progress":
                break
            if rnd is None or not rnd.playing:
                deal = near_contract_deal(4, table.played + 1, rng)
                status, _, dealt = send(
                    served_many, "POST", f"{url}/rounds", deal, Authorization=f"Bearer {host}"
                )
                assert status == 201, dealt
            status, _, page = send(
                served_many, "GET", f"{url}/events?after={len(events)}&limit=1000"
            )
            assert status == 200, page
            events.extend(page["events"])
            time.sleep(0.02)
        for _, process in clients:
            stdout, stderr = process.communicate(timeout=SECONDS)
            assert process.returncode == 0, stderr[-3000:]
            assert json.loads(stdout)["status"] == "won"
    finally:
        for _, process in clients:
            if process.poll() is None:
                process.kill()
                process.wait()
            for pipe in (process.stdout, process.stderr):
                if pipe is not None:
                    pipe.close()  # also when the test failed before reading them

    table = state(redis_client, table_id)
    assert table.match_status.value == "won" and rounds_seen == {1, 2, 3, 4, 5}
    conserved(table)
    assert table.played == 5
    status, _, listed = send(served_many, "GET", f"{url}/rounds")
    assert status == 200 and [r["round"] for r in listed["rounds"]] == [1, 2, 3, 4, 5]
    totals = tuple(sum(r["points"][s] for r in listed["rounds"]) for s in range(4))
    assert table.points == totals
    assert table.match_winners == tuple(s for s in range(4) if totals[s] == max(totals))

    # The whole log, and every event in order, each naming only public cards.
    status, _, page = send(served_many, "GET", f"{url}/events?after={len(events)}&limit=1000")
    events.extend(page["events"])
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    public = PublicCards()
    kinds = Counter(e["type"] for e in events)
    for event in events:
        public.add(event)
    assert kinds["round-over"] == 5 and kinds["match-won"] == 1
    assert kinds["may-i-given"] > 0 and kinds["may-i-lapsed"] > 0
    assert kinds["may-i-answered"] > 0 and kinds["laid-off"] > 0
    print(dict(kinds))  # what the match held (pytest -s shows it)

    # Every answer the clients read: public views name only public cards; a
    # seat's view and its moves' answers only those and its own hand.
    seen = 0
    for out, _ in clients:
        for line in out.read_text().splitlines():
            note = json.loads(line)
            answer = note["answer"]
            if note["kind"] == "public":
                rnd = answer["round"]
                if rnd is not None:
                    shown = set(card_strings(answer))
                    assert shown <= public.at(rnd["number"], answer["last_event"]), shown
            elif note["kind"] == "may-i":
                if note["status"] == 200:
                    assert set(card_strings(answer)) <= public.at(answer["round"])
            elif note["kind"] == "seat":
                own = set(answer["hand"])
                shown = set(card_strings(answer))
                assert shown <= own | public.at(answer["round"], answer["last_event"]), shown
            else:
                own = set(answer["hand"])
                assert set(card_strings(answer)) <= own | public.at(answer["round"])
            seen += 1
    assert seen > 100
