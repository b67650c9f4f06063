"""Sevens (Parliament, Fan Tan, Dominoes), the project's rule book section 3:
pure Python, no Flask, no Redis, no I/O.

Modules: :mod:`.options` (options and presets), :mod:`.state` (frozen
states), :mod:`.layout` (rows and playability), :mod:`.deal` (deal, deal
check, opener), :mod:`.engine` (transitions: :func:`~.engine.play`,
:func:`~.engine.pass_turn`), :mod:`.scoring` (round end, match,
standings), :mod:`.views`, :mod:`.codec`, :mod:`.checks` (stateless
checks), :mod:`.players` (bot, default move, round record),
:mod:`.simulate`. The moves have their own endpoints; everything else goes
through :data:`GAME`.
"""

from __future__ import annotations

from ..base import Game, PresetInfo
from . import codec, engine, players, views
from .checks import check_deal, check_play
from .options import PRESETS

NAME = "sevens"

GAME = Game(
    name=NAME,
    title="Sevens",
    rules="sevens",
    presets={
        p.name: PresetInfo(
            p.name, p.min_seats, p.max_seats, p.source, p.description, p.options.to_json()
        )
        for p in PRESETS.values()
    },
    create_table=engine.create_table,
    start_round=engine.start_round,
    finish=engine.finish,
    public_view=views.public_view,
    seat_view=views.seat_view,
    check_deal=check_deal,
    encode=codec.encode,
    decode=codec.decode,
    event_layouts=codec.EVENT_LAYOUTS,
    default_move=players.default_move,
    bot=players.bot,
    round_record=players.round_record,
)

__all__ = ["GAME", "NAME", "check_deal", "check_play"]
