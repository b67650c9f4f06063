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

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import GAMES, codec
from .base import Game, Transition, no_step
from .errors import RuleViolation
from .proof import DealRandom, chain_problems, key_of, problems_of, shape_problem
from .record import (
    PROOF_VERSION,
    RECORD_VERSION,
    RESHUFFLE,
    RESOLVE,
    construction_problems,
    ended_by_host,
    proof_coverage,
    proof_problems,
    reshuffler,
)

END_OF_TIME_MS = 2**62
"""The clock at which a replayed round's last windows have all closed."""


@dataclass(slots=True)
class Report:
    """What a replay or a verification found: ``problems`` (empty: what was
    checked matches), how many moves were run again, the replayed result,
    ``incomplete`` (why moves are missing from the record: a cap, or a
    release that kept no record; nothing after them was replayed) and
    ``other_rules`` (why the record was not dealt or replayed again: it was
    refereed under another version of the game's rules)."""

    problems: list[str] = field(default_factory=list)
    moves: int = 0
    result: Any = None
    incomplete: list[str] = field(default_factory=list)
    other_rules: str = ""
    checked: list[str] = field(default_factory=list)
    """The names (:data:`.record.CHECKS`) of what was checked, in order."""
    unchecked: list[dict[str, str]] = field(default_factory=list)
    """What the record holds that was not checked: ``{"check", "reason"}``."""

    @property
    def ok(self) -> bool:
        """Whether everything matched and was checked."""
        return (
            not self.problems
            and not self.incomplete
            and not self.other_rules
            and not self.unchecked
        )

    @property
    def status(self) -> int:
        """The exit status of ``referee verify`` / ``replay``
        (:data:`STATUSES`): 1 a mismatch, 3 another rules version, 4 an
        incomplete record, 0 everything checked and matching."""
        if self.problems:
            return MISMATCH
        if self.other_rules:
            return OTHER_RULES
        if self.incomplete or self.unchecked:
            return INCOMPLETE
        return 0


MISMATCH, NOT_A_RECORD, OTHER_RULES, INCOMPLETE = 1, 2, 3, 4
STATUSES = {
    0: "everything checked matches",
    MISMATCH: "something does not match (each problem is named)",
    NOT_A_RECORD: "the input is no round record",
    OTHER_RULES: "a record of another version of the game's rules: only what needs no "
    "rules was checked (the commitment, the shuffle of each deck it states, the chain), "
    "not its starting deck, deal or moves: check it with the release it names",
    INCOMPLETE: "what the record holds matches, but moves are missing from it",
}
"""The exit statuses of ``referee verify`` and ``referee replay``."""


PAUSE_EVERY = 25
"""Moves run again between two calls of :func:`verify`'s ``pause``."""


