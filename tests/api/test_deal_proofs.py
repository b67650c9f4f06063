"""Deals anyone can check and rounds anyone can replay (RULES.md 5.2, 4.9,
2.11): a round of each game where every seat seeded the deal, checked by
``referee verify`` / ``referee replay`` and by an independent
re-implementation written from docs/guide/deal-proofs.md (stdlib hmac and
hashlib only, no service code); a tampered record fails them."""

from __future__ import annotations

import copy
import hashlib
import hmac
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import redis

from service.storage.store import deal_key, moves_key

from ..helpers import TableClient, bearer, snapshot
from .proof_play import SETUPS, play_round, record, seed_all
from .test_inputs import chunked

# --- the independent re-implementation (from the document only) -----------


def _h(key: bytes, data: bytes) -> bytes:
    return hmac.new(key, data, hashlib.sha256).digest()


def doc_commitment(secret_hex: str) -> str:
    return hashlib.sha256(
        b"card-referee/deal-commitment/v1\x00" + bytes.fromhex(secret_hex)
    ).hexdigest()


def doc_key(secret_hex: str, seeds: list[str | None]) -> bytes:
    key = bytes.fromhex(secret_hex)
    for seed in seeds:
        key += b"\x00" * 32 if seed is None else hashlib.sha256(seed.encode()).digest()
    return key


def doc_shuffle(key: bytes, label: str, deck: list[str]) -> list[str]:
    k, v = b"\x00" * 32, b"\x01" * 32
    material = key + label.encode()
    k = _h(k, v + b"\x00" + material)
    v = _h(k, v)
    k = _h(k, v + b"\x01" + material)
    v = _h(k, v)
    buffer = b""

    def below(n: int) -> int:
        nonlocal v, buffer
        while True:
            if len(buffer) < 4:
                v = _h(k, v)
                buffer += v
            x, buffer = int.from_bytes(buffer[:4], "big"), buffer[4:]
            if x < 2**32 - 2**32 % n:
                return x % n

    order = list(deck)
    for i in range(len(order) - 1, 0, -1):
        j = below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def doc_check(proof: dict[str, Any]) -> bool:
    """The document's check: the commitment is the secret's, every shuffle's order follows."""
    if doc_commitment(proof["secret"]) != proof["commitment"]:
        return False
    key = doc_key(proof["secret"], proof["seeds"])
    return all(
        doc_shuffle(key, f"card-referee/deal/shuffle/{i}", s["deck"]) == s["order"]
        for i, s in enumerate(proof["shuffles"])
    )


def doc_chain(proof: dict[str, Any], moves: list[dict[str, Any]]) -> str | None:
    """The document's chain of moves: the head after the last move, or
    ``None`` when a move's ``link`` is not the head after it."""
    key = _h(bytes.fromhex(proof["secret"]), b"card-referee/moves/v1")
    head = proof["commitment"]
    for move in moves:
        body = {k: v for k, v in move.items() if k != "link"}
        text = json.dumps(body, sort_keys=True, separators=(",", ":"))
        after = hmac.new(key, (head + "\n" + text).encode(), hashlib.sha256).hexdigest()
        if after != move.get("link"):
            return None
        if not move.get("commutes"):
            head = after
    return str(head)


# --- the document's test vectors ------------------------------------------

DOC = Path(__file__).parents[2] / "docs" / "guide" / "deal-proofs.md"


def vectors() -> list[dict[str, Any]]:
    """The JSON blocks of the document's test vectors section."""
    text = DOC.read_text()
    section = text.split("## Test vectors", 1)[1]
    blocks = section.split("```json")[1:]
    return [json.loads(b.split("```", 1)[0]) for b in blocks]


def test_the_documents_vectors_hold_for_the_independent_implementation() -> None:
    found = vectors()
    assert len(found) >= 3
    for v in found:
        assert doc_commitment(v["secret"]) == v["commitment"]
        key = doc_key(v["secret"], v["seeds"])
        assert key.hex() == v["key"]
        assert doc_shuffle(key, v["label"], v["deck"]) == v["order"]


def test_the_documents_vectors_hold_for_the_service() -> None:
    from service.games.drbg import shuffled
    from service.games.proof import commitment, key_of

    for v in vectors():
        secret = bytes.fromhex(v["secret"])
        assert commitment(secret) == v["commitment"]
        assert key_of(secret, v["seeds"]).hex() == v["key"]
        assert shuffled(key_of(secret, v["seeds"]), v["label"], v["deck"]) == v["order"]


