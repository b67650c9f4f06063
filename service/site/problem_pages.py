"""The page behind every problem ``type``: ``GET /problems/<code>``.

A problem's ``type`` is ``/problems/<code>`` (a URI reference, resolved against
the request's URL, RFC 9457 3.1.1); that page, served by the service itself,
says what the code means and what to do about it. Every page comes from
:data:`PAGES` (the codes of the HTTP layer) and, for the codes the games raise,
from :data:`PAGES` too, else from what their :class:`~service.games.errors.Kind`
says (a game may register codes of its own). ``GET /problems/`` lists every
code, and ``/problems/<code>.md`` answers a page's Markdown.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, Response, current_app

from ..edge.problems import STATUS_OF_KIND, TYPE_BASE, Problem
from ..edge.rules_links import link_rules, served
from ..games.errors import CODES, RULES_OF_CODE, Kind
from . import docs_render


@dataclass(frozen=True)
class Page:
    """A code's status, what it means and what the caller can do."""

    status: int
    meaning: str
    remedy: str


RETRY_LATER = "Retry after the `Retry-After` seconds."
REREAD = (
    "Read where the table stands, in the refusal or by re-reading the table "
    "(`GET /v1/tables/{table_id}`): `current_round`, `round_status` and `waiting_for` (the "
    "seats whose move the table awaits), with the game's own number: `current_exchange` in "
    "My Ship Sails, `current_turn` and `on_turn` in Sevens, `current_move`, `on_turn` and "
    "`step` in May I?. Then send the move that fits."
)

