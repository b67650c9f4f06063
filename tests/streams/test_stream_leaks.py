"""No stream carries a card another seat holds (issue 18: the leak tests run
over streams too), and every frame is what openapi.yaml says it is.

For each game (My Ship Sails' `classic`, `sevens`, `may-i`) the test plays
through a real gunicorn with two workers (My Ship Sails' round up to its
exchange limit, Sevens' round to its end, May I?'s first moves, requests and
answers) while it reads every seat's own stream and the public stream. After
each move it reads what is hidden at that moment, then every frame each
stream sends up to that move's events (a seat's stream: up to its `seat`
frame of them), and checks each one:

- each seat's hand comes from its own view (`GET …/seats/{seat}` with its
  token); what the table has shown, from its public view (its round and last
  result), whose own secrecy the oracles of tests/api check against the
  state in Redis (test_attacker.py, test_sevens_attack.py,
  test_may_i_match.py);
- hidden from seat X: every card in another seat's hand that X has not held
  this round and the public view has not shown; hidden from the public
  stream: every card in a hand that the public view has not shown;
- no frame of X's stream and no frame of the public stream names a card
  hidden from it then (anywhere in its `data`, keys and text included).

Each frame is also checked against its schema in openapi.yaml: the event as
an EventSource dispatches it against the stream's ``oneOf``, its `data`
against the component its ``x-contentSchema`` names.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from ..api.may_i_client import choose
from ..conftest import EVERY_EVENT, RedisProcess, Served
from ..contract.test_exact_schemas import as_json_schema
from ..helpers import Table, TableClient, bearer, openapi_spec
from .sse import Frame, HttpClient, Reader

SEATS = 4

CARD = re.compile(r"(?<![A-Za-z0-9_-])(?:(?:10|[2-9TJQKA])[CDHS]|JK)(?![A-Za-z0-9_-])")
OPAQUE = {"table_id", "host_token", "token", "type", "rules", "opening"}
"""Members that hold ids, URIs and options, not cards in play."""


def cards_in(value: Any) -> set[str]:
    """Every card code anywhere in a JSON value: its texts and its keys."""
    if isinstance(value, str):
        return set(CARD.findall(value))
    if isinstance(value, dict):
        found = [cards_in(k) | cards_in(v) for k, v in value.items() if k not in OPAQUE]
        return set().union(*found)
    if isinstance(value, list):
        return set().union(*(cards_in(v) for v in value))
    return set()


@pytest.fixture(scope="module")
def streaming(
    redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """Two workers, every event kept, a heartbeat a second (checked too)."""
    service = Served(
        redis_server.url,
        tmp_path_factory.mktemp("stream-leaks"),
        EVENTS_KEPT=str(EVERY_EVENT),
        STREAM_HEARTBEAT_SECONDS="1",
        STREAM_LIFETIME_SECONDS="300",
    )
    yield service
    service.stop()


class Watched:
    """A table played by the test, its streams read as it goes (see the
    module docstring): :meth:`settle` after each move."""

    def __init__(self, served: Served, variant: str, **options: Any) -> None:
        self.http = HttpClient(served.base)
        self.tables = TableClient(self.http)
        self.t: Table = self.tables.create(SEATS, variant, first_dealer=0, **options)
        url = served.base + self.t.url
        self.readers: dict[int | None, Reader] = {None: Reader(f"{url}/stream", True)}
        for seat, token in enumerate(self.t.seats):
            self.readers[seat] = Reader(f"{url}/seats/{seat}/stream", True, **bearer(token))
        assert all(r.status == 200 for r in self.readers.values())
        self.reached = dict.fromkeys(self.readers, 0)  # the last event each has sent
        self.frames: list[tuple[int | None, Frame]] = []
        self.round: int | None = None
        self.held: list[set[str]] = [set() for _ in range(SEATS)]
        self.shown: set[str] = set()
        self.checks = 0
        self.most_hidden = 0
        self.settle()

    def public(self) -> dict[str, Any]:
        answer = self.http.get(self.t.url)
        assert answer.status_code == 200
        return answer.json()  # type: ignore[no-any-return]

    def view(self, seat: int) -> dict[str, Any]:
        answer = self.http.get(f"{self.t.url}/seats/{seat}", headers=bearer(self.t.seats[seat]))
        assert answer.status_code == 200, answer.json()
        return answer.json()  # type: ignore[no-any-return]

    def settle(self) -> dict[str, Any]:
        """What is hidden now, from the views; then every stream's frames up
        to the log's last event, each checked. Returns the public view."""
        table = self.public()
        views = [self.view(s) for s in range(SEATS)]
        number = (table["round"] or {}).get("number")
        if number != self.round:
            self.round, self.held, self.shown = number, [set() for _ in range(SEATS)], set()
        hands = [set(v["hand"]) for v in views]
        for seat, hand in enumerate(hands):
            self.held[seat] |= hand
        self.shown |= cards_in([table["round"], table["last_result"]])
        hidden: dict[int | None, set[str]] = {None: set().union(*hands) - self.shown}
        for seat in range(SEATS):
            others = set().union(*(h for s, h in enumerate(hands) if s != seat))
            hidden[seat] = others - self.held[seat] - self.shown
        self.most_hidden = max(self.most_hidden, *(len(h) for h in hidden.values()))
        last = table["last_event"]
        for who, reader in self.readers.items():
            self._read(who, reader, last, hidden[who])
        return table

    def _read(self, who: int | None, reader: Reader, last: int, hidden: set[str]) -> None:
        """``reader``'s frames until it has sent event ``last`` (a seat's
        stream: its view as of that event), each checked against ``hidden``."""
        while self.reached[who] < last:
            frame = reader.next(timeout=20)
            assert frame is not None, f"stream {who} ended"
            self.frames.append((who, frame))
            leaked = cards_in(frame.data) & hidden
            assert not leaked, f"stream {who} sent {sorted(leaked)}, hidden from it: {frame}"
            self.checks += 1
            if who is None and frame.event == "message":
                self.reached[who] = frame.data["seq"]
            elif who is not None and frame.event == "seat":
                self.reached[who] = frame.data["last_event"]

    def close(self) -> None:
        for reader in self.readers.values():
            reader.close()


