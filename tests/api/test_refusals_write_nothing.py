"""Every refused request (4xx) leaves Redis exactly as it was (every key of
the table's hash tag, its idempotency records included, byte for byte and
with its expiry), in all three games, in plain states and after each kind of
timed window (a May I? window that lapsed, a request silence allowed, a
claim window that closed) and after a step completed but not yet resolved:
a seeded random sequence of refused requests of many kinds (wrong seat,
wrong token, bad card, out of turn, stale numbers, a closed window,
malformed bodies, Idempotency-Keys), with reads between them.

One write is allowed: a refusal by the rules sent with an Idempotency-Key
stores its answer (the record and its token's index entry, never the
table's keys), so that a retry is answered alike; the retry then changes
nothing at all."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest
import redis

from service.edge.auth import token_hash
from service.storage.idempotency import anonymous_scope, index_key, table_record_key
from service.storage.store import all_keys, choices_key

from ..helpers import Table, TableClient, bearer, snapshot
from ..may_i.common import full_deal
from .test_play import WINNING_AT_DEAL
from .test_sevens import DEAL as SEVENS_DEAL

HAND1 = ["5H", "5S", "5C", "9D", "TD", "JD", "QD", "KD", "3C", "8H"]
REFUSALS_PER_STATE = 40

Request = tuple[str, str, dict[str, Any]]
"""method, path, and the keyword arguments of the test client's ``open``."""


def _json(token: str | None, body: Any, **headers: str) -> dict[str, Any]:
    auth = {} if token is None else bearer(token)
    return {"json": body, "headers": {**auth, **headers}}


def _wait_until(ms: int) -> None:
    time.sleep(max(0.0, ms / 1000 - time.time()) + 0.1)


def common(t: Table, rng: random.Random, in_play: bool) -> list[Request]:
    """Refusals of any table: tokens, seats, bodies, headers."""
    seat = rng.randrange(len(t.seats))
    other = (seat + 1) % len(t.seats)
    garbage = "x" * rng.randint(20, 60)
    out = [
        ("POST", f"{t.url}/rounds", _json(t.seats[seat], None)),  # 403 host only
        ("POST", f"{t.url}/rounds", _json(garbage, None)),  # 401
        ("POST", f"{t.url}/finish", _json(t.seats[seat], None)),  # 403
        ("POST", f"{t.url}/finish", {}),  # 401
        ("DELETE", t.url, {"headers": bearer(t.seats[seat])}),  # 403
        ("DELETE", t.url, {"headers": bearer(garbage)}),  # 401
        ("GET", f"{t.url}/seats/{seat}", {"headers": bearer(t.seats[other])}),  # 403
        ("GET", f"{t.url}/seats/{seat}", {"headers": bearer(t.host)}),  # 403
        ("GET", f"{t.url}/seats/{len(t.seats) + 3}", {"headers": bearer(t.seats[0])}),  # 404
        ("GET", f"{t.url}/rounds/99", {}),  # 404
        ("GET", f"{t.url}/events?after=9999", {}),  # 410
        ("GET", f"{t.url}/events?after=-1", {}),  # 422
        (
            "POST",
            f"{t.url}/rounds",
            {"data": b"{not json", "content_type": "application/json", "headers": bearer(t.host)},
        ),  # 400
        (
            "POST",
            f"{t.url}/rounds",
            {"data": b"hands", "content_type": "text/plain", "headers": bearer(t.host)},
        ),  # 415
        ("POST", f"{t.url}/rounds", _json(t.host, {"hands": "nope"})),  # 422
        ("POST", f"{t.url}/rounds", _json(t.host, None, **{"Idempotency-Key": "short"})),  # 400
        ("POST", f"{t.url}/finish", _json(t.seats[seat], None, **{"Idempotency-Key": _key()})),
        ("POST", f"{t.url}/finish", _json(garbage, None, **{"Idempotency-Key": _key()})),  # 401
        ("POST", f"{t.url}/rounds", _json(t.host, {"x": 1}, **{"Idempotency-Key": _key()})),
    ]
    if in_play:
        out.append(("POST", f"{t.url}/rounds", _json(t.host, None)))  # 409 round-in-play
    # Refused host actions and seat changes (RULES.md 5.1, 5.4): every seat
    # is a person's and taken, and a round was dealt.
    seats = f"{t.url}/seats/{seat}"
    out += [
        ("POST", f"{seats}/bot", _json(t.host, {"kind": "basic"})),  # 409 seat-not-away
        ("POST", f"{seats}/bot", _json(t.host, {"kind": "basic"}, **{"Idempotency-Key": _key()})),
        ("POST", f"{seats}/bot", _json(t.seats[seat], {"kind": "basic"})),  # 403
        ("DELETE", f"{seats}/bot", {"headers": bearer(t.host)}),  # 409: no bot there
        ("POST", f"{seats}/leave", _json(t.host, None)),  # 409 table-dealt
        ("POST", f"{seats}/leave", _json(t.seats[seat], None, **{"Idempotency-Key": _key()})),
        ("POST", f"{t.url}/codes", _json(t.host, {"seat": seat})),  # 409 seat-taken
        ("POST", f"{t.url}/codes", _json(t.seats[seat], {"seat": seat})),  # 403
        ("POST", f"{seats}/token", _json(t.seats[other], None)),  # 403 host only
        ("PUT", f"{t.url}/next-deal", _json(t.seats[seat], {})),  # 403 host only
        ("POST", f"{t.url}/join", _json(None, {"name": "Zed"})),  # 409 seats-full
        ("POST", f"{t.url}/join", _json(None, {"name": "Zed"}, **{"Idempotency-Key": _key()})),
    ]
    return out


