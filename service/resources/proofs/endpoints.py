"""Deals anyone can check and rounds anyone can replay (RULES.md 5.2; HTTP
only, no game named): the next deal's commitment and the seats' seeds, a
finished round's record, and the stateless check of a proof.

The next deal's secret is drawn (256 bits, :mod:`secrets`) when the table
is created and at each deal for the deal after it; only its commitment is
shown (``next_deal``) until the round it deals is over. Seats add seeds
before the deal; the deal derives every random thing of the round from the
secret and the seeds (:mod:`service.games.proof`); the round's record
(``referee:{id}:moves``) opens with the proof and grows with every accepted
move, in the commit of that move.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any

from flask.views import MethodView

from ...edge import auth, limits
from ...edge.common import SECURITY, RefereeBlueprint, documented, referee
from ...edge.inputs import RECORD_BODY, takes_body
from ...edge.problems import Problem, invalid_request
from ...games import game_of
from ...games.base import Transition
from ...games.drbg import SECRET_BYTES
from ...games.proof import DealRandom, chain_key, new_deal, random_for
from ...games.record import header_text, proof_coverage, proof_problems
from ...games.replay import verify
from ...spec.links import operation
from ...spec.schemas import NextDealSchema
from ...storage.records import opening
from ...storage.store import Journal, Loaded
from ...version import release
from ..catalog.endpoints import checks_blp
from ..moves import Answer, commit_move, load
from .schemas import (
    CheckProofOutcomeSchema,
    CheckProofSchema,
    RequireSeedsSchema,
    SeedOutcomeSchema,
    SeedSchema,
)

blp = RefereeBlueprint(
    "proofs",
    __name__,
    url_prefix="/v1/tables",
    description="Deals anyone can check (RULES.md 5.2) and every finished round's record.",
)


@dataclass(frozen=True, slots=True)
class Journaled(Transition):
    """A transition that also writes deal proofs or a round's record (the
    store commits ``journal`` with the state)."""

    journal: Journal | None = None
    unattended: str | None = None
    """``"0"`` for a deal: the host's act that clears the referee's moves in a
    row (``service.clock.paused``); ``None``: as the store decides."""


def journaled(transition: Transition, journal: Journal) -> Journaled:
    """``transition`` with ``journal`` to commit with it."""
    return Journaled(
        transition.table,
        transition.events,
        transition.outcome,
        transition.choice,
        transition.archive,
        transition.archive_reset,
        transition.shuffles,
        journal=journal,
    )


def recorded(transition: Transition, seat: int, move: str, **arguments: Any) -> Journaled:
    """``transition`` with the move that made it, for the round's record:
    ``{"seat", "by": "seat", "move", ...arguments}`` as the game's
    ``replay_move`` reads it (``arguments`` hold ``round``: a move is
    recorded only in its round's record; RULES.md 5.2)."""
    entry = {"seat": seat, "by": "seat", "move": move, **arguments}
    return journaled(transition, Journal(move=entry, round=arguments["round"]))


def public_part(pending: dict[str, Any]) -> dict[str, Any]:
    """What anyone may see of a pending deal: its round, its commitment,
    the seats that gave a seed, whether every seat must and until when the
    deal waits for them."""
    return {
        "round": pending["round"],
        "commitment": pending["commitment"],
        "seeded": [s for s, seed in enumerate(pending["seeds"]) if seed is not None],
        "require_seeds": pending.get("require_seeds", False),
        "seeds_wait_ms": pending.get("seeds_wait_ms"),
        "seeds_due_ms": pending.get("seeds_due_ms"),
    }


def requirement(require: bool, wait_ms: int | None, since_ms: int) -> dict[str, bool | int | None]:
    """The stored form of the host's requirement: with a wait, seeds are due
    ``wait_ms`` after ``since_ms`` (the commitment's publication, or the
    host's request when later)."""
    wait = wait_ms if require else None
    return {
        "require_seeds": require,
        "seeds_wait_ms": wait,
        "seeds_due_ms": None if wait is None else since_ms + wait,
    }


def fresh_deal(
    round_no: int,
    seats: int,
    require: bool = False,
    wait_ms: int | None = None,
    now_ms: int = 0,
) -> dict[str, Any]:
    """A new pending deal for round ``round_no``, published at ``now_ms``:
    a secret from the CSPRNG, and the host's requirement carried over."""
    pending = new_deal(secrets.token_bytes(SECRET_BYTES), seats)
    return {"round": round_no, **pending, **requirement(require, wait_ms, now_ms)}


def _carried(pending: dict[str, Any] | None) -> tuple[bool, int | None]:
    """The host's requirement a pending deal carries to the deal after it."""
    if pending is None:
        return False, None
    return bool(pending.get("require_seeds")), pending.get("seeds_wait_ms")


def _texts(pending: dict[str, Any]) -> tuple[str, str]:
    compact = (",", ":")
    return json.dumps(public_part(pending), separators=compact), json.dumps(
        pending, separators=compact
    )


def creation_journal(seats: int) -> Journal:
    """The journal of a new table: round 1's commitment."""
    public, stored = _texts(fresh_deal(1, seats))
    return Journal(public=public, deal=stored)


def deal_round(table_id: str, loaded: Loaded, body: dict[str, Any]) -> Journaled:
    """Deal the next round from its pending proof (the table's game's
    ``start_round`` with the secret and seeds as its random source), open
    the round's record and publish the next deal's commitment. 409
    ``seeds-missing`` (with ``missing_seats``) while the host requires every
    seat's seed, one is missing and the seeds are not yet due (with
    ``seeds_due_ms`` and ``Retry-After`` when they ever are); once due, the
    deal goes ahead with the seeds given (RULES.md 5.2). A table with no
    pending deal (written by an older release) is dealt from a secret drawn
    now."""
    table = loaded.table
    game = game_of(table)
    seats = table.seats
    number = game.rounds_of(table)[0] + 1
    pending = referee().store.pending_deal(table_id)
    if pending is None or pending.get("round") != number or len(pending["seeds"]) != seats:
        pending = fresh_deal(number, seats, *_carried(pending), now_ms=loaded.now_ms)
    rng: DealRandom = random_for(pending)
    start_state = game.encode(table)
    # The game's own refusals first (a round in play, the match over): the
    # seeds are missing only when a deal could be made.
    dealt = game.start_round(table, rng, loaded.now_ms, body)
    missing = [s for s, seed in enumerate(pending["seeds"]) if seed is None]
    due = pending.get("seeds_due_ms")
    if pending.get("require_seeds") and missing and (due is None or loaded.now_ms < due):
        raise seeds_missing(number, missing, due, loaded.now_ms)
    # What the record keeps; the deal, the shuffles and the commitment are
    # derived from it when it is shown (service.games.record).
    header = header_text(
        start_state,
        {k: v for k, v in body.items() if v is not None},
        loaded.now_ms,
        pending["secret"],
        pending["seeds"],
        release(),
        game.rules_version,
    )
    events = tuple(
        {**e, "commitment": pending["commitment"]} if e.get("type") == "round-dealt" else e
        for e in dealt.events
    )
    following = fresh_deal(number + 1, seats, *_carried(pending), now_ms=loaded.now_ms)
    public, stored = _texts(following)
    key = chain_key(bytes.fromhex(pending["secret"])).hex()
    journal = Journal(
        public=public,
        deal=stored,
        round=number,
        header=header,
        # The round's chain of moves starts at its commitment (RULES.md 5.2).
        chain=opening(number, pending["commitment"], key, loaded.now_ms),
    )
    return Journaled(
        dealt.table,
        events,
        {**dealt.outcome, "commitment": pending["commitment"]},
        dealt.choice,
        dealt.archive,
        dealt.archive_reset,
        journal=journal,
        unattended="0",  # dealing a round is the host's act: it resumes a paused table
    )


def seeds_missing(round_no: int, missing: list[int], due: int | None, now_ms: int) -> Problem:
    """409 ``seeds-missing``: the deal waits for ``missing`` seats' seeds,
    without limit (``due`` is ``None``) or until ``due`` (ms since the
    epoch, Redis's clock), which ``Retry-After`` gives in whole seconds."""
    until = "" if due is None else f" until {due} (ms since the epoch), then it deals without them"
    return Problem(
        409,
        "seeds-missing",
        f"The host requires every seat's seed before the deal; seats {missing} have none. "
        f"The deal waits for them{until}.",
        extra={"missing_seats": missing, "round": round_no, "seeds_due_ms": due},
        headers={} if due is None else {"Retry-After": str(-(-(due - now_ms) // 1000))},
    )


def next_deal_of(loaded: Loaded, transition: Transition | None = None) -> dict[str, Any] | None:
    """The next deal's public part as the table stands (after ``transition``)."""
    found = None if transition is None else next_deal_of_journal(transition)
    return found if found is not None else loaded.deal


def next_deal_of_journal(transition: Transition) -> dict[str, Any] | None:
    """The next deal's public part that ``transition`` writes, if any."""
    journal = getattr(transition, "journal", None)
    if journal is None or not journal.public:
        return None
    found: dict[str, Any] = json.loads(journal.public)
    return found


def _pending(table_id: str, loaded: Loaded) -> dict[str, Any]:
    """The pending deal ``loaded`` shows; 409 ``no-pending-deal`` for a table
    that has none (written by an older release: its next deal draws one)."""
    pending = referee().store.pending_deal(table_id)
    if pending is None or loaded.deal is None or pending["round"] != loaded.deal["round"]:
        raise Problem(
            409,
            "no-pending-deal",
            "This table has published no commitment for its next deal yet; deal once, "
            "then seed the deal after it.",
        )
    return pending


@blp.route("/<table_id>/next-deal")
class NextDeal(MethodView):
    @blp.response(200, NextDealSchema)
    @blp.doc(**operation("getNextDeal"))
    @documented(blp, 404)
    def get(self, table_id: str) -> dict[str, Any]:
        """Read the next deal's commitment (public)

        The round it deals, its `commitment` (lower-case hex SHA-256 of the
        domain `card-referee/deal-commitment/v1`, a zero byte and the 32-byte
        secret: [deal proofs](/docs/guide/deal-proofs)), the seats that gave a seed and
        whether the host requires every seat's (RULES.md 5.2). The secret
        is shown in the round's record once that round is over. 404
        `no-pending-deal` for a table written before deals were committed.
        """
        loaded = load(table_id)
        if loaded.deal is None:
            raise Problem(404, "no-pending-deal", "This table has no committed next deal yet.")
        return loaded.deal

    @blp.arguments(RequireSeedsSchema)
    @blp.response(200, NextDealSchema)
    @blp.doc(security=SECURITY, **operation("requireSeeds"))
    @documented(blp, 400, 401, 403, 404, 409, 422)
    def put(self, body: dict[str, Any], table_id: str) -> Answer | Any:
        """Require every seat's seed, or not (host)

        With `require_seeds: true`, a deal is refused (409 `seeds-missing`,
        with `missing_seats` and `seeds_due_ms`) until every seat has given
        a seed for it. With `seeds_wait_ms` too (1 s to 24 h), the seeds
        are due that long after the deal's commitment was published (at the
        deal before it, or now for the deal already published): once they
        are due, the deal goes ahead with the seeds given, and the record
        shows the missing ones as `null` (RULES.md 5.2). Without it the deal
        waits for as long as a seed is missing. The requirement stays for
        the deals after it until the host lifts it. Asking again for what
        is already required changes nothing (the due time stays).
        """

        def move(loaded: Loaded) -> Transition:
            auth.require_host(loaded.auth)
            if body.get("seeds_wait_ms") is not None and not body["require_seeds"]:
                detail = "A wait for seeds needs `require_seeds: true`."
                raise invalid_request([{"pointer": "/seeds_wait_ms", "detail": detail}])
            pending = _pending(table_id, loaded)
            wanted = (body["require_seeds"], body.get("seeds_wait_ms"))
            if wanted == _carried(pending):
                return Transition(loaded.table)
            public, stored = _texts({**pending, **requirement(*wanted, loaded.now_ms)})
            return Journaled(loaded.table, journal=Journal(public=public, deal=stored))

        def respond(transition: Transition, loaded: Loaded) -> Answer:
            return next_deal_of(loaded, transition) or {}, 200, {}

        return commit_move(table_id, move, respond, NextDealSchema)


@blp.route("/<table_id>/next-deal/seeds/<int:seat>")
class Seed(MethodView):
    @blp.arguments(SeedSchema)
    @blp.response(200, SeedOutcomeSchema)
    @blp.doc(security=SECURITY, **operation("giveSeed"))
    @documented(blp, 400, 401, 403, 404, 409, 422)
    def put(self, body: dict[str, Any], table_id: str, seat: int) -> Answer | Any:
        """Give a seed for the next deal (seat)

        The seat's `seed` (1 to 128 characters) joins the next deal's random
        source: the deck order is derived from the committed secret and
        every seed given before the deal ([deal proofs](/docs/guide/deal-proofs)). A
        seed may be replaced until the deal; the others see only that the
        seat gave one. The answer holds the seed's SHA-256 as the proof
        will use it. 409 `no-pending-deal` for a table written before deals
        were committed.
        """
        seed = body["seed"]

        def move(loaded: Loaded) -> Transition:
            if seat >= loaded.table.seats:
                raise Problem(404, "seat-not-found", f"There is no seat {seat} at this table.")
            auth.require_seat(loaded.auth, seat)
            pending = _pending(table_id, loaded)
            if pending["seeds"][seat] == seed:
                return Transition(loaded.table)
            seeds = list(pending["seeds"])
            seeds[seat] = seed
            public, stored = _texts({**pending, "seeds": seeds})
            # No act of play (RULES.md 5.4): a seed resumes no paused clock,
            # or two seeds given in turn bought a table of bots its moves
            # again and again (issue 39, twentieth attacker).
            journal = Journal(public=public, deal=stored)
            return Journaled(loaded.table, journal=journal, unattended="")

        def respond(transition: Transition, loaded: Loaded) -> Answer:
            answer = {
                "seat": seat,
                "seed_sha256": hashlib.sha256(seed.encode()).hexdigest(),
                "next_deal": next_deal_of(loaded, transition),
            }
            return answer, 200, {"Cache-Control": "no-store"}

        return commit_move(table_id, move, respond, SeedOutcomeSchema)


MOVES_UNIT = 250
"""Moves of a record run again per unit charged on the caller's record
checks (``RATE_LIMIT_RECORD_CHECKS``): the check's own unit covers the
first ones."""


@checks_blp.route("/deal-proof")
@takes_body(RECORD_BODY)
class CheckProof(MethodView):
    @checks_blp.arguments(CheckProofSchema)
    @checks_blp.response(200, CheckProofOutcomeSchema)
    @documented(checks_blp, 400, 422)
    def post(self, body: dict[str, Any]) -> dict[str, Any]:
        """Check a deal's proof

        With `proof` (a record's `proof`): whether its commitment is the
        SHA-256 of its secret, its deal shuffles the starting deck its
        `game`, `variant`, `options` and seat count give, and every shuffle's
        and rebuilt stock's order is the one the secret and the seeds give
        (a proof of version 1 names no game: it is invalid). A proof alone
        cannot show which pile a rebuilt stock (May I?) shuffled: that
        follows from the round's moves, so such a proof is never `valid:
        true` alone (`unchecked` says so; send the record). With `record`
        (a whole round record): all that, whether dealing the round again
        gives the recorded deal, whether each rebuilt stock shuffled the
        discard pile the record's moves leave, every move's link (the chain
        of moves; it shows a change only against heads noted while the round
        was played: compare yours), and every move run again from the deal,
        each accepted, to the recorded result (so a deal changed under the
        genuine moves fails, though no head covers the deal; a record of
        more than 250 moves counts as one more record check per started 250,
        and a body counts one per started 64 KiB, before it is read).
        A record of another rules version is checked only in what needs no
        rules (the commitment, each stated deck's shuffle, the chain): check
        it with the release it names. `checked` names what was checked,
        `unchecked` what the body holds that could not be, `incomplete` the
        moves missing from the record. `valid`: `true` when everything was
        checked and matches, `false` when something does not match
        (`problems` names each), `null` when nothing checked is wrong but
        something could not be checked. Touches no storage. `submitted:
        true` says the deal was the host's, so that no shuffle was checked.
        A record must be one the referee writes: its `start_state` a table
        the referee could have made, its `variant`, `options` and `seats`
        that table's, one seed per seat ([deal proofs](/docs/guide/deal-proofs)).
        The body may be up to 1 MiB (every other endpoint takes 64 KiB): 413
        `body-too-large` beyond; 422 `invalid-request` for more than a round
        holds (2,000 moves, 200 shuffles, 10,000 cards shuffled, a
        `start_state` of 8,192 characters, 10 seeds). RULES.md 5.2.
        """
        # The body is anyone's: whatever cannot be read as a record or a
        # proof is one that does not check (never a 500), and the answer
        # names no internal of the referee.
        incomplete: list[str] = []
        checked: list[str] = []
        unchecked: list[dict[str, str]] = []
        if "record" in body:
            moves = body["record"].get("moves") if isinstance(body["record"], dict) else None
            if isinstance(moves, list) and len(moves) > MOVES_UNIT:
                # Every move is run again (some 0.15 ms each): a unit per
                # started MOVES_UNIT beyond the first, each as much as the
                # check itself costs.
                limits.charge_record_work(-(-len(moves) // MOVES_UNIT) - 1)
            try:
                # Others' requests go on every few moves (time.sleep(0)
                # yields to gevent's other greenlets, or to other threads).
                report = verify(body["record"], pause=lambda: time.sleep(0))
                problems = report.problems
                incomplete = report.incomplete
                checked, unchecked = report.checked, report.unchecked
            except Exception:  # noqa: BLE001 - see above
                problems = [
                    "the record is not one the referee writes: a member is missing or "
                    "of the wrong type (GET /v1/tables/{id}/rounds/{n}/record gives one)"
                ]
        else:
            try:
                found = proof_problems(body["proof"])
                problems = [f"{p['pointer']}: {p['detail']}" for p in found]
                checked, unchecked = proof_coverage(body["proof"])
            except Exception:  # noqa: BLE001 - see above
                problems = [
                    "the proof is not one the referee writes: a member is missing or "
                    "of the wrong type (a round record's proof)"
                ]
        proof = body["record"].get("proof") if "record" in body else body["proof"]
        submitted = isinstance(proof, dict) and proof.get("submitted") is True
        return {
            "valid": False if problems else None if unchecked or incomplete else True,
            "problems": problems[:50],
            "checked": checked,
            "unchecked": unchecked,
            "submitted": submitted,
            "incomplete": incomplete,
        }
