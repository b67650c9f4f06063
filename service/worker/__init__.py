"""``referee worker``: the deadline component (RULES.md 5.3, 5.4). It knows
no game: deadlines come from :mod:`service.clock`, moves from each table's
:class:`~service.games.base.Game` (``bot_move``, ``play``), commits from the
store, as people's moves do.

How it works: a commit of the API says when the worker must next look at
its table (its clock note: the first deadline, or a window's close,
``service.clock.next_instant``), published on the table's clock channel;
a choice that completes its step says so too, in case its request dies
before the resolution is committed. Tables without a clock, bots or a
window cost the worker nothing. Every worker follows the notes and puts the
table in the bucket of that instant (:mod:`.due`, in the jobs Redis); the
first to add to a bucket sends its dramatiq job (:mod:`.jobs`), delayed to
the bucket's end. The job looks at each table of the bucket
(``Worker.look``): it reads the table and commits what is due by Redis's
clock (a closed window, a complete step whose resolver died, a step's
clock when no commit opened it, each seat's bot or default move whose
deadline passed), one versioned commit at a time, then puts the table in
the bucket of its next instant. A look that comes twice, late, or races a
seat's own move changes nothing that was done. At start, and after the
notes were lost, a worker looks at every table.
"""