def verify(record: Mapping[str, Any], pause: Callable[[], None] | None = None) -> Report:
    """Check a record's deal and the order of its moves (RULES.md 5.2): the
    proof (:func:`.record.proof_problems`: the commitment is its secret's,
    the deal shuffles the starting deck its game and options give, every
    shuffle and rebuilt stock is the one the secret and the seeds give),
    the proof names the record's game, variant, round and options, the
    table before the deal is one the referee makes (:func:`start_problems`),
    dealing the round again from them (through the game) gives the recorded
    deal, the proof's reshuffles are the record's and each shuffles the pile
    the record's moves leave (the game's ``reshuffle_piles``, never the
    proof's word), and every move's ``link`` is the chain's
    (:func:`.proof.chain_problems`). ``checked`` names what was checked
    (:data:`.record.CHECKS`), ``unchecked`` what could not be. A record of
    another rules version (``rules_version``) is not dealt again
    (``other_rules``); moves missing from it are named (``incomplete``). A
    record of version 1 (no ``record_version``) is checked by that
    version's chain. ``pause`` is called every :data:`PAUSE_EVERY` moves run
    again (a server lets its other requests through there: a 2,000-move
    record held a worker's loop for seconds, issue 39)."""
    report = Report()
    proof = record["proof"]
    version = record.get("record_version", 1)
    game = GAMES.get(record["game"])
    wanted = 1 if game is None else game.rules_version
    held = record.get("rules_version", 1)
    if held != wanted:
        report.other_rules = (
            f"the record was refereed under {record['game']} rules version {held} (release "
            f"{record.get('release', 'before 0.3.0')}); this referee plays version {wanted}"
        )
    # A proof of version 2 names what its starting deck follows from, by the
    # rules of its own version: by another's, only the construction is checked.
    named = version >= RECORD_VERSION or proof.get("version") == PROOF_VERSION
    if named and not report.other_rules:
        found = proof_problems(proof)
    elif proof.get("version") == PROOF_VERSION:
        # Another rules version: what needs no rules (each stated deck's
        # shuffle, the chain) is checked; the starting deck is the rules'.
        found = construction_problems(proof)
    else:
        found = problems_of(proof)
    report.problems += [f"proof{p['pointer']}: {p['detail']}" for p in found]
    if shape_problem(proof) is not None:
        return report  # no proof to deal from
    if named and not report.other_rules:
        report.checked += proof_coverage(proof)[0]
    elif proof.get("version") == PROOF_VERSION:
        report.checked += ["commitment", "deal-order"]
        if proof.get("reshuffles"):
            report.checked.append("rebuilt-stock-orders")
        why = f"{report.other_rules}: the starting deck is that version's"
        report.unchecked.append({"check": "starting-deck", "reason": why})
    else:
        report.checked += ["commitment", "deal-order"]
        why = "a proof that names no game"
        report.unchecked += [
            {"check": c, "reason": why} for c in ("starting-deck", "rebuilt-stock-orders")
        ]
    _incomplete(record, report)
    if report.other_rules:
        why = f"{report.other_rules}: its deal is not dealt again"
        report.unchecked += [{"check": c, "reason": why} for c in ("table", "deal")]
    dealt = None
    if not report.other_rules:
        dealt = _deal(record, report)
        report.checked += ["table", "deal"]
    if proof.get("version") == PROOF_VERSION:
        for name in ("game", "variant", "round", "options"):
            if proof.get(name) != record.get(name):
                report.problems.append(f"the proof's {name} is not the record's")
        reshuffles = [
            {"move": i + 1, **{k: m.get(k) for k in ("label", "deck", "order")}}
            for i, m in enumerate(record["moves"])
            if m.get("move") == RESHUFFLE
        ]
        if reshuffles != proof.get("reshuffles"):
            report.problems.append("the proof's reshuffles are not the record's rebuilt stocks")
        if reshuffles:
            _piles(record, reshuffles, report)
    report.problems += [
        f"move {i + 1}'s commutes is not true (present, it is never anything else)"
        for i, m in enumerate(record["moves"])
        if "commutes" in m and m["commutes"] is not True
    ]
    report.problems += chain_problems(
        proof, record["moves"], version, complete=not report.incomplete
    )
    report.checked.append("chain")
    if dealt is not None:
        _run_moves(record, report, *dealt, pause=pause)
    elif report.other_rules:
        why = f"{report.other_rules}: its moves are not run again"
        report.unchecked += [{"check": c, "reason": why} for c in ("moves", "result")]
    return report