# --- a round of each game ----------------------------------------------------


def referee(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.cli", *args, "-"],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("variant", list(SETUPS))
def test_a_seeded_round_is_verified_replayed_and_a_tampered_one_fails(
    tables: TableClient, redis_client: redis.Redis, variant: str
) -> None:
    t = tables.create(4, variant=variant, **SETUPS[variant])
    before = tables.public(t)["next_deal"]
    assert before["round"] == 1 and before["seeded"] == [] and len(before["commitment"]) == 64
    seeds = ["alpha", "βeta", "gamma 3", "delta!"]
    seed_all(tables, t, seeds)
    assert tables.public(t)["next_deal"]["seeded"] == [0, 1, 2, 3]
    assert tables.public(t)["next_deal"]["commitment"] == before["commitment"]
    dealt = tables.deal(t)
    assert dealt.status_code == 201, dealt.get_json()
    assert dealt.get_json()["commitment"] == before["commitment"]
    dealt_events = [e for e in tables.events(t) if e["type"] == "round-dealt"]
    assert dealt_events[-1]["commitment"] == before["commitment"]
    after = tables.public(t)["next_deal"]
    assert after["round"] == 2 and after["commitment"] != before["commitment"]
    # The secret is nowhere public while the round is played.
    secret = json.loads(redis_client.lindex(moves_key(t.table_id), 1))["x"]
    early = tables.client.get(f"{t.url}/rounds/1/record")
    assert early.status_code == 409 and early.get_json()["code"] == "round-not-over"
    assert secret not in early.get_data(as_text=True)
    assert secret not in json.dumps(tables.public(t)) + json.dumps(tables.events(t))

    play_round(tables, redis_client, t, variant, 1)
    # The head of the round's chain, as anyone saw it while the round went on.
    witnessed = tables.public(t)["move_chain"]
    rec = record(tables, t, 1)
    proof = rec["proof"]
    assert proof["commitment"] == before["commitment"] and proof["secret"] == secret
    assert proof["seeds"] == seeds and proof["submitted"] is False
    assert rec["moves"] and all({"seat", "at_ms", "move"} <= set(m) for m in rec["moves"])
    assert rec["complete"] is True
    # The deck order dealt is the first shuffle's: every card of the deal is in it.
    dealt_cards = sorted(c for h in rec["deal"]["hands"] for c in h)
    assert sorted(proof["shuffles"][0]["order"]) == sorted(proof["shuffles"][0]["deck"])
    assert set(dealt_cards) <= set(proof["shuffles"][0]["order"])

    assert doc_check(proof)
    assert witnessed["moves"] == sum(1 for m in rec["moves"] if not m.get("commutes"))
    assert doc_chain(proof, rec["moves"]) == witnessed["head"]
    text = json.dumps(rec)
    done = referee("verify", stdin=text)
    assert done.returncode == 0, done.stdout + done.stderr
    done = referee("replay", stdin=text)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(rec['moves'])} moves" in done.stdout
    check = tables.client.post("/v1/checks/deal-proof", json={"record": rec})
    assert check.get_json() == {"valid": True, "problems": [], "submitted": False}

    swapped = copy.deepcopy(rec)
    order = swapped["proof"]["shuffles"][0]["order"]
    order[0], order[1] = order[1], order[0]
    reseeded = copy.deepcopy(rec)
    reseeded["proof"]["seeds"][2] = "gamma 4"
    for bad in (swapped, reseeded):
        assert not doc_check(bad["proof"])
        assert referee("verify", stdin=json.dumps(bad)).returncode == 1
        answer = tables.client.post("/v1/checks/deal-proof", json={"proof": bad["proof"]})
        assert answer.get_json()["valid"] is False
    reordered = copy.deepcopy(rec)
    moves = reordered["moves"]
    # The last move first (My Ship Sails' passes of one exchange commute).
    moves[0], moves[-1] = moves[-1], moves[0]
    failed = referee("replay", stdin=json.dumps(reordered))
    assert failed.returncode == 1 and "move 1" in failed.stdout
    # The chain shows it without replaying: verify, the check and the document's.
    assert doc_chain(reordered["proof"], moves) is None
    failed = referee("verify", stdin=json.dumps(reordered))
    assert failed.returncode == 1 and "link" in failed.stdout, failed.stdout
    answer = tables.client.post("/v1/checks/deal-proof", json={"record": reordered})
    assert answer.get_json()["valid"] is False
    # A move changed after the fact (its time), its link kept: the same.
    changed = copy.deepcopy(rec)
    changed["moves"][0]["at_ms"] += 1
    assert doc_chain(changed["proof"], changed["moves"]) is None
    assert referee("verify", stdin=json.dumps(changed)).returncode == 1
    if variant == "sevens":
        # A move added as if it commuted (its link the head before it): no
        # Sevens move does, so the chain of the others does not cover it.
        added = copy.deepcopy(rec)
        extra = {**added["moves"][0], "commutes": True}
        extra["link"] = added["moves"][0]["link"]
        added["moves"].insert(1, extra)
        answer = tables.client.post("/v1/checks/deal-proof", json={"record": added})
        assert (
            "a move is marked as commuting in a game where no move does"
            in (answer.get_json()["problems"])
        ), answer.get_json()


