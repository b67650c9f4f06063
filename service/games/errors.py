"""Rule violations: why the referee refuses a move, in words and as a stable code.

The rules never speak HTTP. Each code belongs to one :class:`Kind`; the API
layer maps kinds to status codes (``conflict`` → 409, ``invalid`` → 422,
``not-found`` → 404).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class Kind(Enum):
    """What sort of refusal a code is."""

    INVALID = "invalid"
    """The move breaks a rule or names impossible values; retrying it cannot help."""
    CONFLICT = "conflict"
    """The move does not fit the table's current phase or numbers; re-read and retry."""
    NOT_FOUND = "not-found"
    """The move names a seat or round that does not exist."""


@dataclass(frozen=True, slots=True)
class FieldError:
    """One problem at one place of the request, as an RFC 6901 JSON pointer."""

    pointer: str
    detail: str


CODES: dict[str, Kind] = {
    # shared by every game
    "unknown-variant": Kind.INVALID,
    "options-invalid": Kind.INVALID,
    "deal-invalid": Kind.INVALID,
    "pass-invalid": Kind.INVALID,
    "hand-invalid": Kind.INVALID,
    "claim-not-winning": Kind.INVALID,
    "seat-not-found": Kind.NOT_FOUND,
    "round-in-play": Kind.CONFLICT,
    "no-round-in-play": Kind.CONFLICT,
    "stale-round": Kind.CONFLICT,
    "stale-exchange": Kind.CONFLICT,
    "not-your-turn": Kind.CONFLICT,
    "round-over": Kind.CONFLICT,
    "claim-window-closed": Kind.CONFLICT,
    "declaration-automatic": Kind.CONFLICT,
    "match-over": Kind.CONFLICT,
    "wrong-game": Kind.INVALID,
    "move-not-in-game": Kind.NOT_FOUND,
}
"""Every code a game raises, with its kind. Codes are part of the API contract;
a game adds its own with :func:`register_codes`."""


RULES_OF_CODE: dict[str, str] = {}
"""Where a code's rule is explained: a rules page and anchor (``"sevens#the-layout"``)."""


def register_codes(codes: dict[str, Kind], rules: dict[str, str] | None = None) -> None:
    """Add a game's refusal codes (a code may be shared only with the same
    kind) and, in ``rules``, the rules page section that explains each."""
    for code, kind in codes.items():
        if CODES.setdefault(code, kind) is not kind:
            raise ValueError(f"refusal code {code!r} is already a {CODES[code].value}")
    RULES_OF_CODE.update(rules or {})


@dataclass(slots=True)
class RuleViolation(Exception):
    """A refused move: ``code`` (stable, see :data:`CODES`), ``detail`` (a sentence
    a player understands), ``errors`` (per-field problems) and ``extra`` (facts
    that help the caller recover, such as the current round and exchange)."""

    code: str
    detail: str
    errors: list[FieldError] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    record: tuple[dict[str, Any], ...] = ()
    """Public events to log although the move is refused (RULES.md 2.6: an
    invalid declaration is recorded in the round's log): the one write a
    refusal makes."""

    def __post_init__(self) -> None:
        Exception.__init__(self, self.detail)

    @property
    def kind(self) -> Kind:
        """The kind of refusal, from :data:`CODES`."""
        return CODES[self.code]


class StoredFormatNewer(ValueError):
    """Stored data in a format newer than this release reads (the
    stored-format contract, deploy/README "Upgrading"): a newer release
    wrote it. ``kind`` names what (``"state"`` of a game, ``"event"``,
    ``"table"`` for the table hash's layout), ``found`` its format,
    ``known`` the newest this release reads. Nothing is written on it: the
    service answers 503 ``stored-format-newer`` until a pod of the newer
    release serves the request (or the update is rolled back)."""

    def __init__(self, kind: str, found: Any, known: Any) -> None:
        super().__init__(f"{kind} stored in format {found!r}; this release reads up to {known!r}")
        self.kind = kind
        self.found = found
        self.known = known
