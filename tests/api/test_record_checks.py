"""Issue 40's "done when": a verifier written from docs/guide/deal-proofs.md
alone (tests/api/docs_verifier.py, standard library only), ``referee
verify`` and ``POST /v1/checks/deal-proof`` agree on a round of each game
with every seat seeded and on a May I? round with two rebuilt stocks, and
all three refuse each forgery: a forged starting deck, a changed seed, a
changed rebuilt stock, and a move dropped, added or changed (a commuting
pass included). Also: a round the host ends is shown at once in every game
(RULES.md 5.2), a record of another rules version has its own exit status,
and a finished record carries a strong ETag, a long Cache-Control and is
compressed when asked (issue 39)."""

from __future__ import annotations

import copy
import gzip
import hashlib
import hmac
import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest
import redis

from ..helpers import Table, TableClient, bearer
from . import docs_verifier as doc
from .proof_play import SETUPS, play_round, record, seed_all

URL = "/v1/checks/deal-proof"


def referee(command: str, rec: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.cli", command, "-"],
        input=json.dumps(rec),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def three(tables: TableClient, rec: dict[str, Any]) -> tuple[list[str], int, dict[str, Any]]:
    """The document's verifier's problems, ``referee verify``'s status and
    the endpoint's answer for ``rec``."""
    answer = tables.client.post(URL, json={"record": rec})
    assert answer.status_code == 200, answer.get_data()
    return doc.check_record(rec), referee("verify", rec).returncode, answer.get_json()


def assert_all_accept(tables: TableClient, rec: dict[str, Any]) -> None:
    found, status, answer = three(tables, rec)
    assert found == [] and status == 0 and answer["valid"] is True, (found, status, answer)
    assert doc.check_proof(rec["proof"]) == []
    alone = tables.client.post(URL, json={"proof": rec["proof"]}).get_json()
    assert alone["valid"] is True, alone


def assert_all_refuse(tables: TableClient, rec: dict[str, Any], what: str) -> None:
    found, status, answer = three(tables, rec)
    assert found and status == 1 and answer["valid"] is False, (what, found, status, answer)


def relink(secret: str, commitment: str, moves: list[dict[str, Any]], upto: int) -> None:
    """Give ``moves[upto]`` the link the document's chain gives it where it
    stands (a forger who knows the revealed secret), leaving every other."""
    key = hmac.new(bytes.fromhex(secret), b"card-referee/moves/v2", hashlib.sha256).digest()
    head, pending = commitment, []
    for i, move in enumerate(moves[: upto + 1]):
        text = json.dumps(
            {k: v for k, v in move.items() if k != "link"}, sort_keys=True, separators=(",", ":")
        )
        covered = "" if move.get("commutes") else "".join(p + "\n" for p in pending)
        link = hmac.new(key, (head + "\n" + covered + text).encode(), hashlib.sha256).hexdigest()
        if i == upto:
            move["link"] = link
        if move.get("commutes"):
            pending.append(move["link"])
        else:
            head, pending = move["link"], []


def seeded_round(tables: TableClient, r: redis.Redis, variant: str) -> dict[str, Any]:
    t = tables.create(4, variant=variant, **SETUPS[variant])
    seed_all(tables, t, ["north", "ëast", "south 3", "west!"])
    assert tables.deal(t).status_code == 201
    play_round(tables, r, t, variant, 1)
    rec = record(tables, t, 1)
    assert rec["proof"]["seeds"] == ["north", "ëast", "south 3", "west!"]
    return rec


def may_i_reshuffled(tables: TableClient, reshuffles: int = 2) -> tuple[Table, dict[str, Any]]:
    """A May I? round in which nobody lays down (each seat declines, draws
    and discards what it drew) until the stock was rebuilt ``reshuffles``
    times; then the host ends it (abandoned, shown at once)."""
    t = tables.create(4, variant="may-i", may_i_window_ms=0)
    seed_all(tables, t, ["a", "b", "c", "d"])
    assert tables.deal(t).status_code == 201
    rebuilt, stock = 0, None
    for _ in range(600):
        view = tables.public(t)
        rnd = view["round"]
        if stock is not None and rnd["stock_size"] > stock:
            rebuilt += 1  # the stock grew: it was rebuilt from the pile
        stock = rnd["stock_size"]
        seat, number = rnd["on_turn"], rnd["move"]
        token = bearer(t.seats[seat])
        if rnd["step"] == "draw":
            body: dict[str, Any] = {"decline": True}
        elif rnd["step"] == "stock":
            body = {"draw": True}
        else:
            hand = tables.client.get(f"{t.url}/seats/{seat}", headers=token).get_json()["hand"]
            body = {"discard": hand[-1]}
        res = tables.client.put(f"{t.url}/rounds/1/moves/{number}", json=body, headers=token)
        assert res.status_code == 200, res.get_json()
        if rebuilt >= reshuffles and rnd["step"] == "play":
            break
    assert rebuilt >= reshuffles
    done = tables.client.post(f"{t.url}/finish", headers=bearer(t.host))
    assert done.status_code == 200, done.get_json()
    rec = record(tables, t, 1)
    assert rec["abandoned"] is True and len(rec["proof"]["reshuffles"]) >= reshuffles
    # The head anyone saw is the record's, rebuilt stocks and all.
    witnessed = tables.public(t)["move_chain"]
    proof = rec["proof"]
    assert doc.chain(proof["secret"], proof["commitment"], rec["moves"])[0] == witnessed["head"]
    assert witnessed["moves"] == sum(1 for m in rec["moves"] if not m.get("commutes"))
    return t, rec


def forgeries(rec: dict[str, Any]) -> dict[str, Callable[[dict[str, Any]], None]]:
    """Each forgery of issue 40 as a change of a record, in place."""
    proof = rec["proof"]
    key = doc.key_of(proof["secret"], proof["seeds"])

    def forged_deck(f: dict[str, Any]) -> None:
        # Another starting order, shuffled honestly into another deal.
        step = f["proof"]["shuffles"][0]
        step["deck"] = list(reversed(step["deck"]))
        step["order"] = doc.shuffle(key, step["label"], step["deck"])
        seats = len(f["seats"])
        dealt = doc.deal_of(f["game"], step["order"], f["result"]["dealer"], seats, f["options"])
        f["deal"] = dealt

    def changed_seed(f: dict[str, Any]) -> None:
        f["proof"]["seeds"][2] = "south 4"

    found: dict[str, Callable[[dict[str, Any]], None]] = {
        "forged starting deck": forged_deck,
        "changed seed": changed_seed,
    }
    moves = rec["moves"]
    commuting = [i for i, m in enumerate(moves) if m.get("commutes")]
    if commuting:
        first = commuting[0]

        def dropped_pass(f: dict[str, Any]) -> None:
            del f["moves"][first]

        def added_pass(f: dict[str, Any]) -> None:
            extra = copy.deepcopy(f["moves"][first])
            extra["at_ms"] += 1
            f["moves"].insert(first + 1, extra)
            relink(proof["secret"], proof["commitment"], f["moves"], first + 1)

        def changed_pass(f: dict[str, Any]) -> None:
            move = f["moves"][first]
            move["at_ms"] += 1
            relink(proof["secret"], proof["commitment"], f["moves"], first)

        found.update(
            {
                "dropped commuting move": dropped_pass,
                "added commuting move": added_pass,
                "changed commuting move (its link recomputed)": changed_pass,
            }
        )
    plain = next(i for i, m in enumerate(moves) if not m.get("commutes") and m["by"] == "seat")

    def dropped_move(f: dict[str, Any]) -> None:
        del f["moves"][plain]

    def changed_move(f: dict[str, Any]) -> None:
        f["moves"][plain]["at_ms"] += 1
        relink(proof["secret"], proof["commitment"], f["moves"], plain)

    found.update({"dropped move": dropped_move, "changed move (its link recomputed)": changed_move})
    return found


@pytest.mark.parametrize("variant", list(SETUPS))
def test_a_seeded_round_agrees_in_all_three_checks_and_every_forgery_fails_them(
    tables: TableClient, redis_client: redis.Redis, variant: str
) -> None:
    rec = seeded_round(tables, redis_client, variant)
    assert rec["record_version"] == 2 and rec["rules_version"] == 1 and rec["release"]
    assert {m["by"] for m in rec["moves"]} == {"seat"}
    if variant == "classic":
        assert any(m.get("commutes") for m in rec["moves"]), "no pass commuted"
    assert_all_accept(tables, rec)
    for what, forge in forgeries(rec).items():
        forged = copy.deepcopy(rec)
        forge(forged)
        assert_all_refuse(tables, forged, what)
    # A forged starting deck fails the proof alone too (the document's and
    # the endpoint's), as issue 40's High finding asks.
    forged = copy.deepcopy(rec)
    forgeries(rec)["forged starting deck"](forged)
    assert "starting deck" in doc.check_proof(forged["proof"])
    alone = tables.client.post(URL, json={"proof": forged["proof"]}).get_json()
    assert alone["valid"] is False and "/shuffles/0/deck" in alone["problems"][0], alone


def test_a_may_i_round_with_two_rebuilt_stocks_agrees_and_a_changed_one_fails(
    tables: TableClient,
) -> None:
    _, rec = may_i_reshuffled(tables)
    entries = [m for m in rec["moves"] if m["move"] == "reshuffle"]
    assert [m["by"] for m in entries] == ["referee"] * len(entries)
    assert [e["label"] for e in entries][:2] == [
        "may-i:round:1:reshuffle:0",
        "may-i:round:1:reshuffle:1",
    ]
    assert_all_accept(tables, rec)
    done = referee("replay", rec)
    assert done.returncode == 0, done.stdout + done.stderr
    proof = rec["proof"]
    at = proof["reshuffles"][1]["move"] - 1

    def swapped(f: dict[str, Any], reorder: bool) -> None:
        for step in (f["proof"]["reshuffles"][1], f["moves"][at]):
            step["deck"][0], step["deck"][1] = step["deck"][1], step["deck"][0]
            if reorder:
                key = doc.reshuffle_key(proof["secret"], proof["seeds"])
                step["order"] = doc.shuffle(key, step["label"], step["deck"])
        if reorder:
            relink(proof["secret"], proof["commitment"], f["moves"], at)

    for reorder in (False, True):
        forged = copy.deepcopy(rec)
        swapped(forged, reorder)
        assert_all_refuse(tables, forged, f"changed rebuilt stock, reordered: {reorder}")
    # The proof alone catches a changed pile whose order was kept.
    forged = copy.deepcopy(rec)
    swapped(forged, False)
    alone = tables.client.post(URL, json={"proof": forged["proof"]}).get_json()
    assert alone["valid"] is False and "/reshuffles/1/order" in alone["problems"][0], alone
    for what, forge in forgeries(rec).items():
        if what == "changed seed":
            forged = copy.deepcopy(rec)
            forge(forged)
            assert_all_refuse(tables, forged, what)


@pytest.mark.parametrize("variant", list(SETUPS))
def test_a_round_the_host_ends_is_shown_at_once_marked_abandoned(
    tables: TableClient, redis_client: redis.Redis, variant: str
) -> None:
    t = tables.create(4, variant=variant, **SETUPS[variant])
    assert tables.deal(t).status_code == 201
    early = tables.client.get(f"{t.url}/rounds/1/record")
    assert (early.status_code, early.get_json()["code"]) == (409, "round-not-over")
    done = tables.client.post(f"{t.url}/finish", headers=bearer(t.host))
    assert done.status_code == 200, done.get_json()
    rec = record(tables, t, 1)
    assert rec["abandoned"] is True and rec["result"]["abandoned"] is True
    assert [(m["move"], m["by"]) for m in rec["moves"]] == [("finish", "host")]
    assert rec["complete"] is True and rec["missing"] == []
    assert_all_accept(tables, rec)
    done = referee("replay", rec)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_record_of_another_rules_version_says_so_with_its_own_status(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    rec = seeded_round(tables, redis_client, "sevens")
    rec["rules_version"] = 7
    for command in ("verify", "replay"):
        done = referee(command, rec)
        assert done.returncode == 3, done.stdout + done.stderr
        assert done.stdout.startswith("OTHER RULES"), done.stdout
        assert "rules version 7" in done.stdout and "MISMATCH" not in done.stdout
    # Its chain is still checked: a changed move is a mismatch (1), not 3.
    rec["moves"][0]["at_ms"] += 1
    assert referee("verify", rec).returncode == 1


def test_a_finished_record_has_a_strong_etag_a_long_cache_life_and_is_compressed(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4, **SETUPS["classic"])
    assert tables.deal(t).status_code == 201
    play_round(tables, redis_client, t, "classic", 1)
    url = f"{t.url}/rounds/1/record"
    plain = tables.client.get(url)
    assert plain.status_code == 200
    etag = plain.headers["ETag"]
    assert etag.startswith('"') and not etag.startswith("W/"), etag
    assert plain.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert "Accept-Encoding" in plain.headers["Vary"]
    assert "Content-Encoding" not in plain.headers
    again = tables.client.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.headers["ETag"] == etag and not again.data
    assert again.headers["Cache-Control"] == plain.headers["Cache-Control"]
    packed = tables.client.get(url, headers={"Accept-Encoding": "gzip"})
    assert packed.headers["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(packed.data)) == plain.get_json()
    assert len(packed.data) < len(plain.data) / 2
    coded = packed.headers["ETag"]
    assert coded != etag and not coded.startswith("W/")
    revalidated = tables.client.get(
        url, headers={"If-None-Match": coded, "Accept-Encoding": "gzip"}
    )
    assert revalidated.status_code == 304 and revalidated.headers["ETag"] == coded
    # The next round changes nothing of it.
    assert tables.deal(t).status_code == 201
    assert tables.client.get(url).headers["ETag"] == etag
    # The process rendered and compressed it once: later readers get those.
    from service.resources.proofs.round_records import COMPRESSED, RENDERED

    kept = etag.strip('"')
    assert RENDERED.get(kept) == plain.data
    assert gzip.decompress(COMPRESSED.get(f"gzip;{kept}") or b"") == plain.data
