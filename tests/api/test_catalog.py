"""Variants and the stateless checks, which touch no storage."""

from __future__ import annotations

from typing import Any

import redis

from ..ship.test_engine import WORKED_EXAMPLE


def test_variants_list_every_preset_with_its_options(client: Any) -> None:
    listed = client.get("/v1/variants").get_json()["variants"]
    variants = {v["name"]: v for v in listed if v["game"] == "my-ship-sails"}
    assert list(variants) == [
        "classic",
        "circle",
        "mein-schiff",
        "pass-two",
        "pass-right",
        "alternate",
        "my-star-shines",
        "whehee",
        "foster",
        "ochse",
        "matrimony",
    ]
    assert variants["whehee"]["min_players"] == 3 and variants["whehee"]["max_players"] == 10
    assert variants["classic"]["options"]["match"] == {"target_wins": 5}
    assert variants["circle"]["options"]["claim_window_ms"] == 1500


def test_the_catalog_is_cacheable_and_a_matching_tag_is_304(client: Any) -> None:
    # Rendered once per process (issue 39, sixth attacker: 7 ms a read, and
    # within an address's budget a flood of it held every worker).
    for path in ("/v1/games", "/v1/variants"):
        first, again = client.get(path), client.get(path)
        assert first.status_code == again.status_code == 200
        assert first.data == again.data and first.mimetype == "application/json"
        etag = first.headers["ETag"]
        assert etag.startswith('"') and etag == again.headers["ETag"], etag
        assert first.headers["Cache-Control"] == "public, max-age=300"
        unchanged = client.get(path, headers={"If-None-Match": f'W/{etag}, "other"'})
        assert unchanged.status_code == 304 and unchanged.data == b""
        assert unchanged.headers["ETag"] == etag
        assert client.get(path, headers={"If-None-Match": '"other"'}).status_code == 200
    games = client.get("/v1/games").get_json()["games"]
    assert [g["name"] for g in games] == ["my-ship-sails", "sevens", "may-i"]
    assert games[1]["rules"] == "/docs/rules/sevens"


def stored_keys(redis_client: redis.Redis) -> set[bytes]:
    """Every key but the rate limiter's counters (a new one each second) and
    the active-table metric's shards, which earlier tests' apps flush in the
    background once a second (a flake in CI: one landed between two reads)."""
    return {
        k for k in redis_client.scan_iter() if not k.startswith((b"LIMITS:", b"referee:active:"))
    }


def test_check_deal_lists_problems_without_storing(client: Any, redis_client: redis.Redis) -> None:
    keys_before = stored_keys(redis_client)
    ok = client.post(
        "/v1/checks/deal", json={"variant": "circle", "players": 4, "hands": WORKED_EXAMPLE}
    )
    assert ok.get_json() == {
        "valid": True,
        "problems": [],
        "problems_total": 0,
        "hands": [
            ["4S", "AH", "KH", "8H", "5H", "2H", "QC"],
            ["9C", "8C", "7C", "6C", "5C", "4C", "3C"],
            ["8D", "7D", "6D", "5D", "4D", "3D", "2D"],
            ["7S", "6S", "5S", "3S", "2S", "JH", "9H"],
        ],
    }
    bad = client.post(
        "/v1/checks/deal", json={"variant": "classic", "players": 4, "hands": WORKED_EXAMPLE}
    )
    body = bad.get_json()
    assert bad.status_code == 200 and body["valid"] is False and body["hands"] is None
    assert {p["pointer"] for p in body["problems"]} >= {"/hands/0/3", "/hands/0/4", "/hands"}
    assert stored_keys(redis_client) == keys_before


def test_check_claim_says_why(client: Any) -> None:
    r = client.post(
        "/v1/checks/claim", json={"variant": "whehee", "players": 5, "hand": ["A♥", "10h", "2H"]}
    )
    assert r.get_json() == {"winning": True, "reason": "The hand holds 3 hearts.", "suits": ["H"]}
    r = client.post(
        "/v1/checks/claim",
        json={
            "variant": "classic",
            "players": 4,
            "hand": ["AH", "KH", "QH", "JH", "TH", "9H", "AS"],
        },
    )
    assert r.get_json()["reason"] == "The hand holds 6 hearts; 7 cards of one suit are needed."
    r = client.post("/v1/checks/claim", json={"players": 4, "hand": ["AH", "ZZ"]})
    assert r.status_code == 422 and r.get_json()["errors"][0]["pointer"] == "/hand/1"


