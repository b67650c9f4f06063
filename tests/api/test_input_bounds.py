"""Every list of cards is bounded by what the game can hold there (issue 24:
a May I? discard check with a 200-card hand and 100 melds of 60 cards took
85 ms against 3.5 ms, a deal check of 8 hands of 1,500 cards 64-109 ms):
a dealt hand by the largest hand_size (26), a hand in play or a stock by the
largest deck (May I?: four decks with their jokers, 216 cards; Sevens 104;
My Ship Sails 52), a meld by the longest one (a set of one rank from four
decks with their jokers: 24), the melds on the table by three per seat (24):
over one, 422 ``invalid-request`` naming the place, nothing changed. The
cards of one request together fill one deck at most (service/edge/bounds.py):
over it, the rules' own refusal.
What the largest accepted input costs is measured by the benchmark
(benchmarks/heavy_checks.py), not here."""

from __future__ import annotations

import json
from typing import Any

import marshmallow as ma
import pytest
import redis

from service.games.cards import STANDARD_DECK
from service.games.may_i.options import LARGEST_DECK, LONGEST_MELD, MOST_MELDS
from service.spec.fields import Items, StrictSchema, String

from ..helpers import Table, TableClient, bearer, snapshot

MAY_I_DECK = [*STANDARD_DECK * 4, *["JK"] * 8]
SET_OF_SEVENS = [f"7{s}" for s in "SHDC" * 4] + ["JK"] * 8


def refused(r: Any) -> dict[str, str]:
    """The 422's errors by pointer."""
    assert r.status_code == 422, r.get_json()
    body = r.get_json()
    assert r.content_type == "application/problem+json" and body["code"] == "invalid-request"
    return {e["pointer"]: e["detail"] for e in body["errors"]}


def test_the_bounds_are_what_may_i_can_hold() -> None:
    assert (LARGEST_DECK, LONGEST_MELD, MOST_MELDS) == (216, 24, 24)
    assert len(MAY_I_DECK) == 216 and len(SET_OF_SEVENS) == 24


CHECKS: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "/v1/checks/may-i/discard",
        # The report's input: a 200-card hand and 100 melds of 60 cards (the
        # list's length is read first: its melds are not).
        {"hand": MAY_I_DECK[:200], "melds": [MAY_I_DECK[:60]] * 100, "card": "2S"},
        "/melds",
        "Length must be between 0 and 24",
    ),
    (
        "/v1/checks/may-i/discard",
        {"hand": ["2S"], "melds": [["3S", "3H", "3D"]] * 25, "card": "2S"},
        "/melds",
        "Length must be between 0 and 24",
    ),
    (
        "/v1/checks/may-i/discard",
        {"hand": MAY_I_DECK[:100], "melds": [SET_OF_SEVENS + ["7S"]], "card": "2S"},
        "/melds/0",
        "a meld: 1 to 24 cards",
    ),
    (
        "/v1/checks/may-i/discard",
        {"hand": [*MAY_I_DECK, "2S"], "melds": [], "card": "2S"},
        "/hand",
        "a hand: 1 to 216 cards",
    ),
    (
        "/v1/checks/may-i/lay-down",
        {"round": 5, "melds": [SET_OF_SEVENS + ["JK"]]},
        "/melds/0",
        "a meld: 1 to 24 cards",
    ),
    (
        "/v1/checks/may-i/lay-off",
        {"meld": SET_OF_SEVENS + ["7H"], "card": "7S"},
        "/meld",
        "a meld: 3 to 24 cards",
    ),
    (
        "/v1/checks/deal",
        # The report's input: 8 hands of 1,500 cards.
        {"variant": "may-i", "players": 8, "hands": [(MAY_I_DECK * 7)[:1500]] * 8},
        "/hands/0",
        "a dealt hand: 0 to 26 cards",
    ),
    (
        "/v1/checks/deal",
        {"variant": "may-i", "players": 3, "hands": [[]] * 3, "stock": [*MAY_I_DECK, "2S"]},
        "/stock",
        "the stock: 1 to 216 cards",
    ),
    (
        "/v1/checks/exchange",
        {"variant": "classic", "hands": [STANDARD_DECK[:28]] + [[]] * 3, "passes": [[]] * 4},
        "/hands/0",
        "a hand: 0 to 27 cards",
    ),
    (
        "/v1/checks/exchange",
        {"variant": "classic", "hands": [[]] * 4, "passes": [STANDARD_DECK[:28]] * 4},
        "/passes/0",
        "a pass: 0 to 27 cards",
    ),
    (
        "/v1/checks/claim",
        {"variant": "classic", "players": 4, "hand": STANDARD_DECK[:27]},
        "/hand",
        "Length must be between 0 and 26",
    ),
    (
        "/v1/checks/sevens/play",
        {"variant": "sevens", "hand": [*STANDARD_DECK * 2, "2S"], "layout": [], "card": "2S"},
        "/hand",
        "Length must be between 1 and 104",
    ),
]


