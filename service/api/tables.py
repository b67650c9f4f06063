"""Tables, rounds, passes, claims, seat views and the event log (HTTP only).

Each view: the schema has validated the body → the store loads the table →
the engine computes the move (or refuses it) → the store commits atomically →
the caller's view is serialised. No rule lives here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Response, url_for
from flask.views import MethodView

from .. import metrics
from ..rules import engine
from ..rules.errors import RuleViolation
from ..rules.state import Table as TableState
from ..rules.views import public_view, seat_view
from ..storage.store import Loaded, TableNotFound
from . import auth
from .common import (
    SECURITY,
    RefereeBlueprint,
    check_table_id,
    documented,
    no_table,
    now_ms,
    referee,
)
from .problems import Problem
from .schemas import (
    ClaimOutcomeSchema,
    CreatedTableSchema,
    CreateTableSchema,
    DealSchema,
    EventListSchema,
    EventsQuerySchema,
    PassOutcomeSchema,
    PassSchema,
    PublicTableSchema,
    RoundInfoSchema,
    RoundStartedSchema,
    SeatViewSchema,
)

blp = RefereeBlueprint(
    "tables",
    __name__,
    url_prefix="/v1/tables",
    description="Tables of My Ship Sails: deal, pass, claim, score (RULES.md 2).",
)


def _load(table_id: str) -> Loaded:
    check_table_id(table_id)
    try:
        return referee().store.load(table_id)
    except TableNotFound:
        raise no_table() from None


def _apply(
    table_id: str, move: Callable[[Loaded], engine.Transition]
) -> tuple[engine.Transition, int]:
    """Commit ``move``; returns its transition and the Redis clock it ran at."""
    check_table_id(table_id)
    try:
        loaded, transition = referee().store.apply(table_id, move)
    except TableNotFound:
        raise no_table() from None
    except RuleViolation as refused:
        if refused.record or refused.settled is not None:  # the store wrote these
            variant = refused.settled.variant if refused.settled is not None else None
            metrics.current().committed(table_id, variant, refused.record)
        raise
    metrics.current().committed(table_id, transition.table.variant, transition.events)
    return transition, loaded.now_ms


def _public(table_id: str, table: TableState, now_ms: int) -> dict[str, Any]:
    return {"table_id": table_id, **public_view(table, now_ms)}


@blp.route("")
class Tables(MethodView):
    @blp.arguments(CreateTableSchema)
    @blp.response(
        201,
        CreatedTableSchema,
        headers={"Location": {"description": "The table's URL.", "schema": {"type": "string"}}},
    )
    @documented(blp, 400, 422)
    def post(self, body: dict[str, Any]) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Create a table

        From a preset (`variant`), option overrides, the players' names in seat
        order and the first dealer (a seat or `"draw"`). The answer holds the
        host's token and one token per seat: they are shown only this once.
        Refuses (422 `options-invalid`) an inconsistent mix, with every reason.
        """
        ref = referee()
        first = None if body["first_dealer"] == "draw" else body["first_dealer"]
        transition = engine.create_table(
            body["variant"], body["options"], body["players"], first, ref.rng
        )
        table_id = auth.new_table_id()
        host_token = auth.new_token()
        seat_tokens = [auth.new_token() for _ in body["players"]]
        ref.store.create(table_id, transition, auth.auth_record(host_token, seat_tokens))
        metrics.current().committed(table_id, transition.table.variant, transition.events)
        location = url_for("tables.Table", table_id=table_id)
        return (
            {
                "table_id": table_id,
                "host_token": host_token,
                "seat_tokens": [
                    {"seat": s, "name": n, "token": t}
                    for s, (n, t) in enumerate(zip(body["players"], seat_tokens, strict=True))
                ],
                "table": _public(table_id, transition.table, now_ms()),  # no round: any clock
            },
            201,
            {"Location": location, "Cache-Control": "no-store"},
        )


@blp.route("/<table_id>")
class Table(MethodView):
    @blp.etag
    @blp.response(200, PublicTableSchema)
    @documented(blp, 404)
    def get(self, table_id: str) -> dict[str, Any]:
        """Read the public view of a table

        Anyone with the id may read it: options, seats and names, standings,
        dealer, round and exchange numbers, which seats have chosen their pass
        (never which cards), finished rounds with the hands shown, the match.
        It never holds a hidden card. Carries an `ETag`; `If-None-Match` gives 304.
        """
        loaded = _load(table_id)
        return _public(table_id, loaded.table, loaded.now_ms)

    @blp.response(204)
    @blp.doc(security=SECURITY)
    @documented(blp, 401, 403, 404)
    def delete(self, table_id: str) -> Response:
        """Delete a table (host)

        Removes the table and every key it owns.
        """
        loaded = _load(table_id)
        auth.require_host(loaded.auth)
        referee().store.delete(table_id)
        return Response(status=204)


@blp.route("/<table_id>/finish")
class Finish(MethodView):
    @blp.response(200, PublicTableSchema)
    @blp.doc(security=SECURITY)
    @documented(blp, 401, 403, 404, 409)
    def post(self, table_id: str) -> dict[str, Any]:
        """End the match now (host)

        An `open` match is `finished` with the leaders as winners; any other
        match is `abandoned` with no winner. A round in play is not scored
        (RULES.md 2.8). 409 `match-over` if it has already ended.
        """

        def move(loaded: Loaded) -> engine.Transition:
            auth.require_host(loaded.auth)
            return engine.finish(loaded.table, loaded.now_ms)

        transition, now = _apply(table_id, move)
        return _public(table_id, transition.table, now)


