"""HTTP only: blueprints, schemas, problem+json. The table endpoints
(:mod:`.tables`) know no game; each game adds its move endpoints in a module
of its own (:mod:`.ship`, :mod:`.sevens`, :mod:`.may_i`)."""

from __future__ import annotations

from typing import Any


def blueprints() -> tuple[Any, ...]:
    """Every blueprint of the API, in the order the spec lists them (a game's
    move module is imported here, so that its routes exist before its
    blueprint is registered)."""
    from . import (
        bots,
        catalog,
        lobby,
        may_i,
        proofs,
        round_records,
        seats,
        sevens,
        ship,
        streams,
        tables,
    )

    del ship, bots, round_records  # their routes join tables.blp, seats.blp, proofs.blp
    return (
        catalog.variants_blp,
        tables.blp,
        proofs.blp,
        seats.blp,
        lobby.blp,
        streams.blp,
        sevens.blp,
        may_i.blp,
        catalog.checks_blp,
        catalog.health_blp,
    )
