"""The spec's statement of the text rule (:data:`.schemas.TEXT_DOC`): a name
or a ``call`` holds no invisible or direction-changing character (Unicode
categories :data:`.schemas.INVISIBLE`: controls, format characters, private
use, lone surrogates, unassigned code points, line and paragraph
separators) and at least one visible one. JSON Schema has no Unicode
categories, so the pattern lists the code points of each class as ranges,
from this Python's own Unicode database: the one that ``_printable``
validates with, so that the spec and the service agree on every code point
(issue 42: schemathesis drew names the schema allowed and the service refused).

The pattern is ``^[allowed]*[visible][allowed]*$``: each range is written
``\\uXXXX`` below U+10000 and as the character itself above (the form every
regular-expression dialect of JSON Schema reads alike, ECMA-262 in Unicode
mode as ajv compiles it, Python's ``re`` and Rust's ``regex``). It is some
20 kB, so the spec states it once per text, as the components
:data:`COMPONENTS`, which each such field refers to.
"""

from __future__ import annotations

import functools
import sys
import unicodedata
from collections.abc import Callable
from typing import Any

from .schemas import INVISIBLE, MAX_CALL, MAX_NAME, TEXT_DOC, _visible

COMPONENTS: dict[str, tuple[int, str]] = {
    "Name": (MAX_NAME, "A player's name (or a bot's), 1 to 40 characters."),
    "Call": (MAX_CALL, "The phrase shown with a declaration, 1 to 80 characters."),
}
"""The texts of the spec, by component: their most characters and what they are."""


def _allowed(ch: str) -> bool:
    return unicodedata.category(ch) not in INVISIBLE


def _ranges(keep: Callable[[str], bool]) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    start = None
    for code in range(sys.maxunicode + 1):
        if keep(chr(code)):
            if start is None:
                start = code
        elif start is not None:
            found.append((start, code - 1))
            start = None
    if start is not None:
        found.append((start, sys.maxunicode))
    return found


def _char(code: int) -> str:
    return f"\\u{code:04x}" if code < 0x10000 else chr(code)


def _class(ranges: list[tuple[int, int]]) -> str:
    parts = (_char(a) if a == b else f"{_char(a)}-{_char(b)}" for a, b in ranges)
    return "[" + "".join(parts) + "]"


@functools.cache
def pattern() -> str:
    """The text rule as a JSON Schema ``pattern`` (computed once: 0.5 s)."""
    allowed = _class(_ranges(_allowed))
    visible = _class(_ranges(lambda ch: _allowed(ch) and _visible(ch)))
    return f"^{allowed}*{visible}{allowed}*$"


def components() -> dict[str, dict[str, Any]]:
    """The spec's text components (:data:`COMPONENTS`), each a string schema
    with its bounds and the pattern."""
    return {
        name: {
            "type": "string",
            "minLength": 1,
            "maxLength": most,
            "pattern": pattern(),
            "description": f"{what} {TEXT_DOC} (Unicode {unicodedata.unidata_version}.)",
        }
        for name, (most, what) in COMPONENTS.items()
    }


def reference(component: str) -> dict[str, str]:
    """A reference to the text component ``component``."""
    if component not in COMPONENTS:
        raise KeyError(component)
    return {"$ref": f"#/components/schemas/{component}"}