PAGES: dict[str, Page] = {
    # The HTTP layer.
    "malformed-request": Page(
        400,
        "The body is not valid JSON in UTF-8, is nested too deep to read, or holds"
        " more arrays and objects than its size allows.",
        "Send one JSON value, as `Content-Type: application/json`.",
    ),
    "idempotency-key-invalid": Page(
        400,
        "The `Idempotency-Key` header is not 16 to 255 visible ASCII characters.",
        "Send a random UUID as the key, or no key.",
    ),
    "token-missing": Page(
        401,
        "This call needs a token and none came in `Authorization: Bearer <token>`.",
        "Send the host's or the seat's token, as the table's creation handed them out. "
        "A token in the URL is never read.",
    ),
    "token-malformed": Page(
        401,
        "The `Authorization` header is not `Bearer <token>` with a token of this service.",
        "Send `Authorization: Bearer <token>`, the token exactly as it was handed out.",
    ),
    "token-unknown": Page(
        401,
        "The token is not one of this table's, or the table does not exist (any more).",
        "Check the table id and use a token its creation handed out.",
    ),
    "client-key-unknown": Page(
        401,
        "The `Referee-Client-Key` header holds no key this service issued: unknown, revoked "
        "or mistyped (the request was counted as one without a key).",
        "Send the key exactly as `referee keys create` printed it, ask the operator for a "
        "new one, or send no key (the per-address limits then apply).",
    ),
    "host-only": Page(
        403,
        "Only the host's token may make this call (deal, finish, delete).",
        "Send the host's token.",
    ),
    "seat-only": Page(
        403,
        "Only a seat's token may make this call (pass, claim, a seat's view).",
        "Send the seat's own token.",
    ),
    "wrong-seat": Page(
        403,
        "The token is another seat's.",
        "Send the token of the seat named in the URL.",
    ),
    "unauthorized": Page(
        401, "This call needs a valid token.", "Send `Authorization: Bearer <token>`."
    ),
    "forbidden": Page(403, "This token may not make this call.", "Send the token the call needs."),
    "not-found": Page(404, "There is no such URL.", "Check the path against the API document."),
    "table-not-found": Page(
        404,
        "There is no table with this id: it never existed, was deleted or expired. A retry "
        "of its creation with the same `Idempotency-Key` after the deletion gets this too.",
        "Create a new table.",
    ),
    "round-not-found": Page(
        404, "The table has no round with this number.", "Read the table for its rounds."
    ),
    "round-not-over": Page(
        409,
        "The round is still played: its record (and its deal's secret) is shown once it is over.",
        "Read the record again once the round is over.",
    ),
    "record-not-found": Page(
        404,
        "The round's record is not kept: a table keeps its newest 20, of rounds dealt by this "
        "release.",
        "Read a newer round's record.",
    ),
    "seeds-missing": Page(
        409,
        "The host requires every seat's seed before the deal, `missing_seats` have none, and "
        "the seeds are not due yet (`seeds_due_ms`, `null`: the deal waits for every seed).",
        "Each missing seat gives one (`PUT /v1/tables/{table_id}/next-deal/seeds/{seat}`), "
        "the host lifts the requirement, or, when `seeds_due_ms` is set, deal again after "
        "`Retry-After` seconds: the deal then goes ahead with the seeds given.",
    ),
    "no-pending-deal": Page(
        409,
        "The table has published no commitment for its next deal (it was written before deals "
        "were committed).",
        "Deal once; seed the deal after it.",
    ),
    "method-not-allowed": Page(
        405, "The URL does not take this method.", "Use a method the `Allow` header names."
    ),
    "not-acceptable": Page(
        406, "No answer in a media type the `Accept` header takes.", "Accept JSON."
    ),
    "conflict": Page(409, "The request conflicts with the resource's state.", REREAD),
    "idempotency-key-in-use": Page(
        409,
        "A request with this `Idempotency-Key` is still being carried out.",
        RETRY_LATER + " The retry gets that request's answer.",
    ),
    "events-gone": Page(
        410,
        "The events after the cursor `after` are no longer all kept, or `after` is past the "
        "last event (the log was reset).",
        "Re-read the table and read on from its `last_event` (or from `oldest_seq - 1` for "
        "every event still kept).",
    ),
    "cursor-invalid": Page(
        422,
        "A stream's `Last-Event-ID` or `after` is neither an event's `seq` nor a stream id "
        "(`<seq>.<8 hex digits>`).",
        "Send the `id` of the last event the stream gave, or a table's `last_event`.",
    ),
    "ticket-invalid": Page(
        401,
        "A seat stream's `ticket` is spent (a ticket opens one stream, once), expired, or "
        "not this seat's, or the seat's token was reissued since.",
        "Get a new ticket with the seat's token (`POST …/seats/{seat}/tickets`) and open a new "
        "stream with `after` set to the last event id it saw.",
    ),
    "streams-full": Page(
        503,
        "The instance that answered holds as many open streams as it may (`STREAM_MAX_OPEN`, "
        "at most half the connections of its worker).",
        RETRY_LATER + " Another instance may have room.",
    ),
    "rounds-gone": Page(
        410,
        "The rounds after the cursor `after` are no longer all kept (a table keeps its newest "
        "`ROUNDS_KEPT` rounds; its totals stay exact).",
        "Read on from `oldest_round - 1` for every round still kept.",
    ),
    "precondition-failed": Page(
        412,
        "`If-None-Match` matches the table's current `ETag` (or is `*`), so the request "
        "was not carried out.",
        "Send the request without `If-None-Match`, or re-read the table first.",
    ),
    "precondition-required": Page(
        428, "This call needs a precondition header.", "Send the header the detail names."
    ),
    "length-required": Page(
        411,
        "The body was sent chunked (`Transfer-Encoding: chunked`), without a "
        "`Content-Length`; the service does not read it (each chunk costs it work "
        "whatever its size) and closes the connection after this answer.",
        "Send the body with a `Content-Length` (every HTTP client does for a body it "
        "holds whole; a proxy in front sends one anyway).",
    ),
    "body-too-large": Page(
        413,
        "The body is over 64 KiB (over 1 MiB for a round record sent to "
        "`POST /v1/checks/deal-proof`).",
        "Send a smaller body.",
    ),
    "unsupported-media-type": Page(
        415,
        "The body is not `application/json`.",
        "Send the body as JSON with `Content-Type: application/json`.",
    ),
    "idempotency-key-reused": Page(
        422,
        "This `Idempotency-Key` was already used with a different request.",
        "Use a new key for a new request; a retry must repeat the request exactly.",
    ),
    "invalid-request": Page(
        422,
        "The request does not fit its schema: a missing or unknown member, a wrong JSON type "
        "(strings never stand for numbers or booleans), a value out of range, or a name "
        "with invisible or direction-changing characters. `errors` says where.",
        "Fix each member `errors` points at.",
    ),
    "rate-limited": Page(
        429,
        "Over a rate limit: of the token, of the client address without a token, of "
        "every request of the client address whatever tokens it holds, or of a client "
        "key's own quotas; or the client address has as many requests in flight in the "
        "answering process as it may (`IN_FLIGHT_PER_ADDRESS`).",
        RETRY_LATER,
    ),
    "too-many-connections": Page(
        429,
        "The client address (an IPv6 address's /64) holds as many open connections to the "
        "answering process as it may (`CONNECTIONS_PER_ADDRESS`, at most a quarter of its "
        "connections); the connection was closed before anything of it was read.",
        "Close connections you do not use (one keep-alive connection serves many requests), "
        "then retry after the `Retry-After` seconds.",
    ),
    "request-timeout": Page(
        408,
        "The request's head and body did not arrive within `REQUEST_READ_TIMEOUT_SECONDS` "
        "(10 s) of its first byte; the connection was closed and nothing was changed.",
        "Send the whole request at once, on a new connection.",
    ),
    "too-many-streams": Page(
        429,
        "Too many open streams, counted over every instance: of the client address "
        "(`STREAM_MAX_PER_ADDRESS`) or client key (`CLIENT_KEY_STREAMS`), of the table's "
        "public streams (`STREAM_MAX_PER_TABLE`, a quarter of them per client address or key), "
        "or of "
        "the seat (`STREAM_MAX_PER_SEAT`); `detail` names which.",
        "Close a stream you no longer read (a closed one gives its place back within "
        "seconds), then retry after the `Retry-After` seconds.",
    ),
    "too-many-listed-tables": Page(
        429,
        "The client address has as many listed tables as it may at once "
        "(`LOBBY_LISTED_PER_ADDRESS`), or the client key does (`CLIENT_KEY_LOBBY_LISTED`); "
        "nothing was made. A listed table holds its place, full or not, for as long as it "
        "may show in the lobby again: until its first round is dealt (while a bot plays a "
        "seat that would open again when taken back, until its match ends), its match "
        "ends, or it is deleted or expires.",
        "Deal, finish or delete one of them, or make the table with `listed: false` and "
        "share its join codes.",
    ),
    "internal-error": Page(
        500,
        "The service failed to answer.",
        "Retry; if it lasts, report the answer's `X-Request-Id`.",
    ),
    "redis-unavailable": Page(
        503,
        "The table store does not answer, or takes no write now (behind Redis Sentinels: "
        "its primary is being replaced, and nothing was written).",
        RETRY_LATER,
    ),
    "redis-busy": Page(
        503,
        "Every connection of the answering process to the table store stayed in use for "
        "`REDIS_POOL_TIMEOUT_SECONDS` (`REDIS_MAX_CONNECTIONS` a process): it is busy; the "
        "store may be well. Nothing was changed.",
        RETRY_LATER + " Another instance may have room.",
    ),
    "table-busy": Page(503, "Too many moves at once on this table.", RETRY_LATER),
    "stored-format-newer": Page(
        503,
        "A newer release of the service stored this table in a format this one does not "
        "read (a rolling update, or a rollback, is under way). Nothing was changed.",
        RETRY_LATER + " A pod of the newer release answers it.",
    ),
    "step-mismatch": Page(
        503,
        "The table's pending choices belong to another step than its state (another "
        "release wrote the state). Nothing was changed, nothing was folded in.",
        RETRY_LATER,
    ),
    "replicas-behind": Page(
        503,
        "The move was made, but fewer replicas than `REDIS_WAIT_REPLICAS` confirmed it "
        "within `REDIS_WAIT_TIMEOUT_MS` (a replica is down or catching up, or a failover "
        "is under way): it is not acknowledged, and a failover could lose it.",
        "Retry with the same `Idempotency-Key`: the recorded answer comes back and nothing "
        "is done twice (without a key, re-read the table first).",
    ),
    "http-error": Page(
        400, "An HTTP error with no code of its own; `status` says which.", "See `detail`."
    ),
    # The rules (RULES.md 2): the codes of service.games.errors.CODES.
    "unknown-variant": Page(
        422, "No preset has this name.", "Use a name `GET /v1/variants` lists."
    ),
    "options-invalid": Page(
        422,
        "The options do not make one game of the preset's kind (RULES.md 2.2, 3.2, 4.1): "
        "a player count the deck does not allow, a value out of range, options that "
        "contradict each other; `errors` gives every reason.",
        "Change the options `errors` points at.",
    ),
    "deal-invalid": Page(
        422,
        "The submitted deal breaks the game's rules (RULES.md 2.4, 3.2, 4.4): wrong hand "
        "sizes, cards not in the deck, a card more often than the decks hold it; `errors` "
        "lists every problem.",
        "Fix the hands, or send no `hands` to shuffle.",
    ),
    "pass-invalid": Page(
        422,
        "The pass names cards the seat does not hold, the same card twice, or the wrong "
        "number of cards (RULES.md 2.5).",
        "Pass `pass_count` different cards of the seat's hand (`GET .../seats/{seat}`).",
    ),
    "hand-invalid": Page(
        422,
        "The hand cannot be dealt in this game (cards not in the deck, repeated, too many).",
        "Send a hand of this game's deck.",
    ),
    "claim-not-winning": Page(
        422,
        "The hand does not hold `win_count` cards of one suit (RULES.md 2.6); the refusal "
        "is logged as `claim-rejected`.",
        "Keep passing until the hand wins.",
    ),
    "seat-not-found": Page(
        404, "The table has no seat with this number.", "Seats are numbered from 0."
    ),
    "round-in-play": Page(409, "The current round is not over yet.", REREAD),
    "no-round-in-play": Page(409, "No round is being played.", "The host deals the next round."),
    "stale-round": Page(409, "The round number is not the current round's.", REREAD),
    "stale-exchange": Page(409, "The exchange number is not the current exchange's.", REREAD),
    "not-your-turn": Page(
        409,
        "It is not this seat's move: in My Ship Sails it does not pass in this exchange "
        "(`chain`, `swap`), in Sevens and May I? another seat is on turn (`on_turn`). "
        "`waiting_for` names the seats whose move the table awaits.",
        REREAD,
    ),
    "round-over": Page(409, "The round is over.", REREAD),
    "claim-window-closed": Page(409, "The claim window has closed.", REREAD),
    "declaration-automatic": Page(
        409,
        "Under `declaration: automatic` the referee ends the round itself; seats do not claim.",
        "Keep passing.",
    ),
    "match-over": Page(409, "The match has ended.", "Create a new table for a new match."),
    # Either game.
    "wrong-game": Page(
        422,
        "The check belongs to one game and the preset to another (e.g. a claim check for "
        "a Sevens preset).",
        "Use the game's own check (`GET /v1/games` lists each game's presets).",
    ),
    "move-not-in-game": Page(
        404,
        "The move is another game's: passes and claims are My Ship Sails', turns Sevens', "
        "moves and May I? requests May I?'s (the table's `game` says which it plays).",
        "Send the moves of the table's game.",
    ),
    "page-not-found": Page(404, "There is no rules page of this name.", "See `/docs/rules/`."),
    # Sevens (RULES.md 3).
    "stale-turn": Page(
        409,
        "The turn number is not the current turn's (RULES.md 3.4); a repeat of a turn "
        "already taken is answered as the first time, not with this.",
        "Re-read the table: `current_turn` and `on_turn` say whose turn it is now.",
    ),
    "must-open": Page(
        422,
        "The round's first turn plays the opening seven (7D, 7C, or the deal's suit), "
        "RULES.md 3.4.",
        "Play the opening seven.",
    ),
    "must-play": Page(
        422,
        "A seat holding a playable card may not pass (RULES.md 3.4); `playable_count` says "
        "how many it holds, never which.",
        "Play one of the cards the seat view's `playable` lists.",
    ),
    "voluntary-pass-limit": Page(
        422,
        "With `voluntary_pass`, a seat may pass while it could play only "
        "`voluntary_pass_limit` times a round (RULES.md 3.4).",
        "Play one of the seat view's `playable` cards.",
    ),
    "last-card-invalid": Page(
        422,
        "`last_card: true` goes only with the play that leaves one card, at a table that "
        "plays `last_card` (RULES.md 3.4).",
        "Send the play without `last_card`, or with it only when one card will be left.",
    ),
    "play-invalid": Page(
        422,
        "The card is not a card, or not in the seat's hand (or, for the check, the hand or "
        "layout is malformed); `errors` says where.",
        "Play a card of the seat's hand (`GET .../seats/{seat}`).",
    ),
    "not-playable": Page(
        422,
        "The card fits no row of the layout (RULES.md 3.3); `rows` gives its suit's rows.",
        "Play a seven that starts a row, or a card next to a row's end (the seat view's "
        "`playable`).",
    ),
    # May I? (RULES.md 4).
    "stale-move": Page(
        409,
        "The move number is not the round's next move (RULES.md 4.5); a repeat of a move "
        "already made is answered as the first time, not with this.",
        "Re-read the table: `round.move`, `round.on_turn` and `round.step` say what is next.",
    ),
    "move-invalid": Page(
        422,
        "The move names a card the seat does not hold, a meld that is not on the table, "
        "or a step this moment has not (RULES.md 4.5); `errors` says where.",
        "Send a move the seat view's `may` lists, with cards of the seat's hand.",
    ),
    "must-draw-first": Page(
        409,
        "The seat on turn first takes or declines the discard, then draws from the stock "
        "(RULES.md 4.5); only then does it lay down, lay off or discard.",
        "Send `take_discard` or `decline`, then `draw` (the seat view's `may`).",
    ),
    "already-drawn": Page(
        409,
        "The seat on turn has already taken the discard or drawn this turn (RULES.md 4.5).",
        "Lay down, lay off, or discard to end the turn.",
    ),
    "already-declined": Page(
        409,
        "The seat on turn declined this turn's discard (RULES.md 4.5) and may not take or "
        "decline it again (its May I? offer has closed, or none opened under a window of "
        "0). The seat has not drawn yet.",
        'Draw from the stock (`{"draw": true}`).',
    ),
    "repeat-not-kept": Page(
        409,
        "The move number (or May I? offer) is older than what the referee keeps of the "
        "round: the newest 100 moves with their offers (RULES.md 4.9: a repeat is "
        "answered as the first time while it is kept). Whether this request repeats one "
        "already answered can no longer be told; nothing changed.",
        "Re-read the table: `round.move`, `round.step` and `round.may_i` say what is next.",
    ),
    "may-i-open": Page(
        409,
        "The declined discard is on offer (RULES.md 4.6) until its window closes "
        "(`round.may_i.until_ms`); the seat on turn draws after.",
        "Wait for `until_ms`, then draw from the stock.",
    ),
    "contract-invalid": Page(
        422,
        "The lay-down is not exactly the round's contract (RULES.md 4.3): a meld is no set "
        "(3 or more of a rank) or no run (4 or more in order, one suit), holds more jokers "
        "than natural cards, or the count of sets and runs is wrong. `detail` names the meld.",
        "Lay down exactly the contract, each meld in order (a run ascending or descending).",
    ),
    "already-laid-down": Page(
        422,
        "A seat lays down its contract once per round (RULES.md 4.5).",
        "Lay off on the melds on the table instead.",
    ),
    "not-laid-down": Page(
        422,
        "Only a seat that has laid down its contract may lay off (RULES.md 4.5).",
        "Lay down the contract first, or discard.",
    ),
    "lay-off-invalid": Page(
        422,
        "The card does not fit the meld (RULES.md 4.2): another rank or suit, not at an "
        "end of the run, too many jokers, or a joker on a run open at both ends without "
        "its `end`. `detail` names the card and the meld.",
        "Use the seat view's `lay_offs` (card -> melds).",
    ),
    "discard-fits": Page(
        422,
        "A card that could be laid off on a meld on the table may not be discarded, unless "
        "every card of the hand could be (RULES.md 4.5); `meld` says which it fits.",
        "Discard one of the seat view's `discardable` cards, or lay this one off.",
    ),
    "may-i-closed": Page(
        409,
        "That May I? offer is over: its window closed (silence allowed) or its card was "
        "given (RULES.md 4.6). Nothing changed.",
        "Re-read the table: `round.may_i` is the offer open now, if any.",
    ),
    "may-i-taken": Page(
        409,
        "Another seat asked first for this card; the first request counts (RULES.md 4.6).",
        "Answer that request instead (allow or deny).",
    ),
    "may-i-not-open": Page(
        409,
        "No such May I? is open: the seat on turn has not declined that discard, or the "
        "table's `may_i_window_ms` is 0, so no discard is ever offered (RULES.md 4.6, 4.9).",
        "Wait for the discard to be declined (`round.step` `may-i`).",
    ),
    "may-i-not-asked": Page(
        409,
        "The May I? offer is open but nobody has asked for its card yet: there is no "
        "request to answer (RULES.md 4.6).",
        "Ask for the card yourself, or wait for a request (`round.may_i.asker`).",
    ),
    "may-i-own-discard": Page(
        422,
        "A seat may not ask for a card it discarded itself; it may still deny (RULES.md 4.6).",
        "Let the others ask.",
    ),
    "may-i-not-yours": Page(
        422,
        "The seat on turn never asks or answers, and the asker does not answer its own "
        "request (RULES.md 4.6).",
        "Only the other seats answer.",
    ),
    "already-answered": Page(
        409,
        "This seat has already answered this request, the other way (RULES.md 4.6).",
        "Nothing to do: an answer stands.",
    ),
    # Seats (RULES.md 5.1, 5.6: service/resources/seating.py).
    "join-code-invalid": Page(
        403,
        "The join code is not one of this table's: mistyped, already used (a seat's code "
        "takes its seat once), or replaced by a newer code.",
        "Ask the host for a new code (`POST /v1/tables/{table_id}/codes`).",
    ),
    "join-code-expired": Page(
        403,
        "The join code has expired (`JOIN_CODE_SECONDS` after it was issued).",
        "Ask the host for a new code (`POST /v1/tables/{table_id}/codes`).",
    ),
    "join-code-required": Page(
        403,
        "The table is not listed in the lobby: its open seats need a join code.",
        "Send the code the host gave you with your name.",
    ),
    "seats-full": Page(
        409,
        "Every seat is taken (another player may have taken the last one first).",
        "Find another table (`GET /v1/lobby`), or ask the host.",
    ),
    "seats-open": Page(
        409,
        "A seat is still open: a table deals only when every seat is taken (RULES.md 5.1). "
        "`open_seats` lists them.",
        "Wait for the players to join, or issue codes for the open seats.",
    ),
    "submitted-deal-refused": Page(
        409,
        "A person took a seat of this table with a join code or from the lobby: the host may "
        "not choose the deal's hands there, since it would know that player's cards "
        "(RULES.md 5.1, host powers never show a card). Seats named at the table's creation "
        "and bots' seats do not count.",
        "Deal without `hands` (the referee shuffles; RULES.md 5.2), or create the table with "
        "every person's seat named.",
    ),
    "seat-open": Page(
        409,
        "The seat is open: nobody holds it, so it has no token to reissue or to leave.",
        "Read the table: `open_seats` lists the open seats.",
    ),
    "seat-is-bot": Page(
        409,
        "A bot plays this seat (RULES.md 5.4): it takes no other bot, and its own token is "
        "refused until the host takes the seat back.",
        "The host takes the seat back: `DELETE /v1/tables/{id}/seats/{seat}/bot`.",
    ),
    "seat-not-away": Page(
        409,
        "A person holds this seat and is not away: only an open or away seat can be handed "
        "to a bot.",
        "Wait until the seat times out (`away` in the table), or hand an open seat.",
    ),
    "seat-in-play": Page(
        409,
        "A round is in play and every seat of it was dealt: no code (nor the lobby) seats "
        "anyone in a dealt seat until the round is over (RULES.md 5.1). A seat the host took "
        "back from its bot is played by default moves meanwhile.",
        "Join once the round is over (`round.status` is `over` in the table's view).",
    ),
    "seat-connected": Page(
        409,
        "The seat is connected: the host may reissue a person's token mid-round, and between "
        "rounds where a person took a seat with a code or from the lobby, only while that "
        "seat is not connected (a lost phone), so that host powers never show a card "
        "(RULES.md 5.1).",
        "Reissue it once the seat is not `connected` (15 s after its last request or stream), "
        "or, at a table of named seats, between rounds.",
    ),
    "seat-not-bot": Page(
        409,
        "No bot plays this seat: there is nothing to take back.",
        "Read the table: each seat's `bot` says who plays it.",
    ),
    "seat-taken": Page(
        409,
        "The seat is taken: it needs no join code.",
        "Issue a code for an open seat, or the table code (`seat: null`).",
    ),
    "table-dealt": Page(
        409,
        "A seat can leave only before the first deal.",
        "The host may reissue the seat's token instead, or end the match.",
    ),
}

