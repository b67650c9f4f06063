"""The spec's statement of the text rule (:data:`.schemas.TEXT_DOC`): a name
or a ``call`` holds no invisible or direction-changing character and at
least one visible one (issue 42: schemathesis drew names the schema allowed
and the service refused).

JSON Schema has no Unicode categories, so a ``pattern`` lists code points.
It states the rule for the categories that are a few hundred code points:
controls (Cc), format characters such as U+202E and the zero-width ones
(Cf, below U+10000), line and paragraph separators (Zl, Zp), the
default-ignorable characters below U+10000 (Hangul fillers, variation
selectors: :mod:`service.edge.ignorable`), and "at least
one character that is not a space, a combining mark, a blank filler or one
of those": ``^[^X]*[^S][^X]*$``, some 3 kB, from this Python's own Unicode
database (the one the service validates with). It does not list the
private-use (Co, 137,000 code points) and unassigned (Cn, 830,000 in 700
ranges) code points, the format characters above U+FFFF (tags, U+E0001),
nor lone surrogates (Cs, which UTF-8 JSON cannot carry and Rust's regex,
schemathesis's validator, cannot name): the service refuses them all the
same (422 ``invalid-request`` at the name's pointer), and the component's
description says so. A pattern listing them is 17 kB, and
test generators that draw strings from a pattern (Hypothesis, under
schemathesis) build each class character by character: with it,
schemathesis's coverage phase took over 5 minutes for ``POST /v1/tables``
alone (15 s for the whole API without it).

Each range is written ``\\uXXXX`` below U+10000 and as the character
itself above (the form every regular-expression dialect of JSON Schema
reads alike: ECMA-262 in Unicode mode as ajv compiles it, Python's ``re``
and Rust's ``regex``). The spec states it once per text, as the components
:data:`COMPONENTS`, which each such field refers to.
"""

from __future__ import annotations

import functools
import sys
import unicodedata
from collections.abc import Callable
from typing import Any

from ..edge.ignorable import ignorable
from .fields import BLANK_LETTERS, MAX_CALL, MAX_NAME, TEXT_DOC

COMPONENTS: dict[str, tuple[int, str]] = {
    "Name": (MAX_NAME, "A player's name (or a bot's), 1 to 40 characters."),
    "Call": (MAX_CALL, "The phrase shown with a declaration, 1 to 80 characters."),
}
"""The texts of the spec, by component: their most characters and what they are."""


STATED = ("Cc", "Cf", "Zl", "Zp")
"""The categories of :data:`.schemas.INVISIBLE` that the pattern states."""
BLANKS = ("Zs", "Mn", "Me")
"""What draws nothing by itself besides :data:`STATED` (with the blank
letters, :data:`.schemas.BLANK_LETTERS`): a name of only these is refused."""


def _stated(ch: str) -> bool:
    # Below U+10000 only: the few format characters above it (tags, U+E0001)
    # stay unlisted, as schemathesis writes them back in Python's `\U`
    # form, which its own validator then cannot read (it gave up on the
    # operations that take a name).
    return ch < "\U00010000" and (unicodedata.category(ch) in STATED or ignorable(ch))


def _blank(ch: str) -> bool:
    return _stated(ch) or unicodedata.category(ch) in BLANKS or ch in BLANK_LETTERS


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
    """A negated class of ``ranges``: any character but those."""
    parts = (_char(a) if a == b else f"{_char(a)}-{_char(b)}" for a, b in ranges)
    return "[^" + "".join(parts) + "]"


@functools.cache
def pattern() -> str:
    """The stated part of the text rule as a JSON Schema ``pattern``."""
    allowed = _class(_ranges(_stated))
    visible = _class(_ranges(_blank))
    return f"^{allowed}*{visible}{allowed}*$"


UNSTATED = (
    "Private-use (Co) and unassigned (Cn) code points, format and default-ignorable "
    "characters above U+FFFF (tags, variation selectors 17 to 256) and lone surrogates "
    "(Cs) are refused too (422 `invalid-request`): this pattern "
    "does not list them (a pattern that did would be 17 kB, and test generators build its "
    "classes a character at a time)."
)


def components() -> dict[str, dict[str, Any]]:
    """The spec's text components (:data:`COMPONENTS`), each a string schema
    with its bounds and the pattern."""
    return {
        name: {
            "type": "string",
            "minLength": 1,
            "maxLength": most,
            "pattern": pattern(),
            "description": f"{what} {TEXT_DOC} {UNSTATED} (Unicode {unicodedata.unidata_version}.)",
        }
        for name, (most, what) in COMPONENTS.items()
    }


def reference(component: str) -> dict[str, str]:
    """A reference to the text component ``component``."""
    if component not in COMPONENTS:
        raise KeyError(component)
    return {"$ref": f"#/components/schemas/{component}"}
