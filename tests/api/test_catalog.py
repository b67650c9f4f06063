"""Variants and the stateless checks, which touch no storage."""

from __future__ import annotations

from typing import Any

import redis

from ..rules.test_engine import WORKED_EXAMPLE


def test_variants_list_every_preset_with_its_options(client: Any) -> None:
    variants = {v["name"]: v for v in client.get("/v1/variants").get_json()["variants"]}
    assert list(variants) == [
        "classic",
        "circle",
        "mein-schiff",
        "pass-two",
        "pass-right",
        "alternate",
        "my-star-shines",
        "whehee",
    ]
    assert variants["whehee"]["min_players"] == 3 and variants["whehee"]["max_players"] == 10
    assert variants["classic"]["options"]["match"] == {"target_wins": 5}
    assert variants["circle"]["options"]["claim_window_ms"] == 1500


def test_check_deal_lists_problems_without_storing(client: Any, redis_client: redis.Redis) -> None:
    keys_before = redis_client.dbsize()
    ok = client.post(
        "/v1/checks/deal", json={"variant": "circle", "players": 4, "hands": WORKED_EXAMPLE}
    )
    assert ok.get_json() == {
        "valid": True,
        "problems": [],
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
    assert redis_client.dbsize() == keys_before


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
