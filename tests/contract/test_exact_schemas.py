"""The spec says what each game takes (the committed openapi.yaml, checked as
JSON Schema), and the schemathesis hook leaves out exactly the requests that
break a rule the spec names as one no schema can state."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from service.api.spec_games import UNSTATED
from service.games import GAMES

from .hooks import breaks_an_unstated_rule

ROOT = Path(__file__).resolve().parents[2]
SPEC = yaml.safe_load((ROOT / "openapi.yaml").read_text())


def valid(schema: str, body: dict[str, Any]) -> bool:
    document = {**SPEC, "$ref": f"#/components/schemas/{schema}"}
    return jsonschema.Draft7Validator(document).is_valid(body)


FOUR = ["Ann", "Ben", "Cat", "Dan"]


@pytest.mark.parametrize(
    ("body", "ok"),
    [
        ({"players": FOUR}, True),  # classic, the default
        ({"players": FOUR, "options": {"hand_size": 6}}, True),
        ({"players": FOUR, "options": {"opening": "7C"}}, False),  # Sevens' option on classic
        ({"variant": "sevens", "players": FOUR, "options": {"opening": "7C"}}, True),
        ({"variant": "sevens", "players": FOUR, "options": {"hand_size": 6}}, False),
        ({"variant": "may-i", "players": FOUR, "options": {"may_i_window_ms": 0}}, True),
        ({"variant": "ochse", "players": FOUR[:3]}, False),  # ochse is for four
        ({"variant": "fan-tan-two-decks", "players": FOUR}, False),  # 6 to 10
        ({"variant": "fan-tan-two-decks", "players": FOUR + ["E", "F"]}, True),
        ({"players": FOUR, "options": {"deck_low_rank": "0"}}, False),
        ({"players": FOUR, "options": {"deck_low_rank": "10"}}, True),
    ],
)
def test_each_game_takes_its_own_options_and_players(body: dict[str, Any], ok: bool) -> None:
    assert valid("CreateTable", body) is ok


def test_card_fields_say_what_a_card_is() -> None:
    assert valid("Pass", {"cards": ["AH", "10h", " a♥️ "]})
    assert not valid("Pass", {"cards": ["0"]}) and not valid("Pass", {"cards": ["0000000"]})
    assert not valid("Pass", {"cards": ["JK"]})  # a joker is May I?'s
    assert valid("Move", {"discard": "JK"})
    # A deal check judges its cards itself: any text is a card to judge.
    assert valid("CheckDeal", {"variant": "classic", "players": 4, "hands": [["ZZ"]]})
    # Checks of one game list only its presets.
    sevens = {"hand": ["7D"], "layout": [], "card": "7D"}
    assert valid("CheckPlay", {**sevens, "variant": "sevens"})
    assert not valid("CheckPlay", {**sevens, "variant": "classic"})
    assert not valid("CheckPlay", sevens)  # its default would be classic, My Ship Sails'
    every = {v for g in GAMES.values() for v in g.presets}
    create = SPEC["components"]["schemas"]["CreateTable"]
    assert set(create["properties"]["variant"]["enum"]) == every


def test_the_rules_no_schema_states_are_named_in_the_spec_and_left_out_by_the_hook() -> None:
    description = SPEC["info"]["description"]
    assert all(rule in description for rule in UNSTATED)
    table = {"players": FOUR}
    assert breaks_an_unstated_rule("/v1/tables", {**table, "first_dealer": 4})
    assert not breaks_an_unstated_rule("/v1/tables", {**table, "first_dealer": 3})
    chain = {"passing": "chain", "pass_count": 2}
    assert breaks_an_unstated_rule("/v1/tables", {**table, "options": chain})
    assert not breaks_an_unstated_rule("/v1/tables", {**table, "options": {"hand_size": 5}})
    assert breaks_an_unstated_rule("/v1/tables", {"players": ["Ann", "\u202eBen", "C", "D"]})
    assert breaks_an_unstated_rule("/v1/tables/x/join", {"name": "\u200b"})
    claim = {"variant": "ochse", "players": 4, "hand": [], "options": {"win_count": 30}}
    assert breaks_an_unstated_rule("/v1/checks/claim", claim)
    assert not breaks_an_unstated_rule("/v1/checks/claim", {**claim, "options": {}})
