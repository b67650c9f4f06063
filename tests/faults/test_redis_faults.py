"""Redis faults: a dead or frozen Redis answers 503 quickly; the service recovers
by itself; a SIGKILLed Redis with an append-only file loses no acknowledged move.

Each test runs its own redis-server (never the suite's, never the system's).
"""

from __future__ import annotations

import os
import random
import signal
import threading
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from service import create_app

from ..conftest import EVERY_EVENT, RedisProcess, settings_for
from ..helpers import TableClient, bearer

AOF = ("--appendonly", "yes", "--appendfsync", "everysec")


def timed(call: Any) -> tuple[Any, float]:
    start = time.monotonic()
    result = call()
    return result, time.monotonic() - start


def test_dead_and_frozen_redis_answer_503_fast_and_the_service_recovers(tmp_path: Path) -> None:
    server = RedisProcess(tmp_path / "redis", *AOF).start()
    try:
        app = create_app(settings_for(server.url, redis_timeout_seconds=0.3))
        tables = TableClient(app.test_client())
        t = tables.create(4)
        assert tables.deal(t).status_code == 201
        c = tables.client

        def every_kind() -> list[Any]:
            return [
                c.get(t.url),
                c.get(f"{t.url}/seats/0", headers=bearer(t.seats[0])),
                c.put(
                    f"{t.url}/rounds/1/exchanges/1/passes/0",
                    json={"cards": ["AS"]},
                    headers=bearer(t.seats[0]),
                ),  # fmt: skip
                c.post("/v1/tables", json={"players": ["a", "b"]}),
                c.get("/readyz"),
            ]

        # Frozen (SIGSTOP): connections open but nothing answers; the timeout bounds the wait.
        assert server.proc is not None
        os.kill(server.proc.pid, signal.SIGSTOP)
        try:
            answers, took = timed(every_kind)
        finally:
            os.kill(server.proc.pid, signal.SIGCONT)
        assert [r.status_code for r in answers] == [503] * 5
        assert all(r.headers["Retry-After"] == "2" for r in answers)
        assert all(r.get_json()["code"] == "redis-unavailable" for r in answers)
        assert took < 5 * 0.3 * 2 + 1, f"five requests took {took:.1f}s"
        assert c.get(t.url).status_code == 200  # thawed: the same app goes on

        # Dead (SIGKILL): refused at once.
        server.kill()
        answers, took = timed(every_kind)
        assert [r.status_code for r in answers] == [503] * 5
        assert took < 2.0, f"five requests took {took:.1f}s"
        assert c.get("/healthz").status_code == 200  # the process itself is fine

        # Back on the same data: the same app, with no restart, answers again.
        server.start()
        assert c.get("/readyz").status_code == 200
        assert tables.public(t)["round"]["number"] == 1
        assert tables.pass_(t, 1, 1, 0, [tables.hand(t, 0)[0]]).status_code == 200
    finally:
        server.stop()


class Player:
    """One client thread: plays a whole match on its own table, retrying what
    fails, and logs every request that changes something with its answer."""

    def __init__(self, app: Any, table: Any, seed: int) -> None:
        self.client = app.test_client()
        self.t = table
        self.rng = random.Random(seed)
        self.log: list[dict[str, Any]] = []
        self.error: BaseException | None = None

    def send(self, kind: str, method: str, url: str, **kwargs: Any) -> Any:
        """Send until answered other than 503 (or 409 key in use); log each try."""
        deadline = time.monotonic() + 60
        while True:
            try:
                r = self.client.open(url, method=method, **kwargs)
                status, body = r.status_code, r.get_json()
            except Exception as error:  # no answer at all
                status, body = None, repr(error)
            self.log.append({"kind": kind, "url": url, "json": kwargs.get("json"),
                             "status": status, "body": body})  # fmt: skip
            retry = (
                status is None
                or status == 503
                or (status == 409 and body.get("code") == "idempotency-key-in-use")
            )
            if not retry:
                return status, body
            assert time.monotonic() < deadline, "the service did not recover"
            time.sleep(0.02)

    def read(self, url: str, token: str) -> Any:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            r = self.client.get(url, headers=bearer(token))
            if r.status_code == 200:
                return r.get_json()
            assert r.status_code == 503, r.get_json()
            time.sleep(0.02)
        raise AssertionError("the service did not recover")

    def run(self) -> None:
        try:
            self.play()
        except BaseException as error:  # noqa: BLE001 - reported by the test
            self.error = error

    def play(self) -> None:
        t = self.t
        while True:
            view = self.read(t.url, t.host)
            if view["match"]["status"] != "in-progress":
                return
            if view["round"] is None or view["round"]["status"] == "over":
                headers = {**bearer(t.host), "Idempotency-Key": str(uuid.uuid4())}
                status, body = self.send("deal", "POST", f"{t.url}/rounds", headers=headers)
                assert status in (201, 409), body
                continue
            number = view["round"]["number"]
            for seat in view["round"]["waiting_for"]:
                mine = self.read(f"{t.url}/seats/{seat}", t.seats[seat])
                if mine["exchange"] is None:
                    break
                card = self.rng.choice(mine["hand"])
                url = f"{t.url}/rounds/{number}/exchanges/{mine['exchange']}/passes/{seat}"
                status, body = self.send(
                    "pass", "PUT", url, json={"cards": [card]}, headers=bearer(t.seats[seat])
                )
                assert status in (200, 409), body


