"""Joining a table, leaving it, reissued tokens and new join codes
(RULES.md 5.1, 5.6), HTTP only; the seating rules are :mod:`.seating`.

Each is a move like any other (:func:`.moves.commit_move`): the table is
read, the seating record (the auth record) and the seat's name in the state
change together in one commit with the version check, so that two players
racing for the last seat cannot both get it (the loser's move runs again on
the new table and is refused 409 ``seats-full``). An answer that holds a
token or a code is recorded for ``Idempotency-Key`` retries encrypted with
the key, as a creation's is.

Why ``POST /v1/tables/{table_id}/join`` and not ``/v1/join``: every key of a
table lives in its hash tag and is written by one Lua call; a code that
named no table would need a global index of codes (another slot on a
cluster, another thing to expire). A join link carries the table id and the
code anyway.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import Response, url_for
from flask.views import MethodView

from ...edge import auth, idempotency, presence
from ...edge.common import SECURITY, RefereeBlueprint, documented, referee
from ...edge.problems import Problem
from ...games import game_of
from ...games.base import Transition
from ...games.errors import RuleViolation
from ...spec.links import operation
from ...spec.schemas import PublicTableSchema
from ...storage.store import NO_CONTROL, Loaded
from .. import seating
from ..moves import Answer, after, commit_move
from . import lobby
from .schemas import CodeRequestSchema, IssuedCodeSchema, JoinedSchema, JoinSchema

blp = RefereeBlueprint(
    "seats",
    __name__,
    url_prefix="/v1/tables",
    description="Open seats (RULES.md 5.1): join with a code (or none at a listed table), "
    "leave before the deal, a new token or a new code from the host.",
)

NO_STORE = {"Cache-Control": "no-store"}


@dataclass(frozen=True, slots=True)
class SeatChange(Transition):
    """A transition that also replaces the table's auth record (the store
    commits ``auth`` with the state)."""

    auth: dict[str, Any] | None = None
    unattended: str | None = None
    """``"0"`` for a change that clears the referee's moves in a row (a
    person's join), ``None``: as the store decides (the host's seat changes,
    a seat handed to a bot or taken back, a new code or token, do not: a
    paused clock resumes on a person's act of play, RULES.md 5.4)."""


def _code_until(now_ms: int) -> int:
    settings = referee().settings
    return now_ms + 1000 * min(settings.join_code_seconds, settings.table_ttl_seconds)


def _seat(loaded: Loaded, seat: int) -> None:
    if seat >= loaded.table.seats:
        raise Problem(404, "seat-not-found", f"There is no seat {seat} at this table.")


def _then_sync(table_id: str, answer: Answer | Response, seen: dict[str, Any]) -> Answer | Response:
    """The answer, once the lobby knows the table's seats (a listed table)
    and the answers kept for a token that no longer works are deleted."""
    if not isinstance(answer, Response):
        if seen.get("listed"):
            lobby.sync(table_id)
        if seen.get("retired"):
            idempotency.forget_token(table_id, seen["retired"])
    return answer


def _seat_move(
    table_id: str,
    change: Callable[[Loaded], SeatChange],
    respond: Callable[[Transition, Loaded], Answer],
    schema: Any,
    protected: bool = True,
    sealed: bool = False,
) -> Answer | Response:
    seen: dict[str, Any] = {}

    def move(loaded: Loaded) -> Transition:
        seen["listed"] = seating.listed(loaded.auth)
        done = change(loaded)
        # The digest a leave or a reissue replaces: its token's answers go.
        after_ = done.auth["s"] if done.auth is not None else loaded.auth["s"]
        retired = [old for old, new in zip(loaded.auth["s"], after_, strict=True) if old != new]
        seen["retired"] = retired[0] if retired and retired[0] else None
        return done

    answer = commit_move(table_id, move, respond, schema, protected=protected, sealed=sealed)
    return _then_sync(table_id, answer, seen)


