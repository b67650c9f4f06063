"""May I?'s own endpoints (HTTP only): a seat's numbered moves, a May I?
request and its answers, and the stateless checks (RULES.md 4). Everything
else a May I? table needs (create, deal, views, events, finish) is the
table endpoints'.
"""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from ...edge import auth, idempotency
from ...edge.bounds import over_one_deck
from ...edge.common import SECURITY, RefereeBlueprint, documented, fast_body, referee
from ...games.base import Transition
from ...games.errors import RuleViolation
from ...games.may_i import GAME as MAY_I
from ...games.may_i import check_discard, check_lay_down, check_lay_off, engine
from ...games.may_i.options import LARGEST_DECK
from ...spec.links import operation
from ...storage.store import Loaded
from ..catalog.endpoints import checks_blp
from ..moves import Answer, commit_move, require_game
from ..proofs.endpoints import recorded
from .schemas import (
    ACTIONS,
    AnswerSchema,
    AskSchema,
    CheckDiscardOutcomeSchema,
    CheckDiscardSchema,
    CheckLayDownOutcomeSchema,
    CheckLayDownSchema,
    CheckLayOffOutcomeSchema,
    CheckLayOffSchema,
    MayIOutcomeSchema,
    MoveOutcomeSchema,
    MoveSchema,
)

blp = RefereeBlueprint(
    "may_i",
    __name__,
    url_prefix="/v1/tables",
    description="May I? (contract rummy): a seat's numbered moves, May I? requests and "
    "answers (RULES.md 4). Create, deal and read a May I? table with the table endpoints.",
)


_FLAG_MOVES = frozenset({"take_discard", "decline", "draw", "done"})


@fast_body(MoveSchema)
def usual_move(body: Any) -> dict[str, Any] | None:
    """:class:`MoveSchema`'s load of a usual move: one flag sent as ``true``
    (``take_discard``, ``decline``, ``draw``, ``done``) or ``{"discard": code}``
    (a string of 1 to 8 characters); ``None`` for any other body (melds,
    lay-offs, anything refused), which the schema then loads in full."""
    if type(body) is not dict or len(body) != 1:
        return None
    ((action, value),) = body.items()
    if action in _FLAG_MOVES:
        return {action: True} if value is True else None
    if action == "discard" and type(value) is str and 1 <= len(value) <= 8:
        return {"discard": value}
    return None


@fast_body(AskSchema)
def usual_ask(body: Any) -> dict[str, Any] | None:
    """:class:`AskSchema`'s load of ``{"offer": n}`` with a whole ``n`` from 1
    to 100,000; ``None`` for any other body."""
    if type(body) is not dict or len(body) != 1:
        return None
    offer = body.get("offer")
    return {"offer": offer} if type(offer) is int and 1 <= offer <= 100_000 else None


@fast_body(AnswerSchema)
def usual_answer(body: Any) -> dict[str, Any] | None:
    """:class:`AnswerSchema`'s load of ``{"allow": true}`` or ``{"allow": false}``;
    ``None`` for any other body."""
    if type(body) is not dict or len(body) != 1:
        return None
    allow = body.get("allow")
    return {"allow": allow} if type(allow) is bool else None


def _earlier(table_id: str) -> engine.Earlier:
    """Reads the table's history: a repeat of a move (or May I? request or
    answer) older than the round's last move is answered from it (the
    state keeps only the last one)."""
    return lambda: referee().store.history_list(table_id)


@blp.route("/<table_id>/rounds/<int:round_no>/moves/<int:move_no>")
class Move(MethodView):
    @blp.arguments(MoveSchema())
    @blp.response(200, MoveOutcomeSchema)
    @blp.doc(security=SECURITY, parameters=[idempotency.HEADER_DOC], **operation("mayIMove"))
    @documented(blp, 400, 401, 403, 404, 409, 422)
    def put(
        self, body: dict[str, Any], table_id: str, round_no: int, move_no: int
    ) -> Answer | Response:
        """Make a move of a May I? turn (seat)

        The seat on turn (by its token) makes the round's move `move_no`
        (numbered from 1 in each round; the table's `round.move` and
        `round.step` say which is next): `{"take_discard": true}` or
        `{"decline": true}` (then May I? runs, RULES.md 4.6), `{"draw":
        true}` from the stock, `{"lay_down": [[...], [...]]}` (the contract,
        4.3), `{"lay_off": {"card", "meld", "end"}}`, `{"discard": "5C"}`,
        and after a seat went out (`lay-off-round`, `play-out`) `{"done":
        true}`. A repeat of a move already made answers exactly as the first
        time and changes nothing (409 `repeat-not-kept` for a move older than the
        newest 100 the referee keeps of the round). 409 `stale-move`, `not-your-turn`,
        `must-draw-first`, `already-drawn`, `already-declined` (the seat declined this
        turn's discard), `may-i-open`; 422 `contract-invalid`,
        `lay-off-invalid`, `not-laid-down`, `already-laid-down`,
        `discard-fits`, `move-invalid`. See `/docs/rules/may-i`.
        """
        action = next(a for a in ACTIONS if a in body)
        arg = body[action]
        if action in ("take_discard", "decline", "draw", "done"):
            arg = None

        def move(loaded: Loaded) -> Transition:
            seat = auth.require_seat(loaded.auth)
            require_game(loaded.table, MAY_I, "moves")
            done = engine.turn(
                loaded.table,
                round_no,
                move_no,
                seat,
                action,
                arg,
                loaded.now_ms,
                _earlier(table_id),
            )
            # The record holds cards as canonical codes (a pile is derived from them).
            canonical = engine.parse_args(action, arg)
            return recorded(
                done, seat, "turn", round=round_no, number=move_no, action=action, arg=canonical
            )

        def respond(transition: Transition, loaded: Loaded) -> Answer:
            return transition.outcome, 200, {}

        return commit_move(table_id, move, respond, MoveOutcomeSchema)