KIND_TEXT = {
    Kind.INVALID: ("The move breaks a rule of the game.", "Change the move; `detail` says why."),
    Kind.CONFLICT: ("The move does not fit the table's phase or numbers.", REREAD),
    Kind.NOT_FOUND: ("The move names something the table does not have.", "See `detail`."),
}


def page_of(code: str) -> Page | None:
    """The page of ``code``: its own, or for a game's code its kind's; None if unknown."""
    if code in PAGES:
        return PAGES[code]
    if code in CODES:
        meaning, remedy = KIND_TEXT[CODES[code]]
        return Page(STATUS_OF_KIND[CODES[code]], meaning, remedy)
    return None


def rules_link(code: str) -> str:
    """A sentence (Markdown) linking the rules page section that explains ``code``, if any."""
    page, _, anchor = RULES_OF_CODE.get(code, "").partition("#")
    if not page:
        return ""
    href = served(page, anchor)
    return f"The rule: [{href}]({href}).\n"


def markdown(code: str, page: Page) -> str:
    """The page of ``code`` in Markdown; its citations of the rule book are
    links to the served rules pages."""
    return (
        f"# {code}\n\n"
        f"HTTP status {page.status}. Problem type `{TYPE_BASE}{code}` "
        "(RFC 9457 problem details).\n\n"
        f"## What it means\n\n{link_rules(page.meaning)}\n\n"
        f"## What to do\n\n{link_rules(page.remedy)}\n\n"
        f"{rules_link(code)}"
    )


