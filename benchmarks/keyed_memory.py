"""What ``Idempotency-Key`` records cost in Redis (issue 24): the bytes of one
record for a typical keyed request of each game, and a 7-seat May I? table
whose seats send a new key with every move, after one round.

A record's cost is its key's ``MEMORY USAGE … SAMPLES 0`` plus what its
entry adds to its token's index (the sorted set that caps a token at
``IDEMPOTENCY_RECORDS_PER_TOKEN`` records). Everything goes through the
HTTP API of an in-process app; the May I? seats play the game's own bot
(``service.games.may_i.players.bot``) on the state the service holds.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import redis

from service.games.may_i.players import bot as may_i_bot
from service.games.may_i.state import Step

from .memory import table_keys
from .redis_cost import bearer, in_process_app


def _keyed(token: str) -> dict[str, str]:
    return {**bearer(token), "Idempotency-Key": str(uuid.uuid4())}


def _idem_bytes(client: redis.Redis, table_id: str) -> tuple[int, int, int]:
    """(bytes of the records, bytes of the indexes, records) of a table."""
    records = indexes = count = 0
    for key in table_keys(client, table_id):
        used = int(client.memory_usage(key, samples=0) or 0)
        if b":idem-index:" in key:
            indexes += used
        elif b":idem:" in key and not key.endswith(b":idem:create"):
            records += used
            count += 1
    return records, indexes, count


class _Table:
    def __init__(self, app: Any, variant: str, seats: int, **options: Any) -> None:
        self.app = app
        self.client = app.test_client()
        body = {"variant": variant, "players": [f"P{i}" for i in range(seats)]}
        r = self.client.post("/v1/tables", json={**body, "first_dealer": 0, "options": options})
        assert r.status_code == 201, r.get_json()
        created = r.get_json()
        self.id = created["table_id"]
        self.url = f"/v1/tables/{self.id}"
        self.host = created["host_token"]
        self.tokens = [s["token"] for s in created["seat_tokens"]]

    def deal(self) -> int:
        r = self.client.post(f"{self.url}/rounds", headers=_keyed(self.host))
        assert r.status_code == 201, r.get_json()
        return int(r.status_code)

    def state(self) -> Any:
        return self.app.extensions["referee"].store.load(self.id).table

    def seat_view(self, seat: int) -> Any:
        r = self.client.get(f"{self.url}/seats/{seat}", headers=bearer(self.tokens[seat]))
        assert r.status_code == 200, r.get_json()
        return r.get_json()


def _one(client: redis.Redis, table: _Table, send: Any) -> dict[str, Any]:
    """The cost of the record that ``send()`` (a keyed request) leaves."""
    before = _idem_bytes(client, table.id)
    status = send()
    after = _idem_bytes(client, table.id)
    assert after[2] == before[2] + 1, "the request left no record"
    return {
        "status": status,
        "record_bytes": after[0] - before[0],
        "index_bytes": after[1] - before[1],
        "bytes": after[0] + after[1] - before[0] - before[1],
    }


def record_sizes(url: str) -> dict[str, Any]:
    """Bytes of one record for a typical keyed request of each game (7 seats;
    the index already holds a record, so its entry is the marginal one)."""
    app = in_process_app(url)
    client = redis.Redis.from_url(url)
    out: dict[str, Any] = {}

    ship = _Table(app, "classic", 7)
    ship.deal()

    def claim() -> int:
        r = ship.client.post(f"{ship.url}/rounds/1/claims", headers=_keyed(ship.tokens[0]))
        return int(r.status_code)

    claim()
    out["my-ship-sails claim"] = _one(client, ship, claim)

    sevens = _Table(app, "sevens", 7)
    sevens.deal()
    played = 0

    def turn() -> int:
        nonlocal played
        public = sevens.client.get(sevens.url).get_json()
        seat, number = public["round"]["on_turn"], public["round"]["turn"]
        view = sevens.seat_view(seat)
        body = {"play": view["playable"][0]} if view["playable"] else {"pass": True}
        r = sevens.client.put(
            f"{sevens.url}/rounds/1/turns/{number}", json=body, headers=_keyed(sevens.tokens[seat])
        )
        assert r.status_code == 200, r.get_json()
        played += 1
        return int(r.status_code)

    for _ in range(7):  # every seat's first: its index exists
        turn()
    out["sevens turn"] = _one(client, sevens, turn)

    may_i = _Table(app, "may-i", 7, may_i_window_ms=0)
    may_i.deal()
    move = _may_i_mover(may_i)
    move()
    out["may-i move"] = _one(client, may_i, move)
    dealt = _Table(app, "may-i", 7)
    # The host's first record: its index's own cost included.
    out["may-i deal (host, first record)"] = _one(client, dealt, dealt.deal)
    return out


def _may_i_mover(table: _Table) -> Any:
    """A call that makes the next May I? move (the bot's, with a new key);
    returns its status, or 0 when the round is over."""

    def move() -> int:
        while True:
            state = table.state()
            rnd = state.round
            if rnd is None or not rnd.playing:
                return 0
            if rnd.step is Step.MAY_I:  # a window of 0 ms: closed by the next read
                time.sleep(0.002)
                table.seat_view(0)
                continue
            seat = rnd.on_turn
            choice = may_i_bot(state, seat)
            action, argument = choice["action"], choice["argument"]
            r = table.client.put(
                f"{table.url}/rounds/{rnd.number}/moves/{rnd.move}",
                json={action: True if argument is None else argument},
                headers=_keyed(table.tokens[seat]),
            )
            if r.status_code == 409 and r.get_json()["code"] == "may-i-open":
                continue
            assert r.status_code == 200, r.get_json()
            return int(r.status_code)

    return move


def keyed_table(url: str, seats: int = 7) -> dict[str, Any]:
    """A ``seats``-seat May I? table whose seats (and host) send a new key
    with every move, after one round: its memory, what its records and
    indexes hold, and the most its records can hold (every token at its cap)."""
    app = in_process_app(url)
    client = redis.Redis.from_url(url)
    table = _Table(app, "may-i", seats, may_i_window_ms=0)
    table.deal()
    move = _may_i_mover(table)
    moves = 0
    while move():
        moves += 1
    records, indexes, count = _idem_bytes(client, table.id)
    total = sum(int(client.memory_usage(k, samples=0) or 0) for k in table_keys(client, table.id))
    cap = app.extensions["referee"].settings.idempotency_records_per_token
    per_record = (records + indexes) / count
    return {
        "seats": seats,
        "moves": moves,
        "records": count,
        "records_bytes": records,
        "indexes_bytes": indexes,
        "table_bytes": total,
        "bytes_per_record": per_record,
        "cap_per_token": cap,
        "at_cap_bytes": per_record * cap * (seats + 1),
    }
