"""The host hands a seat to a bot and takes it back (RULES.md 5.4), HTTP
only; the seat's bot lives in the table hash's field ``b`` (the store's
``bots``), written with the seat's change in one versioned commit.

The rule, kept simple:

- A seat can be handed over when it is open (before the deal, or a seat
  that left) or ``away`` (it timed out and has not moved since). An open
  seat is named for its bot and is no longer open (nobody can join it, its
  join codes go); an away seat keeps its name and its token, but that token
  is refused (409 ``seat-is-bot``) while the bot holds the seat.
- Taking it back gives the seat to a person again: a seat that was open
  (or a bot from the table's creation) is open again (a join code, the
  table code, or at a listed table none, fills it); an away seat's own
  token works again, and the seat stays away until it moves itself.

The worker reads the bots with every job: a seat taken back is not moved
by its bot any more (a job already sent for it changes nothing).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Response
from flask.views import MethodView

from ...edge import auth, idempotency
from ...edge.common import SECURITY, documented
from ...edge.problems import Problem
from ...games import game_of
from ...games.base import Transition
from ...spec.links import operation
from ...spec.schemas import PublicTableSchema
from ...storage.store import NO_CONTROL, Loaded
from .. import clocks, seating
from ..moves import Answer, after
from .endpoints import SeatChange, _seat, _seat_move, blp
from .schemas import BotSeatSchema


@dataclass(frozen=True, slots=True)
class BotChange(SeatChange):
    """A seat change that also replaces the table's bot seats (``b``)."""

    bots: dict[int, dict[str, Any]] | None = None


def _respond(transition: Transition, loaded: Loaded) -> Answer:
    return after(loaded, transition), 200, {}


@blp.route("/<table_id>/seats/<int:seat>/bot")
class SeatBot(MethodView):
    @blp.arguments(BotSeatSchema)
    @blp.response(200, PublicTableSchema)
    @blp.doc(security=SECURITY, parameters=[idempotency.HEADER_DOC], **operation("handSeatToBot"))
    @documented(blp, 400, 401, 403, 404, 409, 422)
    def post(self, body: dict[str, Any], table_id: str, seat: int) -> Answer | Response:
        """Hand an open or away seat to a bot (host)

        `{"kind": "random" | "basic"}`. The bot moves for the seat through
        the worker, `bot_delay_ms` after each of its moves opens (for the
        move open at the handover, after the handover), seeing only what
        the seat sees. An open seat is named for its bot and is no
        longer open; an away seat keeps its name and token, but the token is
        refused (409 `seat-is-bot`) until the host takes the seat back.
        403 `host-only`; 409 `seat-is-bot` (a bot has it already),
        `seat-not-away` (a person holds it and has not timed out).
        Event `seat-bot` (seat, kind). RULES.md 5.4.
        """
        kind = body["kind"]

        def change(loaded: Loaded) -> BotChange:
            _seat(loaded, seat)
            auth.require_host(loaded.auth)
            control = loaded.control or NO_CONTROL
            if seat in control.bots:
                raise Problem(409, "seat-is-bot", f"A bot plays seat {seat} already.")
            opened = seat in seating.open_seats(loaded.auth)
            if not opened and seat not in control.away:
                raise Problem(
                    409,
                    "seat-not-away",
                    f"Seat {seat} is a person's and not away: only an open or away seat "
                    "can be handed to a bot.",
                )
            table, record = loaded.table, None
            if opened:
                # A token nobody holds: the seat is taken, its codes go.
                _, record = seating.join_as_bot(loaded.auth, seat, loaded.now_ms)
                table = game_of(table).name_seat(table, seat, clocks.bot_name(seat, kind))
            # "at": its deadline in the step now open runs from the handover.
            bots = {**control.bots, seat: {"kind": kind, "open": opened, "at": loaded.now_ms}}
            event = {"type": "seat-bot", "seat": seat, "kind": kind}
            return BotChange(table, (event,), auth=record, bots=bots)

        return _seat_move(table_id, change, _respond, PublicTableSchema)

    @blp.response(200, PublicTableSchema)
    @blp.doc(security=SECURITY, parameters=[idempotency.HEADER_DOC], **operation("takeSeatBack"))
    @documented(blp, 401, 403, 404, 409)
    def delete(self, table_id: str, seat: int) -> Answer | Response:
        """Take a seat back from its bot (host)

        The seat is a person's again: one that was open when handed over
        (or a bot from the table's creation) is open again, for a join code,
        the table code or (listed) no code; an away seat's own token works
        again (the seat stays away until it moves itself). The bot makes no
        move for it any more. 403 `host-only`; 409 `seat-not-bot`.
        Event `seat-bot-removed` (seat, open). RULES.md 5.4.
        """

        def change(loaded: Loaded) -> BotChange:
            _seat(loaded, seat)
            auth.require_host(loaded.auth)
            control = loaded.control or NO_CONTROL
            bot = control.bots.get(seat)
            if bot is None:
                raise Problem(409, "seat-not-bot", f"No bot plays seat {seat}.")
            bots = {s: b for s, b in control.bots.items() if s != seat}
            reopened = bool(bot.get("open", True))
            table, record = loaded.table, None
            if reopened:
                record = seating.leave(loaded.auth, seat, loaded.now_ms)
                table = game_of(table).name_seat(table, seat, "")
            event = {"type": "seat-bot-removed", "seat": seat, "open": reopened}
            return BotChange(table, (event,), auth=record, bots=bots)

        return _seat_move(table_id, change, _respond, PublicTableSchema)