@pytest.mark.parametrize(("path", "body", "pointer", "detail"), CHECKS)
def test_a_check_over_its_bound_is_422_naming_it(
    client: Any, path: str, body: dict[str, Any], pointer: str, detail: str
) -> None:
    data = json.dumps(body, separators=(",", ":"))  # the report's 60 KB fit in 64 KiB
    errors = refused(client.post(path, data=data, content_type="application/json"))
    assert pointer in errors, errors
    assert detail in errors[pointer]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        (
            "/v1/checks/may-i/discard",
            {"hand": MAY_I_DECK[:120], "melds": [SET_OF_SEVENS] * 4, "card": "2S"},
        ),
        ("/v1/checks/may-i/lay-off", {"meld": SET_OF_SEVENS, "card": "7S"}),
        (
            "/v1/checks/deal",
            {
                "variant": "may-i",
                "options": {"decks": 4, "jokers": 2},
                "players": 8,
                "hands": [MAY_I_DECK[i * 10 : (i + 1) * 10] for i in range(8)],
                "discard": MAY_I_DECK[80],
                "stock": MAY_I_DECK[81:],
            },
        ),
    ],
)
def test_a_check_at_its_bound_is_answered(client: Any, path: str, body: dict[str, Any]) -> None:
    r = client.post(path, json=body)
    assert r.status_code == 200, r.get_json()


def test_a_deal_check_of_the_whole_largest_deck_is_valid(client: Any) -> None:
    body = {
        "variant": "may-i",
        "options": {"decks": 4, "jokers": 2},
        "players": 8,
        "hands": [MAY_I_DECK[i * 10 : (i + 1) * 10] for i in range(8)],
        "discard": MAY_I_DECK[80],
        "stock": MAY_I_DECK[81:],
    }
    r = client.post("/v1/checks/deal", json=body)
    assert r.status_code == 200 and r.get_json()["valid"] is True, r.get_json()


def rule_refused(r: Any, code: str) -> dict[str, str]:
    """A rule's 422 (``code``): its errors by pointer."""
    assert r.status_code == 422, r.get_json()
    assert r.get_json()["code"] == code
    return {e["pointer"]: e["detail"] for e in r.get_json()["errors"]}


