"""Names of the form ``Bot …`` are the bots' (RULES.md 5.1): a person may
not take one that a reader would take for a bot's, whatever letters draw it
(:mod:`service.edge.names`), at a table's creation or at a join; through the
app on a real Redis."""

from __future__ import annotations

from typing import Any

import pytest

LOOK_ALIKES = [
    "Bot 3 (basic)",
    "ʙᴏᴛ 3",  # small capitals
    "ʙot",
    "Ɓot 3 (basic)",  # U+0181, B with hook
    "ƁOT",
    "ɓoʈ",  # hooks, small and retroflex
    "Ƀot",  # B with stroke
    "Bøt",  # o with stroke
    "bɵt",  # barred o
    "Boŧ",  # t with stroke
    "Boƭ",  # t with hook
    "Bòt",  # a mark on a letter
    "Bǒt",
    "B\u0336ot",  # a combining overlay
    "ᴮᵒᵗ",  # modifier letters
    "Ⓑot",
    "Bоt",  # Cyrillic o (the library's confusables, as before)
]
PEOPLE = ["Bottle", "Robot", "Abbot", "Zoë", "Björn", "Øyvind", "Łukasz", "Bo"]


def _create(client: Any, name: str) -> Any:
    body = {"variant": "classic", "players": ["Ann", name, "Cy", None], "first_dealer": 0}
    return client.post("/v1/tables", json=body)


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_a_name_that_reads_as_a_bots_is_refused(client: Any, name: str) -> None:
    r = _create(client, name)
    assert (r.status_code, r.get_json()["code"]) == (422, "invalid-request"), r.get_json()
    assert r.get_json()["errors"][0]["pointer"] == "/players/1"
    assert "the bots'" in r.get_json()["errors"][0]["detail"]
    open_table = _create(client, "Ben")
    assert open_table.status_code == 201
    join = client.post(
        f"/v1/tables/{open_table.get_json()['table_id']}/join",
        json={"name": name, "code": open_table.get_json()["join_codes"][0]["code"]},
    )
    assert (join.status_code, join.get_json()["code"]) == (422, "invalid-request")
    assert join.get_json()["errors"][0]["pointer"] == "/name"


@pytest.mark.parametrize("name", PEOPLE)
def test_a_persons_name_that_only_holds_bot_is_taken(client: Any, name: str) -> None:
    r = _create(client, name)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["table"]["seats"][1]["name"] == name