def _key() -> str:
    return str(uuid.uuid4())


def ship(t: Table, rng: random.Random, state: dict[str, Any]) -> list[Request]:
    rnd = state["round"]
    seat = rng.randrange(4)
    number, exchange = rnd["number"], rnd.get("exchange") or 1
    passes = f"{t.url}/rounds/{number}/exchanges"
    out = [
        ("PUT", f"{passes}/{exchange}/passes/{seat}", _json(t.seats[seat], {"cards": ["ZZ"]})),
        ("PUT", f"{passes}/{exchange}/passes/{seat}", _json(t.seats[seat], {"cards": "AS"})),
        ("PUT", f"{passes}/{exchange + 5}/passes/{seat}", _json(t.seats[seat], {"cards": ["AH"]})),
        ("PUT", f"{passes}/0/passes/{seat}", _json(t.seats[seat], {"cards": ["AH"]})),
        (
            "PUT",
            f"{passes}/{exchange}/passes/{seat}",
            _json(t.seats[(seat + 1) % 4], {"cards": ["AH"]}),
        ),
        (
            "PUT",
            f"{t.url}/rounds/{number + 3}/exchanges/1/passes/{seat}",
            _json(t.seats[seat], {"cards": ["AH"]}),
        ),
        ("POST", f"{t.url}/rounds/{number + 3}/claims", _json(t.seats[seat], None)),
        ("POST", f"{t.url}/rounds/{number}/claims", _json(t.host, None)),
    ]
    for losing in state.get("losing", ()):
        # An invalid declaration: refused, and logged (RULES.md 2.6).
        claims = f"{t.url}/rounds/{number}/claims"
        out += [
            ("POST", claims, _json(t.seats[losing], None)),
            ("POST", claims, _json(t.seats[losing], None, **{"Idempotency-Key": _key()})),
        ]
    if rnd["status"] == "over":
        # The round the clock ended: a claim is too late, a pass is refused,
        # a deal of bad hands is refused.
        out += [
            ("POST", f"{t.url}/rounds/{number}/claims", _json(t.seats[seat], None)),
            (
                "POST",
                f"{t.url}/rounds/{number}/claims",
                _json(t.seats[seat], None, **{"Idempotency-Key": _key()}),
            ),
            ("POST", f"{t.url}/rounds", _json(t.host, {"hands": [["AS"]] * 4})),
            (
                "POST",
                f"{t.url}/rounds",
                _json(t.host, {"hands": [["AS"]] * 4}, **{"Idempotency-Key": _key()}),
            ),
        ]
    return out


