"""Clocks and bots at the HTTP edge (RULES.md 5.3, 5.4): the clock options
of a new table, its bot seats, and each seat's ``away``, ``bot`` and
``until_ms`` in the public view. Game-free: the deadlines come from
:mod:`service.clock`."""

from __future__ import annotations

from typing import Any

from .. import clock


def clock_options(options: dict[str, Any]) -> dict[str, Any]:
    """Take the clock options out of a new table's ``options`` (every game
    has them; the game's own options never hold them) and return them."""
    return {k: options.pop(k) for k in clock.CLOCK_OPTIONS if k in options}


def bot_seats(players: list[Any]) -> dict[int, dict[str, Any]]:
    """The seats a new table's ``players`` give to bots: seat ->
    ``{"kind": "random" | "basic"}``."""
    return {seat: {"kind": p["bot"]} for seat, p in enumerate(players) if isinstance(p, dict)}


def bot_name(seat: int, kind: str) -> str:
    """The name of a bot seat given none."""
    return f"Bot {seat + 1} ({kind})"


def names_of(players: list[Any]) -> list[str | None]:
    """The players' names (``None``: an open seat), a bot's own or :func:`bot_name`."""
    return [
        (p.get("name") or bot_name(seat, p["bot"])) if isinstance(p, dict) else p
        for seat, p in enumerate(players)
    ]


def with_clocks(view: dict[str, Any], table: Any, control: Any) -> dict[str, Any]:
    """The public view with the clock options in ``options`` and, for each
    seat, ``away`` (it timed out and has not moved since), ``bot`` (its
    automatic player or ``null``) and ``until_ms`` (its deadline in the step
    the table waits on, ms by Redis's clock, or ``null``; only a seat the
    step waits on has one: :func:`.clock.shown`); ``clock_paused``
    (:func:`.clock.paused`); and in ``awaiting``, when the game gives no
    ``until_ms`` of its own (a window's close), the first deadline of the
    seats it waits for (RULES.md 5.3: ``awaiting`` covers turn clocks)."""
    found = clock.shown(table, control)
    view["clock_paused"] = clock.paused(control)
    if isinstance(view.get("options"), dict):
        view["options"].update(clock.options_of(control.clock))
    for seat in view.get("seats") or ():
        number = seat["seat"]
        seat["away"] = number in control.away
        bot = control.bots.get(number)
        seat["bot"] = None if bot is None else bot["kind"]
        seat["until_ms"] = found.get(number)
    awaiting = view.get("awaiting")
    if isinstance(awaiting, dict) and awaiting.get("until_ms") is None:
        due = [found[s] for s in awaiting.get("seats") or () if s in found]
        awaiting["until_ms"] = min(due) if due else None
    return view


def own_clock(shown: dict[int, int], control: Any, seat: int) -> dict[str, Any]:
    """What a seat's own view (and stream) says of its clock (RULES.md 5.3):
    ``away`` and ``until_ms``, as the public view's seat says them, from the
    deadlines anyone may see (:func:`service.clock.shown`)."""
    return {"away": seat in control.away, "until_ms": shown.get(seat)}
