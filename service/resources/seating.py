"""Who sits where (RULES.md 5.1, 5.6): open seats, join codes, joining,
leaving and reissued tokens, as changes of a table's auth record. HTTP-free
and game-free: the endpoints are in :mod:`.seats`, a seat's name goes through
the game's ``name_seat``.

The auth record (the table hash's ``a`` field, JSON) is::

    {"h": host digest,
     "s": [seat digest, or "" for an open seat],
     "j": [[code digest, seat (-1: the table code), expires at, ms], ...],
     "l": 1 when the table is listed in the lobby,
     "c": created at, ms,
     "q": whose budget the referee's moves spend (``service.storage.quota``),
     "x": [round, [seat, ...]]: the seats whose token the host reissued,
          shown as ``reissued`` from that round on (RULES.md 5.1),
     "p": 1 once a person took a seat with a code or from the lobby, else
          0 (RULES.md 5.1: the host may then deal no hands of its choosing),
     "t": {seat: when a person last took it with a code or from the lobby, ms}}

``j``, ``p`` and ``l`` are absent on a table created with every seat named
(``j`` and ``p`` appear once a seat leaves), ``p`` also on a table written
only by a release that kept none; ``c`` on one created with every seat
named by a release before 0.3.0 (its round records are
then tagged by their content, ``service.resources.proofs.round_records``), ``q`` on one
created by a release that kept no creator, ``x`` until a token is reissued,
``t`` until a person joins.
Digests are :func:`.auth.stored_digest` (SHA-256, base64url): neither a
token nor a code is ever kept in clear. An open seat's name in the game's
state is ``""`` (no player's name can be blank), so that a view of the state
alone knows which seats are open.

A **seat code** is single use: it takes its seat once and is gone (so are
the other codes of a seat once it is taken). The **table code** takes the
lowest open seat each time it is presented, until it expires: it is the link
a host posts to a group. Every code expires (``JOIN_CODE_SECONDS``, 24 h by
default, never after the table would). A listed table's open seats need no
code. Expired codes are dropped by the next change of the seating.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from ..edge.auth import digest_of_stored, new_token, stored_digest
from ..edge.problems import Problem
from ..games.errors import Kind, RuleViolation, register_codes

CODE_BYTES = 16
"""A join code's random bytes (128 bits from the CSPRNG: a guess among 2^128)."""

TABLE_CODE = -1
"""The seat of the table code in the record."""

register_codes(
    {
        "seat-in-play": Kind.CONFLICT,
        "seats-open": Kind.CONFLICT,
        "submitted-deal-refused": Kind.CONFLICT,
        "seats-full": Kind.CONFLICT,
        "seat-open": Kind.CONFLICT,
        "seat-taken": Kind.CONFLICT,
        "table-dealt": Kind.CONFLICT,
    }
)


def new_code() -> str:
    """A fresh join code (URL-safe, 22 characters)."""
    return secrets.token_urlsafe(CODE_BYTES)


def open_seats(auth: dict[str, Any]) -> list[int]:
    """The open seats of a table, lowest first."""
    return [seat for seat, digest in enumerate(auth["s"]) if digest == ""]


def listed(auth: dict[str, Any]) -> bool:
    """Whether the table was created with ``listed: true``."""
    return bool(auth.get("l"))


def in_progress(view: dict[str, Any]) -> bool:
    """Whether a game's public view is of a match still going on (one the
    host ended takes no player: it never deals again)."""
    return bool(view.get("match", {}).get("status", "in-progress") == "in-progress")


def round_in_play(view: dict[str, Any]) -> bool:
    """Whether a game's public view is of a round dealt and not over: its
    seats are dealt, and no code seats anyone in them (RULES.md 5.1)."""
    found = view.get("round")
    return isinstance(found, dict) and found.get("status") != "over"


def reissued_seats(auth: dict[str, Any], view: dict[str, Any]) -> frozenset[int]:
    """The seats whose token the host reissued (RULES.md 5.1), in or before
    the round the view shows: marked from that round to the match's end,
    since the host may keep the token it was given (issue 39, eighth
    attacker: marked for one round, the seat read as its player's in the
    next)."""
    marked = auth.get("x")
    found = view.get("round")
    number = found.get("number") if isinstance(found, dict) else None
    if not marked or not isinstance(number, int) or number < marked[0]:
        return frozenset()
    return frozenset(int(seat) for seat in marked[1])


