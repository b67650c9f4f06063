"""Match bookkeeping every game shares: how a match ends (:class:`Match`),
where it stands (:class:`MatchStatus`), the ``match`` option read from the
wire (:func:`parse_match`), and a preset (:class:`Preset`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, Generic, TypeVar

from .base import PresetInfo
from .errors import FieldError, RuleViolation

OptionsT = TypeVar("OptionsT")


class MatchStatus(StrEnum):
    """Where a match stands (RULES.md 2.8, 3.5)."""

    IN_PROGRESS = "in-progress"
    WON = "won"
    """Ended by its own rule (a target reached, the deals played)."""
    FINISHED = "finished"
    """An open match ended by the host."""
    ABANDONED = "abandoned"
    """Ended by the host before its own rule ended it; no winner."""


@dataclass(frozen=True, slots=True)
class Match:
    """How a match ends: ``kind`` is one of a game's match kinds (``deals``,
    ``target_wins``, ``target_points``, ``open``); ``count`` is the number of
    deals or the target (``None`` for ``open``; a game may read ``None`` for
    ``deals`` in a preset as "one deal per seat")."""

    kind: str
    count: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The wire form: ``{"target_wins": 5}``, ``{"deals": 5}``, ``{"open": true}``."""
        return {"open": True} if self.kind == "open" else {self.kind: self.count}


def parse_match(
    value: Any,
    errors: list[FieldError],
    kinds: Sequence[str],
    limits: Mapping[str, int] | None = None,
    deals_per_seat: bool = False,
) -> Match | None:
    """The ``match`` option from its wire form (one key of ``kinds``: a whole
    number 1..its limit, 1000 unless ``limits`` says otherwise, or ``{"open":
    true}``); with ``deals_per_seat``, ``{"deals": null}`` means one deal per
    seat. Appends a problem at ``/options/match`` and returns ``None`` when
    it is not one of them."""
    pointer = "/options/match"
    if not isinstance(value, Mapping) or len(value) != 1:
        forms = ", ".join('{"open": true}' if k == "open" else f'{{"{k}": n}}' for k in kinds)
        errors.append(FieldError(pointer, f"match must be exactly one of {forms}"))
        return None
    ((kind, count),) = value.items()
    if kind not in kinds:
        errors.append(
            FieldError(pointer, f"unknown match kind {kind!r}; use one of {tuple(kinds)}")
        )
        return None
    if kind == "open":
        if count is not True:
            errors.append(FieldError(f"{pointer}/open", 'an open match is written {"open": true}'))
            return None
        return Match("open")
    if kind == "deals" and count is None and deals_per_seat:
        return Match("deals", None)
    limit = (limits or {}).get(kind, 1000)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= limit:
        errors.append(FieldError(f"{pointer}/{kind}", f"{kind} must be a whole number 1..{limit}"))
        return None
    return Match(kind, count)


def match_schema(
    kinds: Sequence[str],
    limits: Mapping[str, int] | None = None,
    deals_per_seat: bool = False,
    rule: str = "",
) -> dict[str, Any]:
    """The JSON Schema (OpenAPI 3.0) of what :func:`parse_match` takes with
    the same arguments: exactly one of ``kinds``, a whole number 1..its limit
    (``deals`` may be ``null`` with ``deals_per_seat``) or ``{"open": true}``;
    ``rule`` names the rule book's section (``"RULES.md 3.5"``)."""
    forms = []
    for kind in kinds:
        value: dict[str, Any]
        if kind == "open":
            value = {"type": "boolean", "enum": [True]}
        else:
            value = {"type": "integer", "minimum": 1, "maximum": (limits or {}).get(kind, 1000)}
            if kind == "deals" and deals_per_seat:
                value["nullable"] = True
                value["description"] = "`null`: one deal per seat."
        forms.append(
            {
                "type": "object",
                "required": [kind],
                "additionalProperties": False,
                "properties": {kind: value},
            }
        )
    shown = ", ".join('`{"open": true}`' if k == "open" else f'`{{"{k}": n}}`' for k in kinds)
    return {
        "type": "object",
        "description": f"How the match ends ({rule}): exactly one of {shown}.",
        "oneOf": forms,
    }


T = TypeVar("T")


def check_dealable(status: MatchStatus, round_in_play: int | None, extra: dict[str, Any]) -> None:
    """Refuse to deal a round while the match is over (``match-over``) or a
    round, numbered ``round_in_play``, is still being played (``round-in-play``),
    with ``extra`` (the game's current numbers) for the 409."""
    if status is not MatchStatus.IN_PROGRESS:
        raise RuleViolation(
            "match-over", "The match is over; no more rounds are dealt.", extra=extra
        )
    if round_in_play is not None:
        raise RuleViolation(
            "round-in-play", f"Round {round_in_play} is still being played.", extra=extra
        )


def ended_by_host(
    table: T, open_match: bool, leaders: tuple[int, ...]
) -> tuple[T, MatchStatus, tuple[int, ...]]:
    """The host ends the match (RULES.md 2.8): an ``open`` match is finished
    with its ``leaders`` as winners, any other abandoned with none. ``table``
    is a game's frozen table with ``match_status`` and ``match_winners``;
    returns it changed, with its new status and winners."""
    status = MatchStatus.FINISHED if open_match else MatchStatus.ABANDONED
    winners = leaders if open_match else ()
    return replace(table, match_status=status, match_winners=winners), status, winners  # type: ignore[type-var]


@dataclass(frozen=True, slots=True)
class Preset(Generic[OptionsT]):
    """A named set of a game's options with the seat counts it is played with
    and the seed it comes from."""

    name: str
    min_seats: int
    max_seats: int
    options: OptionsT
    source: str
    description: str

    def allows(self, seats: int) -> bool:
        """Whether the preset is played by ``seats`` players."""
        return self.min_seats <= seats <= self.max_seats

    def info(self) -> PresetInfo:
        """What ``GET /v1/variants`` says of it (options in their wire form)."""
        options: dict[str, Any] = self.options.to_json()  # type: ignore[attr-defined]
        return PresetInfo(
            self.name, self.min_seats, self.max_seats, self.source, self.description, options
        )
