"""A May I? client in its own process, for tests/api/test_may_i_match.py:
it plays the seats whose tokens it is given through the HTTP API only, with
random legal moves chosen from each seat view's hints (``may``,
``contract``, ``lay_offs``, ``discardable``) and random May I? requests and
answers, until the match is over. Every answer it reads is written to a
JSON-lines file for the test to check.

Its policy goes out eventually: it lays down as soon as the view offers
the contract and lays off whenever it can; it takes or declines the
discard and asks and answers at random.

    python -m tests.api.may_i_client BASE TABLE_ID SEAT=TOKEN... --seed S --out FILE
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import time
from typing import Any
from urllib.parse import urlsplit

ASK = 0.5
"""The chance that a seat of this client asks for an offered discard that
would help it."""
ALLOW = 0.85
"""The chance that an answer allows."""
DECLINE = 0.2
"""The chance that a seat on turn declines the discard (May I? runs)."""


class Client:
    def __init__(self, base: str, table_id: str, tokens: dict[int, str], out: Any) -> None:
        parts = urlsplit(base)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.connection = http.client.HTTPConnection(self.host, self.port, timeout=10)
        self.url = f"/v1/tables/{table_id}"
        self.tokens = tokens
        self.out = out
        self.requests = 0

    def send(self, method: str, path: str, seat: int | None = None, body: Any = None) -> Any:
        """One request on the kept-alive connection: (status, JSON answer)."""
        headers = {} if seat is None else {"Authorization": f"Bearer {self.tokens[seat]}"}
        data = None if body is None else json.dumps(body)
        if data is not None:
            headers["Content-Type"] = "application/json"
        for attempt in range(3):
            try:
                self.connection.request(method, self.url + path, body=data, headers=headers)
                response = self.connection.getresponse()
                raw = response.read()
                break
            except (OSError, http.client.HTTPException):  # a connection the server closed
                self.connection.close()
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=10)
                if attempt == 2:
                    raise
        self.requests += 1
        answer = json.loads(raw) if raw else None
        return response.status, answer

    def note(self, kind: str, seat: int | None, status: int, answer: Any) -> None:
        self.out.write(json.dumps({"kind": kind, "seat": seat, "status": status, "answer": answer}))
        self.out.write("\n")


RANKS = "A23456789TJQKA"


def use(card: str, hand: list[str]) -> int:
    """How much ``card`` helps ``hand`` make melds: the other cards of its
    rank, and of its suit within two ranks (a joker helps everything)."""
    if card == "JK":
        return 99
    rank, suit = RANKS.index(card[0]) or 13, card[1]
    near = sum(
        c != "JK" and c[1] == suit and 0 < abs((RANKS.index(c[0]) or 13) - rank) <= 2 for c in hand
    )
    return sum(c[0] == card[0] for c in hand) - 1 + near


def fits(card: str, melds: list[dict[str, Any]]) -> bool:
    """Whether ``card`` seems to fit a meld on the table (a guess from the
    public view: the set's rank, or next to a run's end in its suit)."""
    for meld in melds:
        ranks = meld["stands_for"]
        if meld["kind"] == "set":
            if card[0] == ranks[0]:
                return True
        elif card[1] == next(c[1] for c in meld["cards"] if c != "JK"):
            low, high = RANKS.index(ranks[0]), RANKS.rindex(ranks[-1])
            if RANKS.index(card[0]) == low - 1 or RANKS.rindex(card[0]) == high + 1:
                return True
    return False


def helps(card: str, view: dict[str, Any], table: dict[str, Any]) -> bool:
    """Whether ``card`` would help the seat of ``view``: once laid down, if
    it fits a meld on the table; before, if it goes with its hand."""
    if card == "JK":
        return True
    if view["laid_down"]:
        return fits(card, table["round"]["melds"])
    return use(card, [*view["hand"], card]) > 0


def choose(
    view: dict[str, Any], table: dict[str, Any], rng: random.Random
) -> dict[str, Any] | None:
    """A legal move from a seat view's hints (``table`` the public view),
    or None when it has none: it takes a discard that helps its hand (once
    laid down, one that fits a meld), else declines it at times; it lays
    down as soon as ``contract`` is offered, lays off whenever it can and
    discards mostly what helps least."""
    may, hand = view["may"], view["hand"]
    if "take_discard" in may:
        if helps(table["round"]["discard_top"], view, table) and rng.random() < 0.9:
            return {"take_discard": True}
        return {"decline": True} if rng.random() < DECLINE else {"take_discard": True}
    if "draw" in may:
        return {"draw": True}
    if "lay_down" in may and view.get("contract"):
        return {"lay_down": view["contract"]}
    if "lay_off" in may and view["lay_offs"]:
        # Mostly on a run, whose new end lets more cards fit later: cards
        # laid off on sets only could leave none that fits, and no seat
        # could go out (the round would go on for ever).
        runs = {m["id"] for m in table["round"]["melds"] if m["kind"] == "run"}
        places = [(c, m) for c, ids in sorted(view["lay_offs"].items()) for m in ids]
        on_runs = [p for p in places if p[1] in runs]
        card, meld = rng.choice(on_runs if on_runs and rng.random() < 0.9 else places)
        return {"lay_off": {"card": card, "meld": meld}}
    if "discard" in may:
        cards = view["discardable"]
        if rng.random() < 0.2:
            return {"discard": rng.choice(cards)}
        least = min(use(c, hand) for c in cards)
        return {"discard": rng.choice([c for c in cards if use(c, hand) == least])}
    if "done" in may:
        return {"done": True}
    return None


def play(client: Client, rng: random.Random, seconds: float) -> str:
    """Play until the match is over; returns its status."""
    decided: set[tuple[int, int, int, bool]] = set()  # (round, offer, seat, to ask)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status, table = client.send("GET", "")
        assert status == 200, table
        client.note("public", None, status, table)
        if table["match"]["status"] != "in-progress":
            return str(table["match"]["status"])
        awaiting, rnd = table["awaiting"], table["round"]
        mine = [s for s in awaiting["seats"] if s in client.tokens]
        acted = False
        if awaiting["action"] == "may-i" and mine:
            offer = rnd["may_i"]
            for seat in mine:
                key = (rnd["number"], offer["offer"], seat, offer["asker"] is None)
                if key in decided or seat == offer["asker"]:
                    continue
                decided.add(key)
                if offer["asker"] is None:
                    if rng.random() >= ASK:
                        continue
                    status, view = client.send("GET", f"/seats/{seat}", seat)
                    assert status == 200, view
                    client.note("seat", seat, status, view)
                    # A seat laid down gains more than it lays off by asking: it asks
                    # rarely, or rounds would never end.
                    wanted = helps(offer["card"], view, table)
                    if view["laid_down"] and rng.random() > 0.1:
                        wanted = False
                    if "ask" not in view["may"] or not wanted:
                        continue
                    status, answer = client.send(
                        "POST", f"/rounds/{rnd['number']}/may-i", seat, {"offer": offer["offer"]}
                    )
                else:
                    status, answer = client.send(
                        "PUT",
                        f"/rounds/{rnd['number']}/may-i/{offer['offer']}/answers/{seat}",
                        seat,
                        {"allow": rng.random() < ALLOW},
                    )
                # Another client's seat may have asked first, or the window closed.
                assert status == 200 or answer["code"] in ("may-i-taken", "may-i-closed"), answer
                client.note("may-i", seat, status, answer)
                acted = True
                if status != 200 or answer["current_offer"] is None:
                    break
                offer = answer["current_offer"]  # this client's other seat may answer now
        elif awaiting["action"] in ("draw", "stock", "play", "final") and mine:
            seat = mine[0]
            # The seat's moves until its turn ends or May I? runs (the public
            # view is read again then).
            while True:
                status, view = client.send("GET", f"/seats/{seat}", seat)
                assert status == 200, view
                client.note("seat", seat, status, view)
                move = choose(view, table, rng)
                if move is None or view["move"] is None:
                    break
                path = f"/rounds/{view['round']}/moves/{view['move']}"
                status, answer = client.send("PUT", path, seat, move)
                if status == 422 and answer["code"] == "lay-off-invalid":
                    # A joker on a run open at both ends names its end.
                    move["lay_off"]["end"] = rng.choice(["low", "high"])
                    status, answer = client.send("PUT", path, seat, move)
                assert status == 200, (move, answer)
                client.note("move", seat, status, answer)
                acted = True
                if answer["on_turn"] != seat or answer["step"] not in ("stock", "play", "final"):
                    break
        if not acted:
            time.sleep(0.01)
    raise TimeoutError("the match did not end in time")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("base")
    parser.add_argument("table_id")
    parser.add_argument("seats", nargs="+", help="SEAT=TOKEN")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", required=True)
    parser.add_argument("--seconds", type=float, default=120)
    args = parser.parse_args()
    tokens = {int(s): t for s, t in (a.split("=", 1) for a in args.seats)}
    with open(args.out, "w") as out:
        client = Client(args.base, args.table_id, tokens, out)
        status = play(client, random.Random(args.seed), args.seconds)
    print(json.dumps({"status": status, "requests": client.requests}))


if __name__ == "__main__":
    main()
