"""Each game's answers as a shape of their own (issue 42): a game's schemas
module (:mod:`.schemas_ship`, :mod:`.schemas_sevens`, :mod:`.schemas_may_i`)
declares its seat, round, result, seat view and events, and
:func:`register` makes from them, game-free, the rest of its answers (its
table, its round and page of rounds, its presets, its options, whose move the
table awaits) and puts them in the unions of :mod:`.schemas`
(:class:`.schemas.ByGame`): the spec then says each as a ``oneOf`` with a
``discriminator`` on ``game``, and a generated client narrows a view by its
game (a Sevens view has `playable`, never `to_choose`).

A game's seat view and its other schemas name their game in their own
``game`` member (:func:`game_field`): the value every answer of that game
carries, and the one the discriminator maps to them.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

from ..clock import CLOCK_OPTIONS
from ..games import GAMES, Game
from . import schemas
from .fields import DocumentedSchema
from .per_game import camel, option_names
from .schemas import (
    AwaitingSchema,
    MatchViewSchema,
    OptionsSchema,
    RoundInfoBaseSchema,
    RoundListBaseSchema,
    RoundResultSchema,
    RoundViewSchema,
    SeatSchema,
    SeatViewBaseSchema,
    TableViewSchema,
    VariantBaseSchema,
)

SHARED_ACTIONS = ("deal", "nothing")
"""What a table of every game may wait for besides its game's own steps:
the host's deal of the next round, nothing (the match is over)."""


def game_field(game: str) -> fields.String:
    """The ``game`` member of an answer of ``game``'s only: its one value,
    which the spec's ``discriminator`` maps to that answer's shape."""
    return fields.String(
        validate=validate.OneOf([game]),
        metadata={"description": f"The game the table plays: `{game}`."},
    )


@dataclass(frozen=True)
class GameViews:
    """What a game's schemas module declares of its answers: its public
    ``seat`` (also the standings'), its ``round`` view, its round ``result``,
    its private ``seat_view``, its ``match`` view, and the ``actions`` a
    table of it may wait for (``awaiting.action``) besides
    :data:`SHARED_ACTIONS`."""

    seat: type[SeatSchema]
    round: type[RoundViewSchema]
    result: type[RoundResultSchema]
    seat_view: type[SeatViewBaseSchema]
    actions: Sequence[str]
    match: type[MatchViewSchema] = MatchViewSchema


def _schema(component: str, base: type[ma.Schema], doc: str, **members: Any) -> type[ma.Schema]:
    """A schema class ``<component>Schema`` (the spec's component ``component``)."""
    body = {"__doc__": doc, "__module__": __name__, **members}
    return type(f"{component}Schema", (base,), body)


def options_out(game: Game) -> type[ma.Schema]:
    """``game``'s complete option set as answers write it: its own options
    (every one present) with the types and bounds they are sent with
    (:class:`.schemas.OptionsSchema`, or the game's own where it has one,
    ``Game.option_schemas``), and every game's clock options, which a
    table's view holds and a preset's does not."""
    own = option_names(game)
    members: dict[str, Any] = {"PRESENT": tuple(own)}
    for name in option_names(game, clocked=True):
        schema = game.option_schemas.get(name)
        if schema is not None:  # the game's own values (a Raw field says no type)
            members[name] = fields.Raw(
                allow_none=bool(schema.get("nullable")), metadata=copy.deepcopy(dict(schema))
            )
        else:
            members[name] = copy.deepcopy(OptionsSchema._declared_fields[name])
    doc = (
        f"A complete option set of {game.title}: every option of its presets "
        f"(`GET /v1/variants`); a table's view adds the clock options "
        f"({', '.join(f'`{c}`' for c in CLOCK_OPTIONS)})."
    )
    return _schema(camel(game.name) + "OptionsOut", DocumentedSchema, doc, **members)


def _nested_like(base: type[ma.Schema], name: str, nested: type[ma.Schema]) -> fields.Field[Any]:
    """``base``'s field ``name`` (a ``Nested`` or a ``List`` of one), of ``nested``."""
    field = base._declared_fields[name]
    if isinstance(field, fields.List):
        return fields.List(
            fields.Nested(nested), allow_none=field.allow_none, metadata=field.metadata
        )
    return fields.Nested(nested, allow_none=field.allow_none, metadata=field.metadata)


def register(name: str, views: GameViews) -> None:
    """Make game ``name``'s answers of :class:`GameViews` ``views`` and put
    them in :mod:`.schemas`' unions, so that every answer of its tables
    dumps, and is documented, as its own shape."""
    game = GAMES[name]
    prefix = camel(game.name)
    title = game.title
    options = options_out(game)
    awaiting = _schema(
        prefix + "Awaiting",
        AwaitingSchema,
        f"Whose move a {title} table waits for.",
        action=fields.String(
            validate=validate.OneOf([SHARED_ACTIONS[0], *views.actions, SHARED_ACTIONS[1]]),
            metadata=AwaitingSchema._declared_fields["action"].metadata,
        ),
    )
    variant = fields.String(
        validate=validate.OneOf(list(game.presets)),
        metadata={"description": f"The preset (`GET /v1/variants`), one of {title}'s."},
    )
    schemas.PublicTableSchema.type_schemas[name] = _schema(
        prefix + "Table",
        TableViewSchema,
        f"The public view of a {title} table: never a hidden card.",
        game=game_field(name),
        variant=variant,
        options=_nested_like(TableViewSchema, "options", options),
        seats=_nested_like(TableViewSchema, "seats", views.seat),
        standings=_nested_like(TableViewSchema, "standings", views.seat),
        awaiting=_nested_like(TableViewSchema, "awaiting", awaiting),
        round=_nested_like(TableViewSchema, "round", views.round),
        last_result=_nested_like(TableViewSchema, "last_result", views.result),
        match=_nested_like(TableViewSchema, "match", views.match),
    )
    schemas.SeatViewSchema.type_schemas[name] = views.seat_view
    schemas.RoundInfoSchema.type_schemas[name] = _schema(
        prefix + "RoundInfo",
        RoundInfoBaseSchema,
        f"One round of a {title} table: the current view while it is the latest, its "
        "result once over.",
        game=game_field(name),
        current=_nested_like(RoundInfoBaseSchema, "current", views.round),
        result=_nested_like(RoundInfoBaseSchema, "result", views.result),
    )
    schemas.RoundListSchema.type_schemas[name] = _schema(
        prefix + "RoundList",
        RoundListBaseSchema,
        f"A page of a {title} table's finished rounds, oldest first.",
        game=game_field(name),
        rounds=_nested_like(RoundListBaseSchema, "rounds", views.result),
    )
    schemas.VariantSchema.type_schemas[name] = _schema(
        prefix + "Variant",
        VariantBaseSchema,
        f"A preset of {title}: its name, player range, source seed and options.",
        game=game_field(name),
        name=variant,
        options=_nested_like(VariantBaseSchema, "options", options),
    )


def registered() -> list[str]:
    """The games whose answers are registered (every game, once the app's
    blueprints are imported: tests/api/test_typed_views.py checks)."""
    return list(schemas.PublicTableSchema.type_schemas)