SPEC = as_json_schema(openapi_spec())


def conforms(frames: list[tuple[int | None, Frame]]) -> None:
    """Each frame as an EventSource dispatches it (its ``data`` one line of
    JSON) against its stream's schema, its ``data`` against the component
    that the frame's schema names in ``x-contentSchema``."""
    schemas = SPEC["components"]["schemas"]

    def validator(ref: str) -> jsonschema.Draft7Validator:
        return jsonschema.Draft7Validator({**SPEC, "$ref": ref})

    streams = {
        None: validator("#/components/schemas/TableStreamFrame"),
        "seat": validator("#/components/schemas/SeatStreamFrame"),
    }
    data: dict[str, jsonschema.Draft7Validator] = {}
    for member in schemas["SeatStreamFrame"]["oneOf"]:
        frame_schema = schemas[member["$ref"].rsplit("/", 1)[1]]["properties"]
        for name in frame_schema["event"]["enum"]:
            data[name] = validator(frame_schema["data"]["x-contentSchema"]["$ref"])
    for who, frame in frames:
        sent = {"event": frame.event, "data": json.dumps(frame.data)}
        if frame.id is not None:
            sent["id"] = frame.id
        errors = list(streams[None if who is None else "seat"].iter_errors(sent))
        assert errors == [], (who, frame, [e.message for e in errors])
        errors = list(data[frame.event].iter_errors(frame.data))
        assert errors == [], (who, frame, [e.message for e in errors])


def play_ship(served: Served, rng: random.Random) -> Watched:
    """A classic round: each seat passes a card it holds, a seat whose hand
    wins claims it (else a random seat claims, refused), for at most six
    exchanges (then the round is void and every hand shown)."""
    w = Watched(served, "classic", max_exchanges=6)
    assert w.tables.deal(w.t).status_code == 201
    table = w.settle()
    while table["round"]["status"] == "passing":
        rnd = table["round"]
        for seat in rnd["waiting_for"]:
            card = rng.choice(w.view(seat)["hand"])
            passed = w.tables.pass_(w.t, rnd["number"], rnd["exchange"], seat, [card])
            assert passed.status_code == 200, passed.json()
            table = w.settle()
        if table["round"]["status"] != "passing":
            break
        suits = [{card[-1] for card in w.view(s)["hand"]} for s in range(SEATS)]
        winners = [s for s in range(SEATS) if len(suits[s]) == 1]
        claimed = w.tables.claim(w.t, rnd["number"], winners[0] if winners else rng.randrange(4))
        assert claimed.status_code in (200, 422), claimed.json()
        table = w.settle()
    assert table["round"]["exchanges_resolved"] >= 1
    return w


