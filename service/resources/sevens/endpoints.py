"""Sevens' own endpoints (HTTP only): a seat's numbered turn, and the
stateless check of a play (RULES.md 3). Everything else a Sevens table needs
(create, deal, views, events, finish) is the table endpoints'.
"""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from ...edge import auth, idempotency
from ...edge.common import SECURITY, RefereeBlueprint, documented, fast_body
from ...games.base import Transition
from ...games.cards import parse_card
from ...games.sevens import GAME as SEVENS
from ...games.sevens import check_play, engine
from ...spec.links import operation
from ...storage.store import Loaded
from ..catalog.endpoints import checks_blp, only_game
from ..moves import Answer, commit_move, require_game
from ..proofs.endpoints import recorded
from .schemas import CheckPlayOutcomeSchema, CheckPlaySchema, TurnOutcomeSchema, TurnSchema

blp = RefereeBlueprint(
    "sevens",
    __name__,
    url_prefix="/v1/tables",
    description="Sevens (Parliament, Fan Tan): a seat's numbered turns (RULES.md 3). "
    "Create, deal and read a Sevens table with the table endpoints.",
)


@fast_body(TurnSchema)
def usual_turn(body: Any) -> dict[str, Any] | None:
    """:class:`TurnSchema`'s load of a usual turn: ``{"play": code}`` (a string
    of 1 to 8 characters) with an optional ``"last_card"`` of ``true`` or
    ``false``, or ``{"pass": true}`` with an optional ``"last_card": false``;
    ``None`` for any other body, which the schema then loads and refuses
    (400/422) in full."""
    if type(body) is not dict or not body.keys() <= {"play", "pass", "last_card"}:
        return None
    last_card = body.get("last_card", False)
    if type(last_card) is not bool:
        return None
    if "pass" not in body:
        play = body.get("play")
        if type(play) is not str or not 1 <= len(play) <= 8:
            return None
        return {"play": play, "last_card": last_card}
    if "play" in body or body["pass"] is not True or last_card:
        return None
    return {"pass_": True, "last_card": False}


@blp.route("/<table_id>/rounds/<int:round_no>/turns/<int:turn_no>")
class Turn(MethodView):
    @blp.arguments(TurnSchema())
    @blp.response(200, TurnOutcomeSchema)
    @blp.doc(security=SECURITY, parameters=[idempotency.HEADER_DOC], **operation("playTurn"))
    @documented(blp, 400, 401, 403, 404, 409, 422)
    def put(
        self, body: dict[str, Any], table_id: str, round_no: int, turn_no: int
    ) -> Answer | Response:
        """Play or pass a turn (seat)

        The seat on turn (by its token) plays one card that fits the layout
        (`{"play": "8S"}`) or passes (`{"pass": true}`, paying `pass_chips`
        into the pot), RULES.md 3.4. Turns are numbered from 1 in each round;
        the table's `round.turn` and `round.on_turn` say whose turn it is.
        With `last_card`, the play that leaves one card carries
        `"last_card": true` (else 2 chips go to the pot). Repeating a turn
        already taken answers as the first time and changes nothing. 409
        `stale-turn` or `stale-round` (with the current numbers),
        `not-your-turn` (with `waiting_for`); 422 `not-playable` (with the
        rows of its suit), `must-play` (with `playable_count`, never which
        cards), `must-open`, `voluntary-pass-limit`, `last-card-invalid`,
        `play-invalid`. See `/docs/rules/sevens`.
        """

        def move(loaded: Loaded) -> Transition:
            seat = auth.require_seat(loaded.auth)
            require_game(loaded.table, SEVENS, "turns")
            if "play" in body:
                played = engine.play(
                    loaded.table,
                    round_no,
                    turn_no,
                    seat,
                    body["play"],
                    body["last_card"],
                    loaded.now_ms,
                )
                return recorded(
                    played,
                    seat,
                    "play",
                    round=round_no,
                    turn=turn_no,
                    card=parse_card(body["play"]),  # as its canonical code
                    last_card=body["last_card"],
                )
            passed = engine.pass_turn(loaded.table, round_no, turn_no, seat, loaded.now_ms)
            return recorded(passed, seat, "pass", round=round_no, turn=turn_no)

        def respond(transition: Transition, loaded: Loaded) -> Answer:
            return transition.outcome, 200, {}

        return commit_move(table_id, move, respond, TurnOutcomeSchema)


@checks_blp.route("/sevens/play")
class CheckPlay(MethodView):
    @checks_blp.doc(**operation("checkSevensPlay"))
    @checks_blp.arguments(CheckPlaySchema)
    @checks_blp.response(200, CheckPlayOutcomeSchema)
    @documented(checks_blp, 400, 422)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Check a Sevens play

        May `hand` play `card` on `layout` (each row `{suit, low, high}`)
        under the preset and options (RULES.md 3.3)? With the reason, and
        every card of the hand that may be played. 422 `play-invalid` for a
        malformed hand, layout or card; `wrong-game` for a preset of another
        game.
        """
        only_game(body["variant"], SEVENS, "plays")
        return check_play(
            body["variant"], body["options"], body["hand"], body["layout"], body["card"]
        )