def mark_reissued(auth: dict[str, Any], round_no: int, seat: int) -> dict[str, Any]:
    """The record with ``seat`` among the seats reissued, marked from round
    ``round_no`` (or the earlier round of those already marked) on."""
    marked = auth.get("x")
    seats, since = (set(marked[1]), min(marked[0], round_no)) if marked else (set(), round_no)
    return {**auth, "x": [since, sorted({*seats, seat})]}


def with_open_seats(view: dict[str, Any]) -> dict[str, Any]:
    """A game's public view with each seat's ``open`` (its name ``null``)
    and the table's ``open_seats``: an open seat is named ``""`` in the state."""
    for key in ("seats", "standings"):
        for seat in view.get(key) or ():
            if "open" in seat:  # the same dict in both lists (My Ship Sails)
                continue
            seat["open"] = seat.get("name") == ""
            if seat["open"]:
                seat["name"] = None
    view["open_seats"] = [s["seat"] for s in view.get("seats") or () if s["open"]]
    return view


def new_seating(
    players: list[str | None], join_codes: str, listed_: bool, now_ms: int, code_ms: int
) -> tuple[str, list[str | None], list[tuple[str, int, int]], dict[str, Any]]:
    """A new table's host token, seat tokens (``None`` for an open seat),
    join codes (code, seat or :data:`TABLE_CODE`, expiry ms: one per open
    seat, or one table code with ``join_codes == "table"``; each lives
    ``code_ms``) and auth record."""
    host = new_token()
    tokens = [None if name is None else new_token() for name in players]
    open_ = [seat for seat, name in enumerate(players) if name is None]
    until = now_ms + code_ms
    if not open_:
        codes = []
    elif join_codes == "table":
        codes = [(new_code(), TABLE_CODE, until)]
    else:
        codes = [(new_code(), seat, until) for seat in open_]
    return host, tokens, codes, created_record(host, tokens, codes, listed_, now_ms)


def created_record(
    host_token: str,
    seat_tokens: list[str | None],
    codes: list[tuple[str, int, int]],
    listed_: bool,
    created_ms: int,
) -> dict[str, Any]:
    """The auth record of a new table: ``seat_tokens`` holds ``None`` for
    an open seat; ``codes`` are (code, seat or :data:`TABLE_CODE`, expiry ms)."""
    record: dict[str, Any] = {
        "h": stored_digest(host_token),
        "s": ["" if t is None else stored_digest(t) for t in seat_tokens],
        "c": created_ms,  # with the id, what names this table for good
    }
    if codes or listed_ or None in seat_tokens:
        record["j"] = [[stored_digest(code), seat, until] for code, seat, until in codes]
        record["p"] = 0
        if listed_:
            record["l"] = 1
    return record


def require_full(auth: dict[str, Any]) -> None:
    """409 ``seats-open`` (with ``open_seats``) while a seat is open: a table
    deals only when every seat is taken (RULES.md 5.1)."""
    seats = open_seats(auth)
    if seats:
        which = (
            f"Seat {seats[0]} is" if len(seats) == 1 else f"Seats {', '.join(map(str, seats))} are"
        )
        raise RuleViolation(
            "seats-open",
            f"{which} still open: a table deals only when every seat is taken.",
            extra={"open_seats": seats},
        )


def person_joined(auth: dict[str, Any]) -> bool:
    """Whether a person took a seat of the table with a join code or from the
    lobby (``p``; a table of a release that kept none: whether it ever had
    an open seat)."""
    return bool(auth.get("p", 1 if "j" in auth else 0))


def require_no_person_joined(auth: dict[str, Any]) -> None:
    """409 ``submitted-deal-refused`` at a table where a person took a seat
    with a join code or from the lobby (``p``): a deal the host chose would
    show the host the hand of a player whose token it does not hold
    (RULES.md 5.1, host powers never show a card). A seat a bot took, or
    one named at the table's creation (its token was the creator's), does
    not count. A table of a release that kept no ``p`` counts as joined if
    it ever had an open seat (``j``)."""
    if person_joined(auth):
        raise RuleViolation(
            "submitted-deal-refused",
            "A player took a seat of this table with a join code or from the lobby: a deal "
            "the host chose would show the host that player's cards (RULES.md 5.1). Deal "
            "without `hands`, and the referee shuffles.",
        )


def _live(auth: dict[str, Any], now_ms: int) -> list[list[Any]]:
    return [entry for entry in auth.get("j", ()) if entry[2] > now_ms]


