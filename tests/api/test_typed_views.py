"""Each game's answers are their own shapes in the spec (issue 42): real
views, rounds, pages of rounds and events of every game validate against the
committed openapi.yaml, each as exactly one ``oneOf`` member (the one its
``game`` or ``type`` names), and every event type a game stores is declared
with the members it stores."""

from __future__ import annotations

from typing import Any

import jsonschema
import marshmallow as ma
import pytest

from service.games import GAMES
from service.resources import blueprints
from service.spec.schemas import EventSchema, PublicTableSchema, RoundInfoSchema, SeatViewSchema
from service.spec.schemas_events import declared_members
from service.spec.schemas_games import registered

from ..contract.test_exact_schemas import as_json_schema
from ..helpers import TableClient, bearer, openapi_spec, play_worked_round

blueprints()  # each game's API modules register its answers' shapes
SPEC = as_json_schema(openapi_spec())
SCHEMAS = SPEC["components"]["schemas"]


def members(schema: str, value: Any) -> list[str]:
    """The ``oneOf`` members of component ``schema`` that ``value`` is valid against."""
    refs = [m["$ref"] for m in SCHEMAS[schema]["oneOf"]]
    return [
        ref.rsplit("/", 1)[1]
        for ref in refs
        if jsonschema.Draft7Validator({**SPEC, "$ref": ref}).is_valid(value)
    ]


def check(schema: str, value: Any, member: str) -> None:
    """``value`` is valid against component ``schema``, as its member ``member`` only."""
    validator = jsonschema.Draft7Validator({**SPEC, "$ref": f"#/components/schemas/{schema}"})
    errors = [e.message for e in validator.iter_errors(value)]
    assert not errors, (schema, errors[:3])
    assert members(schema, value) == [member]


def check_table(tables: TableClient, t: Any, prefix: str) -> None:
    client = tables.client
    check("PublicTable", tables.public(t), f"{prefix}Table")
    for seat, token in enumerate(t.seats):
        view = client.get(f"{t.url}/seats/{seat}", headers=bearer(token)).get_json()
        check("SeatView", view, f"{prefix}SeatView")
    check("RoundInfo", client.get(f"{t.url}/rounds/1").get_json(), f"{prefix}RoundInfo")
    check("RoundList", client.get(f"{t.url}/rounds").get_json(), f"{prefix}RoundList")
    page = client.get(f"{t.url}/events?after=0&limit=1000")
    if page.status_code == 410:  # only the newest are kept: read those
        after = page.get_json()["oldest_seq"] - 1
        page = client.get(f"{t.url}/events?after={after}&limit=1000")
    for event in page.get_json()["events"]:
        kind = "".join(p.capitalize() for p in event["type"].split("-"))
        check("Event", event, f"{kind}Event")


def test_every_game_has_its_answers_registered() -> None:
    assert sorted(registered()) == sorted(GAMES)
    for schema in ("PublicTable", "SeatView", "RoundInfo", "RoundList", "Variant"):
        mapping = SCHEMAS[schema]["discriminator"]["mapping"]
        assert sorted(mapping) == sorted(GAMES), schema


def test_my_ship_sails_answers_are_its_own_shapes(client: Any) -> None:
    tables = TableClient(client)
    t = tables.create(4, "mein-schiff")  # a full deck: RULES.md 2.10's hands
    play_worked_round(tables, t, 1, early_claim=True)
    check_table(tables, t, "MyShipSails")
    assert client.post(f"{t.url}/rounds", headers=bearer(t.host)).status_code == 201
    check_table(tables, t, "MyShipSails")  # a round in play, and the last one's result
    assert client.post(f"{t.url}/finish", headers=bearer(t.host)).status_code == 200
    check_table(tables, t, "MyShipSails")


def test_sevens_answers_are_its_own_shapes(client: Any) -> None:
    tables = TableClient(client)
    t = tables.create(4, "sevens")
    assert tables.deal(t).status_code == 201
    check_table(tables, t, "Sevens")
    while (now := tables.public(t))["round"]["status"] == "playing":
        seat, turn = now["round"]["on_turn"], now["round"]["turn"]
        view = client.get(f"{t.url}/seats/{seat}", headers=bearer(t.seats[seat])).get_json()
        body = {"play": view["playable"][0]} if view["playable"] else {"pass": True}
        if view["must_announce"]:
            body["last_card"] = True
        url = f"{t.url}/rounds/1/turns/{turn}"
        moved = client.put(url, json=body, headers=bearer(t.seats[seat]))
        assert moved.status_code == 200, moved.get_json()
    check_table(tables, t, "Sevens")


@pytest.mark.parametrize("finish", [False, True])
def test_may_i_answers_are_its_own_shapes(client: Any, finish: bool) -> None:
    tables = TableClient(client)
    t = tables.create(4, "may-i", may_i_window_ms=0)
    assert tables.deal(t).status_code == 201
    for move, body in enumerate(({"decline": True}, {"draw": True}), start=1):
        moved = client.put(f"{t.url}/rounds/1/moves/{move}", json=body, headers=bearer(t.seats[1]))
        assert moved.status_code == 200, moved.get_json()
    check_table(tables, t, "MayI")
    if finish:
        assert client.post(f"{t.url}/finish", headers=bearer(t.host)).status_code == 200
        check_table(tables, t, "MayI")


def test_every_stored_event_type_is_declared_with_its_members() -> None:
    for game in GAMES.values():
        declared = declared_members(game.name)
        for kind, (_code, stored) in game.event_layouts.items():
            assert declared.get(kind) == set(stored), (game.name, kind)
    for kind in ("seat-joined", "seat-left", "token-reissued", "move-timed-out", "seat-back"):
        assert kind in SCHEMAS["Event"]["discriminator"]["mapping"]


def test_an_answer_of_each_game_builds_no_schema_again(
    client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each game's answer schemas are made once and kept (``TypeSchemas``):
    the spec reads the classes, a dump gets one instance of each for good.
    A new instance at each dump built its nested schemas again (issue 44:
    most of a table view's CPU)."""
    for union in (PublicTableSchema, SeatViewSchema, RoundInfoSchema, EventSchema):
        for name, cls in union.type_schemas.items():
            assert isinstance(cls, type), (union, name)  # what the spec reads
            made = union.type_schemas.get(name)
            assert type(made) is cls and union.type_schemas.get(name) is made
    tables = TableClient(client)
    t = tables.create(4, "sevens")
    assert tables.deal(t).status_code == 201
    tables.public(t)  # the first answer of its kind may make what it needs
    built: list[str] = []
    init = ma.Schema.__init__

    def counted(self: ma.Schema, *args: Any, **kwargs: Any) -> None:
        built.append(type(self).__name__)
        init(self, *args, **kwargs)

    monkeypatch.setattr(ma.Schema, "__init__", counted)
    view = tables.public(t)
    assert view["game"] == "sevens" and view["round"]["number"] == 1
    assert built == []