def classic_record(tables: TableClient, redis_client: redis.Redis) -> dict[str, Any]:
    """The record of a classic round played to its end (unseeded)."""
    t = tables.create(4, **SETUPS["classic"])
    assert tables.deal(t).status_code == 201
    play_round(tables, redis_client, t, "classic", 1)
    return record(tables, t, 1)


def test_a_whole_record_up_to_1_mib_is_checked_and_no_larger_one(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    # A long round's record (2,000 moves with their links) is over the 64 KiB
    # that every other body gets; the check takes it, however it is framed.
    rec = classic_record(tables, redis_client)
    text = json.dumps({"record": rec}).encode()
    padded = text[:-1] + b" " * (200_000 - len(text)) + b"}"  # still the same JSON
    url = "/v1/checks/deal-proof"
    sent = tables.client.post(url, data=padded, content_type="application/json")
    assert sent.get_json() == {"valid": True, "problems": [], "submitted": False}
    assert chunked(tables.client, "POST", url, padded).get_json()["valid"] is True
    # Another check's body stays at 64 KiB.
    other = chunked(tables.client, "POST", "/v1/checks/deal", padded)
    assert other.status_code == 413 and other.get_json()["code"] == "body-too-large"
    assert "65536 bytes" in other.get_json()["detail"]
    limit = 1024 * 1024
    exact = text[:-1] + b" " * (limit - len(text)) + b"}"
    assert tables.client.post(url, data=exact, content_type="application/json").status_code == 200
    over = exact[:-1] + b" }"
    for answer in (
        tables.client.post(url, data=over, content_type="application/json"),
        chunked(tables.client, "POST", url, over),
    ):
        assert answer.status_code == 413 and answer.get_json()["code"] == "body-too-large"
        assert f"{limit} bytes" in answer.get_json()["detail"]

    # A record or proof larger than a round can be is refused before any check.
    def refused(body: dict[str, Any], pointer: str, words: str) -> None:
        answer = tables.client.post(url, json=body)
        assert answer.status_code == 422, answer.get_json()
        error = answer.get_json()["errors"][0]
        assert error["pointer"] == pointer and words in error["detail"], error

    many = copy.deepcopy(rec)
    many["moves"] = (rec["moves"] * (2001 // len(rec["moves"]) + 1))[:2001]
    refused({"record": many}, "/record", "at most 2000 moves, not 2001")
    many["moves"] = many["moves"][:2000]
    assert tables.client.post(url, json={"record": many}).get_json()["valid"] is False
    shuffle = rec["proof"]["shuffles"][0]
    proof = {**rec["proof"], "shuffles": [shuffle] * 201}
    refused({"proof": proof}, "/proof", "at most 200 shuffles, not 201")
    big = {"label": shuffle["label"], "deck": ["2C"] * 10_001, "order": []}
    refused({"record": {**rec, "proof": {**rec["proof"], "shuffles": [big]}}}, "/record", "10001")
    big["deck"] = big["deck"][:10_000]
    answer = tables.client.post(url, json={"proof": {**rec["proof"], "shuffles": [big]}})
    assert answer.get_json()["valid"] is False
    long_start = {**rec, "start_state": rec["start_state"] + " " * 8192}
    refused({"record": long_start}, "/record", "at most 8192 characters")
    refused({"proof": {**rec["proof"], "seeds": [None] * 11}}, "/proof", "at most 10, not 11")
    # A secret as long as the body allows is not hashed for every shuffle.
    long_secret = {**rec["proof"], "secret": "ab" * 450_000, "shuffles": [shuffle] * 200}
    answer = tables.client.post(url, json={"proof": long_secret})
    assert answer.get_json()["problems"] == ["/secret: the secret is not 32 bytes in hex"]


def test_a_record_the_referee_did_not_write_does_not_check(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    # What an attacker's record may change, each answered valid: false at the
    # cost of a real check (no 500, no deal of a million decks: without the
    # start's check, the hand size of 10**7 below runs past the test's timeout).
    rec = classic_record(tables, redis_client)
    url = "/v1/checks/deal-proof"

    def problems(changed: dict[str, Any]) -> list[str]:
        answer = tables.client.post(url, json={"record": changed})
        assert answer.status_code == 200, answer.get_data()
        assert answer.get_json()["valid"] is False
        return list(answer.get_json()["problems"])

    def started(**members: Any) -> dict[str, Any]:
        state = json.loads(rec["start_state"])
        state.update(members)
        return {**rec, "start_state": json.dumps(state)}

    huge = started(o={**json.loads(rec["start_state"])["o"], "hand_size": 10**7})
    assert any("none the referee makes" in p for p in problems(huge))
    assert "not one the referee writes" in problems(started(names=[]))[0]
    nested = {**rec, "start_state": "[" * 4000 + "]" * 4000}
    assert "not one the referee writes" in problems(nested)[0]
    assert any("5 seeds for 4 seats" in p for p in problems(
        {**rec, "proof": {**rec["proof"], "seeds": [*rec["proof"]["seeds"], "mine"]}}
    ))  # fmt: skip
    numbers = problems({**rec, "proof": {**rec["proof"], "seeds": [0, 1, 2, 3]}})
    assert numbers[0] == "proof/seeds: the seeds are not a list of texts and nulls", numbers
    hands = {"hands": rec["deal"]["hands"]}
    assert any("marked otherwise" in p for p in problems({**rec, "deal_request": hands}))
    assert any("options is not the table's" in p for p in problems(
        {**rec, "options": {**rec["options"], "max_exchanges": 3}}
    ))  # fmt: skip
    answer = tables.client.post(url, json={"record": rec})
    assert answer.get_json() == {"valid": True, "problems": [], "submitted": False}


def test_a_submitted_deal_is_marked_and_has_no_shuffle(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    from ..helpers import WORKED_HANDS, play_worked_round

    t = tables.create(variant="mein-schiff")
    play_worked_round(tables, t, 1, early_claim=True)
    rec = record(tables, t, 1)
    assert rec["submitted"] is True and rec["proof"]["submitted"] is True
    assert rec["proof"]["shuffles"] == []
    assert [sorted(h) for h in rec["deal"]["hands"]] == [sorted(h) for h in WORKED_HANDS]
    assert [m["move"] for m in rec["moves"]] == ["pass"] * 8 + ["claim"]
    assert rec["result"]["winners"] == [0]
    done = referee("replay", stdin=json.dumps(rec))
    assert done.returncode == 0, done.stdout
    check = tables.client.post("/v1/checks/deal-proof", json={"record": rec})
    assert check.get_json() == {"valid": True, "problems": [], "submitted": True}


def test_the_host_may_require_every_seed(tables: TableClient, redis_client: redis.Redis) -> None:
    t = tables.create(4, variant="sevens")
    r = tables.client.put(
        f"{t.url}/next-deal", json={"require_seeds": True}, headers=bearer(t.host)
    )
    assert r.status_code == 200 and r.get_json()["require_seeds"] is True
    seed_all(tables, t, ["a", "b", "c"])
    stored = redis_client.get(deal_key(t.table_id))
    refused = tables.deal(t)
    assert refused.status_code == 409
    assert refused.get_json()["code"] == "seeds-missing"
    assert refused.get_json()["missing_seats"] == [3]
    assert redis_client.get(deal_key(t.table_id)) == stored
    other = tables.client.put(
        f"{t.url}/next-deal/seeds/3", json={"seed": "d"}, headers=bearer(t.seats[0])
    )
    assert other.status_code == 403
    r = tables.client.put(
        f"{t.url}/next-deal/seeds/3", json={"seed": "d"}, headers=bearer(t.seats[3])
    )
    assert r.status_code == 200
    assert r.get_json()["seed_sha256"] == hashlib.sha256(b"d").hexdigest()
    assert tables.deal(t).status_code == 201
    # The requirement stays for the next deal.
    assert tables.public(t)["next_deal"] == {
        "round": 2,
        "commitment": tables.public(t)["next_deal"]["commitment"],
        "seeded": [],
        "require_seeds": True,
        "seeds_wait_ms": None,
        "seeds_due_ms": None,
    }
    assert "Retry-After" not in refused.headers
    assert refused.get_json()["seeds_due_ms"] is None


def _redis_ms(r: redis.Redis) -> int:
    seconds, micros = r.time()
    return int(seconds) * 1000 + int(micros) // 1000


def test_required_seeds_are_due_after_the_hosts_wait(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(3, variant="sevens")
    url = f"{t.url}/next-deal"
    # A wait without the requirement, and waits out of range, change nothing.
    before = snapshot(redis_client, t)
    for body in (
        {"require_seeds": False, "seeds_wait_ms": 5000},
        {"require_seeds": True, "seeds_wait_ms": 999},
        {"require_seeds": True, "seeds_wait_ms": 86_400_001},
        {"require_seeds": True, "seeds_wait_ms": "soon"},
    ):
        bad = tables.client.put(url, json=body, headers=bearer(t.host))
        assert bad.status_code == 422, body
        assert [e["pointer"] for e in bad.get_json()["errors"]] == ["/seeds_wait_ms"], body
    assert snapshot(redis_client, t) == before

    asked = _redis_ms(redis_client)
    r = tables.client.put(
        url, json={"require_seeds": True, "seeds_wait_ms": 1500}, headers=bearer(t.host)
    )
    assert r.status_code == 200
    shown = r.get_json()
    assert shown["seeds_wait_ms"] == 1500
    due = shown["seeds_due_ms"]
    assert asked + 1500 <= due <= _redis_ms(redis_client) + 1500
    # Asking again changes nothing: the due time stays.
    again = tables.client.put(
        url, json={"require_seeds": True, "seeds_wait_ms": 1500}, headers=bearer(t.host)
    )
    assert again.get_json()["seeds_due_ms"] == due
    seed_all(tables, t, ["only seat 0"])

    stored = snapshot(redis_client, t)
    refused = tables.deal(t)
    assert refused.status_code == 409
    problem = refused.get_json()
    assert (problem["code"], problem["missing_seats"], problem["seeds_due_ms"]) == (
        "seeds-missing",
        [1, 2],
        due,
    )
    assert 1 <= int(refused.headers["Retry-After"]) <= 2
    assert snapshot(redis_client, t) == stored

    while _redis_ms(redis_client) < due:
        time.sleep(0.05)
    dealt = tables.deal(t)
    assert dealt.status_code == 201, dealt.get_json()
    dealt_at = _redis_ms(redis_client)
    # While the round is played a deal is refused for that, not for the
    # next deal's seeds (whose due time would move on with each retry).
    again = tables.deal(t)
    assert (again.status_code, again.get_json()["code"]) == (409, "round-in-play")
    assert "Retry-After" not in again.headers
    following = tables.public(t)["next_deal"]
    # The next deal's seeds are due the same wait after its commitment.
    assert following["round"] == 2 and following["seeds_wait_ms"] == 1500
    assert due + 1500 <= following["seeds_due_ms"] <= dealt_at + 1500
    play_round(tables, redis_client, t, "sevens", 1)
    rec = record(tables, t, 1)
    assert rec["proof"]["seeds"] == ["only seat 0", None, None]
    assert referee("verify", stdin=json.dumps(rec)).returncode == 0
    # Lifting the requirement drops the wait.
    lifted = tables.client.put(url, json={"require_seeds": False}, headers=bearer(t.host))
    assert (lifted.get_json()["seeds_wait_ms"], lifted.get_json()["seeds_due_ms"]) == (None, None)