@blp.route("/<table_id>/join")
class Join(MethodView):
    @blp.arguments(JoinSchema)
    @blp.response(
        201,
        JoinedSchema,
        headers={
            "Location": {"description": "The seat's private view.", "schema": {"type": "string"}}
        },
    )
    @blp.doc(parameters=[idempotency.HEADER_DOC], **operation("joinTable"))
    @documented(blp, 400, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], table_id: str) -> Answer | Response:
        """Take an open seat (anyone with a code, or anyone at a listed table)

        With a seat's `code`, that seat (the code is then spent); with the
        table's code, or with no code at a `listed` table, the lowest open
        seat. The answer holds the seat's token, shown only here (and to a
        retry with the same `Idempotency-Key`, whose answer is kept
        encrypted with that key). 403 `join-code-invalid` (wrong, spent or
        replaced), `join-code-expired`, `join-code-required` (an unlisted
        table without a code); 409 `seats-full` when no seat is open (one of
        two players racing for the last seat gets it, the other this),
        `match-over` once the host ended the match.
        Event `seat-joined` (seat, name). RULES.md 5.1, 5.6.
        """
        name, code = body["name"], body.get("code")

        def change(loaded: Loaded) -> SeatChange:
            game = game_of(loaded.table)
            view = game.public_view(loaded.table, loaded.now_ms)
            if not seating.in_progress(view):
                # Its seats would never be dealt: the host ended the match.
                raise RuleViolation("match-over", "The match has ended: no seat can be taken.")
            if seating.round_in_play(view):
                # A seat taken back from its bot is open, but its hand is dealt.
                raise RuleViolation(
                    "seat-in-play",
                    f"Round {view['round']['number']} is in play and every seat of it was "
                    "dealt: no seat can be taken until the round is over (RULES.md 5.1).",
                )
            seat, token, record = seating.join(loaded.auth, code, loaded.now_ms)
            table = game.name_seat(loaded.table, seat, name)
            event = {"type": "seat-joined", "seat": seat, "name": name}
            outcome = {"seat": seat, "name": name, "token": token}
            return SeatChange(table, (event,), outcome, auth=record, unattended="0")

        def respond(transition: Transition, loaded: Loaded) -> Answer:
            seat = transition.outcome["seat"]
            # The join is the seat's first successful write (RULES.md 5.5): its
            # player is connected from it, not from a later request (a host
            # watching for seat-joined reissued the token first: issue 39).
            presence.note(seat)
            location = url_for("tables.SeatView", table_id=table_id, seat=seat)
            body_ = {**transition.outcome, "table": after(loaded, transition)}
            return body_, 201, {"Location": location, **NO_STORE}

        return _seat_move(table_id, change, respond, JoinedSchema, protected=False, sealed=True)


@blp.route("/<table_id>/seats/<int:seat>/leave")
class Leave(MethodView):
    @blp.response(200, PublicTableSchema)
    @blp.doc(security=SECURITY, parameters=[idempotency.HEADER_DOC], **operation("leaveSeat"))
    @documented(blp, 401, 403, 404, 409)
    def post(self, table_id: str, seat: int) -> Answer | Response:
        """Leave a seat before the deal (that seat, or the host)

        The seat opens again: its token stops working at once, its name is
        cleared, and a new code for it (`POST …/codes`), the table code, or
        at a listed table no code at all, fills it again. 409 `table-dealt`
        once a round was dealt, `seat-open` for an open seat. Event
        `seat-left` (seat, name). RULES.md 5.1.
        """

        def change(loaded: Loaded) -> SeatChange:
            _seat(loaded, seat)
            who = auth.caller(loaded.auth)
            if who != "host" and who != seat:
                raise Problem(
                    403, "wrong-seat", f"This token is not seat {seat}'s, nor the host's."
                )
            game = game_of(loaded.table)
            view = game.public_view(loaded.table, loaded.now_ms)
            if view["round"] is not None:
                raise RuleViolation("table-dealt", "A seat can leave only before the first deal.")
            record = seating.leave(loaded.auth, seat, loaded.now_ms)
            name = view["seats"][seat]["name"]
            event = {"type": "seat-left", "seat": seat, "name": name}
            return SeatChange(game.name_seat(loaded.table, seat, ""), (event,), auth=record)

        def respond(transition: Transition, loaded: Loaded) -> Answer:
            return after(loaded, transition), 200, {}

        return _seat_move(table_id, change, respond, PublicTableSchema)


def _marked_round(view: dict[str, Any]) -> int:
    """The round a reissued token is marked for: the one in play, else the
    next (``view``: the game's public view)."""
    found = view.get("round")
    number = found.get("number", 0) if isinstance(found, dict) else 0
    return int(number) if seating.round_in_play(view) else int(number) + 1