def sevens(t: Table, rng: random.Random, state: dict[str, Any]) -> list[Request]:
    rnd = state["round"]
    number, turn, on_turn = rnd["number"], rnd["turn"], rnd["on_turn"]
    other = (on_turn + rng.randint(1, 3)) % 4
    turns = f"{t.url}/rounds/{number}/turns"
    key = {"Idempotency-Key": _key()}
    return [
        ("PUT", f"{turns}/{turn}", _json(t.seats[other], {"play": "7S"})),  # not your turn
        ("PUT", f"{turns}/{turn}", _json(t.seats[other], {"pass": True}, **key)),
        ("PUT", f"{turns}/{turn + 4}", _json(t.seats[on_turn], {"pass": True})),  # stale
        ("PUT", f"{turns}/{turn}", _json(t.seats[on_turn], {"play": "ZZ"})),  # bad card
        ("PUT", f"{turns}/{turn}", _json(t.seats[on_turn], {"play": "KC"})),  # not held / playable
        (
            "PUT",
            f"{turns}/{turn}",
            _json(t.seats[on_turn], {"play": "KC"}, **{"Idempotency-Key": _key()}),
        ),
        ("PUT", f"{turns}/{turn}", _json(t.seats[on_turn], {"pass": False})),
        ("PUT", f"{turns}/{turn}", _json(t.seats[on_turn], {})),
        ("PUT", f"{turns}/{turn}", _json(t.host, {"pass": True})),  # 403
        ("PUT", f"{t.url}/rounds/{number + 1}/turns/1", _json(t.seats[on_turn], {"pass": True})),
    ]


def may_i(t: Table, rng: random.Random, state: dict[str, Any]) -> list[Request]:
    rnd = state["round"]
    number, move, on_turn = rnd["number"], rnd["move"], rnd["on_turn"]
    other = (on_turn + rng.randint(1, 3)) % 4
    moves = f"{t.url}/rounds/{number}/moves"
    asks = f"{t.url}/rounds/{number}/may-i"
    offer = rnd["may_i"]["offer"] if rnd["may_i"] else rnd.get("offers", 1) or 1
    key = {"Idempotency-Key": _key()}
    out = [
        ("PUT", f"{moves}/{move}", _json(t.seats[other], {"draw": True})),  # not your turn
        ("PUT", f"{moves}/{move + 3}", _json(t.seats[on_turn], {"draw": True})),  # stale
        ("PUT", f"{moves}/{move}", _json(t.seats[on_turn], {"draw": True, "decline": True})),
        ("PUT", f"{moves}/{move}", _json(t.seats[on_turn], {"discard": "ZZ"})),
        ("PUT", f"{moves}/{move}", _json(t.seats[on_turn], {"lay_off": {"card": "AS", "meld": 9}})),
        ("PUT", f"{moves}/{move}", _json(t.host, {"draw": True})),  # 403
        ("PUT", f"{moves}/{move}", _json(t.seats[other], {"draw": True}, **key)),
        ("POST", asks, _json(t.seats[on_turn], {"offer": offer})),  # the seat on turn
        ("POST", asks, _json(t.seats[other], {"offer": offer + 4})),
        ("POST", asks, _json(t.seats[other], {"offer": "one"})),
        ("PUT", f"{asks}/{offer + 4}/answers/{other}", _json(t.seats[other], {"allow": True})),
        ("PUT", f"{asks}/{offer}/answers/{other}", _json(t.seats[on_turn], {"allow": True})),
        ("PUT", f"{asks}/{offer}/answers/{other}", _json(t.seats[other], {"allow": "yes"})),
    ]
    window = rnd["may_i"]
    if window is None:
        # The window is closed (lapsed, or given): asking and answering are late.
        for seat in range(4):
            if seat != on_turn and seat not in state["askers"]:
                out += [
                    ("POST", asks, _json(t.seats[seat], {"offer": offer})),
                    (
                        "POST",
                        asks,
                        _json(t.seats[seat], {"offer": offer}, **{"Idempotency-Key": _key()}),
                    ),
                    (
                        "PUT",
                        f"{asks}/{offer}/answers/{seat}",
                        _json(t.seats[seat], {"allow": False}),
                    ),
                ]
    elif window["asker"] is not None:
        asker = window["asker"]
        for seat in range(4):
            if seat not in (on_turn, asker):
                out.append(("POST", asks, _json(t.seats[seat], {"offer": offer})))  # taken
        out += [
            ("PUT", f"{asks}/{offer}/answers/{asker}", _json(t.seats[asker], {"allow": True})),
            ("PUT", f"{moves}/{move}", _json(t.seats[on_turn], {"draw": True})),  # may-i-open
        ]
    return out


Refusals = Callable[[Table, random.Random, dict[str, Any]], list[Request]]


def _changed(before: dict[str, Any], after: dict[str, Any]) -> set[str]:
    return {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}