def play_sevens(served: Served, rng: random.Random) -> Watched:
    """A Sevens round to its end: the seat on turn plays a card its view
    says it may play, or passes."""
    w = Watched(served, "sevens")
    assert w.tables.deal(w.t).status_code == 201
    table = w.settle()
    while table["round"]["status"] == "playing":
        rnd = table["round"]
        mine = w.view(rnd["on_turn"])
        moves: list[dict[str, Any]] = [{"play": card} for card in mine["playable"]]
        if mine["may_pass"]:
            moves.append({"pass": True})
        move = rng.choice(moves)
        url = f"{w.t.url}/rounds/{rnd['number']}/turns/{rnd['turn']}"
        played = w.http.put(url, json=move, headers=bearer(w.t.seats[rnd["on_turn"]]))
        assert played.status_code == 200, (move, played.json())
        table = w.settle()
    assert table["round"]["status"] == "over"
    return w


MAY_I_ACTIONS = 40
"""The May I? moves, requests and answers the test makes (a round takes more)."""


def play_may_i(served: Served, rng: random.Random) -> Watched:
    """May I?'s first moves: the seat on turn declines half the discards,
    else moves as the test client of tests/api does (from its view's
    hints); while a discard is offered, a seat that may ask does at times,
    and the seats asked answer at random; else the window (300 ms) lapses by
    itself."""
    w = Watched(served, "may-i", may_i_window_ms=300)
    assert w.tables.deal(w.t).status_code == 201
    table = w.settle()
    actions, asked, deadline = 0, set(), time.monotonic() + 120
    while actions < MAY_I_ACTIONS and table["round"]["status"] == "playing":
        assert time.monotonic() < deadline, "May I? made no progress"
        awaiting, rnd = table["awaiting"], table["round"]
        base = f"{w.t.url}/rounds/{rnd['number']}"
        if awaiting["action"] == "may-i":
            offer = rnd["may_i"]
            seats = [s for s in awaiting["seats"] if s != offer["asker"]]
            if offer["asker"] is None:
                may_ask = [s for s in seats if "ask" in w.view(s)["may"]]
                if offer["offer"] in asked or not may_ask or rng.random() < 0.4:
                    asked.add(offer["offer"])
                    time.sleep(0.05)  # the window lapses by itself
                    table = w.settle()
                    continue
                asked.add(offer["offer"])
                seat = rng.choice(may_ask)
                answer = w.http.post(
                    f"{base}/may-i", json={"offer": offer["offer"]}, headers=bearer(w.t.seats[seat])
                )
            else:
                seat = seats[0]
                answer = w.http.put(
                    f"{base}/may-i/{offer['offer']}/answers/{seat}",
                    json={"allow": rng.random() < 0.7},
                    headers=bearer(w.t.seats[seat]),
                )
            # The window may have closed meanwhile.
            assert answer.status_code == 200 or answer.json()["code"] in (
                "may-i-closed",
                "may-i-taken",
            ), answer.json()
        else:
            seat = awaiting["seats"][0]
            view = w.view(seat)
            # Declines half the discards (then it is offered, and the seat draws).
            declines = "decline" in view["may"] and rng.random() < 0.5
            move = {"decline": True} if declines else choose(view, table, rng)
            assert move is not None, view
            url = f"{base}/moves/{view['move']}"
            answer = w.http.put(url, json=move, headers=bearer(w.t.seats[seat]))
            if answer.status_code == 422 and answer.json()["code"] == "lay-off-invalid":
                move["lay_off"]["end"] = rng.choice(["low", "high"])  # a joker names its end
                answer = w.http.put(url, json=move, headers=bearer(w.t.seats[seat]))
            assert answer.status_code == 200, (move, answer.json())
        actions += 1
        table = w.settle()
    assert actions == MAY_I_ACTIONS or table["round"]["status"] == "over"
    return w


@pytest.mark.parametrize(
    ("play", "seed"),
    [(play_ship, 1), (play_sevens, 2), (play_may_i, 3)],
    ids=["classic", "sevens", "may-i"],
)
def test_no_stream_carries_a_card_hidden_from_its_reader(
    streaming: Served, play: Any, seed: int
) -> None:
    watched = play(streaming, random.Random(seed))
    watched.close()
    assert watched.checks > 100
    assert watched.most_hidden >= 10  # there was something to leak
    # Each seat's stream sent its view, and every stream the public events.
    events = {(who, f.event) for who, f in watched.frames}
    assert {(who, "seat") for who in range(SEATS)} <= events
    assert {(who, "message") for who in (None, *range(SEATS))} <= events
    conforms(watched.frames)
