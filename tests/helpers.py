"""A thin client for tests: plays tables through the real HTTP app."""

from __future__ import annotations

import copy
import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis
import yaml

from service.storage.store import all_keys, presence_key
from service.storage.stream_leases import table_streams_key

OPENAPI_YAML = Path(__file__).resolve().parents[1] / "openapi.yaml"


def openapi_spec() -> dict[str, Any]:
    """The committed ``openapi.yaml``, parsed (a copy of it: a caller may
    change it). Read once per process with libyaml's loader where PyYAML has
    it: the pure-Python one took about a second per load, at each worker's
    collection."""
    return copy.deepcopy(_openapi_spec())


@functools.cache
def _openapi_spec() -> dict[str, Any]:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    spec: dict[str, Any] = yaml.load(OPENAPI_YAML.read_text(), Loader=loader)  # noqa: S506
    return spec


@dataclass
class Table:
    """A created table: its id, the host's token and the seats' tokens."""

    table_id: str
    host: str
    seats: list[str]
    created: dict[str, Any]

    @property
    def url(self) -> str:
        return f"/v1/tables/{self.table_id}"


def snapshot(r: redis.Redis, t: Table, presence: bool = False) -> dict[str, Any]:
    """Every key in the table's hash tag (its state, its events, its
    idempotency records and their index), byte for byte (DUMP), with its
    expiry: what a refused request must leave as it was. The presence hash
    (RULES.md 5.5: a seat's request answered below 400 writes it, a read
    too) only with ``presence``: tests/streams/test_presence.py and the
    refusal tests check it; the leases of its open streams never (their
    streams renew them). The expiry is the
    absolute ``PEXPIRETIME`` (ms since the epoch; -1 none), the PTTL that does
    not shrink while the test runs. A hash is compared by its fields: its
    DUMP's order moves when Redis rehashes it, which a read may do."""
    keys = {
        *(k for k in all_keys(t.table_id) if r.exists(k)),
        *r.scan_iter(match=f"*{{{t.table_id}}}*", count=1000),
    }
    names = sorted(k.decode() if isinstance(k, bytes) else k for k in keys)
    if not presence:
        names = [k for k in names if k != presence_key(t.table_id)]
    # The leases of the table's open streams (service.storage.stream_leases):
    # renewed by their live streams, not the table's state.
    names = [k for k in names if not k.startswith(table_streams_key(t.table_id))]
    return {
        k: (
            sorted(r.hgetall(k).items()) if r.type(k) == b"hash" else r.dump(k),
            r.execute_command("PEXPIRETIME", k),
        )
        for k in names
    }


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class TableClient:
    """Wraps a Flask test client (or anything with the same ``open``)."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def create(
        self,
        players: int | list[str] = 4,
        variant: str = "classic",
        first_dealer: int | str = 0,
        **options: Any,
    ) -> Table:
        names = players if isinstance(players, list) else [f"P{i}" for i in range(players)]
        body = {
            "variant": variant,
            "players": names,
            "first_dealer": first_dealer,
            "options": options,
        }
        r = self.client.post("/v1/tables", json=body)
        assert r.status_code == 201, r.get_json()
        data = r.get_json()
        assert r.headers["Location"] == f"/v1/tables/{data['table_id']}"
        return Table(
            data["table_id"], data["host_token"], [s["token"] for s in data["seat_tokens"]], data
        )

    def deal(self, t: Table, hands: list[list[str]] | None = None) -> Any:
        body = {"hands": hands} if hands is not None else None
        return self.client.post(f"{t.url}/rounds", json=body, headers=bearer(t.host))

    def pass_(
        self,
        t: Table,
        round_no: int,
        exchange: int,
        seat: int,
        cards: list[str],
        token: str | None = None,
    ) -> Any:
        return self.client.put(
            f"{t.url}/rounds/{round_no}/exchanges/{exchange}/passes/{seat}",
            json={"cards": cards},
            headers=bearer(token or t.seats[seat]),
        )

    def claim(self, t: Table, round_no: int, seat: int) -> Any:
        return self.client.post(f"{t.url}/rounds/{round_no}/claims", headers=bearer(t.seats[seat]))

    def public(self, t: Table) -> dict[str, Any]:
        r = self.client.get(t.url)
        assert r.status_code == 200
        return r.get_json()  # type: ignore[no-any-return]

    def hand(self, t: Table, seat: int) -> list[str]:
        r = self.client.get(f"{t.url}/seats/{seat}", headers=bearer(t.seats[seat]))
        assert r.status_code == 200, r.get_json()
        return r.get_json()["hand"]  # type: ignore[no-any-return]

    def events(self, t: Table, after: int = 0) -> list[dict[str, Any]]:
        r = self.client.get(f"{t.url}/events?after={after}&limit=1000")
        assert r.status_code == 200
        return r.get_json()["events"]  # type: ignore[no-any-return]


# RULES.md 2.10 (seed 001) as a submitted deal: seat 0 passes 4S and QC and
# receives 9H and JH, then holds seven hearts. Passes go left (to seat + 1).
WORKED_HANDS = [
    ["AH", "KH", "8H", "5H", "2H", "QC", "4S"],
    ["3C", "4C", "5C", "6C", "7C", "8C", "9C"],
    ["2D", "3D", "4D", "5D", "6D", "7D", "8D"],
    ["9H", "JH", "2S", "3S", "5S", "6S", "7S"],
]
WORKED_PASSES = [["4S", "9C", "8D", "9H"], ["QC", "4S", "9C", "JH"]]


def play_worked_round(tables: TableClient, t: Table, round_no: int, early_claim: bool) -> None:
    """Play the worked example as round ``round_no`` of ``t`` (a four-seat
    table whose passes go left, manual claims, no claim window): deal, two
    exchanges, seat 0's claim. With ``early_claim`` seat 0 first claims after
    the first exchange, which is refused (six hearts)."""
    r = tables.deal(t, WORKED_HANDS)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["round"] == round_no
    for exchange, passes in enumerate(WORKED_PASSES, start=1):
        for seat, card in enumerate(passes):
            r = tables.pass_(t, round_no, exchange, seat, [card])
            assert r.status_code == 200, r.get_json()
            assert r.get_json()["resolved"] is (seat == 3)
        if exchange == 1 and early_claim:
            r = tables.claim(t, round_no, 0)
            assert r.status_code == 422 and r.get_json()["code"] == "claim-not-winning"
    r = tables.claim(t, round_no, 0)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["result"]["winners"] == [0]


CARD = re.compile(r"(?<![A-Za-z0-9_-])(?:10|[2-9TJQKA])[CDHS](?![A-Za-z0-9_-])")
"""A card code standing alone in a text (not inside a random id or token,
whose alphabet is ``[A-Za-z0-9_-]``: a table id may hold ``AC``)."""

OPAQUE = frozenset({"table_id", "host_token", "token", "type"})
"""Keys whose values are random ids, tokens or URIs, not text."""


def cards_in(value: Any, opaque: frozenset[str] = OPAQUE) -> set[str]:
    """Every card code anywhere in a JSON value, also inside text (the
    values of the keys in ``opaque`` left out)."""
    if isinstance(value, str):
        return set(CARD.findall(value))
    if isinstance(value, dict):
        return set().union(*(cards_in(v, opaque) for k, v in value.items() if k not in opaque))
    if isinstance(value, list):
        return set().union(*(cards_in(v, opaque) for v in value))
    return set()


def phone_lost(r: redis.Redis, table_id: str, seat: int, ago_ms: int = 60_000) -> None:
    """The seat was last seen ``ago_ms`` ago (a minute: RULES.md 5.5's not
    connected, as a lost phone is): its last-seen instant in the table's
    presence hash and its join's in the auth record set back, by the Redis
    clock; expiries are left as they were."""
    seconds, micros = r.time()
    then = seconds * 1000 + micros // 1000 - ago_ms
    r.hset(f"referee:{{{table_id}}}:presence", str(seat), then)
    # Its join too, if a person took it (the auth record's ``t``).
    key = f"referee:{{{table_id}}}:table"
    auth = json.loads(r.hget(key, "a") or "{}")
    if str(seat) in auth.get("t", {}):
        auth["t"][str(seat)] = then
        r.hset(key, "a", json.dumps(auth, separators=(",", ":")))
