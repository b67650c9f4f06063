"""Tables, rounds, passes, claims, seat views and the event log (HTTP only).

Each view: the schema has validated the body → the store loads the table →
the engine computes the move (or refuses it) → the store commits atomically →
the caller's view is serialised. No rule lives here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import marshmallow as ma
from flask import Response, request, url_for
from flask.views import MethodView

from .. import metrics
from ..games.errors import RuleViolation
from ..games.ship import engine
from ..games.ship.state import Table as TableState
from ..games.ship.views import public_view, seat_view
from ..storage.idempotency import KEEP_SECONDS, create_record_key, created_table_id
from ..storage.store import AlreadyRecorded, EventsGone, Loaded, Record, TableNotFound
from . import auth, idempotency, prefetch
from .common import (
    SECURITY,
    RefereeBlueprint,
    check_table_id,
    documented,
    no_table,
    none_match,
    now_ms,
    referee,
)
from .links import operation
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


def _missing(protected: bool) -> Problem:
    # A call that needs a token cannot check one without its table (auth.require_token).
    return auth.unknown_token() if protected else no_table()


def _load(table_id: str, protected: bool = False) -> Loaded:
    """The table; 404 if missing, or for a ``protected`` call 401 first."""
    if protected:
        auth.require_token()
    try:
        check_table_id(table_id)
        return referee().store.load(table_id, prefetch.take(table_id))
    except (TableNotFound, Problem):
        raise _missing(protected) from None


def _count_refused(table_id: str, refused: RuleViolation) -> None:
    """Count what a refused move still wrote (a logged claim, a settlement)."""
    if refused.record or refused.settled is not None:
        variant = refused.settled.variant if refused.settled is not None else None
        metrics.current().committed(table_id, variant, refused.record)


def _apply(
    table_id: str, move: Callable[[Loaded], engine.Transition]
) -> tuple[engine.Transition, Loaded]:
    """Commit ``move`` (every move needs a token); returns its transition and
    the state it ran on (with the Redis clock)."""
    auth.require_token()
    try:
        check_table_id(table_id)
        loaded, transition = referee().store.apply(
            table_id, move, prefetched=prefetch.take(table_id)
        )
    except TableNotFound:
        raise _missing(True) from None
    except Problem as problem:
        if problem.code == "table-not-found":
            raise _missing(True) from None
        raise
    except RuleViolation as refused:
        _count_refused(table_id, refused)
        raise
    metrics.current().committed(table_id, transition.table.variant, transition.events)
    return transition, loaded


Answer = tuple[dict[str, Any], int, dict[str, str]]


def _replay(table_id: str, replay: Response, gone: Problem) -> Response:
    """A recorded answer, unless its table has since gone (deleted, expired):
    then the answer is as the table is now, ``gone``, not the dead table's."""
    if referee().store.exists(table_id):
        return replay
    raise gone


def _move(
    table_id: str,
    move: Callable[[Loaded], engine.Transition],
    respond: Callable[[engine.Transition, Loaded], Answer],
    schema: type[ma.Schema],
) -> Answer | Response:
    """Commit ``move`` and answer ``respond(transition, the state it ran on)``.

    With an ``Idempotency-Key``, exactly once: the answer (``respond``'s body
    serialised by ``schema``, or the rules' refusal) is recorded in the same
    Lua call that commits the move; a repeat replays it (see ``idempotency``).
    """
    key = idempotency.request_key()
    if key is None:
        transition, loaded = _apply(table_id, move)
        return respond(transition, loaded)
    auth.require_token()
    try:
        check_table_id(table_id)
    except Problem:
        raise _missing(True) from None
    pending = idempotency.begin(idempotency.table_record_key(table_id, key))
    if isinstance(pending, Response):
        return _replay(table_id, pending, _missing(True))

    def make(loaded: Loaded, result: Any) -> str:
        if isinstance(result, RuleViolation):
            return pending.refusal_record(result)
        body, status, headers = respond(result, loaded)
        return pending.success_record(schema().dump(body), status, headers)

    record = Record(pending.record_key, KEEP_SECONDS, make)
    try:
        loaded, transition = referee().store.apply(table_id, move, record, prefetch.take(table_id))
    except AlreadyRecorded as done:
        return idempotency.answer_held(done.record, pending.fingerprint, None)
    except RuleViolation as refused:
        _count_refused(table_id, refused)
        # A refusal that wrote (events, a settlement) was recorded in that
        # commit; one that wrote nothing is recorded here.
        if not refused.record and refused.settled is None:
            held = pending.record_refusal(refused)
            if held is not None:
                return held
        raise
    except TableNotFound:
        pending.release()
        raise _missing(True) from None
    except BaseException:
        pending.release()
        raise
    metrics.current().committed(table_id, transition.table.variant, transition.events)
    if transition.table is loaded.table and not transition.events:
        # A repeat that wrote nothing: the commit did not record it.
        held = pending.record(make(loaded, transition))
        if held is not None:
            return held
    return respond(transition, loaded)