def _answer(text: str, markdown_path: bool) -> Response:
    """``text`` (Markdown) as its HTML page, or as it is to a request for its
    ``.md`` path or that prefers ``text/markdown``."""
    headers = {"Vary": "Accept"}
    if markdown_path or docs_render.wants_markdown():
        return Response(text, mimetype="text/markdown", headers=headers)
    nav = current_app.extensions.get("docs_nav", [])
    html = docs_render.page(docs_render.render_markdown(text, trusted=False), nav, None)
    return Response(html, mimetype="text/html", headers=headers)


pages_blp = Blueprint("problem_pages", __name__)


def index_markdown() -> str:
    """Every code with a page, its status and what it means, in Markdown."""
    rows = []
    for code in sorted({*PAGES, *CODES}):
        page = page_of(code)
        if page is not None:
            meaning = link_rules(page.meaning).replace("|", "\\|")
            rows.append(f"| [`{code}`]({TYPE_BASE}{code}) | {page.status} | {meaning} |")
    return (
        "# Problem codes\n\n"
        f"Every error answer is RFC 9457 problem details with a `code` and a `type` "
        f"`{TYPE_BASE}<code>`: the page of each says what it means and what to do.\n\n"
        "| code | status | what it means |\n|---|---|---|\n" + "\n".join(rows) + "\n"
    )


@pages_blp.get(TYPE_BASE)
def problem_index() -> Response:
    """Every problem code, linked to its page (not part of the OpenAPI
    document): HTML, or Markdown to a request that prefers ``text/markdown``."""
    return _answer(index_markdown(), False)


@pages_blp.get(TYPE_BASE + "<code>")
def problem_page(code: str) -> Response:
    """The page of one problem code (not part of the OpenAPI document): HTML,
    or its Markdown to a request that prefers ``text/markdown`` or asks for
    ``<code>.md``."""
    name = code.removesuffix(".md")
    page = page_of(name)
    if page is None:
        raise Problem(404, "not-found", f"There is no problem code {name!r}.")
    return _answer(markdown(name, page), code.endswith(".md"))
