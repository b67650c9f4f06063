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
import time
from collections.abc import Callable
from typing import Any

import pytest
import redis

from ..helpers import Table, TableClient, bearer
from . import docs_verifier as doc
from .proof_play import SETUPS, play_round, record, seed_all, swap_apart
from .test_deal_proofs import document_code

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
    assert answer["unchecked"] == [] and "chain" in answer["checked"], answer
    rebuilt = bool(rec["proof"]["reshuffles"])
    assert ("rebuilt-stock-piles" in answer["checked"]) is rebuilt, answer
    assert doc.check_proof(rec["proof"]) == []
    alone = tables.client.post(URL, json={"proof": rec["proof"]}).get_json()
    if rebuilt:
        # A proof alone cannot show the piles (they follow from the moves):
        # never valid: true for what was not checked.
        assert alone["valid"] is None and alone["problems"] == [], alone
        assert [u["check"] for u in alone["unchecked"]] == ["rebuilt-stock-piles"], alone
        assert "rebuilt-stock-piles" not in alone["checked"], alone
    else:
        assert alone["valid"] is True and alone["unchecked"] == [], alone


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


def rechain(rec: dict[str, Any]) -> None:
    """Recompute every link of ``rec`` (a forger who knows the revealed
    secret): only heads noted during the round, or a check that derives
    what the moves imply, can tell the forgery."""
    proof = rec["proof"]
    for i in range(len(rec["moves"])):
        relink(proof["secret"], proof["commitment"], rec["moves"], i)


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
    # Every move the seats' own, but the referee's rebuilding of an emptied
    # May I? stock (a long round, one deal in some dozens).
    assert {m["by"] for m in rec["moves"] if m["move"] != "reshuffle"} == {"seat"}
    assert {m["by"] for m in rec["moves"] if m["move"] == "reshuffle"} <= {"referee"}
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
            swap_apart(step["deck"])
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


def pile_forgeries(rec: dict[str, Any]) -> dict[str, Callable[[dict[str, Any]], None]]:
    """Issue 40's changed reshuffle inputs: each rebuilds stock 1 from a
    pile the moves did not leave, states that pile in the proof and the
    record alike, shuffles it honestly and recomputes every link (the
    secret is public): nothing but the pile derived from the moves shows it."""
    proof = rec["proof"]
    key = doc.reshuffle_key(proof["secret"], proof["seeds"])
    at = proof["reshuffles"][1]["move"] - 1
    pile = proof["reshuffles"][1]["deck"]
    outside = next(c for c in doc.STANDARD if c not in pile)

    def restated(f: dict[str, Any], deck: list[str]) -> None:
        for step in (f["proof"]["reshuffles"][1], f["moves"][at]):
            step["deck"] = list(deck)
            step["order"] = doc.shuffle(key, step["label"], step["deck"])
        rechain(f)

    return {
        "changed pile": lambda f: restated(f, [*pile[:-1], outside]),
        "pile reordered": lambda f: restated(f, list(reversed(pile))),
        "one card swapped": lambda f: restated(f, [pile[1], pile[0], *pile[2:]]),
    }


def test_a_rebuilt_stock_from_a_changed_pile_fails_all_three_checks(
    tables: TableClient,
) -> None:
    _, rec = may_i_reshuffled(tables)
    for what, forge in pile_forgeries(rec).items():
        forged = copy.deepcopy(rec)
        forge(forged)
        # Consistent in itself: the proof alone, and the chain, hold.
        assert doc.check_proof(forged["proof"]) == [], what
        assert doc.chain(rec["proof"]["secret"], rec["proof"]["commitment"], forged["moves"])[0]
        found, status, answer = three(tables, forged)
        assert found == [
            f"reshuffle at move {rec['proof']['reshuffles'][1]['move']}: not the pile "
            "the moves leave"
        ], (what, found)
        assert status == 1 and answer["valid"] is False, (what, status, answer)
        assert any("does not shuffle the discard pile" in p for p in answer["problems"]), answer
        done = referee("verify", forged)
        assert "rebuilt stock 1" in done.stdout and done.stdout.startswith("MISMATCH"), done.stdout
        # The proof alone says it cannot tell, never that it is valid.
        alone = tables.client.post(URL, json={"proof": forged["proof"]}).get_json()
        assert alone["valid"] is None and alone["unchecked"][0]["check"] == "rebuilt-stock-piles"