def _public(table_id: str, table: TableState, now_ms: int, last_event: int) -> dict[str, Any]:
    """The public view; ``last_event`` is the seq of the last event written."""
    return {"table_id": table_id, **public_view(table, now_ms), "last_event": last_event}


def _after(loaded: Loaded, transition: engine.Transition) -> dict[str, Any]:
    """The public view once ``transition`` is committed on ``loaded``."""
    last_event = loaded.event_count + len(transition.events)
    return _public(loaded.table_id, transition.table, loaded.now_ms, last_event)


@blp.route("")
class Tables(MethodView):
    @blp.arguments(CreateTableSchema)
    @blp.response(
        201,
        CreatedTableSchema,
        headers={"Location": {"description": "The table's URL.", "schema": {"type": "string"}}},
    )
    @blp.doc(parameters=[idempotency.HEADER_DOC], **operation("createTable"))
    @documented(blp, 400, 404, 409, 422)
    def post(self, body: dict[str, Any]) -> Answer | Response:
        """Create a table

        From a preset (`variant`), option overrides, the players' names in seat
        order and the first dealer (a seat or `"draw"`). The answer holds the
        host's token and one token per seat: they are shown only this once
        (and to a retry with the same `Idempotency-Key` within 24 hours, which
        gets the same table, not a new one; once the table is deleted or
        expired, such a retry is 404 `table-not-found`). Refuses (422
        `options-invalid`) an inconsistent mix, with every reason.
        """
        key = idempotency.request_key()
        if key is None:
            return self._create(body, auth.new_table_id(), None)
        pending = idempotency.begin(create_record_key(key), seal=key)
        if isinstance(pending, Response):
            if pending.status_code != 201:  # a refusal: no table was made
                return pending
            return _replay(created_table_id(key), pending, no_table())
        try:
            return self._create(body, created_table_id(key), pending)
        except AlreadyRecorded as done:
            return idempotency.answer_held(done.record, pending.fingerprint, key)
        except RuleViolation as refused:
            held = pending.record_refusal(refused)
            if held is not None:
                return held
            raise
        except BaseException:
            pending.release()
            raise

    @staticmethod
    def _create(body: dict[str, Any], table_id: str, pending: idempotency.Pending | None) -> Answer:
        """Make the table; with ``pending``, its answer is committed with it."""
        ref = referee()
        first = None if body["first_dealer"] == "draw" else body["first_dealer"]
        transition = engine.create_table(
            body["variant"], body["options"], body["players"], first, ref.rng
        )
        host_token = auth.new_token()
        seat_tokens = [auth.new_token() for _ in body["players"]]
        answer = (
            {
                "table_id": table_id,
                "host_token": host_token,
                "seat_tokens": [
                    {"seat": s, "name": n, "token": t}
                    for s, (n, t) in enumerate(zip(body["players"], seat_tokens, strict=True))
                ],
                # No round yet: any clock will do.
                "table": _public(table_id, transition.table, now_ms(), len(transition.events)),
            },
            201,
            {
                "Location": url_for("tables.Table", table_id=table_id),
                "Cache-Control": "no-store",
            },
        )
        record = None
        if pending is not None:
            text = pending.success_record(CreatedTableSchema().dump(answer[0]), *answer[1:])
            record = (Record(pending.record_key, KEEP_SECONDS, lambda *_: text), text)
        ref.store.create(table_id, transition, auth.auth_record(host_token, seat_tokens), record)
        metrics.current().committed(table_id, transition.table.variant, transition.events)
        return answer