@blp.route("/<table_id>/seats/<int:seat>/token")
class Reissue(MethodView):
    @blp.response(201, JoinedSchema)
    @blp.doc(security=SECURITY, parameters=[idempotency.HEADER_DOC], **operation("reissueToken"))
    @documented(blp, 401, 403, 404, 409)
    def post(self, table_id: str, seat: int) -> Answer | Response:
        """Give a taken seat a new token (host)

        For the player who lost it (a reloaded page, another phone): the old
        token stops working at once, in every worker (the stored hash is
        replaced). The new one is shown only here (and to a retry with the
        same `Idempotency-Key`, kept encrypted with that key). Host powers
        never show a card (RULES.md 5.1): while a round is in play, and
        between rounds at a table where a person took a seat with a code or
        from the lobby, a seat's token is reissued only while the seat is
        `connected` (the lost phone: not seen for the presence window and a
        third more, the slack of its throttled writes); the public view marks
        the seat `reissued` from the round in play (or the next) to the
        match's end, since the host may keep the token. 409 `seat-open` for
        an open seat, `seat-is-bot` for a seat a bot plays (it has no
        person's token), `seat-connected` while the seat is connected and
        guarded so. Event `token-reissued` (seat, name).
        """

        def change(loaded: Loaded) -> SeatChange:
            _seat(loaded, seat)
            auth.require_host(loaded.auth)
            if seat in (loaded.control or NO_CONTROL).bots:
                raise Problem(
                    409,
                    "seat-is-bot",
                    f"A bot plays seat {seat}: it has no person's token to reissue.",
                )
            view = game_of(loaded.table).public_view(loaded.table, loaded.now_ms)
            guarded = seating.round_in_play(view) or seating.person_joined(loaded.auth)
            joined = seating.joined_at(loaded.auth, seat)
            if guarded and (
                seat in presence.seats_maybe_connected(table_id, loaded.presence, loaded.now_ms)
                or presence.within_slack(joined, loaded.now_ms)
            ):
                # Between rounds too where a person joined (issue 39, seventh
                # attacker: the host took connected joiners' seats before a
                # deal and read their hands); a join is presence from its own
                # commit (ninth: a reissue raced the join's presence write).
                raise Problem(
                    409,
                    "seat-connected",
                    f"Seat {seat} is connected: its token is reissued only while the seat "
                    "is not connected, in play or, where a person joined with a code or "
                    "from the lobby, between rounds (RULES.md 5.1).",
                )
            token, record = seating.reissue(loaded.auth, seat)
            record = seating.mark_reissued(record, _marked_round(view), seat)
            name = view["seats"][seat]["name"]
            event = {"type": "token-reissued", "seat": seat, "name": name}
            outcome = {"seat": seat, "name": name, "token": token}
            return SeatChange(loaded.table, (event,), outcome, auth=record)

        def respond(transition: Transition, loaded: Loaded) -> Answer:
            body_ = {**transition.outcome, "table": after(loaded, transition)}
            return body_, 201, dict(NO_STORE)

        return _seat_move(table_id, change, respond, JoinedSchema, sealed=True)


@blp.route("/<table_id>/codes")
class Codes(MethodView):
    @blp.arguments(CodeRequestSchema, required=False)
    @blp.response(201, IssuedCodeSchema)
    @blp.doc(security=SECURITY, parameters=[idempotency.HEADER_DOC], **operation("issueJoinCode"))
    @documented(blp, 400, 401, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], table_id: str) -> Answer | Response:
        """Issue a join code (host)

        `{"seat": n}`: a code for the open seat `n`; `{"seat": null}` or no
        body: the table code. It replaces that seat's (or the table's)
        earlier code, which stops working; it expires after
        `JOIN_CODE_SECONDS` (never after the table). Shown only here. 409
        `seat-taken` for a taken seat. Writes no event (codes are never public).
        """
        wanted = (body or {}).get("seat")

        def change(loaded: Loaded) -> SeatChange:
            if wanted is not None:
                _seat(loaded, wanted)
            auth.require_host(loaded.auth)
            until = _code_until(loaded.now_ms)
            code, record = seating.issue_code(loaded.auth, wanted, loaded.now_ms, until)
            outcome = {"seat": wanted, "code": code, "expires_at_ms": until}
            return SeatChange(loaded.table, (), outcome, auth=record)

        def respond(transition: Transition, loaded: Loaded) -> Answer:
            return dict(transition.outcome), 201, dict(NO_STORE)

        return _seat_move(table_id, change, respond, IssuedCodeSchema, sealed=True)
