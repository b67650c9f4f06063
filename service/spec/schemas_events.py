"""The public events of a table's log, one schema per type (issue 42): the
spec's ``Event`` is a ``oneOf`` of them with a ``discriminator`` on
``type``, so that a generated client narrows an event by its type.

Nothing is dumped through these schemas: the log's events are answered as
they are stored (:class:`.schemas.AsIs`), so that a release may add members
and types that an older client skips. They say what each type holds:
the events of every game are declared here, and each game's schemas module
declares its own with :func:`declare`. A type that several games write with
different members (``round-dealt``, ``round-won``, the match's end) is one
schema whose members every such game writes are required, and whose others
say which game writes them.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ..games import GAMES
from ..games.base import BOT_KINDS
from .fields import DocumentedSchema
from .schemas import EventSchema

EVERY_GAME = ""
"""The game of :func:`declare` for an event every game writes."""

Members = Mapping[str, "fields.Field[Any]"]


class EventBaseSchema(DocumentedSchema):
    """The members every event has."""

    PRESENT = ("seq", "at_ms", "type")

    seq = fields.Integer(
        metadata={
            "description": "Its place in the log: 1, 2, 3, … with no gap; `after` and "
            "`last_event` count in it."
        }
    )
    at_ms = fields.Integer(
        metadata={"description": "When it happened: server time, ms since the epoch."}
    )


_DECLARED: dict[str, dict[str, tuple[str, Members]]] = {}
"""Per event type, per game (:data:`EVERY_GAME` for all), its description and members."""


def _component(kind: str) -> str:
    return "".join(part.capitalize() for part in kind.split("-")) + "Event"


def _titles(games: list[str]) -> str:
    return ", ".join(GAMES[g].title for g in games)


def _build(kind: str) -> type[ma.Schema]:
    """The schema of event type ``kind`` from every game's declaration."""
    order = [EVERY_GAME, *GAMES]
    declared = dict(sorted(_DECLARED[kind].items(), key=lambda item: order.index(item[0])))
    games = list(declared)
    if len(games) == 1:
        docs = [doc for doc, _ in declared.values()]
    else:
        docs = [f"{GAMES[g].title}: {doc}" for g, (doc, _) in declared.items()]
    members: dict[str, Any] = {}
    everywhere: set[str] | None = None
    for _game, (_doc, own) in declared.items():
        everywhere = set(own) if everywhere is None else everywhere & set(own)
        for name, field in own.items():
            members.setdefault(name, copy.deepcopy(field))
    assert everywhere is not None
    for name, field in members.items():
        if name in everywhere:
            continue
        writers = [g for g, (_, own) in declared.items() if name in own]
        text = field.metadata.get("description", "")
        field.metadata = {**field.metadata, "description": f"{_titles(writers)} only. {text}"}
    type_field = fields.String(
        validate=validate.OneOf([kind]), metadata={"description": "What happened."}
    )
    body: dict[str, Any] = {
        "__doc__": f"`{kind}`"
        + ("" if EVERY_GAME in games else f" ({_titles(games)})")
        + ": "
        + " ".join(docs),
        "__module__": __name__,
        "PRESENT": (*(EventBaseSchema.PRESENT or ()), *sorted(everywhere)),
        "type": type_field,
        **members,
    }
    return type(_component(kind) + "Schema", (EventBaseSchema,), body)


def declare(game: str, events: Mapping[str, tuple[str, Members]]) -> None:
    """Declare ``game``'s events (:data:`EVERY_GAME`: every game's), each
    type with a sentence and its members' fields, into :class:`EventSchema`."""
    for kind, (doc, own) in events.items():
        _DECLARED.setdefault(kind, {})[game] = (doc, own)
        EventSchema.type_schemas[kind] = _build(kind)


def declared_members(game: str) -> dict[str, set[str]]:
    """Each event type ``game`` declared (or every game), with its members:
    what the tests compare with the games' stored layouts."""
    return {
        kind: set(by_game[g][1])
        for kind, by_game in _DECLARED.items()
        for g in (game, EVERY_GAME)
        if g in by_game
    }


def seat(text: str = "The seat.") -> fields.Integer:
    return fields.Integer(metadata={"description": text})


def number(text: str) -> fields.Integer:
    return fields.Integer(metadata={"description": text})


def cards(text: str) -> fields.List:  # type: ignore[type-arg]
    return fields.List(fields.String(), metadata={"description": text})


def seats(text: str) -> fields.List:  # type: ignore[type-arg]
    return fields.List(fields.Integer(), metadata={"description": text})


ROUND = number("The round's number.")


def round_dealt(**own: fields.Field[Any]) -> tuple[str, Members]:
    """``round-dealt``'s declaration of a game: the members every game writes,
    and its ``own``."""
    submitted = fields.Boolean(metadata={"description": "The deal was submitted, not shuffled."})
    members: dict[str, fields.Field[Any]] = {
        "round": ROUND,
        "dealer": seat("The round's dealer."),
        "submitted": submitted,
    }
    return ("The host dealt a round.", {**members, **own})


def match_ended(match: Members, ends: tuple[str, ...]) -> dict[str, tuple[str, Members]]:
    """The declarations of the events that end a match (``match-won``, ...):
    the game's match view (``match``)."""
    text = "The match ended: its status and winners."
    return {f"match-{end}": (text, dict(match)) for end in ends}


declare(
    EVERY_GAME,
    {
        "table-created": (
            "The table was created.",
            {"variant": fields.String(), "seats": number("How many seats it has.")},
        ),
        "first-dealer-drawn": (
            "The first dealer was drawn (RULES.md 1), face up.",
            {
                "draw": fields.List(
                    fields.List(fields.String(allow_none=True)),
                    metadata={
                        "description": "Per pass of the draw, one card per seat (`null`: not "
                        "drawing)."
                    },
                )
            },
        ),
        "round-abandoned": ("The host ended the match during this round.", {"round": ROUND}),
        "move-timed-out": (
            "The worker made a seat's default move at its deadline (RULES.md 5.3); never a "
            "pass's cards.",
            {
                "seat": seat(),
                "step": fields.String(metadata={"description": "The step's key."}),
                "action": fields.String(metadata={"description": "The move made, in words."}),
                "away": fields.Boolean(metadata={"description": "`true`: the seat is away."}),
            },
        ),
        "seat-back": (
            "An away seat moved itself and is no longer `away` (after that move's events).",
            {"seat": seat()},
        ),
        "clock-paused": (
            "The referee made `unattended_moves` moves for seats in a row with no person's "
            "move or act (the view's `clock_paused`, RULES.md 5.3, 5.4).",
            {"moves": number("How many moves in a row.")},
        ),
        "seat-bot": (
            "The host handed a seat to a bot (RULES.md 5.4).",
            {
                "seat": seat(),
                "kind": fields.String(
                    validate=validate.OneOf(BOT_KINDS), metadata={"description": "The bot."}
                ),
            },
        ),
        "seat-bot-removed": (
            "The host took a seat back from its bot (RULES.md 5.4).",
            {
                "seat": seat(),
                "open": fields.Boolean(metadata={"description": "The seat is open again."}),
            },
        ),
        "seat-joined": (
            "A player took an open seat (RULES.md 5.1).",
            {"seat": seat(), "name": fields.String()},
        ),
        "seat-left": (
            "A player left a seat before the first deal; it is open again.",
            {"seat": seat(), "name": fields.String()},
        ),
        "token-reissued": (
            "The host reissued a seat's token (RULES.md 5.1): the old one no longer works.",
            {"seat": seat(), "name": fields.String()},
        ),
    },
)
