"""Deals anyone can check and rounds anyone can replay (RULES.md 5.2, 4.9,
2.11): a round of each game where every seat seeded the deal, checked by
``referee verify`` / ``referee replay`` and by an independent
re-implementation written from docs/guide/deal-proofs.md (stdlib hmac and
hashlib only, no service code); a tampered record fails them."""

from __future__ import annotations

import copy
import hashlib
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
from . import docs_verifier
from .docs_verifier import chain as doc_chain_of

# --- the independent re-implementation (from the document only) -----------
from .docs_verifier import check_proof as doc_check_proof
from .docs_verifier import commitment as doc_commitment
from .docs_verifier import key_of as doc_key
from .docs_verifier import shuffle as doc_shuffle
from .proof_play import SETUPS, play_round, record, seed_all, swap_apart
from .test_inputs import chunked


def doc_check(proof: dict[str, Any]) -> bool:
    """The document's check of a proof alone."""
    return not doc_check_proof(proof)


def doc_chain(proof: dict[str, Any], moves: list[dict[str, Any]]) -> str | None:
    """The document's chain of moves: the head after the last move, or
    ``None`` when a move's ``link`` is not the chain's."""
    return doc_chain_of(proof["secret"], proof["commitment"], moves)[0]


# --- the document's test vectors ------------------------------------------

DOC = Path(__file__).parents[2] / "docs" / "guide" / "deal-proofs.md"

CHECKED = ["commitment", "starting-deck", "deal-order", "table", "deal", "chain", "moves", "result"]
"""What the endpoint checks of a whole record of a shuffled deal with no rebuilt stock."""


def vectors() -> list[dict[str, Any]]:
    """The JSON blocks of the document's test vectors section."""
    text = DOC.read_text()
    section = text.split("## Test vectors", 1)[1]
    blocks = section.split("```json")[1:]
    return [json.loads(b.split("```", 1)[0]) for b in blocks]


def biased_shuffle(key: bytes, label: str, deck: list[str]) -> list[str]:
    """A shuffle that takes ``x mod m`` without rejecting (the bias the
    document's step 5 avoids): the rejection vector must tell it apart."""
    blocks, out, order = docs_verifier.output(key, label), b"", list(deck)
    for j in range(len(order) - 1, 0, -1):
        if len(out) < 4:
            out += next(blocks)
        x, out = int.from_bytes(out[:4], "big"), out[4:]
        i = x % (j + 1)
        order[j], order[i] = order[i], order[j]
    return order


def test_the_documents_vectors_hold_for_the_independent_implementation() -> None:
    found = vectors()
    kinds = {"shuffle": 0, "rejection": 0, "game": 0, "reshuffle": 0}
    for v in found:
        if "reshuffle_key" in v:
            kinds["reshuffle"] += 1
            key = docs_verifier.reshuffle_key(v["secret"], v["seeds"])
            assert key.hex() == v["reshuffle_key"]
            assert doc_shuffle(key, v["label"], v["deck"]) == v["order"]
            continue
        assert doc_commitment(v["secret"]) == v["commitment"]
        key = doc_key(v["secret"], v["seeds"])
        assert doc_shuffle(key, v["label"], v["deck"]) == v["order"]
        if "game" in v:
            kinds["game"] += 1
            assert v["deck"] == docs_verifier.starting_deck(v["game"], v["options"], v["seats"])
            dealt = docs_verifier.deal_of(
                v["game"], v["order"], v["dealer"], v["seats"], v["options"]
            )
            sorted_deal = {**v["deal"], "hands": [sorted(h) for h in v["deal"]["hands"]]}
            if "set_aside" in sorted_deal:
                sorted_deal["set_aside"] = sorted(sorted_deal["set_aside"])
            assert dealt == sorted_deal
            continue
        assert key.hex() == v["key"]
        if "rejected" in v:
            kinds["rejection"] += 1
            rejected = v["rejected"]
            assert rejected["x"] >= rejected["limit"] == 2**32 - 2**32 % rejected["below"]
            assert biased_shuffle(key, v["label"], v["deck"]) != v["order"]
        else:
            kinds["shuffle"] += 1
    games = {v["game"] for v in found if "game" in v}
    assert games == {"my-ship-sails", "sevens", "may-i"}, games
    assert kinds == {"shuffle": 3, "rejection": 1, "game": 3, "reshuffle": 1}, kinds


def document_code() -> dict[str, Any]:
    """The functions of the document's Python block, as a reader copies it."""
    code = DOC.read_text().split("```python", 1)[1].split("```", 1)[0]
    found: dict[str, Any] = {}
    exec(compile(code, str(DOC), "exec"), found)  # noqa: S102 - the document's own code
    return found


def test_the_documents_python_runs_and_holds_to_its_vectors() -> None:
    doc = document_code()
    for v in vectors():
        if "reshuffle_key" in v:
            key = doc["reshuffle_key"](v["secret"], v["seeds"])
            assert key.hex() == v["reshuffle_key"]
        else:
            assert doc["commitment"](v["secret"]) == v["commitment"]
            key = doc["key_of"](v["secret"], v["seeds"])
        assert doc["shuffle"](key, v["label"], v["deck"]) == v["order"]
    first = vectors()[0]
    assert doc["reshuffle_key"](first["secret"], first["seeds"]).hex() == (
        "fb6447cfa309d0ba43d7e27822619aa41a642ba01e1f93e908c64979bd624312"
    )


