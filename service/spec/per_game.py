"""The spec's schemas of a request that names a preset (``variant``): one
``oneOf`` branch per game and range of players, each with only that game's
options, so that the contract says what each game takes (a Sevens option on a
My Ship Sails table, or five players at a four-seat preset, is not
schema-valid). Written from the game registry; the API knows no game.

What JSON Schema (OpenAPI 3.0) cannot say stays the rules' to refuse, with
their codes; :data:`UNSTATED` names each, for the spec's description and the
contract tests' schemathesis hook (``tests/contract/hooks.py``), which
holds schemathesis to them.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from ..clock import CLOCK_OPTIONS
from ..games import GAMES, Game
from ..games.base import DEAL_MEMBERS

UNSTATED = (
    "`first_dealer` must be a seat of the table (below the number of `players`);",
    "a preset's options must make one consistent game with its players (e.g. "
    "`hand_size` times the players fits the deck; Sevens with one deck is for 3 to 8 "
    "players, with two for 6 to 10);",
    "a name or `call` has no private-use or unassigned code point or format character "
    "past U+FFFF (`pattern` says the rest);",
    "a person's name never reads as `Bot …` (the bots'), look-alike letters too;",
    "a deal, hand, meld or layout must be one the game can hold (the deck's cards, none "
    "twice in any spelling, a hand of the preset's size): a move refuses it, a deal check "
    "answers it;",
    "an `Idempotency-Key` sent again comes with the same body (422 `idempotency-key-reused`);",
    "an event cursor (`after`) must be one the table's log holds (else 410 `events-gone`);",
    "an `If-None-Match` on a deletion must not match the table's current `ETag` (the "
    "caller's own precondition: 412 `precondition-failed`).",
)
"""What a schema-valid request may still break, and why JSON Schema cannot say it."""


CONSISTENT = (
    "What a schema cannot state is the rules' to refuse (422 `options-invalid`, every reason "
    "listed): options that make no consistent game with the preset and the players, such as "
    "a deck too small for the seats, or values of two options that contradict each other."
)
"""What each game's options say of the rule no schema states (:data:`UNSTATED`)."""

SEAT_ARRAYS = ("hands", "passes")
"""A request's members that hold one item a seat when it names no ``players``."""


def deal_members() -> dict[str, tuple[str, ...]]:
    """Each member a submitted deal may have, of any game (``hands`` apart):
    the games that read it (``Game.deal_members``)."""
    return {
        member: tuple(g.name for g in GAMES.values() if member in g.deal_members)
        for member in DEAL_MEMBERS
        if member != "hands"
    }


def option_names(game: Game, clocked: bool = False) -> list[str]:
    """A game's options: its presets', and with ``clocked`` every game's
    clock options too (a new table's: RULES.md 5.3)."""
    own = {name for preset in game.presets.values() for name in preset.options}
    return sorted(own | set(CLOCK_OPTIONS) if clocked else own)


def _player_ranges(game: Game, variants: Sequence[str]) -> dict[tuple[int, int], list[str]]:
    # Where an option moves a preset's range, a count it allows with some
    # options is schema-valid; the options' consistency (UNSTATED) judges it.
    ranges: dict[tuple[int, int], list[str]] = {}
    for name in variants:
        preset = game.presets[name]
        own = game.seat_range or (preset.min_players, preset.max_players)
        ranges.setdefault(own, []).append(name)
    return ranges


def _option_schema(game: Game, name: str, shared: Mapping[str, Any]) -> dict[str, Any]:
    """The option ``name``'s schema on ``game``'s tables: the game's own
    (:attr:`Game.option_schemas`), else the shared one."""
    own = game.option_schemas.get(name)
    if own is None:
        return copy.deepcopy(dict(shared[name]))
    return copy.deepcopy(dict(own))


