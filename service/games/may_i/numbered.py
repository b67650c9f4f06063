"""A round's numbered moves: where the round stands (the numbers a refusal
carries), the moves kept to answer a repeat alike, and each move's answer."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import FieldError, RuleViolation
from .codec import unarchived
from .scoring import match_json, result_json
from .state import MatchStatus, Offer, Round, Step, Table
from .window import _fresh, offer_json


def numbers(table: Table) -> dict[str, Any]:
    """The current round, move, seat on turn and step, for 409 answers."""
    rnd = table.round
    playing = rnd is not None and rnd.playing
    return {
        "current_round": rnd.number if rnd else None,
        "current_move": rnd.move if rnd and playing else None,
        "on_turn": rnd.on_turn if rnd and playing else None,
        "step": rnd.step.value if rnd else None,
        "round_status": ("playing" if playing else "over") if rnd else None,
        "waiting_for": [rnd.on_turn] if rnd and playing else [],
    }


def _current(table: Table, round_no: int) -> Round:
    rnd = table.round
    if rnd is None:
        raise RuleViolation(
            "no-round-in-play", "No round has been dealt yet.", extra=numbers(table)
        )
    if round_no != rnd.number:
        raise RuleViolation(
            "stale-round",
            f"Round {round_no} is not the current round; the current round is {rnd.number}.",
            extra=numbers(table),
        )
    return rnd


def _over(table: Table, rnd: Round) -> RuleViolation:
    if table.match_status is not MatchStatus.IN_PROGRESS:
        return RuleViolation("match-over", "The match is over.", extra=numbers(table))
    return RuleViolation("round-over", f"Round {rnd.number} is over.", extra=numbers(table))


def _invalid(detail: str, pointer: str = "") -> RuleViolation:
    return RuleViolation("move-invalid", detail, [FieldError(pointer or "/", detail)])


Earlier = Callable[[], Sequence[str | bytes]]
"""Reads the table's history: every text it keeps of the current round's
older moves, oldest first (:func:`.codec.archived`; the store keeps the
newest ``HISTORY_KEPT``)."""


@dataclass(frozen=True, slots=True)
class Kept:
    """What is kept of numbered move ``move_no``: its ``record``
    (``"seat:action:argument"``), its ``note`` (:func:`snapshot`) and the
    May I? offers after it, in order (those that closed, then the open one)."""

    move_no: int
    record: str
    note: str
    offers: tuple[Offer, ...]


def _last_kept(rnd: Round) -> Kept | None:
    """The round's last move as the state keeps it; None before the first."""
    if not rnd.taken:
        return None
    open_offer = () if rnd.offer is None else (rnd.offer,)
    return Kept(rnd.taken, rnd.last_move, rnd.last_note, rnd.closed + open_offer)


def _older_kept(rnd: Round, earlier: Earlier | None) -> Iterator[Kept]:
    """The round's older moves that are kept: a format-1 round's
    :attr:`~.state.Round.legacy`, then the history (read only if needed)."""

    def kept(texts: Sequence[str | bytes]) -> Iterator[Kept]:
        for text in texts:
            round_no, move_no, record, note, offers = unarchived(text)
            if round_no == rnd.number:
                yield Kept(move_no, record, note, offers)

    yield from kept(rnd.legacy)
    if earlier is not None:
        yield from kept(earlier())


def _kept_move(rnd: Round, move_no: int, earlier: Earlier | None) -> Kept | None:
    """Move ``move_no`` (taken) of the round, if it is still kept."""
    last = _last_kept(rnd)
    if last is not None and last.move_no == move_no:
        return last
    return next((k for k in _older_kept(rnd, earlier) if k.move_no == move_no), None)


def _kept_offer(rnd: Round, n: int, earlier: Earlier | None) -> tuple[Offer, Offer | None] | None:
    """Offer ``n`` of the round and the offer opened right after it (when
    its card was given and the pile held another), if it is still kept."""
    last = _last_kept(rnd)
    for kept in (*(() if last is None else (last,)), *_older_kept(rnd, earlier)):
        for i, offer in enumerate(kept.offers):
            if offer.n == n:
                following = kept.offers[i + 1] if i + 1 < len(kept.offers) else None
                return offer, following
    return None


def _not_kept(table: Table, what: str) -> RuleViolation:
    return RuleViolation(
        "repeat-not-kept",
        f"{what} is older than the moves the referee keeps of this round: whether this "
        "repeats what it answered then can no longer be told, and nothing changed.",
        extra=numbers(table),
    )


def outcome(table: Table, move_no: int, earlier: Earlier | None = None) -> dict[str, Any]:
    """The answer to move ``move_no`` of the current round: ``{"round",
    "move", "seat", "action", "argument", "next_move", "on_turn", "step",
    "may_i", "round_status", "result", "match", "hand"}``, where the round
    stood just after that move (its note, :func:`snapshot`) and the mover's
    hand then; ``result`` and an ended ``match`` only for the move that
    ended the round. So a repeat of an earlier move answers exactly as it
    did, whatever came after (later moves, May I?, the host's finish). An
    older move than the last is read through ``earlier`` (the history);
    raises ``repeat-not-kept`` when it is no longer kept."""
    rnd = table.round
    assert rnd is not None
    kept = _kept_move(rnd, move_no, earlier)
    if kept is None:
        raise _not_kept(table, f"Move {move_no} of round {rnd.number}")
    return _outcome(table, kept)


def _outcome(table: Table, kept: Kept) -> dict[str, Any]:
    rnd = table.round
    assert rnd is not None
    move_no = kept.move_no
    seat, action, arg = kept.record.split(":", 2)
    if kept.note:
        on_turn, step, offer_no, cards = kept.note.split("|")
        hand = [cards[i : i + 2] for i in range(0, len(cards), 2)]
        offer = next((o for o in kept.offers if str(o.n) == offer_no), None)
        may_i = None if offer is None else offer_json(_fresh(offer, table.seats))
    else:  # a state kept before moves were noted: as the round stands now
        on_turn, step, hand = str(rnd.on_turn), rnd.step.value, list(rnd.hands[int(seat)])
        may_i = None if rnd.offer is None else offer_json(rnd.offer)
    playing = step != Step.OVER.value
    won = not playing and table.match_status is MatchStatus.WON
    return {
        "round": rnd.number,
        "move": move_no,
        "seat": int(seat),
        "action": action,
        "argument": json.loads(arg),
        "next_move": move_no + 1 if playing else None,
        "on_turn": int(on_turn) if playing else None,
        "step": step,
        "may_i": may_i,
        "round_status": "playing" if playing else "over",
        "result": None if playing or rnd.result is None else result_json(rnd.result),
        "match": match_json(table)
        if won
        else {"status": MatchStatus.IN_PROGRESS.value, "winners": []},
        "hand": hand,
    }