def _piles(record: Mapping[str, Any], reshuffles: list[dict[str, Any]], report: Report) -> None:
    """Check that each rebuilt stock of ``record`` (its ``reshuffles``
    entries) shuffles the pile its moves leave, derived by the game's
    ``reshuffle_piles`` from the record's deal and the moves before it,
    and that its order is that pile's shuffle (RULES.md 5.2). Those after
    the first gap (moves missing) cannot be derived: ``unchecked``."""
    game = GAMES.get(record["game"])
    if report.other_rules:
        why = "a record of another rules version: its discard pile follows other rules"
        report.unchecked.append({"check": "rebuilt-stock-piles", "reason": why})
        return
    if game is None or game.reshuffle_piles is None:
        report.problems.append(f"{record['game']} rebuilds no stock: its record has no reshuffle")
        return
    gaps = [g.get("after_move") for g in record.get("missing") or ()]
    stop = min((g for g in gaps if isinstance(g, int)), default=len(record["moves"]))
    try:
        piles = game.reshuffle_piles(record["deal"], record["moves"][:stop])
    except ValueError as broken:
        report.problems.append(f"the discard pile cannot be followed: {broken}")
        return
    proof = record["proof"]
    restock = reshuffler(proof["secret"], proof["seeds"])
    for r, (step, pile) in enumerate(zip(reshuffles, piles, strict=False)):
        where = f"rebuilt stock {r} (move {step['move']})"
        if list(step["deck"] or ()) != pile:
            report.problems.append(
                f"{where} does not shuffle the discard pile the moves before it leave "
                f"(less its top, bottom first: {len(pile)} cards)"
            )
        elif restock(str(step["label"]), pile) != step["order"]:
            report.problems.append(f"{where}'s order is not the shuffle of that pile")
    if len(reshuffles) <= len(piles):
        report.checked.append("rebuilt-stock-piles")
    else:  # those before the gap are checked still: a problem there is named
        report.unchecked.append(
            {
                "check": "rebuilt-stock-piles",
                "reason": f"{len(reshuffles) - len(piles)} rebuilt stocks come after moves "
                "missing from the record: their piles cannot be derived",
            }
        )


def _incomplete(record: Mapping[str, Any], report: Report) -> None:
    """Name the moves missing from ``record`` (``missing``, or a record cut
    at its cap: ``complete: false``)."""
    for gap in record.get("missing") or ():
        seats = gap.get("seats") or []
        choices = f"; choices of seats {seats} were not recorded" if seats else ""
        report.incomplete.append(
            f"moves are missing before move {gap.get('after_move', 0) + 1}: the table was "
            f"written {gap.get('writes')} times by a release that keeps no record{choices}"
        )
    if not record.get("complete", True) and not report.incomplete:
        report.incomplete.append(
            f"the record is cut after move {len(record['moves'])}: its round had more moves "
            "than a record keeps"
        )


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
    elif [s["deck"] for s in rng.shuffles] != [s["deck"] for s in proof["shuffles"]]:
        report.problems.append("the deal does not start from the deck the game gives")
    dealt = game.deal_of(start.table)
    if record.get("record_version", 1) < RECORD_VERSION and "stock" in dealt:
        dealt["stock"].reverse()  # version 1 listed the stock bottom first
    if dealt != record["deal"]:
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
    """``referee replay``: what :func:`verify` does, which runs every move
    again too (kept as its own command for scripts that call it)."""
    return verify(record)


