"""A submitted deal holds only the members its game reads (Game.deal_members):
another game's member is refused with a pointer at it, by the deal check and
by a deal alike, and the spec leaves it out of that game's branch, so that a
schema-valid deal is one the game reads whole (issue 22)."""

from __future__ import annotations

from typing import Any

import pytest

from service.games import GAMES
from service.games.base import DEAL_MEMBERS

from ..helpers import TableClient, bearer

FOREIGN = {"dealer": 1, "opening_suit": "S", "stock": ["2C"], "discard": "3C"}
VARIANT = {"my-ship-sails": "classic", "sevens": "sevens", "may-i": "may-i"}


@pytest.mark.parametrize("game", list(GAMES))
def test_a_deal_of_one_game_refuses_another_games_members(
    game: str, tables: TableClient, client: Any
) -> None:
    own = GAMES[game].deal_members
    assert "hands" in own and set(own) <= set(DEAL_MEMBERS)
    foreign = [m for m in DEAL_MEMBERS if m not in own]
    assert foreign  # every game reads some members only
    hands = [["2C"]] * 4
    t = tables.create(4, VARIANT[game], first_dealer=0)
    for member in foreign:
        body = {"variant": VARIANT[game], "players": 4, "hands": hands, member: FOREIGN[member]}
        checked = client.post("/v1/checks/deal", json=body)
        assert checked.status_code == 422, checked.get_json()
        problem = checked.get_json()
        assert problem["code"] == "deal-invalid"
        assert [e["pointer"] for e in problem["errors"]] == [f"/{member}"]
        deal = {"hands": hands, member: FOREIGN[member]}
        dealt = client.post(f"{t.url}/rounds", json=deal, headers=bearer(t.host))
        # A deal's body knows no dealer at all (the schema's refusal): the rest the game's.
        code = "invalid-request" if member == "dealer" else "deal-invalid"
        assert (dealt.status_code, dealt.get_json()["code"]) == (422, code), dealt.get_json()
        assert [e["pointer"] for e in dealt.get_json()["errors"]] == [f"/{member}"]
        assert client.get(t.url).get_json()["round"] is None  # nothing dealt
    spec = client.get("/openapi.json").get_json()["components"]["schemas"]
    branch = next(
        s for name, s in spec.items()
        if name.startswith("CheckDeal") and name not in ("CheckDeal", "CheckDealOutcome")
        and VARIANT[game] in s["properties"]["variant"]["enum"]
    )  # fmt: skip
    assert set(branch["properties"]) & set(DEAL_MEMBERS) == set(own)
