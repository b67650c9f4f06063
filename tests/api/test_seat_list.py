"""The public view lists each seat once (issue 43): ``seats`` carries every
seat's ``rank`` (its place in the match, ties sharing), and ``standings``,
kept for one release as a deprecated alias, is the very same seats ordered
by rank, so that whatever the view says of a seat (its bot, its deadline,
whether it is away or reissued) it says in both."""

from __future__ import annotations

from typing import Any

import pytest

from ..helpers import TableClient, bearer, openapi_spec

PLAYERS = ["Ann", {"bot": "basic"}, "Cy", {"bot": "random"}]


@pytest.mark.parametrize("variant", ["classic", "sevens", "may-i"])
def test_standings_are_the_seats_ordered_by_rank(tables: TableClient, variant: str) -> None:
    body = {"variant": variant, "players": PLAYERS, "first_dealer": 0,
            "options": {"bot_delay_ms": 60_000}}  # fmt: skip
    created = tables.client.post("/v1/tables", json=body)
    assert created.status_code == 201, created.get_json()
    url = f"/v1/tables/{created.get_json()['table_id']}"
    host = bearer(created.get_json()["host_token"])
    assert tables.client.post(f"{url}/rounds", json={}, headers=host).status_code == 201
    view: dict[str, Any] = tables.client.get(url).get_json()
    seats, standings = view["seats"], view["standings"]
    # Nobody has scored yet: every seat shares first place.
    assert [s["rank"] for s in seats] == [1, 1, 1, 1]
    assert [s["bot"] for s in seats] == [None, "basic", None, "random"]
    # The same objects, bots and deadlines included (Sevens' and May I?'s
    # standings were copies made before those were added: no bot, no until_ms).
    assert standings == sorted(seats, key=lambda s: (s["rank"], s["seat"]))


def test_the_spec_marks_standings_deprecated_and_ranks_every_seat() -> None:
    schemas = openapi_spec()["components"]["schemas"]
    views = [name for name in schemas if name.endswith("Table") and "standings" in
             schemas[name].get("properties", {})]  # fmt: skip
    assert len(views) == 3, views
    for name in views:
        standings = schemas[name]["properties"]["standings"]
        assert standings.get("deprecated") is True, name
        seat = standings["items"]["$ref"].rpartition("/")[2]
        assert "rank" in schemas[seat]["required"], seat
