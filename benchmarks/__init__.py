"""The referee's speed and cost measured against floors and a peer, in one run
(issues 6 and 13).

``python -m benchmarks`` (or ``make bench``) starts a private Redis, the
service and a minimal Flask+Redis "floor" app (a GET and a minimal move) under
the same gunicorn settings, drives them with the same asyncio load generator,
plays issue 13's simultaneous exchanges on the service and on boardgame.io
(``benchmarks/peers/boardgameio``, when node can run it), measures Redis
round trips, memory per table and the pure engine, and writes
``benchmarks/results/latest.{json,md,png}``. See docs/guide/performance.md.

Modules: :mod:`.processes` (Redis and gunicorn), :mod:`.floor` (the floor
app), :mod:`.players` (the automatic players), :mod:`.load` (the HTTP load
generator, run in its own process), :mod:`.exchange_load` (issue 13's load
on the service), :mod:`.versus` (the service against boardgame.io),
:mod:`.redis_cost` (round trips and commands per request, in-process),
:mod:`.memory`, :mod:`.engine`, :mod:`.report` (figures, targets, Markdown,
plot), :mod:`.run` (the command), :mod:`.profile_pass` (cProfile of the pass path).
"""