def test_the_documents_vectors_hold_for_the_service() -> None:
    from service.games import GAMES
    from service.games.drbg import shuffled
    from service.games.proof import DealRandom, commitment, key_of, reshuffle_key

    for v in vectors():
        secret = bytes.fromhex(v["secret"])
        if "reshuffle_key" in v:
            key = reshuffle_key(secret, v["seeds"])
            assert key.hex() == v["reshuffle_key"]
            assert shuffled(key, v["label"], v["deck"]) == v["order"]
            continue
        assert commitment(secret) == v["commitment"]
        assert shuffled(key_of(secret, v["seeds"]), v["label"], v["deck"]) == v["order"]
        if "game" in v:
            game = GAMES[v["game"]]
            names = [f"P{i}" for i in range(v["seats"])]
            made = game.create_table(v["variant"], v["options"], names, v["dealer"], None)
            assert game.starting_deck is not None
            assert list(game.starting_deck(made.table)) == v["deck"]
            rng = DealRandom(key_of(secret, v["seeds"]))
            dealt = game.start_round(made.table, rng, 0, {})
            assert game.deal_of(dealt.table) == v["deal"]
            assert rng.shuffles[0]["order"] == v["order"]
        else:
            assert key_of(secret, v["seeds"]).hex() == v["key"]


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
    # The document's own Python block finds the same head.
    head = document_code()["chain"](proof["secret"], proof["commitment"], rec["moves"])
    assert head == witnessed["head"]
    text = json.dumps(rec)
    done = referee("verify", stdin=text)
    assert done.returncode == 0, done.stdout + done.stderr
    done = referee("replay", stdin=text)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(rec['moves'])} moves" in done.stdout
    check = tables.client.post("/v1/checks/deal-proof", json={"record": rec})
    assert check.get_json() == {
        "valid": True,
        "problems": [],
        "checked": [*CHECKED[:3], *(["rebuilt-stock-orders"] if proof["reshuffles"] else []),
                    *CHECKED[3:5], *(["rebuilt-stock-piles"] if proof["reshuffles"] else []),
                    "chain", "moves", "result"],
        "unchecked": [],
        "submitted": False,
        "incomplete": [],
    }  # fmt: skip

    swapped = copy.deepcopy(rec)
    swap_apart(swapped["proof"]["shuffles"][0]["order"])
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
    assert sent.get_json() == {
        "valid": True,
        "problems": [],
        "checked": CHECKED,
        "unchecked": [],
        "submitted": False,
        "incomplete": [],
    }
    # Sent chunked, it is not read (411: a 1 MiB proof in 1-byte chunks cost 3 s).
    assert chunked(tables.client, "POST", url, padded).status_code == 411
    # Another check's body stays at 64 KiB.
    other = tables.client.post("/v1/checks/deal", data=padded, content_type="application/json")
    assert other.status_code == 413 and other.get_json()["code"] == "body-too-large"
    assert "65536 bytes" in other.get_json()["detail"]
    limit = 1024 * 1024
    exact = text[:-1] + b" " * (limit - len(text)) + b"}"
    assert tables.client.post(url, data=exact, content_type="application/json").status_code == 200
    over = exact[:-1] + b" }"
    answer = tables.client.post(url, data=over, content_type="application/json")
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
    # Rebuilt stocks are shuffled again too: they count with the deal's.
    rebuilt = {**rec["proof"], "reshuffles": [shuffle] * 200}
    refused({"proof": rebuilt}, "/proof", "at most 200 shuffles, not 201")
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
    said = answer.get_json()["problems"]
    assert said == ["/secret: the secret is not 32 bytes in lower-case hex"]


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
    assert answer.get_json() == {
        "valid": True,
        "problems": [],
        "checked": CHECKED,
        "unchecked": [],
        "submitted": False,
        "incomplete": [],
    }


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
    assert check.get_json() == {
        "valid": True,
        "problems": [],
        "checked": ["commitment", "table", "deal", "chain", "moves", "result"],
        "unchecked": [],
        "submitted": True,
        "incomplete": [],
    }
    # Relabelled as ended by the host: its result says otherwise, and so does
    # the replay (issue 39, sixteenth attacker: only the result's flag was compared).
    relabelled = {**rec, "abandoned": True}
    check = tables.client.post("/v1/checks/deal-proof", json={"record": relabelled})
    assert check.get_json()["valid"] is False
    assert check.get_json()["problems"] == [
        "the record says abandoned: true; the replayed round was played to its end"
    ]
    assert referee("replay", stdin=json.dumps(relabelled)).returncode == 1


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


def test_the_documents_decks_and_dealing_give_every_presets_deal() -> None:
    # For every preset and seat count: the starting deck and the deal the
    # document's words give are the service's.
    from service.games import GAMES
    from service.games.proof import DealRandom, key_of

    checked = 0
    for game in GAMES.values():
        for preset in game.presets.values():
            for seats in range(preset.min_players, preset.max_players + 1):
                names = [f"P{i}" for i in range(seats)]
                made = game.create_table(preset.name, {}, names, seats - 1, None)
                view = game.public_view(made.table, 0)
                rng = DealRandom(key_of(bytes(32), [f"s{seats}"] * seats))
                dealt = game.start_round(made.table, rng, 0, {})
                deck = docs_verifier.starting_deck(game.name, view["options"], seats)
                assert rng.shuffles[0]["deck"] == deck, (preset.name, seats)
                order = rng.shuffles[0]["order"]
                mine = docs_verifier.deal_of(game.name, order, seats - 1, seats, view["options"])
                theirs = game.deal_of(dealt.table)
                theirs["hands"] = [sorted(h) for h in theirs["hands"]]
                if "set_aside" in theirs:
                    theirs["set_aside"] = sorted(theirs["set_aside"])
                assert mine == theirs, (preset.name, seats)
                checked += 1
    assert checked > 40
