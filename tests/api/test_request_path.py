"""The request path's shortcuts answer exactly as the long way: the fast load
of a pass body, Flask's coroutine check kept per function, the prometheus
children bound once, the bearer's digest computed once per request."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from service.edge import auth
from service.edge.common import FAST_BODIES, RefereeFlask, fast_dumping
from service.resources.may_i.endpoints import usual_answer, usual_ask, usual_move
from service.resources.may_i.schemas import AnswerSchema, AskSchema, MoveSchema
from service.resources.sevens.endpoints import usual_turn
from service.resources.sevens.schemas import TurnSchema
from service.resources.ship.endpoints import usual_pass
from service.resources.ship.schemas import ClaimOutcomeSchema, PassOutcomeSchema, PassSchema

from ..helpers import TableClient, bearer
from .test_idempotency import NOT_WINNING

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner),
    max_leaves=12,
)
CODES = st.text(max_size=10) | st.sampled_from(["AS", "10h", "A♥", "", " 9C", "XYZXYZXYZ"])
PASS_BODIES = st.fixed_dictionaries(
    {"cards": st.lists(CODES, max_size=30) | JSON},
    optional={"extra": JSON, "cards ": JSON},
)


@settings(max_examples=400, deadline=None)
@given(body=PASS_BODIES | JSON)
def test_the_fast_pass_load_is_the_schemas_load(body: Any) -> None:
    try:
        expected: Any = PassSchema().load(body)
    except ma.ValidationError:
        expected = None  # refused: the full path answers it
    fast = usual_pass(body)
    assert fast is None or fast == expected
    if expected is None:
        assert fast is None


def test_the_usual_pass_takes_the_fast_path() -> None:
    assert FAST_BODIES[PassSchema] is usual_pass
    assert usual_pass({"cards": ["AS", "10h", "K♣"]}) == {"cards": ["AS", "10h", "K♣"]}
    assert usual_pass({"cards": ["AS"] * 27}) is None  # too many: 422 from the schema
    assert usual_pass({"cards": ["AS"], "seat": 1}) is None  # unknown field: 422


@pytest.mark.parametrize(
    ("body", "status", "pointer"),
    [
        ({"cards": ["8D"], "seat": 0}, 422, "/seat"),
        ({"cards": "8D"}, 422, "/cards"),
        ({"cards": [""]}, 422, "/cards/0"),
        ({}, 422, "/cards"),
    ],
)
def test_a_pass_body_the_fast_path_declines_is_answered_in_full(
    tables: TableClient, body: dict[str, Any], status: int, pointer: str
) -> None:
    t = tables.create(4)
    assert tables.deal(t, NOT_WINNING).status_code == 201
    r = tables.client.put(
        f"{t.url}/rounds/1/exchanges/1/passes/0", json=body, headers=bearer(t.seats[0])
    )
    assert r.status_code == status, r.get_json()
    assert [e["pointer"] for e in r.get_json()["errors"]] == [pointer]


def test_a_pass_in_any_notation_is_taken(tables: TableClient) -> None:
    t = tables.create(4)
    assert tables.deal(t, NOT_WINNING).status_code == 201
    r = tables.client.put(
        f"{t.url}/rounds/1/exchanges/1/passes/0", json={"cards": ["8d"]}, headers=bearer(t.seats[0])
    )
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["cards"] == ["8D"]
    assert r.get_json()["waiting_for"] == [1, 2, 3]


class View:
    def get(self) -> str:
        return "sync"

    async def aget(self) -> str:
        return "async"


def test_coroutine_checks_are_kept_per_function() -> None:
    app = RefereeFlask(__name__)
    first, second = View(), View()
    assert app.ensure_sync(first.get) == first.get
    assert app.ensure_sync(second.get) == second.get
    assert list(app._is_coroutine.values()) == [False]  # one entry for the method
    # A coroutine still goes to async_to_sync, as in Flask (which needs the
    # "async" extra, not installed here).
    with pytest.raises(RuntimeError, match="async"):
        app.ensure_sync(first.aget)
    assert app._is_coroutine[View.aget] is True


def test_the_bearers_digest_is_made_once_per_request(app: Any) -> None:
    with app.test_request_context(headers={"Authorization": "Bearer abc"}):
        digest = auth.token_digest("abc")
        assert digest == auth._digest("abc")
        assert auth.token_digest("abc") is digest
        assert auth.token_hash("abc") == digest.hex()
        assert auth.token_digest("other") == auth._digest("other")
    assert auth.token_digest("abc") == digest  # outside a request too


def test_metric_children_are_bound_once(app: Any) -> None:
    metrics = app.extensions["referee_metrics"]
    child = metrics.child(metrics.claims, "accepted")
    assert child is metrics.child(metrics.claims, "accepted")
    assert child is metrics.claims.labels("accepted")


VALUES = (
    st.none() | st.booleans() | st.integers() | st.text(max_size=4) | st.floats(allow_nan=False)
)
OUTCOMES = st.dictionaries(
    st.sampled_from(
        ["round", "exchange", "seat", "cards", "resolved", "waiting_for", "round_status", "hand"]
        + ["other"]
    ),
    VALUES | st.lists(VALUES, max_size=3) | st.tuples(st.text(max_size=3), st.integers()),
)


@settings(max_examples=400, deadline=None)
@given(outcome=OUTCOMES)
def test_the_fast_dump_is_marshmallows(outcome: dict[str, Any]) -> None:
    fast = fast_dumping(PassOutcomeSchema()).dump
    try:
        expected: Any = PassOutcomeSchema().dump(outcome)
    except (TypeError, ValueError, OverflowError) as error:
        with pytest.raises(type(error)):
            fast(outcome)
        return
    assert fast(outcome) == expected


def test_a_pass_outcome_is_dumped_as_it_stands() -> None:
    outcome = {
        "round": 1,
        "exchange": 2,
        "seat": 0,
        "cards": ["AS"],
        "resolved": False,
        "waiting_for": (1, 2),
        "round_status": "passing",
        "hand": ["KS", "2C"],
    }
    dumped = fast_dumping(PassOutcomeSchema()).dump(outcome)
    assert dumped == {**outcome, "waiting_for": [1, 2]}
    with pytest.raises(ValueError, match="not a flat field"):
        fast_dumping(ClaimOutcomeSchema())


TURN_BODIES = st.dictionaries(
    st.sampled_from(["play", "pass", "last_card", "pass_", "other"]),
    st.booleans() | st.none() | st.integers(0, 2) | CODES,
    max_size=3,
)


@settings(max_examples=400, deadline=None)
@given(body=TURN_BODIES | JSON)
def test_the_fast_turn_load_is_the_schemas_load(body: Any) -> None:
    try:
        expected: Any = TurnSchema().load(body)
    except ma.ValidationError:
        expected = None
    fast = usual_turn(body)
    assert fast is None or fast == expected
    if expected is None:
        assert fast is None


def test_the_usual_turns_take_the_fast_path() -> None:
    assert FAST_BODIES[TurnSchema] is usual_turn
    assert usual_turn({"play": "7S"}) == {"play": "7S", "last_card": False}
    assert usual_turn({"play": "7S", "last_card": True}) == {"play": "7S", "last_card": True}
    assert usual_turn({"pass": True}) == {"pass_": True, "last_card": False}
    assert usual_turn({"pass": True, "last_card": True}) is None  # 422 from the schema
    assert usual_turn({"pass": False}) is None


MAY_I_BODIES = st.dictionaries(
    st.sampled_from(
        ["take_discard", "decline", "draw", "done", "discard", "lay_down", "offer", "allow", "x"]
    ),
    st.booleans() | st.none() | st.integers(-2, 100_002) | CODES | st.lists(CODES, max_size=2),
    max_size=2,
)


@settings(max_examples=600, deadline=None)
@given(body=MAY_I_BODIES | JSON)
def test_the_fast_may_i_loads_are_the_schemas_loads(body: Any) -> None:
    for schema, fast_load in (
        (MoveSchema, usual_move),
        (AskSchema, usual_ask),
        (AnswerSchema, usual_answer),
    ):
        assert FAST_BODIES[schema] is fast_load
        try:
            expected: Any = schema().load(body)
        except ma.ValidationError:
            expected = None
        fast = fast_load(body)
        assert fast is None or fast == expected
        if expected is None:
            assert fast is None


def test_the_usual_may_i_bodies_take_the_fast_path() -> None:
    assert usual_move({"draw": True}) == {"draw": True}
    assert usual_move({"discard": "5C"}) == {"discard": "5C"}
    assert usual_move({"draw": 1}) is None  # 422 from the schema
    assert usual_ask({"offer": 3}) == {"offer": 3}
    assert usual_ask({"offer": True}) is None
    assert usual_answer({"allow": False}) == {"allow": False}
