"""``referee worker``: the deadline component (RULES.md 5.3, 5.4). It knows
no game: deadlines come from :mod:`service.clock`, moves from each table's
:class:`~service.games.base.Game` (``bot_move``, ``play``), commits from the
store, as people's moves do.

How it works: every worker subscribes to the tables' feed channels (each
commit is announced there, by any release) and, at start, sweeps every
table. For a table it reads, it writes what is due and not stored (a
closed window, a complete step whose resolver died: ``settle``), opens the
clock of a step whose opening commit is unknown, and schedules a delayed
job per deadline (:mod:`.jobs`: dramatiq's Redis broker). A job reads the
table again and changes it only if the deadline's step (its key) is still
the table's, the seat still due and Redis's clock past the deadline; the
versioned commit makes a duplicate, a late or a racing job change nothing.
"""