LOGGED_FIELDS = {"v", "n", "w", "h"}
"""What a logged refusal (RULES.md 2.6: an invalid declaration) may change
in the table hash: the version, the event count, the clock of the last
write and the round record's head (its version word)."""


def _assert_logged_only(
    before: dict[str, Any], after: dict[str, Any], table_id: str, allowed: set[str]
) -> None:
    """A refusal that logs changed the event log and the table hash's
    :data:`LOGGED_FIELDS`, and (``allowed``) its idempotency record: no
    other key or field, and every key keeps its expiry (a refused request
    buys the table no time; ``u``, the referee's moves in a row, stays)."""
    events, table = all_keys(table_id)[1], all_keys(table_id)[0]
    assert set(after) - set(before) <= allowed
    assert set(before) <= set(after)
    for key in before:
        assert after[key][1] == before[key][1], ("expiry", key)
        if key == table:
            was, now = dict(before[key][0]), dict(after[key][0])
            changed = {f.decode() for f in was.keys() | now.keys() if was.get(f) != now.get(f)}
            assert changed <= LOGGED_FIELDS, changed
        elif key != events and key not in allowed:
            assert after[key] == before[key], key


def _token(kwargs: dict[str, Any]) -> str | None:
    auth = kwargs.get("headers", {}).get("Authorization", "")
    return auth.partition(" ")[2] or None


def play_refusals(
    tables: TableClient,
    r: redis.Redis,
    t: Table,
    refusals: Refusals,
    rng: random.Random,
    in_play: bool,
    claims: bool = True,
) -> None:
    """``REFUSALS_PER_STATE`` random refusals of the table as it stands, each
    checked against Redis before and after; reads in between. With
    ``claims``, a My Ship Sails table also gets invalid declarations, which
    are logged (RULES.md 2.6) and change nothing else."""
    c = tables.client
    state = tables.public(t)
    # Seats that asked: a repeat of an ask is answered alike (200), not refused.
    state["askers"] = {e["seat"] for e in tables.events(t) if e["type"] == "may-i-asked"}
    if claims and state["game"] == "my-ship-sails" and state["round"]["status"] != "over":
        state["losing"] = [s for s in range(len(t.seats)) if not _wins(tables.hand(t, s))]
    requests = [*common(t, rng, in_play), *refusals(t, rng, state)]
    reads: list[Request] = [
        ("GET", t.url, {}),
        ("GET", f"{t.url}/events?after=0&limit=1000", {}),
        ("GET", f"{t.url}/seats/1", {"headers": bearer(t.seats[1])}),
        ("GET", f"{t.url}/rounds/1", {}),
    ]
    etag = c.get(t.url).headers["ETag"]
    requests.append(("DELETE", t.url, {"headers": {**bearer(t.host), "If-None-Match": etag}}))
    for _ in range(REFUSALS_PER_STATE):
        method, path, kwargs = rng.choice(requests)
        if method == "DELETE":  # the ETag as it is now: presence (RULES.md 5.5) moves it
            etag = c.get(t.url).headers["ETag"]
            kwargs = {"headers": {**bearer(t.host), "If-None-Match": etag}}
        before = snapshot(r, t, presence=True)
        answer = c.open(path, method=method, **kwargs)
        assert 400 <= answer.status_code < 500 and answer.status_code != 429, (
            method,
            path,
            kwargs,
            answer.status_code,
            answer.get_json(),
        )
        after = snapshot(r, t, presence=True)
        key = kwargs.get("headers", {}).get("Idempotency-Key")
        token = _token(kwargs)
        joins = path.endswith("/join")  # no token: its caller's scope (the test client's)
        scope = anonymous_scope("addr:127.0.0.1") if joins else token_hash(token or "")
        record = table_record_key(t.table_id, scope, key or "")
        # A join's caller's index is listed in the table's index of them ("-").
        indexes = {index_key(t.table_id, scope)} | (
            {index_key(t.table_id, "-")} if joins else set()
        )
        logged = answer.get_json()["code"] == "claim-not-winning"
        if logged and record in before:  # a retry, answered from its record
            assert answer.headers.get("Idempotent-Replayed") == "true"
            assert after == before
        elif logged:
            allowed = set() if key is None else {record, index_key(t.table_id, scope)}
            _assert_logged_only(before, after, t.table_id, allowed)
            assert (key is None) == (record not in after)
        elif (
            key is None
            or (token is None and not joins)
            or answer.status_code in (400, 401, 403, 404)
        ):
            assert after == before, (method, path, kwargs, answer.get_json())
        elif record in before:  # a retry, answered from its record
            assert answer.headers.get("Idempotent-Replayed") == "true"
            assert after == before
        elif record not in after:  # refused before the rules (the body's schema)
            assert after == before, (method, path, kwargs, answer.get_json())
        else:
            # The rules' refusal under a key: its answer is recorded, nothing else.
            assert _changed(before, after) <= {record, *indexes}
            for table_key in all_keys(t.table_id):
                assert before.get(table_key) == after.get(table_key)
            retry = c.open(path, method=method, **kwargs)
            assert retry.headers.get("Idempotent-Replayed") == "true"
            assert (retry.status_code, retry.get_json()) == (
                answer.status_code,
                answer.get_json(),
            )
            assert snapshot(r, t, presence=True) == after
        read = rng.choice(reads)
        settled = snapshot(r, t)
        assert c.open(read[1], method=read[0], **read[2]).status_code == 200
        assert snapshot(r, t) == settled  # a seat's read writes its presence only


