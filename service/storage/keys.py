"""The table's key layout: every key a table owns, and what each holds.

Keys of one table share the hash tag ``{<table id>}`` so that one Lua script
touches one Redis Cluster slot::

    referee:{<id>}:table    hash  v (version), n (events ever written: the
                                  last seq), s (state JSON), a (auth: token
                                  hashes, "" for an open seat, and the
                                  seating: join-code hashes with their
                                  expiry, listed, created; see
                                  ``service.resources.seating``), k (the key of the
                                  state's simultaneous step, "" or absent
                                  for none), w (the Redis clock of the last
                                  write, ms; absent in tables written before
                                  it), r (rounds ever listed: the last
                                  round's number; absent for none), d (the
                                  next deal's public proof part, JSON:
                                  round, commitment, seeded, require_seeds;
                                  absent in tables written before it),
                                  f (the layout of the table's keys and
                                  fields, :data:`TABLE_LAYOUT`; absent: 1),
                                  b, y, c, o, u (the clocks and bots:
                                  :class:`Control`), t (the newest
                                  :data:`DEFAULTS_KEPT` default moves, as
                                  "<seat>:<step>" separated by spaces),
                                  and any field a newer release adds
                                  (never removed: every write is HSET)
    referee:{<id>}:events   list  the last ``events_kept`` public events as the
                                  codec's text, oldest first; no ``seq``: the
                                  first kept is ``n - LLEN + 1``
    referee:{<id>}:choices  hash  the choices made in step ``k``, by seat (the
                                  game's text); absent when none
    referee:{<id>}:history  list  the game's texts of the newest
                                  ``HISTORY_KEPT`` finished steps of the
                                  current round (e.g. a resolved exchange's
                                  passes), oldest first; read only to answer a
                                  repeat of an old step alike
    referee:{<id>}:rounds   list  the game's texts of the newest
                                  ``ROUNDS_KEPT`` finished rounds' results,
                                  oldest first; no number: the first kept
                                  is round ``r - LLEN + 1``. The state
                                  keeps only the totals and the last round,
                                  so that it does not grow with the match
    referee:{<id>}:presence hash  seat -> when it was last seen (ms), for
                                  ``connected`` (``storage.presence``;
                                  expires with the table)
    referee:{<id>}:deal     string  the next deal's pending proof (JSON: round,
                                  secret, commitment, seeds by seat,
                                  require_seeds): read only by a deal, a seed
                                  and the record of a finished round; the
                                  table hash's ``d`` holds its public part
    referee:{<id>}:moves    list  the current (or last) round's record as it
                                  grows: its number, its header (JSON: the
                                  state before the deal, the deal's body and
                                  clock, the secret and seeds, the release),
                                  then its entries (moves, rebuilt stocks),
                                  gap markers, at most ``moves_kept`` (then
                                  ``"T"``: the rest is not kept), in the
                                  compact form of ``service.games.record``;
                                  the table hash's ``h`` and ``hc`` are its
                                  chain (``storage.records``)
    referee:{<id>}:records  hash  finished rounds' records by number (the
                                  newest ``records_kept``): what ``moves``
                                  held but the number, ``"\n"``-joined, when
                                  the next round is dealt
    referee:{<id>}:idem:*   string  answers to Idempotency-Key requests, 24 h,
                                  and the index of each token's answers
                                  (``storage.idempotency``; removed by
                                  ``delete`` with the table)

One family of keys is global, outside every hash tag: the lobby's
``referee:lobby:<preset>`` sorted sets (``storage.lobby``). On a Redis
Cluster each lives in its own slot, so no table commit can touch it: the
API updates it after a listed table's commit and checks each entry against
its table on every read (a stale entry is skipped or removed, never shown).
"""

from __future__ import annotations

KEY_PREFIX = "referee"

TABLE_LAYOUT = 1
"""The layout of a table's hash and keys that this release reads and writes
(the hash's ``f``, absent for 1; the Lua scripts' ``LAYOUT``). A release
that gives a field or a key a new meaning raises it, and writes it only
after its contract step."""


def table_key(table_id: str) -> str:
    """The hash that holds a table's state."""
    return f"{KEY_PREFIX}:{{{table_id}}}:table"


def events_key(table_id: str) -> str:
    """The list that holds a table's public events."""
    return f"{KEY_PREFIX}:{{{table_id}}}:events"


def choices_key(table_id: str) -> str:
    """The hash of the choices made in a table's current simultaneous step."""
    return f"{KEY_PREFIX}:{{{table_id}}}:choices"


def history_key(table_id: str) -> str:
    """The list of a table's finished steps in its current round (the game's texts)."""
    return f"{KEY_PREFIX}:{{{table_id}}}:history"


def rounds_key(table_id: str) -> str:
    """The list of a table's newest finished rounds (the game's texts of their results)."""
    return f"{KEY_PREFIX}:{{{table_id}}}:rounds"


def presence_key(table_id: str) -> str:
    """The hash of a table's seats' last-seen instants (``storage.presence``)."""
    return f"{KEY_PREFIX}:{{{table_id}}}:presence"


def deal_key(table_id: str) -> str:
    """The next deal's pending proof (its secret: never shown before its round is over)."""
    return f"{KEY_PREFIX}:{{{table_id}}}:deal"


def moves_key(table_id: str) -> str:
    """The list that records the current (or last) round: number, header, moves."""
    return f"{KEY_PREFIX}:{{{table_id}}}:moves"


def records_key(table_id: str) -> str:
    """The hash of a table's newest finished rounds' records, by round number."""
    return f"{KEY_PREFIX}:{{{table_id}}}:records"


def clock_channel(table_id: str) -> str:
    """The channel a table's clock notes are published on (``commit.lua``,
    ``choose.lua``): when the worker must next look at the table."""
    return f"{KEY_PREFIX}:{{{table_id}}}:clock"


def proof_keys(table_id: str) -> list[str]:
    """The keys of a table's deal proofs and round records (after
    :func:`all_keys` in every script's KEYS: they are the last three)."""
    return [deal_key(table_id), moves_key(table_id), records_key(table_id)]


def all_keys(table_id: str) -> list[str]:
    """Every key a table owns (for deletion and memory accounting); the
    choices hash, the history, the rounds, the deal and the records exist
    only while they hold something."""
    return [*base_keys(table_id), *proof_keys(table_id)]


def base_keys(table_id: str) -> list[str]:
    """The first five KEYS of every commit and choice (the scripts' layout)."""
    return [
        table_key(table_id),
        events_key(table_id),
        choices_key(table_id),
        history_key(table_id),
        rounds_key(table_id),
    ]