def test_check_exchange_resolves_one_simultaneous_exchange(client: Any) -> None:
    body = {
        "variant": "circle",
        "hands": WORKED_EXAMPLE,
        "passes": [["4S"], ["9C"], ["8D"], ["9H"]],
    }
    r = client.post("/v1/checks/exchange", json=body).get_json()
    assert r["direction"] == "left"
    assert r["received"] == [["9H"], ["4S"], ["9C"], ["8D"]]
    assert r["hands"][0] == ["AH", "KH", "9H", "8H", "5H", "2H", "QC"]
    alternate = client.post(
        "/v1/checks/exchange", json={**body, "options": {"direction": "alternate"}, "round": 2}
    ).get_json()
    assert alternate["direction"] == "right" and alternate["received"][0] == ["9C"]
    wrong = client.post(
        "/v1/checks/exchange", json={**body, "passes": [["QS"], ["9C"], ["8D"], []]}
    )
    assert wrong.status_code == 422
    assert [e["pointer"] for e in wrong.get_json()["errors"]] == ["/passes/0/0", "/passes/3"]


def test_check_claim_refuses_a_hand_that_cannot_be_dealt(client: Any) -> None:
    low = ["2H", "3H", "4H", "5H", "6H", "7H", "8H"]  # only 8H is in the 4-seat 8..A deck
    r = client.post("/v1/checks/claim", json={"variant": "classic", "players": 4, "hand": low})
    assert r.status_code == 422 and r.get_json()["code"] == "hand-invalid"
    assert [e["pointer"] for e in r.get_json()["errors"]] == [f"/hand/{i}" for i in range(6)]
    nine = ["AH", "KH", "QH", "JH", "TH", "9H", "8H", "AS", "AS"]
    r = client.post("/v1/checks/claim", json={"variant": "classic", "players": 4, "hand": nine})
    assert {e["pointer"]: e["detail"] for e in r.get_json()["errors"]} == {
        "/hand/8": "AS is named twice",
        "/hand": "9 cards; a hand holds 7",
    }


OCHSE_DEAL = [
    ["QD", "KD", "AD", "TS", "JS", "QS", "KS", "AS"],
    ["AC", "7H", "8H", "9H", "TH", "JH", "QH", "KH"],
    ["7C", "8C", "9C", "TC", "JC", "QC", "KC", "7D"],
    ["AH", "8D", "9D", "TD", "JD", "7S", "8S", "9S"],
]


def test_check_exchange_of_a_chain_knows_whose_turn_and_hand_sizes(client: Any) -> None:
    # Dealer 0: exchange 1 is seat 1's turn, giving to seat 2.
    body = {"variant": "ochse", "hands": OCHSE_DEAL, "passes": [None, ["AC"], None, None]}
    r = client.post("/v1/checks/exchange", json=body).get_json()
    assert r["choosers"] == [1]
    assert r["received"] == [[], [], ["AC"], []]
    assert [len(h) for h in r["hands"]] == [8, 7, 9, 8]
    # Exchange 2 is seat 2's, holding nine; seat 1 may not pass then.
    after = {**body, "hands": r["hands"], "exchange": 2, "passes": [None, ["7H"], None, None]}
    wrong = client.post("/v1/checks/exchange", json=after)
    assert wrong.status_code == 422
    assert {e["pointer"]: e["detail"] for e in wrong.get_json()["errors"]} == {
        "/passes/1": "seat 1 does not pass here; only seat(s) 2 do",
        "/passes/2": "0 named; each seat passes 1 card",
    }
    # Hands of the wrong sizes for exchange 2 are not a chain round's.
    sizes = client.post("/v1/checks/exchange", json={**body, "exchange": 2})
    assert sizes.get_json()["code"] == "deal-invalid"
    assert {e["pointer"] for e in sizes.get_json()["errors"]} == {"/hands/1", "/hands/2"}


def test_check_exchange_of_a_swap_trades_two_cards_blind(client: Any) -> None:
    hands = [["7S", "8D", "2C"], ["2H", "3H", "9S"], ["4H", "5D", "6D"], ["AC", "KC", "QC"]]
    body = {"variant": "foster", "hands": hands, "dealer": 0, "exchange": 4}
    # Exchange 4 of a 4-seat circuit dealt by seat 0: the dealer swaps with its left.
    r = client.post("/v1/checks/exchange", json={**body, "passes": [["2C"], ["9S"], None, None]})
    assert r.get_json()["choosers"] == [0, 1]
    assert r.get_json()["hands"][:2] == [["9S", "7S", "8D"], ["3H", "2H", "2C"]]
    assert r.get_json()["received"] == [["9S"], ["2C"], [], []]


def test_check_claim_accepts_a_chain_hand_of_nine(client: Any) -> None:
    nine = ["7C", "8C", "9C", "TC", "JC", "QC", "KC", "AC", "7D"]
    r = client.post("/v1/checks/claim", json={"variant": "ochse", "players": 4, "hand": nine})
    assert r.get_json() == {"winning": True, "reason": "The hand holds 8 clubs.", "suits": ["C"]}
    r = client.post(
        "/v1/checks/claim", json={"variant": "ochse", "players": 4, "hand": nine + ["7H"]}
    )
    assert r.get_json()["errors"] == [
        {"pointer": "/hand", "detail": "10 cards; a hand holds 7 to 9"}
    ]