@blp.route("/<table_id>")
class Table(MethodView):
    @blp.etag
    @blp.response(200, PublicTableSchema)
    @blp.doc(**operation("getTable"))
    @documented(blp, 404)
    def get(self, table_id: str) -> dict[str, Any]:
        """Read the public view of a table

        Anyone with the id may read it: options, seats and names, standings,
        dealer, round and exchange numbers, which seats have chosen their pass
        (never which cards), finished rounds with the hands shown, the match.
        It never holds a hidden card. Carries an `ETag` and `Cache-Control:
        no-cache`; `If-None-Match` (entity tags or `*`, compared weakly as RFC
        9110 says, so `W/"x"` matches `"x"`) gives 304 with the same `ETag` and
        `Cache-Control`.
        """
        loaded = _load(table_id)
        return _public(table_id, loaded.table, loaded.now_ms, loaded.event_count)

    @blp.response(204)
    @blp.doc(
        security=SECURITY,
        parameters=[
            {
                "in": "header",
                "name": "If-None-Match",
                "required": False,
                "description": "Entity tags (or `*`): a match with the table's current "
                "`ETag` (weak comparison) is 412 and deletes nothing.",
                "schema": {"type": "string"},
            }
        ],
        **operation("deleteTable"),
    )
    @documented(blp, 401, 403, 404, 412)
    def delete(self, table_id: str) -> Response:
        """Delete a table (host)

        Removes the table and every key it owns. Answers kept for
        `Idempotency-Key` retries expire on their own within 24 hours, but
        are no longer given: a retry after the deletion is answered as the
        table is now, 404 `table-not-found` for its creation, 401 for a move.
        """
        loaded = _load(table_id, protected=True)
        auth.require_host(loaded.auth)
        if "If-None-Match" in request.headers:  # RFC 9110 13.1.2: a match is 412
            view = _public(table_id, loaded.table, loaded.now_ms, loaded.event_count)
            if none_match(blp._generate_etag(PublicTableSchema().dump(view))):
                raise Problem(
                    412,
                    "precondition-failed",
                    "If-None-Match matches the table's current ETag (or is *); not deleted.",
                )
        referee().store.delete(table_id)
        return Response(status=204)


@blp.route("/<table_id>/finish")
class Finish(MethodView):
    @blp.response(200, PublicTableSchema)
    @blp.doc(security=SECURITY, parameters=[idempotency.HEADER_DOC], **operation("finishMatch"))
    @documented(blp, 400, 401, 403, 404, 409, 422)
    def post(self, table_id: str) -> Answer | Response:
        """End the match now (host)

        An `open` match is `finished` with the leaders as winners; any other
        match is `abandoned` with no winner. A round in play is not scored
        (RULES.md 2.8). 409 `match-over` if it has already ended.
        """

        def move(loaded: Loaded) -> engine.Transition:
            auth.require_host(loaded.auth)
            return engine.finish(loaded.table, loaded.now_ms)

        def respond(transition: engine.Transition, loaded: Loaded) -> Answer:
            return _after(loaded, transition), 200, {}

        return _move(table_id, move, respond, PublicTableSchema)


@blp.route("/<table_id>/rounds")
class Rounds(MethodView):
    @blp.arguments(DealSchema, required=False)
    @blp.response(
        201,
        RoundStartedSchema,
        headers={"Location": {"description": "The round's URL.", "schema": {"type": "string"}}},
    )
    @blp.doc(security=SECURITY, parameters=[idempotency.HEADER_DOC], **operation("dealRound"))
    @documented(blp, 400, 401, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], table_id: str) -> Answer | Response:
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

        def respond(transition: engine.Transition, loaded: Loaded) -> Answer:
            number = transition.outcome["round"]
            location = url_for("tables.Round", table_id=table_id, round_no=number)
            return (
                {**transition.outcome, "table": _after(loaded, transition)},
                201,
                {"Location": location},
            )

        return _move(table_id, move, respond, RoundStartedSchema)


@blp.route("/<table_id>/rounds/<int:round_no>")
class Round(MethodView):
    @blp.response(200, RoundInfoSchema)
    @blp.doc(**operation("getRound"))
    @documented(blp, 404)
    def get(self, table_id: str, round_no: int) -> dict[str, Any]:
        """Read one round (public)

        `current` is the round as in the table's view while it is the latest
        round; `result` is set once it is over.
        """
        loaded = _load(table_id)
        view = public_view(loaded.table, loaded.now_ms)
        current = view["round"] if view["round"] and view["round"]["number"] == round_no else None
        result = next((r for r in view["results"] if r["round"] == round_no), None)
        if current is None and result is None:
            raise Problem(404, "round-not-found", f"This table has no round {round_no}.")
        return {"number": round_no, "current": current, "result": result}


