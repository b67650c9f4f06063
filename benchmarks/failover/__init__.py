"""Failovers under play (issue 41): no acknowledged move lost, and how long
moves are refused, with the service behind real Redis Sentinels.

A primary, two replicas and three Sentinels on this machine
(:class:`RedisSet`; the Redis settings of deploy/redis.conf), the service
(a real gunicorn) on ``redis+sentinel://``, and six tables (two of each
game) each played by a thread of its own (:class:`Player`) through HTTP:
every move sent again until it is answered other than 503, and each
acknowledged one (200 or 201) noted with its place in its round. Then a
drill (:func:`drill`): ``SENTINEL FAILOVER`` (planned) or a SIGKILL of the
primary (its process restarted at once, as a supervisor would, so that it
comes back as a replica), twice, each once every table plays on and the
new primary has its two replicas again.

Counted: every acknowledged move the tables no longer hold (a table that
went back behind a move it had acknowledged: each player checks whenever
the table is not where its last answer left it, and every table at the
end), and for each failover, from the move answers and a ``/readyz``
read every 50 ms: how long moves were refused (the union of the spans of
the refused requests: 503s and broken connections, from when each was
sent to when it was answered), how long ``/readyz`` said 503 meanwhile, and
how long it said 200 while a move was being refused.

The parts: :mod:`.sentinels` (the Redis set), :mod:`.players`,
:mod:`.drills` (a drill and its figures), :mod:`.bench` (the drills of
``make bench``), :mod:`.report` (its rows and targets).
"""

from __future__ import annotations

from .bench import WAIT_ENV, measure, one_at_a_time
from .drills import Drill, Failover, drill, figures_of
from .players import GAMES, SEATS, Log, Player, may_i_move
from .report import LOST_LIMIT, READY_WHILE_REFUSED_LIMIT_S, rows, targets
from .sentinels import DOWN_AFTER_MS, SENTINEL, RedisSet

__all__ = [
    "DOWN_AFTER_MS",
    "Drill",
    "Failover",
    "GAMES",
    "LOST_LIMIT",
    "Log",
    "Player",
    "READY_WHILE_REFUSED_LIMIT_S",
    "RedisSet",
    "SEATS",
    "SENTINEL",
    "WAIT_ENV",
    "drill",
    "figures_of",
    "may_i_move",
    "measure",
    "one_at_a_time",
    "rows",
    "targets",
]
