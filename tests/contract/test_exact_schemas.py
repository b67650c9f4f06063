"""The spec says what each game takes (the committed openapi.yaml, checked as
JSON Schema), and the schemathesis hook leaves out exactly the requests that
break a rule the spec names as one no schema can state."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from service.games import GAMES
from service.spec.per_game import UNSTATED

from ..helpers import openapi_spec
from .rules import breaks_an_unstated_rule

SPEC = openapi_spec()


def as_json_schema(node: Any) -> Any:
    """OpenAPI 3.0's ``nullable: true`` as JSON Schema says it (a ``null`` too)."""
    if isinstance(node, list):
        return [as_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    node = {k: as_json_schema(v) for k, v in node.items()}
    if node.pop("nullable", False):
        return {"anyOf": [node, {"type": "null"}]}
    return node


def valid(schema: str, body: dict[str, Any]) -> bool:
    document = {**as_json_schema(SPEC), "$ref": f"#/components/schemas/{schema}"}
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
        # Sevens' range follows `decks` (3 to 8 with one, 6 to 10 with two): the
        # spec takes every count Sevens has, its options judge the rest (UNSTATED).
        ({"variant": "fan-tan-two-decks", "players": FOUR}, True),
        ({"variant": "fan-tan-two-decks", "players": FOUR + ["E", "F"]}, True),
        ({"variant": "fan-tan-two-decks", "players": FOUR[:2]}, False),
        ({"variant": "sevens", "players": [*FOUR, *FOUR, "E", "F", "G"]}, False),  # 11
        ({"variant": "sevens", "players": FOUR, "options": {"decks": 3}}, False),  # May I?'s
        ({"variant": "may-i", "players": FOUR, "options": {"decks": 3}}, True),
        ({"variant": "may-i", "players": FOUR, "options": {"decks": None}}, True),
        ({"variant": "may-i", "players": FOUR, "options": {"match": {"rounds": 5}}}, True),
        ({"variant": "may-i", "players": FOUR, "options": {"match": {"rounds": 4}}}, False),
        ({"variant": "sevens", "players": FOUR, "options": {"match": {"deals": None}}}, True),
        ({"players": FOUR, "options": {"match": {"deals": None}}}, False),  # Sevens' only
        ({"players": FOUR, "options": {"match": {"target_points": 50}}}, False),
        ({"variant": "sevens", "players": FOUR, "options": {"match": {"target_points": 50}}}, True),
        ({"players": FOUR, "options": {"deck_low_rank": "0"}}, False),
        ({"players": FOUR, "options": {"deck_low_rank": "10"}}, True),
    ],
)
def test_each_game_takes_its_own_options_and_players(body: dict[str, Any], ok: bool) -> None:
    assert valid("CreateTable", body) is ok


def test_card_fields_say_what_a_card_is() -> None:
    assert valid("Pass", {"cards": ["AH", "10h"]}) and valid("Pass", {"cards": [" a♥️ "]})
    # A pass is 1 or 2 cards (`pass_count`), none twice as written (a set).
    assert not valid("Pass", {"cards": []}) and not valid("Pass", {"cards": ["AH", "KH", "QH"]})
    assert not valid("Pass", {"cards": ["AH", "AH"]})
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
    schemas = SPEC["components"]["schemas"]
    # A new table is exactly one of its branches, nothing beside them: each
    # branch's presets are its own, and together they are every preset.
    create = schemas["CreateTable"]
    assert set(create) == {"description", "oneOf"}
    branches = [
        schemas[b["$ref"].rsplit("/", 1)[1]]["properties"]["variant"]["enum"]
        for b in create["oneOf"]
    ]
    assert sorted(v for b in branches for v in b) == sorted(every)


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
    two_decks = {"variant": "fan-tan-two-decks", "players": FOUR}
    assert breaks_an_unstated_rule("/v1/tables", two_decks)
    assert not breaks_an_unstated_rule("/v1/tables", {**two_decks, "options": {"decks": 1}})
    deal = {"variant": "fan-tan-two-decks", "players": 5, "hands": [], "options": {"decks": 1}}
    assert not breaks_an_unstated_rule("/v1/checks/deal", deal)
    assert breaks_an_unstated_rule("/v1/checks/deal", {**deal, "options": {}})
    exchange = {"hands": [[], []], "passes": [[], []]}  # classic is for 4 to 7
    assert not valid("CheckExchange", exchange)
    # A hand holds a card at least, none twice; a pass may be empty (a seat that does not pass).
    assert not valid("CheckExchange", {"hands": [[]] * 4, "passes": [[]] * 4})
    assert not valid("CheckExchange", {"hands": [["AS", "AS"]] * 4, "passes": [[]] * 4})
    assert valid("CheckExchange", {"hands": [["AS"], ["KS"], ["QS"], ["JS"]], "passes": [[]] * 4})
    play = {"variant": "sevens", "card": "5S", "hand": ["5S"]}
    row = {"low": "6S", "high": "8S"}
    assert not valid("CheckPlay", {**play, "layout": [{**row, "suit": "\\"}]})
    assert valid("CheckPlay", {**play, "layout": [{**row, "suit": "s\ufe0f"}]})
    assert breaks_an_unstated_rule(
        "/v1/checks/exchange",
        {
            "hands": [["AS"]] * 4,
            "passes": [[]] * 4,
            "variant": "ochse",
            "options": {"win_count": 30},
        },  # fmt: skip
    )
    claim = {"variant": "ochse", "players": 4, "hand": [], "options": {"win_count": 30}}
    assert breaks_an_unstated_rule("/v1/checks/claim", claim)
    assert not breaks_an_unstated_rule("/v1/checks/claim", {**claim, "options": {}})
