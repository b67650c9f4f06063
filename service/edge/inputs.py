"""What every request's input must be before any view reads it.

* Numbers are ASCII digits only, wherever they arrive: a path's ``<int:…>``
  (:class:`AsciiIntegerConverter` replaces werkzeug's ``int``, whose ``\\d``
  and ``int()`` take any Unicode digit, so ``/rounds/١`` was round 1), a query
  parameter (:class:`AsciiInteger`), a body (JSON numbers are ASCII by the
  grammar; body fields refuse strings).
* A body has a ``Content-Length`` (RFC 9112 6.3 lets a server refuse one
  without it): a chunked body (``Transfer-Encoding``) is 411
  ``length-required`` before it is read, and gunicorn's worker closes the
  connection after the answer rather than read it (``service.workers``). Each
  chunk costs the server some microseconds to parse whatever its size, so
  64 KiB sent in 1-byte chunks cost 250 ms, a 1 MiB deal proof 3 s (issue 39,
  eleventh attacker: ten connections of them left another address 4 answers
  in 14 s); a proxy in front (deploy/nginx.conf) sends a length anyway.
* A body is at most :data:`MAX_BODY` bytes (an endpoint marked with
  :func:`takes_body` up to its own limit): werkzeug enforces
  ``MAX_CONTENT_LENGTH`` on the ``Content-Length`` before a view reads it,
  413 ``body-too-large``.
* A JSON body whose value Python cannot hold (an integer of more than 4,300
  digits: ``ValueError`` from ``int``) is 400 like any malformed JSON
  (:func:`load_json`), not a 500.
* A JSON string (or member name) with a lone surrogate escape (``"\\ud800"``)
  is no Unicode text: UTF-8 cannot hold it, so hashing or storing it fails.
  Every body is refused 422 ``invalid-request`` for one, with its pointer
  (:func:`load_json`), before any schema or view reads it.
* A body is parsed with Python's cyclic garbage collector paused
  (:func:`parse_json`): JSON makes no cycles, and a body of 64 KiB of empty
  lists otherwise set off some 40 collections of the whole heap (30 ms).
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from flask import Flask, current_app, request
from marshmallow import ValidationError, fields
from werkzeug.routing import IntegerConverter

from .problems import Problem, invalid_request

MAX_BODY = 64 * 1024
"""The largest body accepted, in bytes (also ``MAX_CONTENT_LENGTH``), but
by an endpoint marked with :func:`takes_body`."""

RECORD_BODY = 1024 * 1024
"""The largest body of ``POST /v1/checks/deal-proof``, in bytes: a whole
round record, whose 2,000 kept moves with their links come to about 400 KB."""

CONTAINER_BYTES = 16
"""A JSON body may hold one array or object per this many bytes of its
endpoint's limit (4,096 in 64 KiB; 65,536 in a round record's 1 MiB), counted
at C's speed as its ``[`` and ``{`` bytes (those in strings too) before it is
parsed. Every container is an object to make, collect and free: 64 KiB of
nested or empty lists (31,500 of them) cost 7 to 20 ms a request, some 3 ms
of it garbage collection (issue 39, sixteenth attacker). Valid bodies of
64 KiB hold a few dozen; a round record one to three a move (2,000 at most)."""

View = TypeVar("View", bound=type)


def takes_body(limit: int) -> Callable[[View], View]:
    """Mark a ``MethodView`` class as taking bodies up to ``limit`` bytes
    instead of :data:`MAX_BODY` (a view that reads a whole round record)."""

    def mark(view: View) -> View:
        view.max_body = limit  # type: ignore[attr-defined]
        return view

    return mark


def body_limit() -> int:
    """The body limit of the request's endpoint, in bytes."""
    view = current_app.view_functions.get(request.endpoint or "")
    return int(getattr(getattr(view, "view_class", None), "max_body", MAX_BODY))


def too_large(limit: int = MAX_BODY) -> Problem:
    """The 413 for a body over ``limit`` bytes."""
    return Problem(413, "body-too-large", f"The request body is larger than {limit} bytes.")


class AsciiIntegerConverter(IntegerConverter):
    """``<int:…>`` with ASCII digits only (werkzeug's matches ``\\d``: any script)."""

    regex = r"[0-9]+"


