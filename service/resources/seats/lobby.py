"""The lobby (RULES.md 5.6): listed tables with open seats, HTTP side.

A table created with ``listed: true`` and open seats is listed until its
last seat is taken, its match ends, it is deleted or it expires. The index
is :mod:`service.storage.lobby` (one sorted set per preset, global keys);
every commit that changes a listed table's seats or its match's status (a
join, a leave, a seat handed to a bot or taken back, the host's finish, a
deletion) calls :func:`sync`, and every read checks each listed table
against the table itself, so an answer shows seats as they are, never a
full, ended or gone table, and never a code or a token. A read examines at
most ``limit + 1`` entries whatever the index holds, and removes
each entry it finds wrong (one that a lost update left), so a wrong entry
costs one read once: no number of them blanks the lobby for longer.

One caller cannot flood it: a client address holds at most
``LOBBY_LISTED_PER_ADDRESS`` listed tables at once (a client key
``CLIENT_KEY_LOBBY_LISTED``); a creation past that is 429
``too-many-listed-tables`` and makes nothing (:func:`hold`). A listed
table holds its creator's place from its creation for as long as it may
show in the lobby, now or again (:func:`holds_place`): a full one too, since
a seat that leaves (or a bot's seat taken back) lists it again. The place
comes back when its first round is dealt (unless a bot plays a seat that
would open again when taken back), when its match ends, or when it is
deleted or expires.
"""

from __future__ import annotations

import json
from typing import Any

from flask import current_app
from flask.views import MethodView

from ...edge.common import RefereeBlueprint, documented, referee
from ...edge.problems import Problem
from ...games import GAMES, VARIANTS, game_of
from ...games.errors import StoredFormatNewer
from ...spec.links import operation
from ...storage.lobby import Entry, Lobby
from ...storage.store import NO_CONTROL, Loaded, StepMismatch, TableNotFound
from .. import seating
from .schemas import LobbyPageSchema, LobbyQuerySchema

blp = RefereeBlueprint(
    "lobby",
    __name__,
    url_prefix="/v1/lobby",
    description="Listed tables with open seats (RULES.md 5.6).",
)

LISTED_RETRY_SECONDS = 60
"""``Retry-After`` of 429 ``too-many-listed-tables``: a table leaves the
lobby when it fills, ends or goes, which takes people some time."""

SYNC_ATTEMPTS = 4
"""How often :func:`sync` writes the index before it gives up (each retry
means another commit on the table came in between; that commit syncs too)."""

READ_ROUNDS = 1
"""How many batches of at most ``limit + 1`` entries one lobby read examines
to fill its page (wrong entries are removed on the way): a read costs a few
round trips and at most ``limit + 1`` tables' reads, whatever the index
holds. A page short of ``limit`` with ``more`` is read on from
``next_after`` (the web table does)."""


def _lobby() -> Lobby:
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    found: Lobby | None = app.extensions.get("referee_lobby")
    if found is None:
        ref = referee()
        found = Lobby(ref.store.client, ref.settings.lobby_tables_kept)
        app.extensions["referee_lobby"] = found
    return found


def sync(table_id: str) -> None:
    """Make the lobby agree with the table: listed while it is ``listed``
    with an open seat and its match goes on (:func:`listable`), else not.
    After writing, the table's version is read again: when another commit
    came in between, its state is synced again (so whichever of two racing
    commits writes the index last, it writes what the table holds after
    both)."""
    store, index = referee().store, _lobby()
    for _ in range(SYNC_ATTEMPTS):
        try:
            loaded = store.load(table_id)
        except TableNotFound:
            index.drop(list(VARIANTS), table_id)
            return
        variant = loaded.table.variant
        if listable(loaded.table, loaded.auth, loaded.now_ms):
            index.put(variant, table_id, int(loaded.auth.get("c", loaded.now_ms)))
        else:
            index.drop([variant], table_id)
        if index.version(table_id) == loaded.version:
            return


