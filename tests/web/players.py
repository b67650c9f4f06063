"""Scripted players that fill a table's open seats through the public API
(join by the page's link, then read their own seat view and move), and the
same simple choices for the seat the browser plays, so that a shuffled
round ends. They stand in for the service's bots (issue 19), which this
branch does not have yet."""

from __future__ import annotations

from collections import Counter
from typing import Any

import requests

RANKS = "23456789TJQKA"


def ship_pass(
    hand: list[str], count: int, target: str | None = None, keep: bool = True
) -> list[str]:
    """The lowest cards of the suits held least (ties: the lower suit letter).

    With a ``target`` suit, the seat that collects it (``keep``) never passes
    it and every other seat passes it first: its cards go round the ring to
    the collector, so that the round ends (two seats that keep the same
    majority suit may pass for ever: classic has no ``max_exchanges``,
    RULES.md 2.2)."""
    by_suit = Counter(c[-1] for c in hand)

    def order(card: str) -> tuple[bool, int, str, int]:
        first = target is not None and (card[-1] != target if keep else card[-1] == target)
        return (not first, by_suit[card[-1]], card[-1], RANKS.index(card[0]))

    return sorted(hand, key=order)[:count]


def ship_target(hands: list[list[str]]) -> str:
    """The suit with the most cards in all the hands (ties: the lower letter).
    Classic deals every card of its 28-card deck (RULES.md 2.3), seven of
    each suit: one seat that collects them all wins."""
    counts = Counter(c[-1] for hand in hands for c in hand)
    return min(counts, key=lambda suit: (-counts[suit], suit))


def ship_wins(hand: list[str], win_count: int) -> bool:
    return max(Counter(c[-1] for c in hand).values(), default=0) >= win_count


def may_i_discard(view: dict[str, Any]) -> str:
    """The discardable card whose rank the hand holds least, the highest first."""
    hand = view["hand"]
    by_rank = Counter(c[:-1] for c in hand)
    return min(
        view["discardable"],
        key=lambda c: (by_rank[c[:-1]], -RANKS.index(c[0]) if c[0] in RANKS else 0),
    )


def may_i_move(view: dict[str, Any]) -> dict[str, Any]:
    """The next step of the seat on turn: decline, draw, lay down the contract
    the referee found, lay off what fits, discard the loneliest card."""
    may = view["may"]
    if "decline" in may:
        return {"decline": True}
    if "draw" in may:
        return {"draw": True}
    if "lay_down" in may and view.get("contract"):
        return {"lay_down": view["contract"]}
    if "lay_off" in may and view["lay_offs"]:
        card, melds = next(iter(sorted(view["lay_offs"].items())))
        return {"lay_off": {"card": card, "meld": melds[0]}}
    if "discard" in may:
        return {"discard": may_i_discard(view)}
    return {"done": True}


class Players:
    """The seats ``tokens`` holds, played through the API of ``base``."""

    def __init__(self, base: str, table_id: str) -> None:
        self.base, self.table_id = base, table_id
        self.url = f"{base}/v1/tables/{table_id}"
        self.tokens: dict[int, str] = {}
        self.held: dict[int, set[str]] = {}  # every card a seat held, as the API said
        self.http = requests.Session()
        self.target: str | None = None
        """My Ship Sails: the suit the page's seat collects (:func:`ship_pass`)."""

    def join(self, link: str, name: str) -> int:
        """Take the seat of a join link (``…/play#/join/<table>/<code>``)."""
        code = link.rsplit("/", 1)[1]
        answer = self.http.post(f"{self.url}/join", json={"name": name, "code": code})
        assert answer.status_code == 201, answer.text
        joined = answer.json()
        self.tokens[joined["seat"]] = joined["token"]
        return int(joined["seat"])

    def auth(self, seat: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[seat]}"}

    def table(self) -> dict[str, Any]:
        return dict(self.http.get(self.url).json())

    def view(self, seat: int, token: str | None = None) -> dict[str, Any]:
        token = token or self.tokens[seat]
        answer = self.http.get(
            f"{self.url}/seats/{seat}", headers={"Authorization": f"Bearer {token}"}
        )
        assert answer.status_code == 200, answer.text
        view = dict(answer.json())
        self.held.setdefault(seat, set()).update(view["hand"])
        return view

    def send(self, method: str, path: str, seat: int, body: Any = None) -> requests.Response:
        return self.http.request(method, self.url + path, headers=self.auth(seat), json=body)

    def act(self, seat: int) -> bool:
        """One move of ``seat`` if it has one now; whether it moved."""
        table, view = self.table(), self.view(seat)
        game, round_no = table["game"], table["round"]["number"]
        if table["round"]["status"] == "over":
            return False
        if game == "my-ship-sails":
            win = int(table["options"]["win_count"])
            if ship_wins(view["hand"], win) and table["options"]["declaration"] != "automatic":
                return self.send("POST", f"/rounds/{round_no}/claims", seat).status_code == 200
            if not view.get("to_choose"):
                return False
            count = int(table["options"]["pass_count"])
            cards = ship_pass(view["hand"], count, self.target, keep=False)
            path = f"/rounds/{round_no}/exchanges/{view['exchange']}/passes/{seat}"
            return self.send("PUT", path, seat, {"cards": cards}).status_code == 200
        if game == "sevens":
            if not view["on_turn"]:
                return False
            body = {"play": view["playable"][0]} if view["playable"] else {"pass": True}
            if view.get("must_announce") and "play" in body:
                body["last_card"] = True
            answer = self.send("PUT", f"/rounds/{round_no}/turns/{view['turn']}", seat, body)
            return answer.status_code == 200
        # May I?: a May I? offer is answered by allowing; nobody asks.
        if "answer" in view["may"]:
            offer = table["round"]["may_i"]["offer"]
            path = f"/rounds/{round_no}/may-i/{offer}/answers/{seat}"
            return self.send("PUT", path, seat, {"allow": True}).status_code == 200
        if not view["on_turn"] or not set(view["may"]) - {"ask"}:
            return False
        answer = self.send(
            "PUT", f"/rounds/{round_no}/moves/{view['move']}", seat, may_i_move(view)
        )
        return answer.status_code == 200