class AsciiInteger(fields.Integer):
    """A whole number given as text (a query parameter): ASCII digits only,
    an optional leading ``-``; ``int()`` would read ``"١٢"`` as 12."""

    def _validated(self, value: Any) -> int:
        if isinstance(value, str) and not (
            value.isascii() and value.lstrip("-").isdigit() and value.count("-") <= 1
        ):
            raise self.make_error("invalid")
        try:
            return super()._validated(value)
        except ValueError:  # more than 4,300 digits
            raise ValidationError("Not a valid integer.") from None


def parse_json(data: bytes | str) -> Any:
    """``json.loads(data)`` with the cyclic garbage collector paused (see the
    module's notes), bytes read as UTF-8 only (RFC 8259 8.1; a leading byte
    order mark is ignored, as it allows); raises what ``json.loads`` raises,
    ``UnicodeDecodeError`` for bytes that are not UTF-8. ``json.loads`` alone
    also reads UTF-16 and UTF-32, where no surrogate's escape is ASCII: a
    lone surrogate so sent passed :func:`escapes_a_surrogate` and was stored
    (issue 39, sixteenth attacker: a seed that made every deal of its table
    a 500)."""
    text = data.decode("utf-8-sig") if isinstance(data, bytes) else data
    paused = gc.isenabled()
    gc.disable()
    try:
        return json.loads(text)
    finally:
        if paused:
            gc.enable()


SURROGATE_ESCAPES = tuple(b"\\ud" + bytes([c]) for c in b"89abcdef")
"""The escapes of surrogates (``\\ud800`` to ``\\udfff``), in lower case."""


def escapes_a_surrogate(data: bytes) -> bool:
    """Whether ``data`` holds the escape of a surrogate (any case): only a
    body that does can hold a lone surrogate (raw UTF-8 cannot). An escaped
    backslash before it (text, not an escape) counts too: the check that
    follows finds nothing. Searched in C (a loop over each ``\\u`` in
    Python cost 14 ms for 64 KiB of them; issue 39, fifteenth attacker)."""
    lowered = data.lower()
    return any(escape in lowered for escape in SURROGATE_ESCAPES)


WALKED = 1000
"""The most values :func:`lone_surrogates` looks at to name where a lone
surrogate is (some 3.6 µs each): past them, the answer names the body."""

UNNAMED = f"not among the body's first {WALKED} values, or in a member it names twice"
"""Where a lone surrogate the body's text escapes is, when the walk did not
find it: past :data:`WALKED` values, or in the value of a member named again
later (RFC 8259 4: names SHOULD be unique; the parser keeps the last), which
only a walk of every value could tell apart."""


_HEX_DIGITS = bytes.maketrans(b"0123456789abcdef", b"x" * 16)
_HIGH, _LOW = b"\\u\x01", b"\\u\x02"
"""A high and a low surrogate's escape, marked (:func:`holds_lone_surrogate`)."""


def holds_lone_surrogate(data: bytes) -> bool:
    """Whether the JSON text ``data`` (valid, UTF-8) escapes a lone
    surrogate, read from its bytes with C's string methods alone: its
    escaped backslashes set aside (JSON has a backslash nowhere but at an
    escape, so what is left of a run of them starts one), each surrogate's
    escape marked high or low and its hex digits made alike, a lone one is
    a high or a low escape that is not half of a pair. Some 0.3 ms for
    64 KiB whatever it holds: writing the parsed value again cost 4 to 5 ms
    for 64 KiB of numbers after one emoji (issue 39, seventeenth attacker),
    a regular expression's substitution 5 ms for 64 KiB of emoji, a walk of
    the value in Python 114 ms for nested lists (the fifteenth)."""
    # "__", not "": a pair's halves joined across an escaped backslash are no pair.
    text = data.lower().replace(b"\\\\", b"__")
    for digit in b"89ab":
        text = text.replace(b"\\ud" + bytes([digit]), _HIGH)
    for digit in b"cdef":
        text = text.replace(b"\\ud" + bytes([digit]), _LOW)
    text = text.translate(_HEX_DIGITS)
    pairs = text.count(_HIGH + b"xx" + _LOW + b"xx")
    return text.count(_HIGH) != pairs or text.count(_LOW) != pairs