def test_the_cards_of_one_request_are_bounded_by_one_deck(client: Any) -> None:
    # JSON Schema cannot state a sum: the lists together are the rules' to refuse.
    r = client.post(
        "/v1/checks/may-i/discard",
        json={"hand": MAY_I_DECK[:100], "melds": [SET_OF_SEVENS] * 5, "card": "2S"},
    )
    assert rule_refused(r, "move-invalid") == {
        "/hand": "220 cards in `hand` and `melds` together; the largest deck holds 216"
    }
    r = client.post(
        "/v1/checks/exchange",
        json={"variant": "classic", "hands": [STANDARD_DECK[:27]] * 2, "passes": [[]] * 2},
    )
    assert rule_refused(r, "deal-invalid") == {
        "/hands": "54 cards in `hands` together; the largest deck holds 52"
    }
    r = client.post(
        "/v1/checks/deal",
        json={
            "variant": "may-i",
            "players": 8,
            "hands": [MAY_I_DECK[:26]] * 8,
            "stock": MAY_I_DECK[:8],
            "discard": "2S",
        },
    )
    assert r.status_code == 200
    assert r.get_json() == {
        "valid": False,
        "problems": [
            {
                "pointer": "/hands",
                "detail": "217 cards in `hands` and `stock` and `discard` together; "
                "the largest deck holds 216",
            }
        ],
        "problems_total": 1,
        "hands": None,
    }


def test_a_submitted_deal_over_the_deck_is_422_and_changes_nothing(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4, "may-i", first_dealer=0)
    before = snapshot(redis_client, t)
    r = tables.client.post(
        f"{t.url}/rounds",
        json={"hands": [MAY_I_DECK[:26]] * 4, "stock": MAY_I_DECK[:112], "discard": "2S"},
        headers=bearer(t.host),
    )
    assert "217 cards" in rule_refused(r, "deal-invalid")["/hands"]
    for body, pointer in (
        ({"hands": [MAY_I_DECK[:27]] + [[]] * 3}, "/hands/0"),
        ({"hands": [[]] * 4, "stock": [*MAY_I_DECK, "2S"]}, "/stock"),
    ):
        r = tables.client.post(f"{t.url}/rounds", json=body, headers=bearer(t.host))
        assert pointer in refused(r)
    assert snapshot(redis_client, t) == before


