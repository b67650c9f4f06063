"""My Ship Sails' own moves (HTTP only): a seat's pass in an exchange and a
claim (RULES.md 2.5-2.7). They join the table endpoints' blueprint, so their
paths and operation ids are those the first release published.
"""

from __future__ import annotations

from typing import Any

from flask import Response
from flask.views import MethodView

from ...edge import auth, idempotency
from ...edge.common import SECURITY, documented, fast_body, fast_dumping, referee
from ...edge.problems import Problem
from ...games.base import Transition
from ...games.cards import parse_card, sort_cards
from ...games.ship import GAME as SHIP
from ...games.ship import engine
from ...spec.links import operation
from ...storage.store import Loaded
from ..moves import Answer, apply_move, commit_move, require_game
from ..proofs.endpoints import recorded
from ..tables.endpoints import blp
from .schemas import ClaimOutcomeSchema, PassOutcomeSchema, PassSchema


@fast_body(PassSchema)
def usual_pass(body: Any) -> dict[str, Any] | None:
    """:class:`PassSchema`'s load of a pass body ``{"cards": [codes]}`` of at
    most 26 strings of 1 to 8 characters (what every player sends), or
    ``None`` for any other body, which the schema then loads and refuses
    (400/422) in full."""
    if type(body) is not dict or len(body) != 1:
        return None
    cards = body.get("cards")
    if type(cards) is not list or len(cards) > 26:
        return None
    for card in cards:
        if type(card) is not str or not 1 <= len(card) <= 8:
            return None
    return {"cards": cards}


@blp.route("/<table_id>/rounds/<int:round_no>/exchanges/<int:exchange_no>/passes/<int:seat>")
class Pass(MethodView):
    @blp.arguments(PassSchema())  # one instance: webargs would build one per request
    @blp.response(200, fast_dumping(PassOutcomeSchema()))
    @blp.doc(security=SECURITY, **operation("choosePass"))
    @documented(blp, 400, 401, 403, 404, 409, 422)
    def put(
        self, body: dict[str, Any], table_id: str, round_no: int, exchange_no: int, seat: int
    ) -> dict[str, Any]:
        """Choose or replace a seat's pass (seat)

        The seat's token chooses `pass_count` cards of its hand for this
        exchange; it may replace them until the last chooser has chosen, when
        the exchange resolves at once (RULES.md 2.5). Who chooses depends on
        `passing`: every seat (`simultaneous`), the seat on turn (`chain`, one
        card to its left neighbour), or the two seats of the swap (`swap`);
        the table's `round.choosers` names them. `resolved` says whether the
        exchange has resolved. Repeating the same request changes nothing and
        answers alike, also after the exchange resolved. 409 `stale-exchange`
        or `stale-round` with `current_round` and `current_exchange` when the
        numbers are not the current ones, `not-your-turn` with `waiting_for`
        when this seat does not pass in this exchange; 422 `pass-invalid` for
        cards the seat does not hold, the same card twice or the wrong count.
        """

        def move(loaded: Loaded) -> Transition:
            if seat >= loaded.table.seats:
                raise Problem(404, "seat-not-found", f"There is no seat {seat} at this table.")
            auth.require_seat(loaded.auth, seat)
            require_game(loaded.table, SHIP, "passes")
            # A repeat of an exchange older than the last reads the table's
            # history (the state keeps only the last one's passes).
            done = engine.choose_pass(
                loaded.table,
                round_no,
                exchange_no,
                seat,
                body["cards"],
                loaded.now_ms,
                lambda index: referee().store.history(table_id, index, loaded),
            )
            return recorded(
                done,
                seat,
                "pass",
                round=round_no,
                exchange=exchange_no,
                # In the canonical order: the order a seat picked them in shows nowhere.
                cards=list(sort_cards(parse_card(card) for card in body["cards"])),
            )

        transition, _ = apply_move(table_id, move)
        rnd = transition.table.round
        assert rnd is not None
        return {**transition.outcome, "hand": list(rnd.hands[seat])}


@blp.route("/<table_id>/rounds/<int:round_no>/claims")
class Claims(MethodView):
    @blp.response(200, ClaimOutcomeSchema)
    @blp.doc(security=SECURITY, parameters=[idempotency.HEADER_DOC], **operation("claim"))
    @documented(blp, 400, 401, 403, 404, 409, 422)
    def post(self, table_id: str, round_no: int) -> Answer | Response:
        """Declare a win (seat)

        The token's seat declares that its hand holds `win_count` cards of one
        suit (RULES.md 2.6). A valid claim ends the passing (chosen passes are
        cancelled) and answers with the settlement, or, with a claim window, the
        time it closes. Under `swap` passing a valid claim calls Foster's
        showdown (RULES.md 2.9): every hand is shown and the best sum wins, which
        may be another seat. Under `chain` the seat that has just received (and
        holds `hand_size + 1` cards) may declare before it passes. An invalid
        claim is refused (422 `claim-not-winning`)
        with the reason, e.g. "The hand holds 6 hearts; 7 cards of one suit are
        needed.", changes nothing, and is recorded in the event log as
        `claim-rejected` (naming no card).
        """

        def move(loaded: Loaded) -> Transition:
            seat = auth.require_seat(loaded.auth)
            require_game(loaded.table, SHIP, "claims")
            done = engine.claim(loaded.table, round_no, seat, loaded.now_ms)
            return recorded(done, seat, "claim", round=round_no)

        def respond(transition: Transition, loaded: Loaded) -> Answer:
            return transition.outcome, 200, {}

        return commit_move(table_id, move, respond, ClaimOutcomeSchema)
