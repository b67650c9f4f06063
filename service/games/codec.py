"""The stored form of any game's table and events: each game's own codec,
found without decoding twice.

A state names its game by its first key, ``{"g":"<game>",...}``; a state
without it is My Ship Sails' (every state stored before there were other
games). Events are ``[code, at_ms, values...]`` with codes unique across
games (a game's :attr:`~.base.Game.event_layouts`), or whole JSON objects.

The stored-format contract (deploy/README, "Upgrading"): a state's ``fmt``
(and its ``g``) is its format, and it covers the game's texts kept beside it
(choices, history, rounds); an event's code is its format. Reading a newer
one (a game, a ``fmt`` or an event code this release does not know) raises
:class:`~.errors.StoredFormatNewer`, never a wrong table. A release writes
the previous release's formats until told otherwise (``STORED_FORMAT``):
:data:`DOWN` turns a game's current format into its previous one, and
:data:`PREVIOUS` is this codec writing them.
"""

from __future__ import annotations

import contextlib
import json
import sys
from collections.abc import Callable, Mapping
from typing import Any

from . import GAMES, SHIP, game_of, record
from .base import Step, Transition, Turn
from .errors import StoredFormatNewer

_PREFIX = b'{"g":"'

LAYOUTS: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
"""Per event type, its layouts (one per game that uses the type with other members)."""
_BY_CODE: dict[int, tuple[str, tuple[str, ...]]] = {}
for _game in GAMES.values():
    for _kind, (_code, _members) in _game.event_layouts.items():
        known = _BY_CODE.get(_code)
        if known is not None and known != (_kind, _members):  # pragma: no cover
            raise RuntimeError(f"event code {_code} is used twice")
        if known is None:
            _BY_CODE[_code] = (_kind, _members)
            LAYOUTS.setdefault(_kind, []).append((_code, _members))
    for _code, _layout in _game.legacy_event_codes.items():
        if _BY_CODE.setdefault(_code, _layout) != _layout:  # pragma: no cover
            raise RuntimeError(f"event code {_code} is used twice")


DOWN: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {}
"""Per game, what turns its current format's JSON object into the previous
release's format (``STORED_FORMAT=previous``). A game absent from it writes
the same format in both (0.2.0, the first release under the contract: every
game; 0.1.0's formats are not written again, CHANGELOG.md). A release that
changes a game's format puts the down-writer here and reads both formats."""


ENCODED_KEPT = 256
"""How many of the newest texts :func:`encode` wrote :func:`decode` answers
with the table they were written from."""

_encoded: dict[bytes, Any] = {}


def encode(table: Any, previous: bool = False) -> str:
    """The table as its game's compact JSON text; with ``previous``, in the
    previous release's format (:data:`DOWN`). A text in this release's
    format is kept with its table, so that decoding it costs nothing: the
    read after a commit (its streams' page, the next move's load) decodes
    the text the commit wrote (issue 44; ``decode(encode(t)) == t`` for
    every game, and tables are immutable)."""
    game = game_of(table)
    text = game.encode(table)
    down = DOWN.get(game.name) if previous else None
    if down is None:
        _encoded[text.encode()] = table
        if len(_encoded) > ENCODED_KEPT:
            # The oldest; another thread may have taken it.
            with contextlib.suppress(KeyError, RuntimeError, StopIteration):
                del _encoded[next(iter(_encoded))]
        return text
    return json.dumps(down(json.loads(text)), separators=(",", ":"), ensure_ascii=False)


def decode(text: str | bytes) -> Any:
    """The table :func:`encode` wrote, by the game its text names; raises
    :class:`StoredFormatNewer` for a game or a format this release does not
    know (a newer release wrote it)."""
    raw = text.encode() if isinstance(text, str) else text
    found = _encoded.get(raw)
    if found is not None:
        return found
    if raw.startswith(_PREFIX):
        name = raw[len(_PREFIX) : raw.index(b'"', len(_PREFIX))].decode()
        if name not in GAMES:
            raise StoredFormatNewer("game", name, sorted(GAMES))
        return GAMES[name].decode(raw)
    return SHIP.decode(raw)


def step_of(table: Any) -> Step | None:
    """The simultaneous step ``table`` is in, by its game (``Game.step_of``)."""
    return game_of(table).step_of(table)


def fold_choices(table: Any, choices: Mapping[int, str | bytes]) -> Any:
    """``table`` with its step's pending choices put in (``Game.fold_choices``)."""
    return game_of(table).fold_choices(table, choices) if choices else table


def due(table: Any, now_ms: int) -> Transition:
    """``table`` as it stands at ``now_ms`` and the events due by then, by its
    game (``Game.due``)."""
    return game_of(table).due(table, now_ms)


def due_at(table: Any) -> int | None:
    """When something of ``table`` falls due by the clock alone, by its game
    (``Game.due_at``); ``None``: never."""
    return game_of(table).due_at(table)


def turn_of(table: Any) -> Turn | None:
    """Who ``table`` waits for, by its game (``Game.turn_of``)."""
    return game_of(table).turn_of(table)


def rounds_of(table: Any) -> tuple[int, tuple[str, ...]]:
    """The rounds ``table`` has finished and the texts of the newest it
    holds, by its game (``Game.rounds_of``)."""
    return game_of(table).rounds_of(table)


def record_item(table: Any, entry: dict[str, Any], round_no: int, base_ms: int) -> str:
    """A round record's entry as Redis keeps it, by ``table``'s game
    (:func:`.record.encode_entry` with its ``record_layouts``)."""
    return record.encode_entry(game_of(table).record_layouts, entry, round_no, base_ms)


def encode_event(event: dict[str, Any]) -> str:
    """A public event (``at_ms``, ``type`` and its members; no ``seq``) as
    ``[code, at_ms, values...]``, or the whole object for a type or a set of
    members no layout knows."""
    for code, members in LAYOUTS.get(event.get("type"), ()):  # type: ignore[arg-type]
        if "at_ms" in event and len(event) == len(members) + 2 and all(m in event for m in members):
            values = [code, event["at_ms"], *(event[m] for m in members)]
            return json.dumps(values, separators=(",", ":"), ensure_ascii=False)
    return json.dumps(event, separators=(",", ":"), ensure_ascii=False)


def decode_event(text: str | bytes) -> dict[str, Any]:
    """The event :func:`encode_event` wrote: ``{"at_ms", "type", members...}``
    (an event kept before the compact layout also has its ``seq``). A member
    whose name starts with ``_`` (in a legacy layout) is a value that is no
    longer shown: it is dropped."""
    data = json.loads(text)
    if isinstance(data, dict):
        return data
    if data[0] not in _BY_CODE:  # a newer release's event
        raise StoredFormatNewer("event", data[0], max(_BY_CODE))
    kind, members = _BY_CODE[data[0]]
    values = zip(members, data[2:], strict=True)
    return {"at_ms": data[1], "type": kind, **{m: v for m, v in values if m[0] != "_"}}


class _Previous:
    """This codec writing the previous release's formats (``STORED_FORMAT=previous``):
    every function of the module, :func:`encode` with ``previous``."""

    def __getattr__(self, name: str) -> Any:
        return getattr(sys.modules[__name__], name)

    @staticmethod
    def encode(table: Any) -> str:
        return encode(table, previous=True)


PREVIOUS = _Previous()
"""The codec for a store that writes the previous release's formats."""