def _run_moves(
    record: Mapping[str, Any],
    report: Report,
    game: Game,
    base: Any,
    pause: Callable[[], None] | None = None,
) -> None:
    """Run ``record``'s moves again from its deal, in order, each of which
    must be accepted, then the clock to the end; the rebuilt stocks and the
    round's result must be the recorded ones (``moves``, ``result``). So
    the deal is bound by the moves: a deal changed under the genuine moves
    (another seat's seed, a shuffled deal relabelled submitted) fails here,
    though no head noted covers the deal. One with moves missing is run up
    to the first gap (``incomplete``). ``base`` is the table as dealt;
    ``pause`` is called every :data:`PAUSE_EVERY` moves."""
    gaps = [g.get("after_move") for g in record.get("missing") or ()]
    stop = min((g for g in gaps if isinstance(g, int)), default=None)
    if stop is None and not record.get("complete", True):
        stop = len(record["moves"])
    choices: dict[int, str] = {}
    made: list[dict[str, Any]] = []
    kept: list[dict[str, Any]] = []
    for i, move in enumerate(record["moves"]):
        if stop is not None and i >= stop:
            break
        if pause is not None and i % PAUSE_EVERY == PAUSE_EVERY - 1:
            pause()
        if move.get("move") == RESHUFFLE:
            kept.append({k: move.get(k) for k in ("label", "deck", "order")})
            continue
        if move.get("move") == RESOLVE:
            continue  # what fell due is run with the next move
        try:
            base, choices = _run(game, base, choices, move, made)
        except (RuleViolation, LookupError, KeyError, TypeError) as refused:
            detail = (
                f"{refused.code}: {refused.detail}"
                if isinstance(refused, RuleViolation)
                else refused
            )
            said = f"move {i + 1} ({move.get('move')}) is refused: {detail}"
            if stop is not None and report.incomplete:
                # Moves another release took without recording them come
                # before the gap that names them: they explain the refusal.
                report.incomplete.append(f"{said}; the moves missing before it explain it")
            else:
                report.problems.append(said)
            return
        report.moves += 1
    if stop is not None:
        why = f"moves are missing from the record: run up to move {stop} only"
        report.unchecked += [{"check": c, "reason": why} for c in ("moves", "result")]
        return  # verify named the gap; nothing after it can be run
    report.checked.append("moves")
    due = game.due(_folded(game, base, choices), END_OF_TIME_MS)
    made += due.shuffles
    end = due.table
    if [{k: s[k] for k in ("label", "deck", "order")} for s in made] != kept:
        report.problems.append("the replayed rebuilt stocks are not the recorded ones")
    count, texts = game.rounds_of(end)
    ended = game.ended_round(end)
    if count == record["round"] and texts:
        report.result = game.round_result(end, texts[-1])
    elif count == record["round"] - 1 and ended is not None:
        report.result = ended  # the host ended it: not listed, marked abandoned
    else:
        report.problems.append(f"the replayed round is not over ({count} rounds finished)")
        return
    if report.result != record["result"]:
        report.problems.append("the replayed result is not the recorded one")
    by_host = ended_by_host(report.result)
    if record.get("abandoned") is not by_host:  # the record's own flag, not only its result's
        ran = "ended by the host" if by_host else "played to its end"
        report.problems.append(
            f"the record says abandoned: {json.dumps(record.get('abandoned'))};"
            f" the replayed round was {ran}"
        )
    report.checked.append("result")


def _folded(game: Game, base: Any, choices: Mapping[int, str]) -> Any:
    """The stored state with its step's pending choices put in."""
    return game.fold_choices(base, choices) if choices else base


def _run(
    game: Game,
    base: Any,
    choices: dict[int, str],
    move: Mapping[str, Any],
    made: list[dict[str, Any]],
) -> tuple[Any, dict[int, str]]:
    """One recorded move run as the store commits it; the new stored state
    and pending choices. The stocks it rebuilt (and what fell due before
    it did) are added to ``made``."""
    assert game.replay_move is not None
    now = move["at_ms"]
    folded = _folded(game, base, choices)
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
            return _choose(game, base, choices, choice, move, now, made)
    if change.table is current and not change.events:
        return base, choices
    made += [*due.shuffles, *change.shuffles]
    return change.table, {}


def _choose(
    game: Game,
    base: Any,
    choices: dict[int, str],
    choice: Any,
    move: Mapping[str, Any],
    now: int,
    made: list[dict[str, Any]],
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
    settled = game.due(folded, now)
    current = settled.table
    again: Transition = game.replay_move(current, move, now)  # type: ignore[misc]
    if again.table is current and not again.events:
        if current is folded:
            return base, pending
        made += settled.shuffles
        return current, {}
    step = game.step_of(again.table)
    if again.choice is not None and step is not None and step.key == again.choice.step:
        return base, pending
    made += [*settled.shuffles, *again.shuffles]
    return again.table, {}