def may_i_asked(tables: TableClient) -> tuple[Table, dict[str, Any]]:
    """A May I? round (4 seats, one deck: a stock of 11) with May I? asks in
    it, one of them denied (the denier takes the card and stock cards) and
    one given when the stock is empty, so that its stock cards rebuild the
    stock from the pile under the asked card; then a draw rebuilds it again.
    Nobody lays down; a window nobody asks in is waited out by reading the
    table until it closed."""
    t = tables.create(4, variant="may-i", decks=1, may_i_window_ms=800)
    seed_all(tables, t, ["n", "e", "s", "w"])
    assert tables.deal(t).status_code == 201
    asked_empty = denied = False
    rebuilt, stock = 0, None
    for _ in range(2000):
        rnd = tables.public(t)["round"]
        if stock is not None and rnd["stock_size"] > stock:
            rebuilt += 1  # the stock grew: it was rebuilt from the pile
        stock = rnd["stock_size"]
        seat, number = rnd["on_turn"], rnd["move"]
        token = bearer(t.seats[seat])
        offer = rnd["may_i"]
        if asked_empty and rebuilt >= 2 and rnd["step"] == "play":
            break
        if rnd["step"] == "may-i" and offer is not None and offer["asker"] is None:
            ask = (not denied and rnd["stock_size"] > 2) or (
                not asked_empty and rnd["stock_size"] == 0 and rnd["discard_size"] >= 3
            )
            if not ask:
                time.sleep(0.05)  # the window closes by Redis's clock; read again
                continue
            asker = next(
                s
                for s in range(4)
                if "ask"
                in tables.client.get(f"{t.url}/seats/{s}", headers=bearer(t.seats[s])).get_json()[
                    "may"
                ]
            )
            got = tables.client.post(
                f"{t.url}/rounds/1/may-i",
                json={"offer": offer["offer"]},
                headers=bearer(t.seats[asker]),
            )
            if got.status_code == 409 and got.get_json()["code"] == "may-i-closed":
                continue  # a busy machine let the window close first: the next one
            assert got.status_code == 200, got.get_json()
            for other in range(4):
                if other in (seat, asker):
                    continue
                allow = denied or rnd["stock_size"] == 0
                res = tables.client.put(
                    f"{t.url}/rounds/1/may-i/{offer['offer']}/answers/{other}",
                    json={"allow": allow},
                    headers=bearer(t.seats[other]),
                )
                closed = res.status_code == 409 and res.get_json()["code"] == "may-i-closed"
                assert res.status_code == 200 or closed, res.get_json()
                denied = denied or (not allow and not closed)
            asked_empty = asked_empty or rnd["stock_size"] == 0
            continue
        if rnd["step"] == "may-i":
            time.sleep(0.05)
            continue
        if rnd["step"] == "draw":
            body: dict[str, Any] = {"decline": True}
        elif rnd["step"] == "stock":
            body = {"draw": True}
        else:
            hand = tables.client.get(f"{t.url}/seats/{seat}", headers=token).get_json()["hand"]
            body = {"discard": hand[-1].lower()}  # the record holds its canonical code
        res = tables.client.put(f"{t.url}/rounds/1/moves/{number}", json=body, headers=token)
        assert res.status_code == 200, res.get_json()
    assert asked_empty and denied
    done = tables.client.post(f"{t.url}/finish", headers=bearer(t.host))
    assert done.status_code == 200, done.get_json()
    return t, record(tables, t, 1)


def test_a_may_i_round_with_asks_derives_every_rebuilt_pile_and_agrees(
    tables: TableClient,
) -> None:
    _, rec = may_i_asked(tables)
    kinds = [m["move"] for m in rec["moves"]]
    assert kinds.count("reshuffle") >= 2 and "ask" in kinds and "answer" in kinds
    # A rebuilt stock right after an ask: the asked card left the pile first.
    first = kinds.index("reshuffle")
    assert "ask" in kinds[:first]
    discards = [m["arg"] for m in rec["moves"] if m.get("action") == "discard"]
    assert discards and all(c == c.upper() for c in discards), discards
    assert_all_accept(tables, rec)
    # The document's own Python block derives the same piles.
    piles = [r["deck"] for r in rec["proof"]["reshuffles"]]
    assert document_code()["rebuilt_piles"](rec) == piles
    done = referee("replay", rec)
    assert done.returncode == 0, done.stdout + done.stderr
    # An ask dropped from the pile's walk changes every pile after it.
    forged = copy.deepcopy(rec)
    del forged["moves"][kinds.index("ask")]
    gone = kinds.index("ask") + 1
    forged["proof"]["reshuffles"] = [
        {**r, "move": r["move"] - (r["move"] > gone)} for r in forged["proof"]["reshuffles"]
    ]
    rechain(forged)
    found, status, answer = three(tables, forged)
    assert any("not the pile the moves leave" in f for f in found), found
    assert status == 1 and answer["valid"] is False, answer