@blp.route("/<table_id>/rounds/<int:round_no>/exchanges/<int:exchange_no>/passes/<int:seat>")
class Pass(MethodView):
    @blp.arguments(PassSchema())  # one instance: webargs would build one per request
    @blp.response(200, PassOutcomeSchema)
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

        def move(loaded: Loaded) -> engine.Transition:
            if seat >= loaded.table.seats:
                raise Problem(404, "seat-not-found", f"There is no seat {seat} at this table.")
            auth.require_seat(loaded.auth, seat)
            return engine.choose_pass(
                loaded.table, round_no, exchange_no, seat, body["cards"], loaded.now_ms
            )

        transition, _ = _apply(table_id, move)
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

        def move(loaded: Loaded) -> engine.Transition:
            seat = auth.require_seat(loaded.auth)
            return engine.claim(loaded.table, round_no, seat, loaded.now_ms)

        def respond(transition: engine.Transition, loaded: Loaded) -> Answer:
            return transition.outcome, 200, {}

        return _move(table_id, move, respond, ClaimOutcomeSchema)


@blp.route("/<table_id>/seats/<int:seat>")
class SeatView(MethodView):
    @blp.response(200, SeatViewSchema, headers=None)
    @blp.doc(security=SECURITY, **operation("getSeat"))
    @documented(blp, 401, 403, 404)
    def get(self, table_id: str, seat: int) -> tuple[dict[str, Any], int, dict[str, str]]:
        """Read a seat's private view (that seat)

        Only with that seat's token: its hand, whether it must choose now
        (`to_choose`), its pending choice in the current exchange, and the
        cards it last gave (`passed`) and last received (`received`) in this
        round; under `simultaneous` both are those of the last exchange.
        """
        loaded = _load(table_id, protected=True)
        if seat >= loaded.table.seats:
            raise Problem(404, "seat-not-found", f"There is no seat {seat} at this table.")
        auth.require_seat(loaded.auth, seat)
        view = {**seat_view(loaded.table, seat, loaded.now_ms), "last_event": loaded.event_count}
        return view, 200, {"Cache-Control": "no-store"}


@blp.route("/<table_id>/events")
class Events(MethodView):
    @blp.arguments(EventsQuerySchema, location="query")
    @blp.response(200, EventListSchema)
    @blp.doc(**operation("getEvents"))
    @documented(blp, 404, 410, 422)
    def get(self, query: dict[str, Any], table_id: str) -> dict[str, Any]:
        """Read the public event log

        Events with `seq` greater than `after`, oldest first, at most `limit`;
        `more` says whether another page follows (read on from `next_after`).
        Types: table created,
        first dealer drawn, round dealt, pass chosen (the seat, never the
        cards), exchange resolved, claim accepted (with the hand shown) or
        rejected, round won or void, match won, finished or abandoned.
        Only a table's newest events are kept (the service's `EVENTS_KEPT`, 48
        by default): when events after `after` are gone, the answer is 410
        `events-gone` with `oldest_seq`, the first event still kept, and
        `last_event`; re-read the table and read on from its `last_event`
        (or from `oldest_seq - 1` for every event still kept). `after` past
        `last_event` is 410 `events-gone` too: the log was reset (Redis lost
        its newest writes) and its seqs will be reused, so a cursor from
        before must not go on.
        """
        # 410 for a cursor older than the log, as a Kubernetes watch answers
        # a resourceVersion too old.
        check_table_id(table_id)
        after = query["after"]
        try:
            page = referee().store.events(table_id, after, query["limit"])
        except TableNotFound:
            raise no_table() from None
        except EventsGone as gone:
            if gone.ahead:
                detail = (
                    f"This table's log has no event {after}: its last is {gone.last} (the log "
                    "was reset, or the cursor is not this table's). Re-read the table and read "
                    f"on from its last_event ({gone.last} now)."
                )
            else:
                detail = (
                    f"Events after {after} are no longer all kept: the log keeps the newest "
                    f"{referee().store.events_kept}, from seq {gone.oldest} on. Re-read the table "
                    f"and read on from its last_event ({gone.last} now), or from "
                    f"{gone.oldest - 1} for every event still kept."
                )
            raise Problem(
                410,
                "events-gone",
                detail,
                extra={"oldest_seq": gone.oldest, "last_event": gone.last},
            ) from None
        next_after = page.events[-1]["seq"] if page.events else after
        return {
            "events": page.events,
            "next_after": next_after,
            "more": page.more,
            "last_event": page.last,
            "oldest_seq": page.oldest,
        }