def lone_surrogates(value: Any) -> tuple[list[str], bool]:
    """The JSON pointers of ``value``'s strings and member names that hold a
    lone surrogate (at most 50), in document order, among its first
    :data:`WALKED` values, and whether every value was looked at. A pointer
    is written only for what is found (each item's pointer, written as it
    was walked, repeated its parents' names: a 32,000-letter member name
    over 16,000 items cost 825 ms and 470 MB; issue 39, thirteenth
    attacker)."""
    found: list[str] = []
    walked = 0
    parts: list[str] = []  # the names and indices down to the container walked

    def at(part: str) -> str:
        names = [*parts[1:], part] if parts else []
        return "".join("/" + n.replace("~", "~0").replace("/", "~1") for n in names) or "/"

    stack: list[Iterator[tuple[str, Any, bool]]] = [iter((("", value, False),))]
    while stack:
        for part, item, named in stack[-1]:
            walked += 1
            if walked > WALKED:
                return found, False
            if (named and not _encodable(part)) or (isinstance(item, str) and not _encodable(item)):
                found.append(at(part))
                if len(found) == 50:  # each pointer may be as long as the body
                    return found, False
            if isinstance(item, dict):
                stack.append((name, member, True) for name, member in item.items())
                parts.append(part)
                break
            elif isinstance(item, list):
                stack.append((str(i), member, False) for i, member in enumerate(item))
                parts.append(part)
                break
        else:
            stack.pop()
            if parts:
                parts.pop()
    return found, True


def _encodable(text: str) -> bool:
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def load_json(data: bytes) -> Any:
    """``data`` as JSON; a value Python cannot hold (an integer of more than
    4,300 digits) is 400 ``malformed-request``, a string with a lone
    surrogate 422 ``invalid-request`` naming where. Other malformed JSON
    raises ``json.JSONDecodeError`` for webargs to answer (400)."""
    try:
        value = parse_json(data)
    except json.JSONDecodeError:
        raise
    except UnicodeDecodeError as error:
        raise json.JSONDecodeError(f"Bytes decoding error: {error.reason}", "-", 0) from None
    except ValueError:
        raise Problem(
            400,
            "malformed-request",
            "The request body holds a number too long to read (more than 4,300 digits).",
        ) from None
    # Raw UTF-8 holds no surrogate: only an escape can.
    if escapes_a_surrogate(data) and holds_lone_surrogate(data):
        lone, whole = lone_surrogates(value)
        if lone or not whole:
            detail = "a lone surrogate (\\ud800-\\udfff) is no text"
            raise invalid_request(
                [{"pointer": p, "detail": detail} for p in lone]
                or [{"pointer": "/", "detail": f"{detail} ({UNNAMED})"}]
            )
        # Every value looked at, none holds one: the text's was in a member
        # named again later, whose last value is the one JSON parsers keep.
    return value


def guard_body() -> None:
    """Before any view: refuse a body of unknown length (411
    ``length-required``: a ``Transfer-Encoding``, chunked) before reading it,
    one over the endpoint's limit (:func:`body_limit`, 413) by its
    ``Content-Length``, and a JSON body of more arrays and objects than one
    per :data:`CONTAINER_BYTES` of that limit (400 ``malformed-request``),
    counted before it is parsed."""
    if request.environ.get("HTTP_TRANSFER_ENCODING"):
        raise Problem(
            411,
            "length-required",
            "Send the body with a Content-Length: a chunked body is not read.",
        )
    limit = body_limit()
    if limit != MAX_BODY:
        request.max_content_length = limit  # werkzeug's own check, per request (Flask 3.1)
    length = request.content_length
    if length is not None and length > limit:
        raise too_large(limit)
    most = limit // CONTAINER_BYTES
    if length is not None and length > most and request.is_json:
        data = request.get_data(cache=True)
        if data.count(b"[") + data.count(b"{") > most:
            raise Problem(
                400,
                "malformed-request",
                f"The request body holds more than {most} arrays and objects"
                " (counted as its '[' and '{' characters).",
            )


def init_app(app: Flask) -> None:
    """ASCII path integers (before any route is added) and the body guard."""
    app.url_map.converters["int"] = AsciiIntegerConverter
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.before_request(guard_body)
