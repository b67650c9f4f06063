"""The JSON text of answers and stream frames (service/json_text.py, issue 44):
orjson's text, read back as the standard library's, with its fallbacks."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service import json_text
from service.edge.json_answers import CompactJSONProvider

# What views and events hold: nested dicts and lists of strings (any
# character but a lone surrogate), 64-bit integers, booleans and null.
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.text(st.characters(blacklist_categories=["Cs"]), max_size=12)
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)


@given(VALUES, st.booleans())
def test_the_text_reads_back_as_the_standard_librarys(value: Any, sort_keys: bool) -> None:
    text = json_text.compact(value, sort_keys=sort_keys)
    stdlib = json.dumps(value, sort_keys=sort_keys, separators=(",", ":"))
    assert json.loads(text) == json.loads(stdlib)
    # The same text once non-ASCII characters are escaped: key order, spacing, numbers.
    assert json.dumps(json.loads(text), sort_keys=False, separators=(",", ":")) == json.dumps(
        json.loads(stdlib), sort_keys=False, separators=(",", ":")
    )
    if text.isascii():
        assert text == stdlib


def test_sorted_keys_nested_and_non_ascii_as_utf8() -> None:
    value = {"b": {"z": 1, "a": [True, None]}, "a": "Zoë", 3: "three"}
    assert (
        json_text.compact(value, sort_keys=True)
        == '{"3":"three","a":"Zoë","b":{"a":[true,null],"z":1}}'
    )
    assert json_text.compact({"b": 1, "a": 2}) == '{"b":1,"a":2}'  # as built


@pytest.mark.parametrize(
    "value, text",
    [
        ({"n": 2**70}, '{"n":1180591620717411303424}'),  # beyond 64 bits
        ({"s": "a\udc00"}, '{"s":"a\\udc00"}'),  # a lone surrogate: no UTF-8 for it
    ],
)
def test_what_orjson_refuses_is_the_standard_librarys_text(value: Any, text: str) -> None:
    assert json_text.compact(value) == text


def test_what_neither_writes_raises_as_json_dumps_does() -> None:
    with pytest.raises(TypeError, match="not JSON serializable"):
        json_text.compact({"x": object()})


@dataclasses.dataclass
class Point:
    x: int


def test_the_provider_writes_dataclasses_and_dates_as_flask_does(app: Any) -> None:
    provider = app.json
    assert isinstance(provider, CompactJSONProvider)
    value = {"when": datetime(2026, 12, 7, 10, 0, tzinfo=UTC), "at": Point(3), "name": "Zoë"}
    with app.app_context():
        assert provider.dumps(value, separators=(",", ":")) == (
            '{"at":{"x":3},"name":"Zoë","when":"Mon, 07 Dec 2026 10:00:00 GMT"}'
        )
        # Any other call is the standard provider's own text.
        assert provider.dumps({"b": 1, "a": "é"}) == '{"a": "\\u00e9", "b": 1}'
        answer = provider.response({"b": 1, "a": "é"})
    assert answer.get_data() == '{"a":"é","b":1}\n'.encode()
    assert answer.mimetype == "application/json"