def hold(table_id: str, variant: str, auth: dict[str, Any], now_ms: int) -> bool:
    """Before a new table is made: when it is ``listed`` (full or not: a
    seat may open later, by a leave or a bot taken back), count it among
    its creator's listed tables
    (``auth["q"]``: its client address or client key), or refuse with 429
    ``too-many-listed-tables`` when the creator lists
    ``LOBBY_LISTED_PER_ADDRESS`` (a client key: ``CLIENT_KEY_LOBBY_LISTED``)
    tables already, so that one caller cannot fill the lobby (RULES.md
    5.6). Returns whether it was counted (then :func:`let_go` if the table
    is not made after all)."""
    if not seating.listed(auth):
        return False
    settings = referee().settings
    caller = str(auth.get("q", ""))
    by_key = caller.startswith("client:")
    cap = settings.client_key_lobby_listed if by_key else settings.lobby_listed_per_address
    ttl = settings.table_ttl_seconds
    if _lobby().hold(caller, cap, variant, table_id, now_ms, ttl, _places):
        return True
    whose, setting = (
        ("This client key", "CLIENT_KEY_LOBBY_LISTED")
        if by_key
        else ("This address", "LOBBY_LISTED_PER_ADDRESS")
    )
    raise Problem(
        429,
        "too-many-listed-tables",
        f"{whose} has {cap} listed tables already ({setting}), full or not: a listed "
        "table holds its place until its first round is dealt, its match ends or it is "
        "deleted (a bot's seat that would open again keeps it held after the deal); or "
        "make this one with `listed: false` and share its join codes.",
        headers={"Retry-After": str(LISTED_RETRY_SECONDS)},
    )


def let_go(table_id: str, variant: str, auth: dict[str, Any]) -> None:
    """Take back :func:`hold`'s count of a table that was not made, or was deleted."""
    _lobby().let_go(str(auth.get("q", "")), variant, table_id)


def holds_place(loaded: Loaded) -> bool:
    """Whether a listed table holds a place among its creator's listed
    tables: it may show in the lobby now or again later (RULES.md 5.6). So
    while its match goes on and either no round was dealt yet (a seat may
    leave), a seat is open, or a bot plays a seat that opens again when
    the host takes it back; full or not. Once dealt with none of these, no
    seat ever opens again (a seat leaves only before the first deal)."""
    if not seating.listed(loaded.auth):
        return False
    view = game_of(loaded.table).public_view(loaded.table, loaded.now_ms)
    if not seating.in_progress(view):
        return False
    if view.get("round") is None or seating.open_seats(loaded.auth):
        return True
    bots = (loaded.control or NO_CONTROL).bots.values()
    return any(bool(bot.get("open", True)) for bot in bots)


def _places(table_ids: list[str]) -> list[bool]:
    """:func:`holds_place` of each table (``False``: gone), read in one round trip."""
    store = referee().store
    pipe = store.client.pipeline(transaction=False)
    parsers = []
    for table_id in table_ids:
        parse = store.queue_load(pipe, table_id)
        parsers.append((table_id, parse, len(pipe)))
    replies = pipe.execute() if table_ids else []
    found = []
    for table_id, parse, end in parsers:
        try:
            found.append(holds_place(store.load(table_id, parse(replies[:end]))))
        except TableNotFound:
            found.append(False)
        except (StepMismatch, StoredFormatNewer):
            found.append(True)  # another release's table: it may be listed, so counted
    return found


def listable(table: Any, auth: dict[str, Any], now_ms: int) -> bool:
    """Whether the lobby shows a table: ``listed``, with an open seat, its
    match going on (RULES.md 5.6)."""
    if not (seating.listed(auth) and seating.open_seats(auth)):
        return False
    return seating.in_progress(game_of(table).public_view(table, now_ms))


