"""``referee simulate``: rounds played by automatic players through the
pure engine, in pieces on every core; the figures."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any


def _players(text: str) -> list[int]:
    """``4``, ``4,6`` or ``4-7``."""
    numbers: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        numbers.extend(range(int(low), int(high or low) + 1))
    return numbers


_ROUNDS_DONE: Any = None
"""In a worker process of ``referee simulate``: the rounds played so far by
every worker (a shared counter the parent reads for its progress)."""


def _share_counter(counter: Any) -> None:
    global _ROUNDS_DONE
    _ROUNDS_DONE = counter


def _count_round() -> None:
    if _ROUNDS_DONE is not None:
        with _ROUNDS_DONE.get_lock():
            _ROUNDS_DONE.value += 1


def _run_simulation(
    variant: str, players: int, rounds: int, seed: int, options: dict[str, Any]
) -> Any:
    """One piece of a job of ``referee simulate`` (in a worker process): the
    variant's game plays it; what each round came to."""
    from ..games import game_of_variant

    simulation = game_of_variant(variant).simulation
    assert simulation is not None
    return simulation.play(variant, players, rounds, seed, options, _count_round)


PIECE_ROUNDS = 50
"""Rounds of a job played in one piece, on one core: a long job is played in
pieces on every core, each from a seed of its own (:func:`_pieces`), the same
whatever the number of processes, so that the figures are too."""


def _pieces(rounds: int, seed: int) -> list[tuple[int, int]]:
    """The pieces of a job of ``rounds`` rounds from ``seed``: (rounds, seed)
    each, the first from ``seed`` itself (a job of one piece plays as one run)."""
    return [
        (min(PIECE_ROUNDS, rounds - start), seed if start == 0 else seed * 1_000_003 + start)
        for start in range(0, rounds, PIECE_ROUNDS)
    ]


def _count(n: int, word: str, plural: str = "s") -> str:
    return f"{n} {word}" + ("" if n == 1 else plural)


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} minutes"


def _estimate(jobs: list[tuple[str, int, int, int, dict[str, Any]]], processes: int) -> float:
    """Seconds the ``jobs`` should take on ``processes``: each piece's rounds
    (:func:`_pieces`) at the pace of a few rounds of its job played here
    (longest pieces first, each to the process free soonest)."""
    costs = []
    for variant, n, rounds, seed, options in jobs:
        sample = min(rounds, 3)
        start = time.perf_counter()
        _run_simulation(variant, n, sample, seed, options)
        pace = (time.perf_counter() - start) / sample
        costs += [pace * count for count, _ in _pieces(rounds, seed)]
    free = [0.0] * processes
    for cost in sorted(costs, reverse=True):
        free[free.index(min(free))] += cost
    return max(free)


def _play(jobs: list[tuple[str, int, int, int, dict[str, Any]]], processes: int) -> list[Any]:
    """Every job's summary, in the order of ``jobs``, its pieces
    (:func:`_pieces`) played on ``processes`` worker processes; progress on
    stderr as rounds finish (a bar on a terminal, else a line per finished
    job)."""
    import multiprocessing
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    from tqdm import tqdm

    from ..games import game_of_variant

    counter = multiprocessing.get_context().Value("q", 0)
    total = sum(job[2] for job in jobs)
    bar = tqdm(total=total, unit="round", file=sys.stderr, disable=None, smoothing=0.1)
    facts: list[list[Any]] = []
    left = []
    start = time.monotonic()
    with ProcessPoolExecutor(processes, initializer=_share_counter, initargs=(counter,)) as pool:
        running = {}
        for i, (variant, n, rounds, seed, options) in enumerate(jobs):
            pieces = _pieces(rounds, seed)
            facts.append([None] * len(pieces))
            left.append(len(pieces))
            for k, (count, piece_seed) in enumerate(pieces):
                future = pool.submit(_run_simulation, variant, n, count, piece_seed, options)
                running[future] = (i, k)
        while running:
            done, _ = wait(running, timeout=0.5, return_when=FIRST_COMPLETED)
            for future in done:
                i, k = running.pop(future)
                facts[i][k] = future.result()
                left[i] -= 1
                if bar.disable and not left[i]:  # not a terminal: one line per job
                    variant, n, rounds, *_ = jobs[i]
                    finished = sum(1 for x in left if not x)
                    print(
                        f"referee: {finished}/{len(jobs)} done: {variant}, {n} players, "
                        f"{_count(rounds, 'round')} ({time.monotonic() - start:.0f} s so far)",
                        file=sys.stderr,
                    )
            bar.update(counter.value - bar.n)
    bar.close()
    summaries = []
    for (variant, n, _, seed, options), pieces in zip(jobs, facts, strict=True):
        simulation = game_of_variant(variant).simulation
        assert simulation is not None
        summaries.append(
            simulation.summary(variant, n, seed, options, [f for p in pieces for f in p])
        )
    return summaries


