"""Issue 40, the second sceptic: the deal is in no chain head a seat notes,
so the whole-record checks (``referee verify`` and ``POST
/v1/checks/deal-proof`` with a record) run every move again from the stated
deal: a changed deal under the genuine moves and links fails them. A record
of another rules version checks what needs no rules (each stated deck's
shuffle, rebuilt stocks included, and the chain) and says plainly what it
did not. Proofs spell their hex one way only and bound their seeds
(RULES.md 5.2)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from typing import Any

import redis

from service.games import GAMES, codec
from service.games.proof import DealRandom, key_of

from ..helpers import TableClient
from . import docs_verifier as doc
from .proof_play import swap_apart
from .test_record_checks import URL, may_i_reshuffled, relink, seeded_round


def verify(rec: dict[str, Any], *noted: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.cli", "verify", "-", *noted],
        input=json.dumps(rec),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def every_head(rec: dict[str, Any]) -> list[str]:
    """``--commitment`` and a ``--head`` for every link: all a seat could note."""
    heads = [f"--head={m['link']}" for m in rec["moves"]]
    return [f"--commitment={rec['proof']['commitment']}", *heads]


def redeal(rec: dict[str, Any]) -> None:
    """Deal ``rec`` again from its proof's secret and seeds and its deal
    request, as the referee would (the forger's honest-looking deal)."""
    game = GAMES[rec["game"]]
    proof = rec["proof"]
    rng = DealRandom(key_of(bytes.fromhex(proof["secret"]), proof["seeds"]))
    before = codec.decode(rec["start_state"])
    start = game.start_round(before, rng, rec["dealt_at_ms"], rec["deal_request"])
    rec["deal"] = game.deal_of(start.table)
    proof["shuffles"] = rng.shuffles


def assert_refused(tables: TableClient, rec: dict[str, Any], what: str) -> None:
    done = verify(rec, *every_head(rec))
    assert done.returncode == 1 and "is refused" in done.stdout, (what, done.stdout)
    answer = tables.client.post(URL, json={"record": rec}).get_json()
    assert answer["valid"] is False and answer["problems"], (what, answer)


def test_a_deal_changed_under_the_genuine_moves_fails_the_whole_record_checks(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    rec = seeded_round(tables, redis_client, "sevens")
    genuine = verify(rec, *every_head(rec))
    assert genuine.returncode == 0, genuine.stdout
    assert "- moves: every move is accepted" in genuine.stdout
    # Another seat's seed, the deal redone: every link and head still match.
    forged = copy.deepcopy(rec)
    forged["proof"]["seeds"][2] = "south 4"
    redeal(forged)
    assert forged["deal"] != rec["deal"]
    assert doc.check_proof(forged["proof"]) == []
    assert_refused(tables, forged, "another seat's seed, the deal redone")
    # Relabelled as the host's deal (no shuffle), with hands changed.
    forged = copy.deepcopy(rec)
    # The first card played changes hands: the genuine moves cannot hold.
    hands = [list(h) for h in rec["deal"]["hands"]]
    first = next(m for m in rec["moves"] if m["move"] == "play")
    seat, other = first["seat"], (first["seat"] + 1) % len(hands)
    mine = hands[seat].index(first["card"])
    hands[seat][mine], hands[other][0] = hands[other][0], hands[seat][mine]
    forged["deal_request"] = {"hands": hands}
    forged["submitted"] = forged["proof"]["submitted"] = True
    redeal(forged)
    assert forged["proof"]["shuffles"] == [] and forged["deal"] != rec["deal"]
    assert_refused(tables, forged, "relabelled submitted, hands changed")


def test_a_record_of_another_rules_version_checks_what_needs_no_rules(
    tables: TableClient,
) -> None:
    _, rec = may_i_reshuffled(tables)
    rec["rules_version"] = 2
    done = verify(rec)
    assert done.returncode == 3, done.stdout
    headline = done.stdout.splitlines()[0]
    assert "proof and chain of moves match" not in headline, headline
    assert "its starting deck, deal and moves were not" in headline, headline
    answer = tables.client.post(URL, json={"record": rec}).get_json()
    assert answer["valid"] is None, answer
    assert answer["checked"] == ["commitment", "deal-order", "rebuilt-stock-orders", "chain"]
    unchecked = [u["check"] for u in answer["unchecked"]]
    assert unchecked == ["starting-deck", "table", "deal", "rebuilt-stock-piles", "moves", "result"]
    assert len(set(unchecked)) == len(unchecked) and not set(unchecked) & set(answer["checked"])
    # A rebuilt stock whose order is not its stated pile's shuffle fails.
    proof = rec["proof"]
    at = proof["reshuffles"][0]["move"] - 1
    for step in (proof["reshuffles"][0], rec["moves"][at]):
        swap_apart(step["order"])
    relink(proof["secret"], proof["commitment"], rec["moves"], at)
    done = verify(rec)
    assert done.returncode == 1 and "/reshuffles/0/order" in done.stdout, done.stdout
    answer = tables.client.post(URL, json={"record": rec}).get_json()
    assert answer["valid"] is False, answer


def test_hex_has_one_spelling_seeds_are_bounded_and_commutes_is_boolean(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    rec = seeded_round(tables, redis_client, "classic")
    proof = rec["proof"]
    changes = {
        "upper-case commitment": lambda f: f["proof"].update(
            commitment=proof["commitment"].upper()
        ),
        "upper-case secret": lambda f: f["proof"].update(secret=proof["secret"].upper()),
        "empty seed": lambda f: f["proof"]["seeds"].__setitem__(1, ""),
        "seed of 129 characters": lambda f: f["proof"]["seeds"].__setitem__(1, "s" * 129),
    }
    commuting = next(i for i, m in enumerate(rec["moves"]) if m.get("commutes"))
    changes["commutes: 1"] = lambda f: f["moves"][commuting].update(commutes=1)
    for what, change in changes.items():
        forged = copy.deepcopy(rec)
        change(forged)
        assert verify(forged).returncode == 1, what
        answer = tables.client.post(URL, json={"record": forged}).get_json()
        assert answer["valid"] is False and answer["problems"], (what, answer)
        if what.startswith(("upper", "empty", "seed")):
            alone = tables.client.post(URL, json={"proof": forged["proof"]}).get_json()
            assert alone["valid"] is False, (what, alone)


def test_rebuilt_stocks_after_a_gap_are_unchecked_and_not_checked(tables: TableClient) -> None:
    _, rec = may_i_reshuffled(tables)
    last = rec["proof"]["reshuffles"][-1]["move"]
    rec["missing"] = [{"after_move": last - 1, "writes": 1, "seats": []}]
    rec["complete"] = False
    answer = tables.client.post(URL, json={"record": rec}).get_json()
    assert answer["valid"] is None and answer["problems"] == [], answer
    assert "rebuilt-stock-piles" not in answer["checked"], answer
    unchecked = [u["check"] for u in answer["unchecked"]]
    assert unchecked == ["rebuilt-stock-piles", "moves", "result"], answer


def test_a_record_check_counts_a_unit_per_started_250_moves_it_runs(
    redis_server: Any, tables: TableClient
) -> None:
    # Running every move again is some 0.15 ms a move: a 300-move record
    # costs its caller 2 units of RATE_LIMIT_RECORD_CHECKS, a short one 1.
    from service import create_app
    from tests.conftest import settings_for

    from .test_limits import client_at

    _, rec = may_i_reshuffled(tables, reshuffles=1)
    rec["moves"] = (rec["moves"] * 300)[:300]
    app = create_app(settings_for(redis_server.url, rate_limit_record_checks="3/minute"))
    caller = client_at(app, "10.40.3.3")
    assert caller.post(URL, json={"record": rec}).status_code == 200
    refused = caller.post(URL, json={"record": rec})
    assert (refused.status_code, refused.get_json()["code"]) == (429, "rate-limited")
    short = {**rec, "moves": rec["moves"][:10]}
    other = client_at(app, "10.40.4.4")
    assert [other.post(URL, json={"record": short}).status_code for _ in range(2)] == [200, 200]
