"""A finished round's record run again through the pure game (``referee
replay``, ``referee verify``): the deal from its proof, every move in order,
the result compared. Pure: no Redis, no clock; the record says every instant.

A record (``GET /v1/tables/{id}/rounds/{n}/record``) holds ``game``,
``round``, ``start_state`` (the table as it stood before the deal, the
game's stored form), ``deal_request`` (the deal's body: a submitted deal's
``hands``…), ``dealt_at_ms``, ``deal`` (what was dealt), ``proof``,
``moves`` (each ``{"seat", "at_ms", "move", …}``), ``complete`` and
``result``. Moves are run as the store runs them: each on the table as it
stood at its ``at_ms`` (what fell due by then included), a seat's choice in
a simultaneous step kept apart until the step completes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from . import GAMES, codec
from .base import Game, Transition, no_step
from .errors import RuleViolation
from .proof import DealRandom, chain_problems, key_of, problems_of, shape_problem

END_OF_TIME_MS = 2**62
"""The clock at which a replayed round's last windows have all closed."""


@dataclass(slots=True)
class Report:
    """What a replay or a verification found: ``problems`` (empty: it
    matches), how many moves were run again, and the replayed result."""

    problems: list[str] = field(default_factory=list)
    moves: int = 0
    result: Any = None

    @property
    def ok(self) -> bool:
        """Whether everything matched."""
        return not self.problems


def verify(record: Mapping[str, Any]) -> Report:
    """Check a record's deal and the order of its moves: the commitment is
    its secret's, every shuffle is the one the secret and the seeds give,
    the table before the deal is one the referee makes (:func:`start_problems`:
    its options, seats and seeds as the record says), dealing the round
    again from them (through the game) gives the recorded deal, and every
    move's ``link`` is the chain's head after it (RULES.md 5.2;
    :func:`.proof.chain_problems`). A submitted deal (the host's ``hands``,
    marked ``submitted`` in the record and its proof) has no shuffle to
    check: only its reshuffles are fixed by the proof, which the replay
    checks."""
    report = Report()
    proof = record["proof"]
    report.problems += [f"proof{p['pointer']}: {p['detail']}" for p in problems_of(proof)]
    if shape_problem(proof) is not None:
        return report  # no proof to deal from
    _deal(record, report)
    report.problems += chain_problems(proof, record["moves"])
    return report


def _deal(record: Mapping[str, Any], report: Report) -> tuple[Game, Any] | None:
    """The round dealt again from ``record``'s start and proof, or ``None``
    (a problem reported)."""
    game = GAMES.get(record["game"])
    if game is None or game.replay_move is None:
        report.problems.append(f"no game {record['game']!r} replays records")
        return None
    proof = record["proof"]
    before = codec.decode(record["start_state"])
    found = start_problems(game, before, record)
    if found:
        report.problems += found
        return None
    rng = DealRandom(key_of(bytes.fromhex(proof["secret"]), proof["seeds"]))
    try:
        start = game.start_round(before, rng, record["dealt_at_ms"], record["deal_request"])
    except RuleViolation as refused:
        report.problems.append(f"the deal is refused: {refused.code}: {refused.detail}")
        return None
    if [s["order"] for s in rng.shuffles] != [s["order"] for s in proof["shuffles"]]:
        report.problems.append("the deck order is not the one the proof gives")
    if game.deal_of(start.table) != record["deal"]:
        report.problems.append("the recorded deal is not the one the proof gives")
    if start.table.round.number != record["round"]:
        report.problems.append(
            f"the deal is round {start.table.round.number}, not {record['round']}"
        )
    return game, start.table