def _entry(table_id: str, table: Any, auth: dict[str, Any], now_ms: int, ttl_ms: int) -> Any:
    """The lobby's entry of a table; ``None`` when its match has ended."""
    game = game_of(table)
    view = seating.with_open_seats(game.public_view(table, now_ms))
    if not seating.in_progress(view):
        return None
    preset = VARIANTS[table.variant][1].options
    seats = [{"seat": s["seat"], "name": s["name"], "open": s["open"]} for s in view["seats"]]
    taken = sum(not s["open"] for s in seats)
    return {
        "table_id": table_id,
        "game": game.name,
        "variant": table.variant,
        "options": {k: v for k, v in view["options"].items() if preset.get(k) != v},
        "seats": seats,
        "seats_taken": taken,
        "seats_open": len(seats) - taken,
        "created_at_ms": int(auth.get("c", 0)),
        "expires_at_ms": now_ms + max(ttl_ms, 0),
    }


@blp.route("")
class LobbyPage(MethodView):
    @blp.arguments(LobbyQuerySchema, location="query")
    @blp.response(200, LobbyPageSchema)
    @blp.doc(**operation("getLobby"))
    @documented(blp, 422)
    def get(self, query: dict[str, Any]) -> dict[str, Any]:
        """List the tables anyone may join (RULES.md 5.6)

        Listed tables with an open seat, newest first, filtered by `game`
        and `variant`, at most `limit` (1 to 50) a page; read on from
        `next_after` while `more`. Each shows its game, preset, the options
        that differ from the preset, its seats (taken and open, with the
        names taken), when it was created and when it expires; never a
        code or a token. Take a seat with `POST /v1/tables/{table_id}/join`
        and a name only. A table leaves the lobby when its last seat is
        taken, when it is deleted, or when it expires (at the latest
        `TABLE_TTL_SECONDS` after its creation).
        """
        ref, index = referee(), _lobby()
        variants = [query["variant"]] if "variant" in query else list(VARIANTS)
        if "game" in query:
            variants = [v for v in variants if VARIANTS[v][0] is GAMES[query["game"]]]
        limit = query["limit"]
        cursor: tuple[int, str] | None = None
        if "after" in query:
            score, _, table_id = query["after"].partition(".")
            cursor = (int(score), table_id)
        now = ref.store.now_ms()
        oldest = now - 1000 * ref.settings.table_ttl_seconds
        tables: list[dict[str, Any]] = []
        last: Entry | None = None
        exhausted = not variants
        for _ in range(READ_ROUNDS):
            if exhausted or len(tables) > limit:
                break
            want = limit + 1 - len(tables)
            entries = index.page(variants, cursor, want, oldest) if variants else []
            exhausted = len(entries) < want
            gone: list[Entry] = []
            wrong: list[tuple[Entry, Any]] = []
            for entry, (state, auth_text, ttl, version) in zip(
                entries, index.peek([e[1] for e in entries]), strict=True
            ):
                last, cursor = entry, (entry[0], entry[1])
                if state is None or auth_text is None:
                    gone.append(entry)
                    continue
                auth = json.loads(auth_text)
                if not (seating.listed(auth) and seating.open_seats(auth)):
                    wrong.append((entry, version))  # full: an update was lost
                    continue
                table = ref.store.codec.decode(state)
                shown = _entry(entry[1], table, auth, now, ttl)
                if shown is None or table.variant != entry[2]:
                    wrong.append((entry, version))  # its match ended (or another preset's)
                    continue
                tables.append(shown)
                if len(tables) > limit:
                    break
            for entry in gone:  # deleted or expired: for good
                index.drop([entry[2]], entry[1])
            for entry in index.unlist(wrong):
                sync(entry[1])  # changed since it was read: made right by what it is now
        more = len(tables) > limit or not exhausted
        tables = tables[:limit]
        if tables and len(tables) == limit:
            end = next_after(tables[-1])
        elif last is not None and more:
            end = f"{last[0]}.{last[1]}"
        else:
            end = None
        return {"tables": tables, "more": more and end is not None, "next_after": end}


def next_after(entry: dict[str, Any]) -> str:
    """The cursor after a listed table."""
    return f"{entry['created_at_ms']}.{entry['table_id']}"
