"""Tables of every game: create, read, delete, finish, deal, a round, a seat's
view and the event log (HTTP only; the games' own moves are in
:mod:`.ship` and :mod:`.sevens`).

Each view: the schema has validated the body → the store loads the table →
the table's game computes the move (or refuses it) → the store commits
atomically → the caller's view is serialised. No rule lives here, and no
game is named: a table's game is found by its variant (:mod:`service.games`).
"""

from __future__ import annotations

import contextlib
from typing import Any

from flask import Response, request, url_for
from flask.views import MethodView

from ... import metrics
from ...edge import auth, idempotency, limits
from ...edge.bounds import over_one_deck
from ...edge.common import (
    SECURITY,
    RefereeBlueprint,
    check_table_id,
    documented,
    no_table,
    none_match,
    now_ms,
    referee,
    schema_of,
)
from ...edge.problems import Problem
from ...games import game_of, game_of_variant
from ...games.base import Transition
from ...games.errors import RuleViolation
from ...spec.fields import LARGEST_DECK
from ...spec.links import operation
from ...spec.schemas import PublicTableSchema, RoundInfoSchema, RoundListSchema, SeatViewSchema
from ...storage.idempotency import KEEP_SECONDS, create_record_key, created_table_id
from ...storage.store import (
    AlreadyRecorded,
    Control,
    EventsGone,
    Journal,
    Loaded,
    Record,
    RoundPage,
    RoundsGone,
    TableNotFound,
)
from .. import clocks, moves, seating
from ..catalog.endpoints import DEAL_PARTS
from ..moves import Answer, after, commit_move, load, public, public_of, replay_unless_gone
from ..proofs import endpoints as proofs
from ..seats import lobby
from .schemas import (
    CreatedTableSchema,
    CreateTableSchema,
    DealSchema,
    EventListSchema,
    EventsQuerySchema,
    RoundsQuerySchema,
    RoundStartedSchema,
)