def start_problems(game: Game, before: Any, record: Mapping[str, Any]) -> list[str]:
    """How ``record`` (its decoded ``start_state``: ``before``) is not what
    the referee writes: a table ``create_table`` could not make (options
    out of their ranges, too few or too many seats: so that dealing it
    again costs what a real deal does), a ``variant``, ``options`` or
    ``seats`` that are not the start's as its view shows them at
    ``dealt_at_ms``, not one seed (or ``null``) per seat, ``submitted``
    flags that do not say whether the deal's body held ``hands``, or a move
    marked ``commutes`` in a game with no simultaneous step. Empty: none."""
    view = game.public_view(before, record["dealt_at_ms"])
    seats = len(view["seats"])
    names = [f"seat {i}" for i in range(seats)]
    try:
        game.create_table(view["variant"], view["options"], names, 0, DealRandom(bytes(32)))
    except RuleViolation as refused:
        return [f"the table before the deal is none the referee makes: {refused.detail}"]
    found = [
        f"the record's {what} is not the table's"
        for what in ("variant", "options", "seats")
        if record.get(what) != view[what]
    ]
    proof = record["proof"]
    if len(proof["seeds"]) != seats:
        found.append(f"the proof holds {len(proof['seeds'])} seeds for {seats} seats")
    submitted = record["deal_request"].get("hands") is not None
    if record.get("submitted") is not submitted or proof.get("submitted") is not submitted:
        found.append(
            f"a deal {'with' if submitted else 'without'} submitted hands is marked otherwise"
        )
    if game.step_of is no_step and any(m.get("commutes") for m in record["moves"]):
        found.append("a move is marked as commuting in a game where no move does")
    return found


def replay(record: Mapping[str, Any]) -> Report:
    """Run ``record`` again: its deal (:func:`verify`), then every move in
    order, each of which must be accepted, then the clock to the end; the
    round's result must be the recorded one."""
    report = verify(record)
    dealt = _deal(record, Report())
    if dealt is None:
        return report
    game, base = dealt
    choices: dict[int, str] = {}
    for i, move in enumerate(record["moves"]):
        try:
            base, choices = _run(game, base, choices, move)
        except (RuleViolation, LookupError, KeyError, TypeError) as refused:
            detail = (
                f"{refused.code}: {refused.detail}"
                if isinstance(refused, RuleViolation)
                else refused
            )
            report.problems.append(f"move {i + 1} ({move.get('move')}) is refused: {detail}")
            return report
        report.moves += 1
    if not record.get("complete", True):
        report.problems.append("the record is incomplete (its round had more moves than kept)")
        return report
    end = game.due(_current(game, base, choices, END_OF_TIME_MS), END_OF_TIME_MS).table
    count, texts = game.rounds_of(end)
    if count != record["round"] or not texts:
        report.problems.append(f"the replayed round is not over ({count} rounds finished)")
        return report
    report.result = game.round_result(end, texts[-1])
    if report.result != record["result"]:
        report.problems.append("the replayed result is not the recorded one")
    return report


def _current(game: Game, base: Any, choices: Mapping[int, str], now_ms: int) -> Any:
    """The table as a read at ``now_ms`` sees it (the store's ``load``)."""
    folded = game.fold_choices(base, choices) if choices else base
    return game.due(folded, now_ms).table


def _run(
    game: Game, base: Any, choices: dict[int, str], move: Mapping[str, Any]
) -> tuple[Any, dict[int, str]]:
    """One recorded move run as the store commits it; the new stored state
    and pending choices."""
    assert game.replay_move is not None
    now = move["at_ms"]
    folded = game.fold_choices(base, choices) if choices else base
    due = game.due(folded, now)
    current = due.table
    if move["move"] == "finish":  # the host ended the match mid-round: no seat's move
        change = game.finish(current, now)
    else:
        change = game.replay_move(current, move, now)
    step = game.step_of(base)
    choice = change.choice
    quiet = due.table is folded and not due.events
    if choice is not None and step is not None and choice.step == step.key and quiet:
        after = game.step_of(change.table)
        if after is not None and after.key == choice.step:
            return _choose(game, base, choices, choice, move, now)
    if change.table is current and not change.events:
        return base, choices
    return change.table, {}


def _choose(
    game: Game,
    base: Any,
    choices: dict[int, str],
    choice: Any,
    move: Mapping[str, Any],
    now: int,
) -> tuple[Any, dict[int, str]]:
    """A seat's choice kept apart from the state (``choose.lua``); an
    ordered one is numbered, and the move runs again after it."""
    pending = dict(choices)
    if not choice.ordered:
        pending[choice.seat] = choice.text
        return base, pending
    if choice.seat not in pending:
        pending[choice.seat] = f"{choice.text}#{len(pending) + 1}"
    folded = game.fold_choices(base, pending)
    current = game.due(folded, now).table
    again: Transition = game.replay_move(current, move, now)  # type: ignore[misc]
    if again.table is current and not again.events:
        return (current, {}) if current is not folded else (base, pending)
    step = game.step_of(again.table)
    if again.choice is not None and step is not None and step.key == again.choice.step:
        return base, pending
    return again.table, {}