def game_branches(
    properties: Mapping[str, Any],
    option_schemas: Mapping[str, Any],
    games: Sequence[str] | None,
    default_variant: str | None,
    required_of: Sequence[str] = (),
    clocked: bool = False,
    members_of: Mapping[str, Sequence[str]] | None = None,
) -> list[dict[str, Any]]:
    """The ``oneOf`` of a request schema whose ``properties`` hold ``variant``
    and ``options`` (and maybe ``players``, a count or a list of names, or
    else :data:`SEAT_ARRAYS`): a branch per game of ``games`` (None: every
    game) and range of players, its
    ``variant`` one of its presets, its ``options`` only the game's (of
    ``option_schemas``, every option's schema by name). ``variant`` may be
    left out only in the branch of ``default_variant``. With ``clocked`` the
    options are a new table's (the clock options too: a component of their
    own, ``<Game>TableOptions``); ``members_of`` names the members only some
    games read (a branch of another game leaves them out)."""
    branches = []
    for game in GAMES.values():
        if games is not None and game.name not in games:
            continue
        options = {
            "x-component": _component(game, clocked),
            "type": "object",
            "additionalProperties": False,
            "description": f"The options of {game.title} (`GET /v1/variants`). {CONSISTENT}",
            "properties": {
                n: _option_schema(game, n, option_schemas) for n in option_names(game, clocked)
            },
        }
        players = properties.get("players")
        # Without `players`, a check's `hands` (and `passes`) hold one item a seat.
        per_seat = [] if players is not None else [k for k in SEAT_ARRAYS if k in properties]
        ranges = _player_ranges(game, list(game.presets))
        split = players is not None or per_seat
        for (low, high), names in (ranges if split else {(0, 0): list(game.presets)}).items():
            # A whole object, not a fragment beside the shared properties: the
            # generators need each member a named class (:func:`hoist` names it).
            own = copy.deepcopy(dict(properties))
            for member, readers in (members_of or {}).items():
                if game.name not in readers:
                    own.pop(member, None)
            own["variant"] = {**own["variant"], "enum": names}
            own["options"] = options
            if players is not None and players.get("type") == "array":
                own["players"] = {**own["players"], "minItems": low, "maxItems": high}
            elif players is not None:
                own["players"] = {**own["players"], "minimum": low, "maximum": high}
            for name in per_seat:
                own[name] = {**own[name], "minItems": low, "maxItems": high}
            required = set(required_of)
            if default_variant in names:
                own["variant"]["default"] = default_variant
            else:
                own["variant"].pop("default", None)
                required.add("variant")
            branch: dict[str, Any] = {
                "x-branch": names[0],
                "type": "object",
                "additionalProperties": False,
                "description": f"{game.title}: " + ", ".join(f"`{n}`" for n in names) + ".",
                "properties": own,
            }
            if required:
                branch["required"] = sorted(required)
            branches.append(branch)
    return branches


def exact(
    jsonschema: dict[str, Any],
    option_schemas: Mapping[str, Any],
    games: Sequence[str] | None,
    clocked: bool = False,
    members_of: Mapping[str, Sequence[str]] | None = None,
) -> None:
    """Make ``jsonschema`` (a request naming a preset) exactly one of its
    games' branches, and nothing beside them: in each, ``variant`` lists only
    that branch's presets, ``options`` is its game's own (with ``clocked``, a
    new table's: the clock options too), and only the members its game reads
    (``members_of``). Properties beside a ``oneOf`` would be a second shape
    every branch must also match: the generated TypeScript made such an
    ``options`` ``Record<string, never>``, so that no option type-checked."""
    properties = jsonschema["properties"]
    variant = properties["variant"]
    required = jsonschema.get("required", [])
    branches = game_branches(
        properties, option_schemas, games, variant.get("default"), required, clocked, members_of
    )
    described = {k: v for k, v in jsonschema.items() if k in ("description", "title")}
    jsonschema.clear()
    jsonschema.update(described, oneOf=branches)


def _component(game: Game, clocked: bool = False) -> str:
    return camel(game.name) + ("TableOptions" if clocked else "Options")


def camel(name: str) -> str:
    """A game's name as a component's prefix: ``my-ship-sails`` → ``MyShipSails``."""
    return "".join(part.capitalize() for part in name.split("-"))


def hoist(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with each game's options schema once, as a component
    (``MySevensOptions``...), and each branch as a component named by its
    schema and first preset (``CreateTableSevens``), which ``oneOf`` refers
    to: openapi-python-client gives up on inline ``oneOf`` members."""
    schemas = spec.get("components", {}).get("schemas", {})
    for schema_name, schema in list(schemas.items()):
        for at, branch in enumerate(schema.get("oneOf", [])):
            if "x-branch" not in branch:
                continue
            options = branch["properties"]["options"]
            name = options.get("x-component")  # one dict, shared by the game's branches
            if name is not None:
                schemas.setdefault(name, {k: v for k, v in options.items() if k != "x-component"})
                branch["properties"]["options"] = {"$ref": f"#/components/schemas/{name}"}
            own = schema_name + camel(branch.pop("x-branch"))
            schemas[own] = branch
            schema["oneOf"][at] = {"$ref": f"#/components/schemas/{own}"}
    return spec