@blp.route("/<table_id>/rounds/<int:round_no>/may-i")
class Ask(MethodView):
    @blp.arguments(AskSchema())
    @blp.response(200, MayIOutcomeSchema)
    @blp.doc(security=SECURITY, parameters=[idempotency.HEADER_DOC], **operation("mayIAsk"))
    @documented(blp, 400, 401, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], table_id: str, round_no: int) -> Answer | Response:
        """Ask "May I?" for the declined discard (seat)

        Any seat but the one on turn asks for the card of offer `offer` (the
        table's `round.may_i`) within its window (RULES.md 4.6). The first
        request counts: another is 409 `may-i-taken`; asking again for the
        offer you asked for answers as the first time, even once closed (409
        `repeat-not-kept` for an offer older than the moves the referee keeps). 409
        `may-i-closed` once the window has closed, `may-i-not-open` before the
        discard is declined (always under `may_i_window_ms: 0`); 422
        `may-i-own-discard`, `may-i-not-yours`.
        """

        def move(loaded: Loaded) -> Transition:
            seat = auth.require_seat(loaded.auth)
            require_game(loaded.table, MAY_I, "May I? requests")
            done = engine.ask(
                loaded.table, round_no, body["offer"], seat, loaded.now_ms, _earlier(table_id)
            )
            return recorded(done, seat, "ask", round=round_no, offer=body["offer"])

        def respond(transition: Transition, loaded: Loaded) -> Answer:
            return transition.outcome, 200, {}

        return commit_move(table_id, move, respond, MayIOutcomeSchema)


@blp.route("/<table_id>/rounds/<int:round_no>/may-i/<int:offer_no>/answers/<int:seat>")
class Reply(MethodView):
    @blp.arguments(AnswerSchema())
    @blp.response(200, MayIOutcomeSchema)
    @blp.doc(security=SECURITY, parameters=[idempotency.HEADER_DOC], **operation("mayIAnswer"))
    @documented(blp, 400, 401, 403, 404, 409, 422)
    def put(
        self, body: dict[str, Any], table_id: str, round_no: int, offer_no: int, seat: int
    ) -> Answer | Response:
        """Allow or deny a May I? request (seat)

        Every seat but the asker and the seat on turn may answer within the
        window; silence allows (RULES.md 4.6). The first denier in order of
        play from the seat on turn takes the card instead, with one stock
        card if it comes before the asker, two if after. When every seat
        has answered the card is given at once. 409 `may-i-closed` after the
        window (nothing changes), `already-answered` for another answer,
        `may-i-not-asked` before anyone asked, `repeat-not-kept` as for a request.
        """

        def move(loaded: Loaded) -> Transition:
            auth.require_seat(loaded.auth, seat)
            require_game(loaded.table, MAY_I, "May I? answers")
            done = engine.answer(
                loaded.table,
                round_no,
                offer_no,
                seat,
                body["allow"],
                loaded.now_ms,
                _earlier(table_id),
            )
            return recorded(
                done, seat, "answer", round=round_no, offer=offer_no, allow=body["allow"]
            )

        def respond(transition: Transition, loaded: Loaded) -> Answer:
            return transition.outcome, 200, {}

        return commit_move(table_id, move, respond, MayIOutcomeSchema)


@checks_blp.route("/may-i/lay-down")
class CheckLayDown(MethodView):
    @checks_blp.doc(**operation("checkMayILayDown"))
    @checks_blp.arguments(CheckLayDownSchema)
    @checks_blp.response(200, CheckLayDownOutcomeSchema)
    @documented(checks_blp, 400, 422)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Check a May I? lay-down

        Are `melds` exactly round `round`'s contract (RULES.md 4.3)? With
        the reason naming the meld, and the melds as shown.
        """
        return check_lay_down(body["round"], body["melds"])


@checks_blp.route("/may-i/lay-off")
class CheckLayOff(MethodView):
    @checks_blp.doc(**operation("checkMayILayOff"))
    @checks_blp.arguments(CheckLayOffSchema)
    @checks_blp.response(200, CheckLayOffOutcomeSchema)
    @documented(checks_blp, 400, 422)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Check a May I? lay-off

        May `card` be laid off on `meld` (RULES.md 4.2)? 422 `move-invalid`
        when `meld` is no meld.
        """
        return check_lay_off(body["meld"], body["card"], body["end"])


@checks_blp.route("/may-i/discard")
class CheckDiscard(MethodView):
    @checks_blp.doc(**operation("checkMayIDiscard"))
    @checks_blp.arguments(CheckDiscardSchema)
    @checks_blp.response(200, CheckDiscardOutcomeSchema)
    @documented(checks_blp, 400, 422)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Check a May I? discard

        May `hand` discard `card` with `melds` on the table (RULES.md 4.5)?
        422 `move-invalid` when they are no position of May I?, e.g. more
        than 216 cards together (four decks with their jokers).
        """
        too_many = over_one_deck(body, ("hand", "melds"), LARGEST_DECK)
        if too_many is not None:
            raise RuleViolation(
                "move-invalid", "The cards given are not a position of May I?.", [too_many]
            )
        return check_discard(body["hand"], body["melds"], body["card"])