def test_a_redis_killed_mid_game_keeps_every_acknowledged_move(tmp_path: Path) -> None:
    server = RedisProcess(tmp_path / "redis", *AOF).start()
    try:
        app = create_app(
            settings_for(server.url, redis_timeout_seconds=0.5, events_kept=EVERY_EVENT)
        )
        tables = TableClient(app.test_client())
        games = [
            tables.create(4, declaration="automatic", max_exchanges=6, match={"deals": 10})
            for _ in range(4)
        ]
        players = [Player(app, t, seed) for seed, t in enumerate(games)]
        threads = [threading.Thread(target=p.run, daemon=True) for p in players]
        for thread in threads:
            thread.start()

        def acknowledged() -> int:
            return sum(1 for p in players for e in list(p.log) if e["status"] and e["status"] < 300)

        # Mid-game: some moves made, far from the ~250 of each match (a fixed
        # sleep let a fast machine finish a match before the kill).
        deadline = time.monotonic() + 30
        while acknowledged() < 40 and time.monotonic() < deadline:
            time.sleep(0.01)
        acknowledged_before_kill = acknowledged()
        assert all(thread.is_alive() for thread in threads)
        # A move of the main thread's own, ready to go while Redis is dead.
        t = games[0]
        view = tables.public(t)["round"]
        seat = view["waiting_for"][0] if view["waiting_for"] else 0
        card = tables.hand(t, seat)[0]
        url = f"{t.url}/rounds/{view['number']}/exchanges/{view['exchange']}/passes/{seat}"
        server.kill()
        during = tables.client.put(url, json={"cards": [card]}, headers=bearer(t.seats[seat]))
        entry = {"kind": "pass", "url": url, "json": {"cards": [card]}}
        players[0].log.append({**entry, "status": during.status_code, "body": during.get_json()})
        assert during.status_code == 503
        time.sleep(0.5)
        server.start()
        for thread in threads:
            thread.join(120)
        assert [p.error for p in players] == [None] * 4
        assert acknowledged_before_kill > 20
        failed = sum(1 for p in players for e in p.log if e["status"] in (None, 503))
        print("acknowledged before the kill", acknowledged_before_kill, "failed", failed)
        assert failed > 0, "the kill interrupted nothing: the test proved nothing"

        for player in players:
            check_against_the_log(tables, player)
    finally:
        server.stop()


def check_against_the_log(tables: TableClient, player: Player) -> None:
    t = player.t
    events = tables.events(t)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    chosen = Counter(
        (e["round"], e["exchange"], e["seat"]) for e in events if e["type"] == "pass-chosen"
    )
    resolved = Counter(
        (e["round"], e["exchange"]) for e in events if e["type"] == "exchange-resolved"
    )
    dealt = Counter(e["round"] for e in events if e["type"] == "round-dealt")
    # No move applied twice or in part: each pass once, each exchange resolved
    # once and only with all four passes.
    assert max(chosen.values()) == 1 and max(resolved.values()) == 1 and max(dealt.values()) == 1
    for (rnd, exchange), _ in resolved.items():
        assert all(chosen[(rnd, exchange, seat)] == 1 for seat in range(4))
    # Every acknowledged move is in the state.
    for entry in player.log:
        if entry["status"] is None or entry["status"] >= 300:
            continue
        if entry["kind"] == "deal":
            assert dealt[entry["body"]["round"]] == 1
        else:
            parts = entry["url"].split("/")
            rnd, exchange, seat = int(parts[5]), int(parts[7]), int(parts[9])
            assert chosen[(rnd, exchange, seat)] == 1, entry
            if entry["body"]["resolved"]:
                assert resolved[(rnd, exchange)] == 1, entry
    # The games were finished, and the last round conserved its cards.
    view = tables.public(t)
    assert view["match"]["status"] == "won"
    hands = [tables.hand(t, seat) for seat in range(4)]
    deck = sorted(c for h in hands for c in h)
    assert len(deck) == len(set(deck)) == 28 and all(len(h) == 7 for h in hands)
    first_deal_cards = {
        c for e in events if e["type"] == "round-won" for h in e["hands"] for c in h["cards"]
    }
    assert first_deal_cards <= set(deck)
