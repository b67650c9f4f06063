"""A May I? table stored by the release before the history (format 1:
its round kept every move, note and closed offer) still loads, answers
every repeat as that release did, and leaves its old moves to the history
with its next move (``format1_round.json``: a round of 38 moves, 5 asks
and 12 answers played by that release, its stored text and each request's
answer)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from service.games.errors import RuleViolation
from service.games.may_i import codec, engine
from service.games.may_i.state import Step

from .common import History

SAVED = json.loads((Path(__file__).parent / "format1_round.json").read_text())


def _again(table: Any, kind: str, args: list[Any], now: int, history: History | None) -> Any:
    earlier = None if history is None else history.read
    fn = {"move": engine.turn, "ask": engine.ask, "answer": engine.answer}[kind]
    return fn(table, *args, now, earlier)


def test_a_format_1_table_loads_and_answers_every_repeat_as_then() -> None:
    assert json.loads(SAVED["state"])["fmt"] == 1
    table = codec.decode(SAVED["state"])
    rnd = table.round
    assert rnd is not None and rnd.step is Step.MAY_I and rnd.taken == 37
    assert len(rnd.legacy) == 36 and rnd.last_move.endswith(":decline:null")
    now = SAVED["now"]
    for kind, args, first in SAVED["requests"]:
        again = _again(table, kind, args, now, None)
        assert again.table is table and not again.events
        assert again.outcome == first, (kind, args)
    # Written back in this format, and read again alike.
    text = codec.encode(table)
    assert json.loads(text)["fmt"] == codec.FORMAT and codec.decode(text) == table


def test_its_next_move_moves_its_old_moves_to_the_history() -> None:
    table = codec.decode(SAVED["state"])
    rnd = table.round
    assert rnd is not None and rnd.offer is not None
    now = rnd.offer.until_ms
    history = History()
    drawn = history.apply(engine.turn(table, 1, 38, rnd.on_turn, "draw", None, now))
    after = drawn.table.round
    assert after is not None and after.legacy == () and after.taken == 38
    assert [codec.unarchived(t)[1] for t in history.texts] == list(range(1, 38))
    for kind, args, first in SAVED["requests"]:
        again = _again(drawn.table, kind, args, now, history)
        assert again.table is drawn.table and again.outcome == first, (kind, args)
    # Without the history only the last move is known.
    with pytest.raises(RuleViolation) as refused:
        _again(drawn.table, "move", [1, 1, 1, "decline", None], now, None)
    assert refused.value.code == "repeat-not-kept"
    assert len(codec.encode(drawn.table)) < len(SAVED["state"]) / 2
