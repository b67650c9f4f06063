"""One input policy for the whole API, and the edge cases reported against it:
strict JSON types (booleans only ``true``/``false``, as integers refuse
``"5"``), ``hands: null`` shuffles, names with invisible or direction-changing
characters are refused, every regex meets input as a full match."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import service
from service.resources import blueprints
from service.spec.fields import StrictBoolean, StrictSchema, fields

from ..helpers import TableClient, bearer, openapi_spec

ROOT = Path(service.__file__).resolve().parent
PLAYERS = ["a", "b", "c", "d"]


def create(client: Any, **body: Any) -> Any:
    return client.post("/v1/tables", json={"players": PLAYERS, "first_dealer": 0, **body})


@pytest.mark.parametrize(
    ("options", "pointer"),
    [
        ({"chips": "yes"}, "/options/chips"),
        ({"fastest_win_bonus": "false", "match": {"deals": 3}}, "/options/fastest_win_bonus"),
        ({"chips": 1}, "/options/chips"),
        ({"chips": 0}, "/options/chips"),
        ({"fastest_win_bonus": "true", "match": {"deals": 3}}, "/options/fastest_win_bonus"),
        ({"hand_size": "5"}, "/options/hand_size"),
        ({"hand_size": 5.0}, "/options/hand_size"),
    ],
)
def test_types_are_strict_json_booleans_as_integers(
    client: Any, options: dict[str, Any], pointer: str
) -> None:
    r = create(client, options=options)
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["code"] == "invalid-request"
    assert pointer in [e["pointer"] for e in r.get_json()["errors"]]


def test_true_and_false_are_still_booleans(client: Any) -> None:
    r = create(client, options={"fastest_win_bonus": True, "match": {"deals": 3}})
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["table"]["options"]["fastest_win_bonus"] is True
    r = create(client, options={"chips": False})
    assert r.status_code == 201, r.get_json()


def _subclasses(cls: type) -> list[type]:
    return [cls, *(s for sub in cls.__subclasses__() for s in _subclasses(sub))]


def test_every_boolean_of_a_request_is_the_strict_one() -> None:
    blueprints()  # every resource's schemas, beside its endpoints, imported
    booleans = [
        (s.__name__, name, field)
        for s in _subclasses(StrictSchema)
        for name, field in s().fields.items()
        if isinstance(field, fields.Boolean)
    ]
    assert {"chips", "fastest_win_bonus"} <= {name for _, name, _ in booleans}
    for schema_name, name, field in booleans:
        assert isinstance(field, StrictBoolean), (schema_name, name)


def test_hands_null_shuffles_as_no_hands_does(tables: TableClient) -> None:
    t = tables.create(4)
    r = tables.client.post(f"{t.url}/rounds", json={"hands": None}, headers=bearer(t.host))
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["round"] == 1
    assert len(tables.hand(t, 0)) == 7
    dealt = [e for e in tables.events(t) if e["type"] == "round-dealt"]
    assert dealt[0]["submitted"] is False


@pytest.mark.parametrize(
    "name",
    [
        "   ",  # blank
        "\u3000",  # an ideographic space: blank too
        "Ann\u202eneB",  # right-to-left override (Cf)
        "Ann\u2066x\u2069",  # directional isolates (Cf)
        "A\u200bnn",  # zero-width space (Cf)
        "\u200d",  # a zero-width joiner alone
        "Ann\u2028",  # line separator (Zl)
        "Ann\u2029",  # paragraph separator (Zp)
        "Ann\ue000",  # private use (Co)
        "Ann\u0378",  # unassigned (Cn)
        "Ann\x07",  # control (Cc)
        "\u0301\u0301",  # combining marks with nothing to combine with
        "\u3164",  # a Hangul filler: a letter that draws nothing
    ],
)
def test_invisible_and_direction_changing_names_are_refused(client: Any, name: str) -> None:
    r = create(client, players=[name, "b", "c", "d"])
    assert r.status_code == 422, r.get_json()
    assert [e["pointer"] for e in r.get_json()["errors"]] == ["/players/0"]


@pytest.mark.parametrize("name", ["Zoë", "  Ann ", "李雷", "Łukasz", "O'Brien", "أحمد", "Ann 🂡"])
def test_other_names_are_kept_as_typed(client: Any, name: str) -> None:
    r = create(client, players=[name, "b", "c", "d"])
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["table"]["seats"][0]["name"] == name


def test_a_request_id_with_a_trailing_newline_is_replaced_not_a_500(client: Any) -> None:
    # Werkzeug's test client refuses the header itself; a server may pass it on.
    r = client.get("/healthz", environ_overrides={"HTTP_X_REQUEST_ID": "phone-42\n"})
    assert r.status_code == 200
    assert re.fullmatch(r"[0-9a-f]{32}", r.headers["X-Request-Id"])
    r = client.get("/healthz", environ_overrides={"HTTP_X_REQUEST_ID": "phone-42"})
    assert r.headers["X-Request-Id"] == "phone-42"


def test_an_idempotency_key_with_a_trailing_newline_is_400(tables: TableClient) -> None:
    t = tables.create(4)
    key = '"' + "k" * 20 + '\n"'  # quoted, so that stripping the value keeps the newline
    r = tables.client.post(
        f"{t.url}/rounds", headers=bearer(t.host), environ_overrides={"HTTP_IDEMPOTENCY_KEY": key}
    )
    assert r.status_code == 400 and r.get_json()["code"] == "idempotency-key-invalid"
    assert tables.public(t)["round"] is None


def test_no_regex_of_the_service_meets_input_with_match_or_a_dollar() -> None:
    # ``re.match(...$)`` lets a trailing newline through; ``fullmatch`` does not.
    for path in ROOT.rglob("*.py"):
        text = path.read_text()
        assert not re.search(r"\bre\.(match|search)\(", text), path
        assert not re.search(r"[A-Z_]+\.(match|search)\(", text), path
        for pattern in re.findall(r're\.compile\(r?"([^"]*)"', text):
            assert not pattern.endswith("$"), (path, pattern)


def test_every_request_schema_of_the_spec_refuses_unknown_members() -> None:

    spec = openapi_spec()
    components = spec["components"]["schemas"]

    def closed(schema: dict[str, Any], where: str) -> int:
        if "$ref" in schema:
            schema = components[schema["$ref"].rsplit("/", 1)[-1]]
        found = 0
        if schema.get("type") == "object" and "properties" in schema:
            assert schema.get("additionalProperties") is False, where
            found += 1
            for name, member in schema["properties"].items():
                found += closed(member, f"{where}/{name}")
        for key in ("items",):
            if key in schema:
                found += closed(schema[key], where + "/items")
        return found

    checked = 0
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method == "parameters":
                continue
            content = operation.get("requestBody", {}).get("content", {})
            for media in content.values():
                checked += closed(media["schema"], f"{method} {path}")
    assert checked >= 7  # create (and its options), deal, pass, the three checks