def join(auth: dict[str, Any], code: str | None, now_ms: int) -> tuple[int, str, dict[str, Any]]:
    """Take a seat with ``code`` (or none, at a listed table): returns the
    seat, its new token and the new record.

    Raises 403 ``join-code-required`` (an unlisted table and no code),
    ``join-code-invalid`` (no such code: wrong, spent, or replaced),
    ``join-code-expired``; 409 ``seats-full`` when no seat is open (the
    race for the last seat was lost) or ``seat-taken``."""
    seats = open_seats(auth)
    if code is None:
        if not listed(auth):
            raise Problem(
                403,
                "join-code-required",
                "This table is not listed: its open seats need a join code from its host.",
            )
        if not seats:
            raise _full()
        seat = seats[0]
    else:
        entry = _find(auth, code)
        if entry is None:
            raise Problem(
                403,
                "join-code-invalid",
                "This join code is not one of this table's (wrong, already used, or replaced).",
            )
        if entry[2] <= now_ms:
            raise Problem(403, "join-code-expired", "This join code has expired; ask the host.")
        if entry[1] == TABLE_CODE:
            if not seats:
                raise _full()
            seat = seats[0]
        else:
            seat = entry[1]
            if seat not in seats:  # pragma: no cover - a taken seat's codes are dropped
                raise RuleViolation("seat-taken", f"Seat {seat} is taken.")
    token = new_token()
    record = dict(auth)
    record["s"] = [stored_digest(token) if s == seat else d for s, d in enumerate(auth["s"])]
    record["j"] = [e for e in _live(auth, now_ms) if e[1] != seat]
    record["p"] = 1
    record["t"] = {**auth.get("t", {}), str(seat): now_ms}
    return seat, token, record


def joined_at(auth: dict[str, Any], seat: int) -> int | None:
    """When a person last took ``seat`` with a code or from the lobby (ms,
    the Redis clock), ``None``: never (``t``)."""
    found = auth.get("t", {}).get(str(seat))
    return int(found) if found is not None else None


def join_as_bot(auth: dict[str, Any], seat: int, now_ms: int) -> tuple[str, dict[str, Any]]:
    """The record with the open ``seat`` taken by a token nobody is given (a
    bot's, RULES.md 5.4): it is no longer open and its join codes go."""
    token = new_token()
    record = dict(auth)
    record["s"] = [stored_digest(token) if s == seat else d for s, d in enumerate(auth["s"])]
    record["j"] = [e for e in _live(auth, now_ms) if e[1] != seat]
    return token, record


def _full() -> RuleViolation:
    return RuleViolation(
        "seats-full", "Every seat of this table is taken.", extra={"open_seats": []}
    )


def _find(auth: dict[str, Any], code: str) -> list[Any] | None:
    """The record's entry of ``code``; every digest is compared (constant time)."""
    digest = hashlib.sha256(code.encode()).digest()
    found = None
    for entry in auth.get("j", ()):
        if hmac.compare_digest(digest, digest_of_stored(entry[0])):
            found = entry
    return found


def leave(auth: dict[str, Any], seat: int, now_ms: int) -> dict[str, Any]:
    """The record with ``seat`` open again (its token no longer works);
    409 ``seat-open`` when it is open already."""
    if seat in open_seats(auth):
        raise RuleViolation("seat-open", f"Seat {seat} is open already.")
    record = dict(auth)
    record["s"] = ["" if s == seat else d for s, d in enumerate(auth["s"])]
    record["j"] = _live(auth, now_ms)
    record.setdefault("p", 1 if "j" in auth else 0)  # (no "p": see require_no_person_joined)
    record.setdefault("c", now_ms)
    return record


def reissue(auth: dict[str, Any], seat: int) -> tuple[str, dict[str, Any]]:
    """A new token for a taken seat and the record that holds its digest
    instead of the old one's; 409 ``seat-open`` for an open seat."""
    if seat in open_seats(auth):
        raise RuleViolation("seat-open", f"Seat {seat} is open: it has no token to reissue.")
    token = new_token()
    record = dict(auth)
    record["s"] = [stored_digest(token) if s == seat else d for s, d in enumerate(auth["s"])]
    return token, record


def issue_code(
    auth: dict[str, Any], seat: int | None, now_ms: int, until_ms: int
) -> tuple[str, dict[str, Any]]:
    """A new code for the open ``seat`` (``None``: the table code), in place
    of that seat's (or the table's) earlier codes; 409 ``seat-taken``."""
    if seat is not None and seat not in open_seats(auth):
        raise RuleViolation("seat-taken", f"Seat {seat} is taken: it needs no code.")
    which = TABLE_CODE if seat is None else seat
    code = new_code()
    record = dict(auth)
    record["j"] = [
        *(e for e in _live(auth, now_ms) if e[1] != which),
        [stored_digest(code), which, until_ms],
    ]
    record.setdefault("c", now_ms)
    return code, record