def test_verify_says_what_it_checked_and_checks_the_commitment_and_heads_noted(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4, variant="sevens")
    noted = tables.public(t)["next_deal"]["commitment"]
    assert tables.deal(t).status_code == 201
    play_round(tables, redis_client, t, "sevens", 1)
    head = tables.public(t)["move_chain"]["head"]
    rec = record(tables, t, 1)

    def verify(*options: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "service.cli", "verify", *options, "-"],
            input=json.dumps(rec),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )

    done = verify()
    assert done.returncode == 0 and done.stdout.startswith("OK "), done.stdout
    checked = done.stdout.split("Checked:\n", 1)[1].split("Not checked:\n", 1)
    names = [line[2:].split(":", 1)[0] for line in checked[0].splitlines()]
    assert names == [
        *("commitment", "starting-deck", "deal-order", "table", "deal", "chain", "moves"),
        "result",
    ]
    # It claims no more of the chain than heads noted during the round show.
    assert "the chain proves the moves only against heads noted" in checked[1], done.stdout
    assert "--head" in checked[1] and "--commitment" in checked[1]
    done = verify("--commitment", noted, "--head", head)
    assert done.returncode == 0, done.stdout
    assert "--commitment: the commitment you noted" in done.stdout
    assert "--head (1): each head you noted" in done.stdout
    other = "0" * 64
    done = verify("--commitment", other, "--head", other)
    assert done.returncode == 1 and done.stdout.startswith("MISMATCH"), done.stdout
    assert "the commitment you noted is not the record's" in done.stdout
    assert f"the head you noted, {other}, is no link of the record" in done.stdout


def test_a_revalidation_of_a_finished_record_reads_no_record(
    tables: TableClient, redis_client: redis.Redis, app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 39 M4: a 304 read and hashed the whole record (up to 1 MiB) to
    # find its ETag. A record nothing can change any more is now tagged by
    # what names it; a revalidation reads the table and whether the record
    # is kept, never the record.
    from service.edge.common import referee as referee_of
    from service.storage.store import records_key

    t = tables.create(4, **SETUPS["classic"])
    assert tables.deal(t).status_code == 201
    play_round(tables, redis_client, t, "classic", 1)
    url = f"{t.url}/rounds/1/record"
    plain = tables.client.get(url)
    etag = plain.headers["ETag"]
    assert tables.deal(t).status_code == 201  # round 1's record is folded now
    assert tables.client.get(url).headers["ETag"] == etag
    with app.app_context():
        store = referee_of().store

    def no_record_read(*_: Any) -> Any:
        raise AssertionError("a revalidation read the record")

    monkeypatch.setattr(store, "round_record", no_record_read)
    again = tables.client.get(url, headers={"If-None-Match": etag})
    assert (again.status_code, again.headers.get("ETag")) == (304, etag), again.get_data()
    assert again.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    coded = tables.client.get(url, headers={"If-None-Match": f'"{etag.strip(chr(34))}:gzip"'})
    assert coded.status_code == 304
    # A record no longer kept is 404, whatever tag the caller holds.
    redis_client.hdel(records_key(t.table_id), "1")
    gone = tables.client.get(url, headers={"If-None-Match": etag})
    assert (gone.status_code, gone.get_json()["code"]) == (404, "record-not-found")


def test_records_rendered_anew_are_charged_to_their_caller(
    redis_server: Any, redis_client: redis.Redis
) -> None:
    # Issue 39 M4: cycling through more records than a process keeps
    # rendered made every read a render (30 ms for 2,000 moves) on
    # anyone's anonymous budget (50/s). A render now costs the caller's
    # RATE_LIMIT_RECORD_CHECKS, a unit per 250 entries; a kept text or a
    # 304 costs nothing of it.
    from service import create_app
    from tests.conftest import settings_for

    from .test_limits import client_at

    app = create_app(settings_for(redis_server.url, rate_limit_record_checks="3/minute"))
    tables = TableClient(client_at(app, "10.39.4.4"))
    urls = []
    for _ in range(2):
        t = tables.create(4, **SETUPS["classic"])
        for number in (1, 2):
            assert tables.deal(t).status_code == 201
            play_round(tables, redis_client, t, "classic", number)
            urls.append(f"{t.url}/rounds/{number}/record")
    first = tables.client.get(urls[0])  # rendered: 1
    assert first.status_code == 200
    for _ in range(3):  # kept, or revalidated: nothing
        assert tables.client.get(urls[0]).status_code == 200
        etag = first.headers["ETag"]
        assert tables.client.get(urls[0], headers={"If-None-Match": etag}).status_code == 304
    assert tables.client.get(urls[1]).status_code == 200  # 2
    assert tables.client.get(urls[2]).status_code == 200  # 3
    refused = tables.client.get(urls[3])
    assert (refused.status_code, refused.get_json()["code"]) == (429, "rate-limited")
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    other = client_at(app, "10.39.5.5").get(urls[3])  # another caller's budget
    assert other.status_code == 200


def test_a_long_record_lets_others_go_on_every_few_moves(tables: TableClient) -> None:
    """A record's moves are run again with a pause every ``PAUSE_EVERY``
    (issue 39, fourth attacker: a 2,000-move record held a worker's loop for
    seconds; the endpoint's pause yields to the worker's other requests)."""
    from service.games.replay import PAUSE_EVERY, verify

    _, rec = may_i_reshuffled(tables)
    paused: list[int] = []
    report = verify(rec, pause=lambda: paused.append(1))
    assert report.problems == [] and "moves" in report.checked, report
    assert len(paused) == len(rec["moves"]) // PAUSE_EVERY > 0, (len(paused), len(rec["moves"]))
    assert verify(rec).checked == report.checked  # the same check without