def _wins(hand: list[str]) -> bool:
    """Whether a classic My Ship Sails hand wins (seven of one suit)."""
    return max(sum(card[-1] == suit for card in hand) for suit in "SHDC") >= 7


def _with_idempotent_deal(tables: TableClient, t: Table, body: Any) -> None:
    """Deal with an Idempotency-Key, so that the table holds a record and an index."""
    r = tables.client.post(
        f"{t.url}/rounds", json=body, headers={**bearer(t.host), "Idempotency-Key": _key()}
    )
    assert r.status_code == 201, r.get_json()


def test_refusals_on_my_ship_sails_write_nothing(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    rng = random.Random(2024)
    # Passing, with a pending choice.
    t = tables.create(4)
    _with_idempotent_deal(tables, t, {"hands": WINNING_AT_DEAL})
    assert tables.pass_(t, 1, 1, 1, ["8D"]).status_code == 200
    play_refusals(tables, redis_client, t, ship, rng, in_play=True)
    # A claim window that closed by itself: the round is over, nothing stored yet.
    t = tables.create(4, claim_window_ms=1_000)
    _with_idempotent_deal(tables, t, {"hands": WINNING_AT_DEAL})
    r = tables.claim(t, 1, 0)
    assert r.status_code == 200, r.get_json()
    _wait_until(r.get_json()["window_closes_at_ms"])
    assert tables.public(t)["round"]["status"] == "over"
    play_refusals(tables, redis_client, t, ship, rng, in_play=False)


def test_refusals_after_a_step_completed_but_not_resolved_write_nothing(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    # A worker that died between the last pass and the exchange's resolution
    # leaves the choices complete: the reads show it resolved, with the
    # clock of that last pass, and refusals store nothing of it.
    rng = random.Random(7)
    t = tables.create(4)
    _with_idempotent_deal(tables, t, {"hands": WINNING_AT_DEAL})
    for seat, card in enumerate(["8H", "8D", "8S", "8C"]):  # passes go left
        assert tables.pass_(t, 1, 1, seat, [card]).status_code == 200
    for seat, card in enumerate(["8C", "8H", "8D"]):
        assert tables.pass_(t, 1, 2, seat, [card]).status_code == 200
    redis_client.hset(choices_key(t.table_id), "3", "8S")
    assert tables.public(t)["round"]["exchange"] == 3
    shown = tables.client.get(f"{t.url}/events?after=0").get_json()
    assert shown["events"][-1]["type"] == "exchange-resolved"
    assert shown["events"][-1]["at_ms"] == shown["events"][-2]["at_ms"]  # the last pass's
    # No invalid declaration here: its log entry would follow the resolution
    # that fell due, which its commit then stores first (as any write does).
    play_refusals(tables, redis_client, t, ship, rng, in_play=True, claims=False)
    assert tables.client.get(f"{t.url}/events?after=0").get_json() == shown
    # A repeat of exchange 1's pass reads the history as the reads see it
    # (exchange 2's passes not stored yet) and is answered alike, writing nothing.
    before = snapshot(redis_client, t)
    r = tables.pass_(t, 1, 1, 0, ["8H"])
    assert r.status_code == 200, r.get_json()
    assert (r.get_json()["exchange"], r.get_json()["resolved"]) == (1, True)
    assert snapshot(redis_client, t) == before
    # The next accepted move stores the resolution as it was shown.
    assert tables.pass_(t, 1, 3, 0, ["8S"]).status_code == 200
    stored = tables.client.get(f"{t.url}/events?after=0").get_json()["events"]
    assert stored[: len(shown["events"])] == shown["events"]
    assert stored[-1]["type"] == "pass-chosen"


def test_refusals_on_sevens_write_nothing(tables: TableClient, redis_client: redis.Redis) -> None:
    rng = random.Random(77)
    t = tables.create(4, "sevens", first_dealer=0)
    _with_idempotent_deal(tables, t, {"hands": SEVENS_DEAL})
    play_refusals(tables, redis_client, t, sevens, rng, in_play=True)


def _may_i_table(tables: TableClient, window_ms: int) -> Table:
    t = tables.create(4, "may-i", first_dealer=0, may_i_window_ms=window_ms)
    _with_idempotent_deal(tables, t, full_deal("may-i", 4, {1: HAND1}, discard="KH"))
    return t


def _move(tables: TableClient, t: Table, seat: int, number: int, body: Any) -> None:
    r = tables.client.put(
        f"{t.url}/rounds/1/moves/{number}", json=body, headers=bearer(t.seats[seat])
    )
    assert r.status_code == 200, r.get_json()


@pytest.mark.parametrize("state", ["lapsed", "silence-allowed", "asked", "playing"])
def test_refusals_on_may_i_write_nothing(
    tables: TableClient, redis_client: redis.Redis, state: str
) -> None:
    rng = random.Random(state)
    window = 60_000 if state == "asked" else 400
    t = _may_i_table(tables, window)
    if state == "playing":
        _move(tables, t, 1, 1, {"take_discard": True})
    else:
        _move(tables, t, 1, 1, {"decline": True})
    if state in ("silence-allowed", "asked"):
        r = tables.client.post(
            f"{t.url}/rounds/1/may-i", json={"offer": 1}, headers=bearer(t.seats[3])
        )
        assert r.status_code == 200, r.get_json()
    if state == "asked":
        r = tables.client.put(
            f"{t.url}/rounds/1/may-i/1/answers/2", json={"allow": True}, headers=bearer(t.seats[2])
        )
        assert r.status_code == 200, r.get_json()
    if state in ("lapsed", "silence-allowed"):
        _wait_until(tables.public(t)["round"]["may_i"]["until_ms"])
        assert tables.public(t)["round"]["may_i"] is None
    play_refusals(tables, redis_client, t, may_i, rng, in_play=True)


def test_a_refused_claim_keeps_every_expiry_and_a_paused_clock(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    # An invalid declaration is logged (RULES.md 2.6) and changes nothing
    # else: it refreshed every key's expiry (a refused request kept a table
    # alive) and counted as a person's act (it reset the referee's moves in
    # a row, `u`, and so resumed a paused table, RULES.md 5.4).
    t = tables.create(4, unattended_moves=10)
    _with_idempotent_deal(tables, t, {"hands": WINNING_AT_DEAL})
    for key in redis_client.scan_iter(match=f"*{{{t.table_id}}}*"):
        redis_client.pexpire(key, 600_000)  # well short of TABLE_TTL_SECONDS
    redis_client.hset(all_keys(t.table_id)[0], "u", 12)  # the bots' moves: paused
    assert tables.public(t)["clock_paused"] is True
    for seat, keyed in ((1, False), (2, True), (1, True)):
        headers = {**bearer(t.seats[seat]), **({"Idempotency-Key": _key()} if keyed else {})}
        before = snapshot(redis_client, t, presence=True)
        r = tables.client.post(f"{t.url}/rounds/1/claims", headers=headers)
        assert (r.status_code, r.get_json().get("code")) == (422, "claim-not-winning"), r.get_json()
        after = snapshot(redis_client, t, presence=True)
        scope = token_hash(t.seats[seat])
        allowed = {table_record_key(t.table_id, scope, headers.get("Idempotency-Key", ""))}
        allowed |= {index_key(t.table_id, scope)} if keyed else set()
        _assert_logged_only(before, after, t.table_id, allowed if keyed else set())
        assert redis_client.hget(all_keys(t.table_id)[0], "u") == b"12"
        assert tables.public(t)["clock_paused"] is True
    logged = [e for e in tables.events(t) if e["type"] == "claim-rejected"]
    assert [e["seat"] for e in logged] == [1, 2, 1]
