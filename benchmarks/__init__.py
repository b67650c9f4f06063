"""The referee's speed and cost measured against a floor, in one run (issue 6).

``python -m benchmarks`` (or ``make bench``) starts a private Redis, the
service and a minimal Flask+Redis "floor" app under the same gunicorn
settings, drives both with the same asyncio load generator, measures Redis
round trips, memory per table and the pure engine, and writes
``benchmarks/results/latest.{json,md,png}``. See README.md, "Performance".

Modules: :mod:`.processes` (Redis and gunicorn), :mod:`.floor` (the floor
app), :mod:`.players` (the automatic players), :mod:`.load` (the HTTP load
generator, run in its own process), :mod:`.redis_cost` (round trips and
commands per request, in-process), :mod:`.memory`, :mod:`.engine`,
:mod:`.report` (figures, targets, Markdown, plot), :mod:`.run` (the command),
:mod:`.profile_pass` (cProfile of the pass path).
"""