def test_a_lay_down_of_a_meld_longer_than_any_is_422_and_changes_nothing(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t: Table = tables.create(4, "may-i", first_dealer=0)
    assert tables.deal(t).status_code == 201
    seat = tables.public(t)["round"]["on_turn"]
    before = snapshot(redis_client, t)
    r = tables.client.put(
        f"{t.url}/rounds/1/moves/1",
        json={"lay_down": [SET_OF_SEVENS + ["7S"]]},
        headers=bearer(t.seats[seat]),
    )
    assert "a meld: 1 to 24 cards" in refused(r)["/lay_down/0"]
    assert snapshot(redis_client, t) == before


def test_a_first_dealer_past_the_last_seat_is_422(client: Any) -> None:
    r = client.post("/v1/tables", json={"players": ["a", "b", "c", "d"], "first_dealer": 10**40})
    assert "0..9" in refused(r)["/first_dealer"]


# Refused bodies cost what their largest good list costs, not a hundred moves
# (issue 39, tenth attacker's High: 62 KB of bad items took 100-190 ms each,
# marshmallow reading every item before the list's length and reporting one
# error per item; a name's checks walking 30,000 characters past its length).


def test_a_list_over_its_bound_is_refused_before_its_items_are_read(client: Any) -> None:
    r = client.post(
        "/v1/checks/deal",
        json={"variant": "may-i", "players": 8, "hands": [[0] * 2600] * 8},
    )
    errors = refused(r)
    # One error a hand, its length's: none of its 2,600 items was read.
    assert list(errors) == [f"/hands/{n}" for n in range(8)]
    assert all("a dealt hand: 0 to 26 cards" in detail for detail in errors.values())
    r = client.post("/v1/tables", json={"variant": "classic", "players": [0] * 10_000})
    assert refused(r) == {"/players": "Length must be between 2 and 10."}


def test_a_list_reports_its_first_eight_bad_items(client: Any) -> None:
    r = client.post("/v1/checks/claim", json={"variant": "classic", "players": 4, "hand": [0] * 26})
    assert list(refused(r)) == [f"/hand/{n}" for n in range(8)]
    r = client.post(
        "/v1/checks/deal",
        json={"variant": "may-i", "players": 6, "hands": [[[0]] * 26] * 6},
    )
    assert list(refused(r)) == [f"/hands/{h}/{n}" for h in range(6) for n in range(8)]
    # Fewer than eight: every one, as before.
    r = client.post(
        "/v1/checks/claim", json={"variant": "classic", "players": 4, "hand": ["AS", 0, "KS", 1]}
    )
    assert list(refused(r)) == ["/hand/1", "/hand/3"]


def test_an_object_reports_its_first_eight_unknown_members(client: Any) -> None:
    def post(body: dict[str, Any]) -> Any:  # the members in this order (Flask's json= sorts)
        return client.post("/v1/tables", data=json.dumps(body), content_type="application/json")

    body = {"variant": "classic", "players": ["a", "b", "c"]}
    r = post({**body, **{f"k{n}": 0 for n in range(5000)}})
    assert refused(r) == {f"/k{n}": "Unknown field." for n in range(8)}
    r = post({**body, "options": {f"k{n}": 0 for n in range(5000)}})
    assert refused(r) == {f"/options/k{n}": "Unknown field." for n in range(8)}
    # A few: each, beside the body's other errors (marshmallow's own answer).
    r = post({"players": [], "k0": 0, "k1": 1})
    assert refused(r) == {
        "/players": "Length must be between 2 and 10.",
        "/k0": "Unknown field.",
        "/k1": "Unknown field.",
    }


def test_a_name_over_its_length_is_refused_by_its_length_alone(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    # "Bot" a thousand times, a format character in it: only the length is
    # named (the name's other checks never read it).
    long = "Bot" * 1000 + "\u202e"
    r = tables.client.post("/v1/tables", json={"variant": "classic", "players": [long, "b", "c"]})
    assert refused(r) == {"/players/0": "Length must be between 1 and 40."}
    t = tables.create(4, "classic")
    before = snapshot(redis_client, t)
    r = tables.client.post(f"{t.url}/join", json={"name": long, "code": "x" * 64})
    assert refused(r) == {"/name": "Length must be between 1 and 40."}
    assert snapshot(redis_client, t) == before


CHECKED_BY_BOUNDS = {
    ("OptionsSchema", "match"): "one member, judged by the rules (service/games/*/options.py)",
    ("CheckProofSchema", "proof"): "walked by _check_bounds before it is read",
    ("CheckProofSchema", "record"): "walked by _check_bounds before it is read",
}
"""The objects of free shape a body may hold, and what bounds their cost."""


def _unbounded(schema: type[ma.Schema], seen: set[type[ma.Schema]]) -> list[str]:
    """What in ``schema`` (and what it nests) could make a body's validation
    cost grow with its size: a list not refused by its length before its items,
    a text walked past its length, an object of free shape."""
    if schema in seen:
        return []
    seen.add(schema)
    found: list[str] = []
    if not issubclass(schema, StrictSchema):
        found.append(f"{schema.__name__}: not a StrictSchema")

    def walk(where: str, field: Any) -> None:
        if isinstance(field, ma.fields.List):
            bounded = any(
                isinstance(v, ma.validate.Length) and v.max is not None for v in field.validators
            )
            if not isinstance(field, Items) or not bounded:
                found.append(f"{where}: a list without Items and a Length(max)")
            walk(where + "[]", field.inner)
        elif isinstance(field, ma.fields.Nested):
            nested = field.schema
            found.extend(_unbounded(type(nested), seen))
        elif isinstance(field, ma.fields.Dict):
            if (where.split(".")[0], where.split(".")[1]) not in CHECKED_BY_BOUNDS:
                found.append(f"{where}: an object of free shape")
        elif isinstance(field, ma.fields.String):
            cheap = (ma.validate.Length, ma.validate.OneOf, ma.validate.Regexp)
            if not isinstance(field, String) and any(
                not isinstance(v, cheap) for v in field.validators
            ):
                found.append(f"{where}: a text whose checks run past its length")

    for name, field in schema._declared_fields.items():
        walk(f"{schema.__name__}.{name}", field)
    return found


def test_every_body_is_refused_by_its_bounds_before_its_items_are_read(app: Any) -> None:
    bodies: set[type[ma.Schema]] = set()
    for view in app.view_functions.values():
        view_class = getattr(view, "view_class", None)
        for method in getattr(view_class, "methods", None) or ():
            doc = getattr(getattr(view_class, method.lower()), "_apidoc", {})
            for parameter in doc.get("arguments", {}).get("parameters", []):
                if parameter.get("location", "json") == "json":
                    schema = parameter["schema"]
                    bodies.add(schema if isinstance(schema, type) else type(schema))
    assert len(bodies) >= 15, bodies  # every move, deal, check and creation
    seen: set[type[ma.Schema]] = set()
    assert [problem for body in bodies for problem in _unbounded(body, seen)] == []


@pytest.fixture()
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every body the app parses as JSON from now on (``load_json``'s input)."""
    from service.edge import common

    seen: list[bytes] = []
    load = common.load_json
    monkeypatch.setattr(common, "load_json", lambda data: seen.append(data) or load(data))
    return seen


def test_a_body_is_parsed_once_a_request(tables: TableClient, parsed: list[bytes]) -> None:
    """A move's body that its fast path does not take (an unknown member, a
    lone surrogate) was parsed again by webargs' full path: two parses of
    the dearest refused bodies (issue 39, fifteenth attacker's bodies)."""
    t = tables.create(4)
    tables.deal(t)
    url = f"{t.url}/rounds/1/exchanges/1/passes/0"
    for body in ('{"cards": ["AS"], "x": 1}', '{"cards": ["\\ud800"]}', '{"cards": "AS"}'):
        parsed.clear()
        r = tables.client.put(
            url, data=body, content_type="application/json", headers=bearer(t.seats[0])
        )
        assert r.status_code == 422, r.get_json()
        assert parsed == [body.encode()]


def test_a_body_of_more_containers_than_its_bound_is_refused_before_parsing(
    tables: TableClient, redis_client: redis.Redis, parsed: list[bytes]
) -> None:
    """Issue 39, sixteenth attacker: 64 KiB of nested lists (31,500 of them)
    cost 16 to 22 ms a request to parse, collect and free, refused or not.
    A body holds one array or object per CONTAINER_BYTES of its endpoint's
    limit, counted before it is parsed."""
    from service.edge import inputs

    t = tables.create(4)
    tables.deal(t)
    before = snapshot(redis_client, t)
    parsed.clear()  # the table's creation's
    most = inputs.MAX_BODY // inputs.CONTAINER_BYTES
    assert most == 4096
    url = f"{t.url}/rounds/1/exchanges/1/passes/0"
    for over in (",".join(["[" * 900 + "]" * 900] * 5), "[]," * 4096 + "{}"):  # deep, wide
        body = '{"cards": ["AS"], "x": [' + over + "]}"
        r = tables.client.put(
            url, data=body, content_type="application/json", headers=bearer(t.seats[0])
        )
        assert r.status_code == 400, r.get_json()
        assert r.get_json()["code"] == "malformed-request"
        assert "more than 4096 arrays and objects" in r.get_json()["detail"]
    assert parsed == []
    assert snapshot(redis_client, t) == before
    # At the bound (4,096 with the body, its cards and x), the body is read as any other.
    at = '{"cards": ["AS"], "x": [' + ",".join(["[]"] * (most - 3)) + "]}"
    r = tables.client.put(url, data=at, content_type="application/json", headers=bearer(t.seats[0]))
    assert r.status_code == 422 and [e["pointer"] for e in r.get_json()["errors"]] == ["/x"]
    # A round record's check takes one per 16 bytes of its 1 MiB.
    record = '{"record": [' + ",".join(["{}"] * 5000) + "]}"
    r = tables.client.post("/v1/checks/deal-proof", data=record, content_type="application/json")
    assert r.status_code == 422, r.get_json()
