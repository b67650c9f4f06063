"""The resources: one package each, its endpoints beside its schemas; the tables know no game.

Each game adds its move endpoints in a package of its own (:mod:`.ship`,
:mod:`.sevens`, :mod:`.may_i`); :mod:`.moves` is how every move is made and
:mod:`.clocks` the clock and bot fields, :mod:`.seating` the seating rules
(tokens, codes, who sits where) that the tables, seats and moves share."""

from __future__ import annotations

from typing import Any


def blueprints() -> tuple[Any, ...]:
    """Every blueprint of the API, in the order the spec lists them (a game's
    move module is imported here, so that its routes exist before its
    blueprint is registered)."""
    from .catalog import endpoints as catalog
    from .may_i import endpoints as may_i
    from .proofs import endpoints as proofs
    from .proofs import round_records
    from .seats import bots, lobby
    from .seats import endpoints as seats
    from .sevens import endpoints as sevens
    from .ship import endpoints as ship
    from .streams import endpoints as streams
    from .tables import endpoints as tables

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