blp = RefereeBlueprint(
    "tables",
    __name__,
    url_prefix="/v1/tables",
    description="Tables of every game: create, deal, read, score; each game's moves.",
)


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
        order (`null` for an open seat, RULES.md 5.1: `join_codes` says whether
        each open seat gets a code or the table one; `listed: true` shows the
        table in the lobby, RULES.md 5.6) and the first dealer (a seat or
        `"draw"`). The answer holds the host's token, one token per named
        seat and the join codes: they are shown only this once
        (and to a retry with the same `Idempotency-Key` within 24 hours, which
        gets the same table, not a new one; once the table is deleted or
        expired, such a retry is 404 `table-not-found`). Refuses (422
        `options-invalid`) an inconsistent mix, with every reason, and a
        listed table past the caller's share of the lobby (429
        `too-many-listed-tables`: `LOBBY_LISTED_PER_ADDRESS` at once).
        """
        key = idempotency.request_key()
        if key is None:
            return self._create(body, auth.new_table_id(), None)
        pending = idempotency.begin(create_record_key(key), seal=key)
        if isinstance(pending, Response):
            if pending.status_code != 201:  # a refusal: no table was made
                return pending
            return replay_unless_gone(created_table_id(key), pending, no_table())
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
        game = game_of_variant(body["variant"])
        options = dict(body["options"])
        clock = clocks.clock_options(options)  # every game's; the game never sees them
        bots = clocks.bot_seats(body["players"])
        players = clocks.names_of(body["players"])
        # An open seat is named "" in the state (seating.py).
        names = ["" if n is None else n for n in players]
        created_table = game.create_table(body["variant"], options, names, first, ref.rng)
        # Round 1's commitment is public from the start (RULES.md 5.2).
        transition = proofs.journaled(created_table, proofs.creation_journal(len(players)))
        created = now_ms()
        code_ms = 1000 * min(ref.settings.join_code_seconds, ref.settings.table_ttl_seconds)
        host_token, seat_tokens, codes, auth_record = seating.new_seating(
            players, body.get("join_codes", "seat"), body.get("listed", False), created, code_ms
        )
        # Whose budget the referee's moves here spend (RULES.md 5.4: storage.quota).
        client = limits.client_name()
        auth_record["q"] = limits.client_address() if client is None else f"client:{client}"
        answer = (
            {
                "table_id": table_id,
                "host_token": host_token,
                "seat_tokens": [
                    {"seat": s, "name": n, "token": t}
                    for s, (n, t) in enumerate(zip(players, seat_tokens, strict=True))
                    if t is not None and s not in bots
                ],
                "join_codes": [
                    {"seat": None if seat < 0 else seat, "code": code, "expires_at_ms": until}
                    for code, seat, until in codes
                ],
                # No round yet: any clock will do.
                "table": public(
                    table_id,
                    transition.table,
                    now_ms(),
                    len(transition.events),
                    next_deal=proofs.next_deal_of_journal(transition),
                    control=Control(bots=bots, clock=clock),
                ),
            },
            201,
            {
                "Location": url_for("tables.Table", table_id=table_id),
                "Cache-Control": "no-store",
            },
        )
        record = None
        if pending is not None:
            dumped = schema_of(CreatedTableSchema).dump(answer[0])
            text = pending.success_record(dumped, *answer[1:])
            record = (Record(pending.record_key, KEEP_SECONDS, lambda *_: text), text)
        held = lobby.hold(table_id, body["variant"], auth_record, created)
        try:
            ref.store.create(table_id, transition, auth_record, record, bots, clock)
        except BaseException:
            if held:
                lobby.let_go(table_id, body["variant"], auth_record)
            raise
        metrics.current().committed(table_id, transition.table.variant, transition.events)
        if client is not None:
            metrics.current().client_table(client)
        if seating.listed(auth_record):
            lobby.sync(table_id)
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
        (never which cards), the number of rounds over (`rounds_played`) and
        the last one's result with the hands shown (`last_result`; every
        round's: `GET /v1/tables/{table_id}/rounds`), the match. It never
        holds a hidden card, and it does not grow with the rounds played.
        Carries an `ETag` and `Cache-Control: no-cache`; `If-None-Match`
        (entity tags or `*`, compared weakly as RFC 9110 says, so `W/"x"`
        matches `"x"`) gives 304 with the same `ETag` and `Cache-Control`.
        """
        loaded = load(table_id)
        return public_of(loaded)

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

        Removes the table and every key it owns, with the answers kept for
        `Idempotency-Key` retries of its moves. The answer of its creation
        stays (sealed with its key) until it expires, so that a retry of the
        creation is 404 `table-not-found`, never a second table; a retried
        move is 401, as on any table that does not exist.
        """
        loaded = load(table_id, protected=True)
        auth.require_host(loaded.auth)
        if "If-None-Match" in request.headers:  # RFC 9110 13.1.2: a match is 412
            view = public_of(loaded)
            if none_match(blp._generate_etag(schema_of(PublicTableSchema).dump(view))):
                raise Problem(
                    412,
                    "precondition-failed",
                    "If-None-Match matches the table's current ETag (or is *); not deleted.",
                )
        idempotency.delete_table(table_id, loaded.auth)
        if seating.listed(loaded.auth):
            # Its place at once (a table gone in its first seconds looks made-to-be).
            lobby.let_go(table_id, loaded.table.variant, loaded.auth)
            lobby.sync(table_id)
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
        (RULES.md 2.8). A listed table leaves the lobby (RULES.md 5.6).
        409 `match-over` if it has already ended.
        """
        seen: dict[str, bool] = {}

        def move(loaded: Loaded) -> Transition:
            auth.require_host(loaded.auth)
            seen["listed"] = seating.listed(loaded.auth)
            game = game_of(loaded.table)
            finished = game.rounds_of(loaded.table)[0]
            done = game.finish(loaded.table, loaded.now_ms)
            listed = game.rounds_of(done.table)[0] > finished
            if listed or game.ended_round(done.table) is not None:
                # The round in play ended (abandoned, or settled in its claim
                # window): its record ends with the host's finish, so that it
                # replays, and is shown at once (RULES.md 5.2).
                move = {"by": "host", "move": "finish", "round": finished + 1}
                journal = Journal(move=move, round=finished + 1, ends=not listed)
                return proofs.journaled(done, journal)
            return done

        def respond(transition: Transition, loaded: Loaded) -> Answer:
            return after(loaded, transition), 200, {}

        answer = commit_move(table_id, move, respond, PublicTableSchema)
        if seen.get("listed") and not isinstance(answer, Response):
            lobby.sync(table_id)  # its match ended: it takes nobody now
        return answer


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

        With no body (or no `hands`) the referee shuffles from the deal's
        committed secret and the seats' seeds (RULES.md 5.2,
        [deal proofs](/docs/guide/deal-proofs); the answer and the `round-dealt` event
        carry the `commitment`) and deals from the dealer's left.
        With `hands` (one list per seat) it checks the submitted deal and lists
        every problem at once (422 `deal-invalid`; RULES.md 2.4, 3.2, 4.4),
        but not where a person took a seat with a join code or from the
        lobby: 409 `submitted-deal-refused`, since the host would know that
        player's cards (RULES.md 5.1; a bot's seat or one named at the
        table's creation does not count). 409
        `seats-open` (with `open_seats`) while a seat is open (RULES.md 5.1),
        `round-in-play` while the current round is not over, `match-over` after
        the match, `seeds-missing` (with `missing_seats`, `round` and
        `seeds_due_ms`; `Retry-After` when the seeds are ever due) while the
        host requires every seat's seed, one is missing and the seeds are
        not due yet (`PUT …/next-deal`, RULES.md 5.2).
        """
        deal = body or {}

        def move(loaded: Loaded) -> Transition:
            auth.require_host(loaded.auth)
            seating.require_full(loaded.auth)
            if any(deal.get(part) is not None for part in DEAL_PARTS):
                seating.require_no_person_joined(loaded.auth)
            too_many = over_one_deck(deal, DEAL_PARTS, LARGEST_DECK)
            if too_many is not None:
                raise RuleViolation(
                    "deal-invalid", "The submitted deal holds more cards than any deck.", [too_many]
                )
            return proofs.deal_round(table_id, loaded, deal)

        def respond(transition: Transition, loaded: Loaded) -> Answer:
            number = transition.outcome["round"]
            location = url_for("tables.Round", table_id=table_id, round_no=number)
            return (
                {**transition.outcome, "table": after(loaded, transition)},
                201,
                {"Location": location},
            )

        return commit_move(table_id, move, respond, RoundStartedSchema)

    @blp.arguments(RoundsQuerySchema, location="query")
    @blp.response(200, RoundListSchema)
    @blp.doc(**operation("getRounds"))
    @documented(blp, 404, 410, 422)
    def get(self, query: dict[str, Any], table_id: str) -> dict[str, Any]:
        """Read the finished rounds (public)

        Each finished round's result, oldest first: the rounds numbered after
        `after`, at most `limit`; `more` says whether another page follows
        (read on from `next_after`, or follow `next`). What any seat may see
        of a finished round, as the table's `last_result` shows the newest:
        the table's view holds only that one and the totals, so that it does
        not grow with the match. Only a table's newest rounds are kept (the
        service's `ROUNDS_KEPT`, 100 by default; the totals stay exact):
        when rounds after `after` are gone, the answer is 410 `rounds-gone`
        with `oldest_round`, the first round still kept, and `last_round`.
        A round that the clock alone ended (a claim window that closed with
        no move since) is listed once the table's next move is committed.
        """
        check_table_id(table_id)
        after, limit = query["after"], query["limit"]
        page = _rounds(table_id, after, limit)
        game = game_of(page.table)
        rounds = [game.round_result(page.table, text) for _, text in page.rounds]
        next_after = page.rounds[-1][0] if page.rounds else after
        following = None
        if page.more:
            following = url_for("tables.Rounds", table_id=table_id, after=next_after, limit=limit)
        return {
            "game": game.name,
            "rounds": rounds,
            "next_after": next_after,
            "next": following,
            "more": page.more,
            "last_round": page.last,
            "oldest_round": page.oldest,
        }


def _rounds(table_id: str, after: int, limit: int) -> RoundPage:
    """A page of the table's finished rounds; 404 ``table-not-found``, 410
    ``rounds-gone`` (with ``oldest_round`` and ``last_round``)."""
    try:
        return referee().store.rounds(table_id, after, limit)
    except TableNotFound:
        raise no_table() from None
    except RoundsGone as gone:
        raise Problem(
            410,
            "rounds-gone",
            f"Rounds after {after} are no longer all kept: the table keeps its newest "
            f"{referee().store.rounds_kept}, from round {gone.oldest} on. Read on from "
            f"{gone.oldest - 1} for every round still kept.",
            extra={"oldest_round": gone.oldest, "last_round": gone.last},
        ) from None


@blp.route("/<table_id>/rounds/<int:round_no>")
class Round(MethodView):
    @blp.response(200, RoundInfoSchema)
    @blp.doc(**operation("getRound"))
    @documented(blp, 404)
    def get(self, table_id: str, round_no: int) -> dict[str, Any]:
        """Read one round (public)

        `current` is the round as in the table's view while it is the latest
        round; `result` is set once it is over (while the table still keeps
        it: its newest `ROUNDS_KEPT` rounds; an older one is 404).
        """
        loaded = load(table_id)
        game = game_of(loaded.table)
        view = game.public_view(loaded.table, loaded.now_ms)
        current = view["round"] if view["round"] and view["round"]["number"] == round_no else None
        last = view["last_result"]
        result = last if last is not None and last["round"] == round_no else None
        if result is None and 1 <= round_no < view["rounds_played"]:
            with contextlib.suppress(RoundsGone):
                page = referee().store.rounds(table_id, round_no - 1, 1)
                if page.rounds and page.rounds[0][0] == round_no:
                    result = game.round_result(page.table, page.rounds[0][1])
        if current is None and result is None:
            raise Problem(404, "round-not-found", f"This table has no round {round_no}.")
        return {"game": game.name, "number": round_no, "current": current, "result": result}


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
        loaded = load(table_id, protected=True)
        if seat >= loaded.table.seats:
            raise Problem(404, "seat-not-found", f"There is no seat {seat} at this table.")
        auth.require_seat(loaded.auth, seat)
        return moves.seat(loaded, seat), 200, {"Cache-Control": "no-store"}


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
        rejected, round won or void, match won, finished or abandoned;
        `move-timed-out` (`seat`, `step`, `action`, `away: true`: a seat's
        default move made at its deadline, RULES.md 5.3; never a pass's cards);
        `seat-back` (`seat`): an away seat moved itself and is no longer
        `away`, after that move's events (RULES.md 5.3); `clock-paused`
        (`moves`): the referee made `unattended_moves` moves in a row with
        no person's move or act (the view's `clock_paused`);
        `seat-bot` (`seat`, `kind`) and `seat-bot-removed` (`seat`, `open`):
        the host handed a seat to a bot or took it back (RULES.md 5.4).
        What the clock settles without a move (a claim window or a May I?
        window that closed) is listed from the instant it is due, with the
        seq it keeps and that instant as `at_ms`, before any move stores it.
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
