"""The referee of My Ship Sails: pure Python, no Flask, no Redis, no I/O.

Modules: :mod:`.cards` (notation, decks), :mod:`.options` (RULES.md 2.2, 2.9),
:mod:`.state` (frozen states), :mod:`.engine` (transitions),
:mod:`.deal` (draw, deal, deal check, 2.4), :mod:`.passing` (exchanges, 2.5),
:mod:`.settlement` (winning hands, 2.6-2.7), :mod:`.views` (who sees what),
:mod:`.errors` (refusals with stable codes).
"""
