"""The failover drills' players: a table each, played by a thread through
HTTP, every move sent again until answered other than 503, each
acknowledged one noted to be checked."""

from __future__ import annotations

import http.client
import json
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from service.games.ship.players import choose_cards

SEATS = 4
GAMES = ("ship", "ship", "sevens", "sevens", "may-i", "may-i")
"""The six tables: two of each game."""


@dataclass
class Log:
    """Every move's answer (sent and answered, monotonic s; status: 0 for
    a broken connection) and every ``/readyz`` read, of all the players."""

    moves: list[tuple[float, float, int]] = field(default_factory=list)
    ready: list[tuple[float, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


CREATION = (0, -1, -1)
"""What :attr:`Player.lost` holds for a table's acknowledged creation that
a failover lost (a move is ``(round, step, seat)``)."""


class Player:
    """One table of ``game`` played by one thread through ``base`` (seat 0
    deals first; no clocks): every move is sent again until answered other
    than 503; ``acked`` holds where each acknowledged move left its round
    (``(round, step)``: a deal is step 0)."""

    def __init__(self, game: str, base: str, rng: random.Random, log: Log) -> None:
        self.game = game
        host, _, port = base.removeprefix("http://").partition(":")
        self.address = (host, int(port))
        self.http = http.client.HTTPConnection(*self.address, timeout=5)
        self.rng = rng
        self.log = log
        self.acked: set[tuple[int, int, int]] = set()
        self.lost: list[tuple[int, int, int]] = []
        self.answered = 0  # acknowledged moves so far
        self.error: BaseException | None = None

    # HTTP -----------------------------------------------------------------

    def send(self, method: str, path: str, token: str | None = None, body: Any = None) -> Any:
        """The answer (status, JSON) to a request sent again until it is
        answered other than 503 (moves: and noted in the log)."""
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        move = method != "GET"
        while True:
            sent = time.monotonic()
            try:
                self.http.request(
                    method, path, body=None if body is None else json.dumps(body), headers=headers
                )
                answer = self.http.getresponse()
                raw = answer.read()
                status = answer.status
            except (OSError, http.client.HTTPException):
                self.http.close()
                self.http = http.client.HTTPConnection(*self.address, timeout=5)
                status, raw = 0, b""
            if move:
                with self.log.lock:
                    self.log.moves.append((sent, time.monotonic(), status))
            if status in (0, 503):
                time.sleep(0.02)
                continue
            return status, json.loads(raw) if raw else None

    def create(self) -> None:
        variant = {"ship": "classic", "sevens": "sevens", "may-i": "may-i"}[self.game]
        body = {"variant": variant, "players": [f"P{i}" for i in range(SEATS)], "first_dealer": 0}
        if self.game == "ship":
            body["options"] = {"max_exchanges": 40}
        status, made = self.send("POST", "/v1/tables", body=body)
        assert status == 201, made
        self.url = f"/v1/tables/{made['table_id']}"
        self.acked = set()  # a new table (the last one's were checked)
        self.host = made["host_token"]
        self.tokens = [s["token"] for s in made["seat_tokens"]]

    # Where the table is ------------------------------------------------------

    def where(self, view: dict[str, Any]) -> tuple[int, int, set[int]]:
        """The round, the moves made in it (for My Ship Sails the exchange
        under way) and the seats that chose in it, as ``view`` shows."""
        rnd = view["round"]
        if rnd is None:
            return 0, 0, set()
        if self.game == "ship":
            chosen = {s["seat"] for s in view["seats"] if s.get("chosen")}
            passing = rnd["status"] == "passing"
            return rnd["number"], rnd["exchange"] if passing else 10**6, chosen
        taken = rnd["turns_taken"] if self.game == "sevens" else rnd["moves_taken"]
        return rnd["number"], taken, set()

    def missing(self, view: dict[str, Any]) -> list[tuple[int, int, int]]:
        """The acknowledged moves the table as ``view`` shows it does not hold."""
        number, step, chosen = self.where(view)
        out = []
        for r, s, seat in self.acked:
            if r > number:
                out.append((r, s, seat))
            elif r == number and s:
                if self.game == "ship":
                    if s > step or (s == step and seat not in chosen):
                        out.append((r, s, seat))
                elif s > step:
                    out.append((r, s, seat))
        return out

    def check(self) -> None:
        """Count the acknowledged moves the table lost, and forget them. A
        table the new primary does not hold at all (404: its creation was
        acknowledged by fewer replicas than the failover needed, as
        ``REDIS_WAIT_REPLICAS=1`` allows) lost every one of them and its
        creation (:data:`CREATION`); the player makes a new table."""
        status, view = self.send("GET", self.url)
        if status == 404 and view["code"] == "table-not-found":
            self.lost += [*sorted(self.acked), CREATION]
            self.create()
            return
        assert status == 200, view
        missing = self.missing(view)
        self.lost += missing
        self.acked -= set(missing)

    # Playing -------------------------------------------------------------------

    def ack(self, where: tuple[int, int, int]) -> None:
        self.acked.add(where)
        self.answered += 1

    def play(self, stop: threading.Event) -> None:
        """Play until ``stop``; any refusal makes the player check the table."""
        try:
            while not stop.is_set():
                status, view = self.send("GET", self.url)
                if status == 404:  # the table is gone: counted, and made again
                    self.check()
                    continue
                assert status == 200, view
                rnd = view["round"]
                over = rnd is None or rnd["status"] == "over"
                if view["match"]["status"] != "in-progress":
                    self.check()
                    self.create()
                    continue
                if over:
                    status, dealt = self.send("POST", f"{self.url}/rounds", self.host)
                    if status == 201:
                        self.ack((int(dealt["round"]), 0, -1))
                    else:
                        self.check()
                    continue
                if not self.move(view):
                    self.check()
        except Exception as error:  # the drill reports it
            self.error = error
            raise
        finally:
            self.http.close()

    def move(self, view: dict[str, Any]) -> bool:
        """One move of the table as ``view`` shows it; whether it was acknowledged."""
        rnd = view["round"]
        number = rnd["number"]
        if self.game == "ship":
            exchange = rnd["exchange"]
            waiting = list(view["awaiting"]["seats"])
            if not waiting:
                return True
            seat = self.rng.choice(waiting)
            status, hand = self.send("GET", f"{self.url}/seats/{seat}", self.tokens[seat])
            cards = choose_cards(hand["hand"], 1)
            path = f"{self.url}/rounds/{number}/exchanges/{exchange}/passes/{seat}"
            status, _ = self.send("PUT", path, self.tokens[seat], {"cards": cards})
            if status == 200:
                self.ack((number, exchange, seat))
            return bool(status == 200)
        seat = view["awaiting"]["seats"][0]
        status, mine = self.send("GET", f"{self.url}/seats/{seat}", self.tokens[seat])
        if self.game == "sevens":
            turn = rnd["turn"]
            body = {"play": mine["playable"][0]} if mine["playable"] else {"pass": True}
            path = f"{self.url}/rounds/{number}/turns/{turn}"
            status, _ = self.send("PUT", path, self.tokens[seat], body)
            if status == 200:
                self.ack((number, turn, seat))
            return bool(status == 200)
        body = may_i_move(mine)
        path = f"{self.url}/rounds/{number}/moves/{rnd['move']}"
        status, _ = self.send("PUT", path, self.tokens[seat], body)
        if status == 200:
            self.ack((number, rnd["move"], seat))
        return bool(status == 200)


def may_i_move(view: dict[str, Any]) -> dict[str, Any]:
    """A legal May I? move from a seat view's hints that never opens a May
    I? window: take the discard, draw, lay down the contract offered, lay
    off, discard the first card that may be discarded, or say done."""
    may = view["may"]
    if "take_discard" in may:
        return {"take_discard": True}
    if "draw" in may:
        return {"draw": True}
    if "lay_down" in may and view.get("contract"):
        return {"lay_down": view["contract"]}
    if "lay_off" in may and view["lay_offs"]:
        card, ids = sorted(view["lay_offs"].items())[0]
        return {"lay_off": {"card": card, "meld": ids[0]}}
    if "discard" in may:
        return {"discard": view["discardable"][0]}
    return {"done": True}