def _simulate(args: argparse.Namespace) -> int:
    """Play rounds with automatic players through the pure engine; print
    figures (stdout); say the plan and the progress on stderr."""
    import json

    from ..games import GAMES, VARIANTS
    from ..games.errors import RuleViolation

    if args.game is not None and args.game not in GAMES:
        print(f"referee: no game {args.game!r}; known: {', '.join(GAMES)}", file=sys.stderr)
        return 2
    if args.variant != "all":
        variants = [args.variant]
    else:  # every preset (of --game), less the ones that only rename another
        games = [GAMES[args.game]] if args.game else list(GAMES.values())
        variants, seen = [], set()
        for game in games:
            for preset in game.presets.values():
                played = (game.name, repr(sorted(preset.options.items())))
                if played not in seen:
                    seen.add(played)
                    variants.append(preset.name)
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        print(f"referee: no variant {unknown[0]!r}; known: {', '.join(VARIANTS)}", file=sys.stderr)
        return 2
    if args.rounds < 1:
        print("referee: --rounds must be at least 1", file=sys.stderr)
        return 2
    if args.jobs is not None and args.jobs < 1:
        print("referee: --jobs must be at least 1", file=sys.stderr)
        return 2
    options = {"max_exchanges": args.max_exchanges}
    jobs = []
    for variant in variants:
        game = VARIANTS[variant][0]
        if game.simulation is None:
            continue
        for n in game.simulation.player_counts(variant, args.players):
            jobs.append((variant, n, args.rounds, args.seed, options))
    if not jobs:
        print("referee: no variant is played with those numbers of players", file=sys.stderr)
        return 2
    pieces = sum(len(_pieces(job[2], job[3])) for job in jobs)
    processes = min(args.jobs or os.cpu_count() or 1, pieces)
    sizes = sorted({job[1] for job in jobs})
    players = f"{sizes[0]}" if len(sizes) == 1 else f"{sizes[0]}-{sizes[-1]}"
    print(
        f"referee: {_count(len(jobs), 'run')} of {_count(args.rounds, 'round')} "
        f"({_count(len(variants), 'variant')}, {players} players) "
        f"on {_count(processes, 'process', 'es')};",
        end=" ",
        file=sys.stderr,
        flush=True,
    )
    try:  # refuse bad numbers here, with the rules' reason, not inside a worker
        expected = _estimate(jobs, processes)
    except RuleViolation as refused:
        print(f"\nreferee: {refused.detail}", file=sys.stderr)
        return 2
    print(f"about {_minutes(expected)}", file=sys.stderr)
    # Each job is deterministic on its own, so the processes cannot change the figures.
    summaries = _play(jobs, processes)
    if args.format == "json":
        sys.stdout.write(json.dumps([s.to_json() for s in summaries], indent=2) + "\n")
        return 0
    tables = []
    for game in GAMES.values():  # one table per game, as each game sums rounds its own way
        mine = [s for s, job in zip(summaries, jobs, strict=True) if VARIANTS[job[0]][0] is game]
        if mine and game.simulation is not None:
            tables.append(f"{game.title}\n\n" + game.simulation.markdown(mine))
    sys.stdout.write("\n".join(tables))
    return 0


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``simulate`` to the commands."""
    sim = sub.add_parser(
        "simulate",
        help="play rounds with automatic players through the pure engine and print figures",
        description="Each game's automatic players play it (My Ship Sails: keep the longest "
        "suit, pass from the shortest, declare at once; Sevens: the seed's tips; May I?: "
        "lay down as soon as possible, lay off everything, May I? for what pairs or runs; "
        "a round still going after 3000 moves is abandoned). "
        "Deterministic for a given seed.",
    )
    sim.add_argument("--variant", default="all", help="a preset name, or all (default)")
    sim.add_argument(
        "--game",
        help="with --variant all: only this game's presets (my-ship-sails, sevens, may-i)",
    )
    sim.add_argument(
        "--players",
        type=_players,
        default=[4],
        help="table sizes: 4, 4,6 or 4-7; sizes a preset does not allow are skipped (default 4)",
    )
    sim.add_argument("--rounds", type=int, default=1000, help="rounds per table size (1000)")
    sim.add_argument("--seed", type=int, default=1, help="random seed (1)")
    sim.add_argument(
        "--max-exchanges",
        type=int,
        default=200,
        help="My Ship Sails: a round with no winner after this many exchanges is void (200)",
    )
    sim.add_argument("--format", choices=["markdown", "json"], default="markdown")
    sim.add_argument(
        "--jobs",
        type=int,
        help="worker processes (default: one per CPU); the figures are the same for any number",
    )
    sim.set_defaults(func=_simulate)