@blp.route("/<table_id>/rounds")
class Rounds(MethodView):
    @blp.arguments(DealSchema, required=False)
    @blp.response(
        201,
        RoundStartedSchema,
        headers={"Location": {"description": "The round's URL.", "schema": {"type": "string"}}},
    )
    @blp.doc(security=SECURITY)
    @documented(blp, 400, 401, 403, 404, 409, 422)
    def post(
        self, body: dict[str, Any], table_id: str
    ) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Deal the next round (host)

        With no body (or no `hands`) the referee shuffles with a
        cryptographically secure generator and deals from the dealer's left.
        With `hands` (one list per seat) it checks the submitted deal and lists
        every problem at once (422 `deal-invalid`, RULES.md 2.4). 409
        `round-in-play` while the current round is not over, `match-over` after
        the match.
        """
        hands = (body or {}).get("hands")

        def move(loaded: Loaded) -> engine.Transition:
            auth.require_host(loaded.auth)
            return engine.start_round(loaded.table, referee().rng, loaded.now_ms, hands)

        transition, now = _apply(table_id, move)
        number = transition.outcome["round"]
        location = url_for("tables.Round", table_id=table_id, round_no=number)
        return (
            {**transition.outcome, "table": _public(table_id, transition.table, now)},
            201,
            {"Location": location},
        )


@blp.route("/<table_id>/rounds/<int:round_no>")
class Round(MethodView):
    @blp.response(200, RoundInfoSchema)
    @documented(blp, 404)
    def get(self, table_id: str, round_no: int) -> dict[str, Any]:
        """Read one round (public)

        `current` is the round as in the table's view while it is the latest
        round; `result` is set once it is over.
        """
        loaded = _load(table_id)
        view = _public(table_id, loaded.table, loaded.now_ms)
        current = view["round"] if view["round"] and view["round"]["number"] == round_no else None
        result = next((r for r in view["results"] if r["round"] == round_no), None)
        if current is None and result is None:
            raise Problem(404, "round-not-found", f"This table has no round {round_no}.")
        return {"number": round_no, "current": current, "result": result}


@blp.route("/<table_id>/rounds/<int:round_no>/exchanges/<int:exchange_no>/passes/<int:seat>")
class Pass(MethodView):
    @blp.arguments(PassSchema)
    @blp.response(200, PassOutcomeSchema)
    @blp.doc(security=SECURITY)
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

        def move(loaded: Loaded) -> engine.Transition:
            if seat >= loaded.table.seats:
                raise Problem(404, "seat-not-found", f"There is no seat {seat} at this table.")
            auth.require_seat(loaded.auth, seat)
            return engine.choose_pass(
                loaded.table, round_no, exchange_no, seat, body["cards"], loaded.now_ms
            )

        transition, now = _apply(table_id, move)
        rnd = transition.table.round
        assert rnd is not None
        return {**transition.outcome, "hand": list(rnd.hands[seat])}


@blp.route("/<table_id>/rounds/<int:round_no>/claims")
class Claims(MethodView):
    @blp.response(200, ClaimOutcomeSchema)
    @blp.doc(security=SECURITY)
    @documented(blp, 401, 403, 404, 409, 422)
    def post(self, table_id: str, round_no: int) -> dict[str, Any]:
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

        def move(loaded: Loaded) -> engine.Transition:
            seat = auth.require_seat(loaded.auth)
            return engine.claim(loaded.table, round_no, seat, loaded.now_ms)

        transition, now = _apply(table_id, move)
        return transition.outcome


@blp.route("/<table_id>/seats/<int:seat>")
class SeatView(MethodView):
    @blp.response(200, SeatViewSchema, headers=None)
    @blp.doc(security=SECURITY)
    @documented(blp, 401, 403, 404)
    def get(self, table_id: str, seat: int) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Read a seat's private view (that seat)

        Only with that seat's token: its hand, whether it must choose now
        (`to_choose`), its pending choice in the current exchange, and the
        cards it last gave (`passed`) and last received (`received`) in this
        round; under `simultaneous` both are those of the last exchange.
        """
        loaded = _load(table_id)
        if seat >= loaded.table.seats:
            raise Problem(404, "seat-not-found", f"There is no seat {seat} at this table.")
        auth.require_seat(loaded.auth, seat)
        return seat_view(loaded.table, seat, loaded.now_ms), 200, {"Cache-Control": "no-store"}


@blp.route("/<table_id>/events")
class Events(MethodView):
    @blp.arguments(EventsQuerySchema, location="query")
    @blp.response(200, EventListSchema)
    @documented(blp, 404, 422)
    def get(self, query: dict[str, Any], table_id: str) -> dict[str, Any]:
        """Read the public event log

        Events with `seq` greater than `after`, oldest first, at most `limit`;
        `more` says whether another page follows (read on from `next_after`).
        Types: table created,
        first dealer drawn, round dealt, pass chosen (the seat, never the
        cards), exchange resolved, claim accepted (with the hand shown) or
        rejected, round won or void, match won, finished or abandoned.
        """
        check_table_id(table_id)
        store = referee().store
        if not store.exists(table_id):
            raise no_table()
        events, more = store.events(table_id, query["after"], query["limit"])
        next_after = events[-1]["seq"] if events else query["after"]
        return {"events": events, "next_after": next_after, "more": more}
