"""The ``referee`` command: ``serve``, ``openapi``, ``docs``, ``simulate``,
``verify``, ``replay`` and ``keys`` (client keys: ``create``, ``list``,
``revoke``)."""

from __future__ import annotations

import argparse
import errno
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .config import Settings, SettingsError
from .version import release


def _serve(args: argparse.Namespace) -> int:
    """Run the service under gunicorn; start an embedded Redis if needed."""
    from gunicorn.app.base import BaseApplication

    from . import gunicorn_settings, logs
    from .storage.embedded import ensure_embedded_redis, stop_embedded_redis

    # Every setting and server hook of the shared module; load_config skips
    # what gunicorn lacks (and the module's imports, which are no settings).
    options: dict[str, Any] = {
        k: v
        for k, v in vars(gunicorn_settings).items()
        if not k.startswith("_") and (isinstance(v, str | int | float | dict) or callable(v))
    }
    if args.port or args.host:
        host, _, port = options["bind"].rpartition(":")
        options["bind"] = f"{args.host or host}:{args.port or port}"
    if args.workers:
        options["workers"] = args.workers
    if args.dev:
        wrong = _dev_mode(options["bind"])
        if wrong:
            print(f"referee: cannot serve --dev: {wrong}", file=sys.stderr)
            gunicorn_settings.on_exit(None)
            return 2
        options["when_ready"] = lambda server: print(_dev_banner(options["bind"]), flush=True)
    # Before any "serving" line: a second `make serve` says why it cannot.
    refused = _cannot_listen(options["bind"])
    if refused:
        print(f"referee: cannot serve on {options['bind']}: {refused}", file=sys.stderr)
        gunicorn_settings.on_exit(None)  # the metrics folder it made at import
        return 1

    try:
        settings = Settings.from_env()
    except SettingsError as error:  # before anything starts: a line that says what to fix
        print(f"referee: cannot serve: {error}", file=sys.stderr)
        gunicorn_settings.on_exit(None)
        return 2
    logs.configure()  # every line the service writes is JSON
    started_pid = None
    if not settings.redis_url:
        url, started_pid = ensure_embedded_redis(settings.data_dir)
        os.environ["REDIS_URL"] = url  # the workers share this one server
        logs.logger.info(
            "embedded redis", extra={"url": url, "data": str(Path(settings.data_dir).resolve())}
        )

    class Referee(BaseApplication):  # type: ignore[misc]
        def load_config(self) -> None:
            for key, value in options.items():
                if key in self.cfg.settings:  # older gunicorns lack some settings
                    self.cfg.set(key, value)

        def load(self) -> Any:
            from . import create_app

            return create_app()

    # A child `referee worker` moves bots and ends turns at their clocks
    # (RULES.md 5.3, 5.4), so `make serve` alone is a playable table.
    worker = None
    if not args.no_worker and os.environ.get("SERVE_WORKER", "1") != "0":
        worker = subprocess.Popen([sys.executable, "-m", "service.cli", "worker"])
        logs.logger.info("deadline worker", extra={"pid": worker.pid})
    logs.logger.info("serving", extra={"url": f"http://{options['bind']}", "docs": "/docs"})
    master = os.getpid()
    try:
        Referee().run()
    finally:
        # gunicorn's workers are forks of this process, and one that exits
        # (sys.exit on the SIGABRT of a timed-out request) unwinds through
        # here too: only the master stops the child worker and the embedded
        # Redis that every worker shares.
        if os.getpid() == master:
            if worker is not None:
                worker.terminate()
                try:
                    worker.wait(10)
                except subprocess.TimeoutExpired:
                    worker.kill()
            if started_pid is not None:
                stop_embedded_redis(os.environ["REDIS_URL"])
    return 0


DEV_LIMITS = {
    "RATE_LIMIT_TABLES": "100000/second",
    "RATE_LIMIT_ANONYMOUS": "100000/second",
    "RATE_LIMIT_PER_ADDRESS": "100000/second",
    "RATE_LIMIT_RECORD_CHECKS": "100000/second",
    "RATE_LIMIT_PER_TOKEN": "100000/second",
    "LOBBY_LISTED_PER_ADDRESS": "100000",
}
"""The limits ``serve --dev`` lifts (each unless set): on a developer's
machine every page, test and walk-through comes from one address, and a
script plays every seat as fast as it can. (Refused claims stay limited:
their limit is part of what a front end meets in play.)"""


def _dev_mode(bind: str) -> str | None:
    """Set the environment of ``referee serve --dev`` (before any setting is
    read): pages on this machine's origins may call the API (CORS, any port:
    :data:`service.config.LOOPBACK_ORIGINS` added to ``CORS_ORIGINS``) and
    the per-address and per-token limits are lifted (:data:`DEV_LIMITS`,
    each unless set).
    Returns why it cannot (a bind that is not a loopback address: lifted
    limits must not face a network), else None."""
    from .config import LOOPBACK_ORIGINS

    host = bind.rpartition(":")[0].strip("[]")
    if host not in ("127.0.0.1", "localhost", "::1"):
        return (
            f"it listens on {host or bind}, and --dev lifts the per-address limits: "
            "bind it to 127.0.0.1 (the default), or run `referee serve` with your own settings"
        )
    origins = os.environ.get("CORS_ORIGINS", "").replace(",", " ").split()
    if origins != ["*"]:
        os.environ["CORS_ORIGINS"] = " ".join(dict.fromkeys([*origins, *LOOPBACK_ORIGINS]))
    for name, value in DEV_LIMITS.items():
        os.environ.setdefault(name, value)
    return None


def _dev_banner(bind: str) -> str:
    """What ``referee serve --dev`` prints once it listens: where to go."""
    url = f"http://{bind}"
    return "\n".join(
        [
            f"referee serve --dev: listening on {url}",
            f"  play in a browser:  {url}/play",
            f"  the guide:          {url}/docs/guide/",
            f"  API reference:      {url}/docs   (the spec: {url}/openapi.yaml)",
            "  CORS:               pages on http(s)://localhost, 127.0.0.1 or [::1], any port,"
            " may call it",
            "  limits:             lifted per address and per token (RATE_LIMIT_TABLES,"
            " _ANONYMOUS, _PER_ADDRESS, _RECORD_CHECKS, _PER_TOKEN)",
            "  Not for a server others reach: README says how CORS and the limits work there.",
        ]
    )


def _cannot_listen(bind: str) -> str | None:
    """Why gunicorn could not listen at ``bind`` (``host:port``), or None.

    It binds the address the way gunicorn will (``SO_REUSEADDR``) and lets it
    go at once: a port another process listens on is refused here.
    """
    host, colon, port = bind.rpartition(":")
    if not colon or not port.isdigit() or bind.startswith(("unix:", "fd://")):
        return None  # a Unix socket or a file descriptor: gunicorn says it
    host = host.strip("[]") or "0.0.0.0"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, int(port)))
        except OSError as error:
            if error.errno == errno.EADDRINUSE:
                return "the address is already in use (is the service running already?)"
            return error.strerror or str(error)
    return None


def _openapi(args: argparse.Namespace) -> int:
    """Write the OpenAPI document generated from the code."""
    import redis

    from . import create_app, spec_yaml

    # The spec needs no store: give the app a client that is never used.
    app = create_app(Settings(), client=redis.Redis(host="127.0.0.1", port=1))
    text = spec_yaml(app.extensions["referee_api"])
    if args.output == "-":
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text)
    return 0


def _docs(args: argparse.Namespace) -> int:
    """Rewrite the generated blocks of the Markdown files under ``args.folder``
    (``docs/``) from the game registry; with ``--check``, only list the stale
    files (exit 1 if any)."""
    from .site.docs_generated import fill, stale

    folder = Path(args.folder)
    files = sorted(folder.rglob("*.md"))
    rules = folder / "rules"
    if args.check:
        for path in stale(files, rules):
            print(f"stale: {path} (run `referee docs`)")
        return 1 if stale(files, rules) else 0
    for path in files:
        text = path.read_text()
        if fill(text, rules) != text:
            path.write_text(fill(text, rules))
            print(f"wrote {path}")
    return 0


def _keys(args: argparse.Namespace) -> int:
    """Issue, list or revoke client keys in the service's Redis (``REDIS_URL``,
    else the embedded one of ``REFEREE_DATA_DIR`` while ``referee serve``
    runs it: never a new one, whose keys the service would not know)."""
    import dataclasses

    import redis

    from .storage.client import redis_client
    from .storage.client_keys import ClientKeys, NameTaken
    from .storage.embedded import running_embedded_redis

    try:
        settings = Settings.from_env()
        if not settings.redis_url:
            url = running_embedded_redis(settings.data_dir)
            if url is None:
                print(
                    "referee keys: no Redis: REDIS_URL is not set and no embedded Redis "
                    f"answers in {Path(settings.data_dir).resolve()} (REFEREE_DATA_DIR). Run "
                    "it where `referee serve` runs, while it runs, or set REDIS_URL to the "
                    "service's Redis.",
                    file=sys.stderr,
                )
                return 2
            settings = dataclasses.replace(settings, redis_url=url)
        keys = ClientKeys(redis_client(settings))
        if args.action == "create":
            try:
                key = keys.create(args.name, args.tables_per_minute, args.requests_per_second)
            except (ValueError, NameTaken) as error:
                print(f"referee: {error}", file=sys.stderr)
                return 2
            # The key on stdout alone (for a script to capture); it is shown only this once.
            print(key)
            print(
                f"client key {args.name!r} issued; send it as 'Referee-Client-Key: <key>'. "
                "It is shown only now: Redis keeps its SHA-256.",
                file=sys.stderr,
            )
        elif args.action == "list":
            for one in keys.all():
                tables = one.tables_per_minute or "default"
                requests = one.requests_per_second or "default"
                print(
                    f"{one.name}\ttables-per-minute={tables}\trequests-per-second={requests}"
                    f"\tcreated-ms={one.created_ms}"
                )
        elif not keys.revoke(args.name):
            print(f"referee: no client key named {args.name!r}", file=sys.stderr)
            return 1
        else:
            print(f"client key {args.name!r} revoked", file=sys.stderr)
    except (redis.RedisError, SettingsError, RuntimeError) as error:
        print(f"referee: cannot reach Redis: {error}", file=sys.stderr)
        return 2
    return 0


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
    from .games import game_of_variant

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

    from .games import game_of_variant

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

    from .games import GAMES, VARIANTS
    from .games.errors import RuleViolation

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


UNREADABLE = 5
"""``referee verify``/``replay``'s exit status for a record that could not
be read (the others are :data:`.games.replay.STATUSES`)."""

CHECK_EXIT = (
    "Exit status: 0 it matches; 1 it does not (each problem printed); 2 what was read is "
    "no round record; 3 a record of another version of the game's rules (only what "
    "needs no rules was checked: the commitment, the shuffle of each deck it states, the "
    "chain; not its starting deck, deal or moves: check it with the release it names); "
    "4 what the record holds matches, but moves are missing from it (a release that kept "
    "no record made them); 5 it could not "
    "be read (a file that cannot be opened, a URL that does not answer, or answers an "
    "error: the service's problem is printed, e.g. 409 round-not-over while the round "
    "is played)."
)


class Unreadable(Exception):
    """A record that could not be read: its source's own words."""


def _read_record(source: str) -> Any:
    """A round record from a file, ``-`` (stdin) or an ``http(s)://`` URL
    (``GET /v1/tables/{id}/rounds/{n}/record``); raises :class:`Unreadable`
    with the reason (the service's problem for an HTTP error) when it cannot
    be read, ``ValueError`` when it is not JSON."""
    import json
    import urllib.error
    import urllib.request

    if source == "-":
        return json.load(sys.stdin)
    if source.startswith(("http://", "https://")):
        try:
            with urllib.request.urlopen(source, timeout=30) as answer:  # noqa: S310 - the user's URL
                return json.load(answer)
        except urllib.error.HTTPError as refused:
            raise Unreadable(f"{source} answered {refused.code}: {_problem(refused)}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as failed:
            reason = getattr(failed, "reason", None) or failed
            raise Unreadable(f"cannot reach {source}: {reason}") from None
    try:
        return json.loads(Path(source).read_text())
    except OSError as failed:
        raise Unreadable(f"cannot read {source}: {failed.strerror or failed}") from None


def _problem(refused: Any) -> str:
    """An HTTP error's problem+json as ``code: detail`` (or its reason)."""
    import json

    try:
        problem = json.loads(refused.read() or b"{}")
    except (ValueError, OSError):
        problem = {}
    if isinstance(problem, dict) and problem.get("code"):
        return f"{problem['code']}: {problem.get('detail', '')}".rstrip(": ")
    return str(refused.reason)


def _check_record(args: argparse.Namespace) -> int:
    """``referee verify`` (the deal from its proof) and ``referee replay``
    (that and every move, and the result); what they check and their exit
    statuses are :mod:`.games.replay`'s (``STATUSES``: 0 it matches, 1 not
    (each problem printed), 2 no record, 3 another rules version, 4 moves
    missing from the record), and 5 (:data:`UNREADABLE`) for a record that
    could not be read (:data:`CHECK_EXIT`)."""
    from .games.replay import NOT_A_RECORD, replay, verify

    try:
        record = _read_record(args.record)
    except Unreadable as failed:
        print(f"referee {args.command}: {failed}", file=sys.stderr)
        return UNREADABLE
    except ValueError as bad:  # the text is no JSON
        print(f"referee {args.command}: not a round record: not JSON ({bad})", file=sys.stderr)
        return NOT_A_RECORD
    if not isinstance(record, dict):
        print(f"referee {args.command}: not a round record: not an object", file=sys.stderr)
        return NOT_A_RECORD
    try:
        report = (replay if args.command == "replay" else verify)(record)
    except KeyError as missing:
        print(
            f"referee {args.command}: not a round record: it has no member {missing.args[0]!r}",
            file=sys.stderr,
        )
        return NOT_A_RECORD
    except (ValueError, TypeError, AttributeError, IndexError) as bad:
        print(f"referee {args.command}: not a round record: {bad}", file=sys.stderr)
        return NOT_A_RECORD
    _noted(record, args.commitment, args.head or [], report)
    what = f"table {record.get('table_id')} round {record.get('round')} ({record.get('game')})"
    if report.ok:
        done = (
            f", {report.moves} moves replayed, result matches" if args.command == "replay" else ""
        )
        print(f"OK {what}: everything checked matches{done}")
    elif report.problems:
        print(f"MISMATCH {what}:")
        for problem in report.problems:
            print(f"- {problem}")
    elif report.other_rules:
        print(
            f"OTHER RULES {what}: {report.other_rules}. Only what needs no rules was checked "
            "and matches (the commitment, the shuffle of each deck it states, the chain of "
            "moves); its starting deck, deal and moves were not: check it with the release "
            "it names"
        )
    else:
        replayed = f"; {report.moves} moves replayed" if args.command == "replay" else ""
        print(f"INCOMPLETE {what}: what it holds matches{replayed}, but:")
        for gap in report.incomplete:
            print(f"- {gap}")
    _coverage(record, report, args.commitment, args.head or [])
    return report.status


def _noted(record: Any, commitment: str | None, heads: list[str], report: Any) -> None:
    """Add to ``report`` a problem for a ``commitment`` noted before the
    deal that is not the record's, and for each head noted during the
    round that is not a link of the record (RULES.md 5.2)."""
    proof = record.get("proof") if isinstance(record, dict) else None
    if not isinstance(proof, dict):
        return
    if commitment is not None and commitment.lower() != str(proof.get("commitment")):
        report.problems.append("the commitment you noted is not the record's")
    links = {str(proof.get("commitment"))} | {
        str(m.get("link")) for m in record.get("moves") or () if isinstance(m, dict)
    }
    for head in heads:
        if head.lower() not in links:
            report.problems.append(f"the head you noted, {head}, is no link of the record")


def _coverage(record: Any, report: Any, commitment: str | None, heads: list[str]) -> None:
    """Print what was checked and what not, in words (:data:`.games.record.CHECKS`)."""
    from .games.record import CHECKS

    moves = record.get("moves") if isinstance(record, dict) else None
    count = len(moves) if isinstance(moves, list) else 0
    if report.checked:
        print("Checked:")
    for name in report.checked:
        more = f" ({count} entries)" if name == "chain" else ""
        print(f"- {name}: {CHECKS[name]}{more}")
    if commitment is not None:
        print("- --commitment: the commitment you noted before the deal is the record's")
    if heads:
        print(f"- --head ({len(heads)}): each head you noted during the round is a link of it")
    print("Not checked:")
    for part in report.unchecked:
        print(f"- {part['check']}: {part['reason']}")
    if commitment is None:
        print(
            "- that the commitment is the one published before the deal (give it with --commitment)"
        )
    print(
        "- that the moves are the ones played: anyone can recompute every link once the "
        "secret is public, so the chain proves the moves only against heads noted while the "
        "round was played"
        + (
            ": give the ones you noted with --head"
            if not heads
            else " (only up to the last head you noted)"
        )
    )
    print(
        "- that the game, options, seats and dealer are the ones the table showed before the "
        "deal (the commitment binds the secret alone), and that your seed is in the proof's "
        "seeds: compare them yourself"
    )


def _worker(args: argparse.Namespace) -> int:
    """``referee worker``: run the deadline worker (``service.worker``)."""
    # Its metrics are its own (service.worker.metrics), never the files of the
    # gunicorn workers of a `referee serve` that started it.
    os.environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    from .config import Settings
    from .worker.run import Worker, healthy

    settings = Settings.from_env()
    if args.health:
        return 0 if healthy(settings) else 1
    from . import logs

    logs.configure()  # JSON lines, as `referee serve` writes them
    Worker(settings).run()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``referee`` console script."""
    parser = argparse.ArgumentParser(prog="referee", description="A rules referee for card games.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {release()}")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the HTTP service under gunicorn")
    serve.add_argument("--host", help="address to bind (default $HOST or 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port (default $PORT or 8000)")
    serve.add_argument(
        "--workers", type=int, help="worker processes (default $WEB_CONCURRENCY or 2)"
    )
    serve.add_argument(
        "--no-worker",
        action="store_true",
        help="do not start a child `referee worker` (run your own for bots and clocks)",
    )
    serve.add_argument(
        "--dev",
        action="store_true",
        help="for a front end in development on this machine: pages on localhost origins "
        "(any port) may call it, the per-address and per-token limits are lifted; "
        "loopback addresses only",
    )
    serve.set_defaults(func=_serve)
    spec = sub.add_parser("openapi", help="write the OpenAPI document")
    spec.add_argument("-o", "--output", default="openapi.yaml", help="file, or - for stdout")
    spec.set_defaults(func=_openapi)
    docs = sub.add_parser(
        "docs", help="rewrite the docs' lists of games, presets and codes from the registry"
    )
    docs.add_argument("folder", nargs="?", default="docs", help="the docs folder (docs)")
    docs.add_argument("--check", action="store_true", help="only report stale files")
    docs.set_defaults(func=_docs)
    keys = sub.add_parser(
        "keys",
        help="issue, list or revoke client keys (a front end's server's own quotas)",
        description="Client keys, in the service's Redis (REDIS_URL, else the embedded one). "
        "A key is sent as 'Referee-Client-Key'; its quotas replace the per-address limits.",
    )
    actions = keys.add_subparsers(dest="action", required=True)
    create = actions.add_parser("create", help="issue a key (printed once on stdout)")
    create.add_argument("name", help="the key's name: 1-40 of a-z 0-9 . _ -")
    create.add_argument(
        "--tables-per-minute",
        type=int,
        help="table creations (and joins) a minute (default CLIENT_KEY_TABLES_PER_MINUTE)",
    )
    create.add_argument(
        "--requests-per-second",
        type=int,
        help="requests a second (default CLIENT_KEY_REQUESTS_PER_SECOND)",
    )
    actions.add_parser("list", help="list the keys' names and quotas (never a key)")
    revoke = actions.add_parser("revoke", help="revoke a key at once, on every worker")
    revoke.add_argument("name")
    keys.set_defaults(func=_keys)
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
    for name, text, more in (
        (
            "verify",
            "check a round record's deal: commitment, seeds, deck order (RULES.md 5.2)",
            "Checks a finished round's record (GET /v1/tables/{id}/rounds/{n}/record) as a "
            "stranger can with the docs alone: the secret hashes to the commitment, the deal "
            "shuffles the starting deck the game and options give, the seats' seeds and the "
            "secret give the deck order, the order dealt is the deal, each rebuilt stock "
            "shuffles the discard pile the moves leave, every move's link, and every move "
            "run again from the deal (each accepted) to the recorded result. It prints what "
            "it checked and what it did not: the chain proves the moves only against the "
            "heads you noted during the round (--head), and the commitment only if you noted "
            "it (--commitment). docs/guide/deal-proofs.md says how.",
        ),
        (
            "replay",
            "re-run a round record through the game: the deal, every move, the result",
            "Does what `referee verify` does (which plays every move of the record again "
            "through the game's own rules and compares the result with the record's).",
        ),
    ):
        check = sub.add_parser(
            name,
            help=text,
            description=more,
            epilog=CHECK_EXIT,
        )
        check.add_argument(
            "record", help="a record file, - for stdin, or its URL (http:// or https://)"
        )
        check.add_argument(
            "--commitment",
            help="the commitment you noted before the deal (next_deal.commitment)",
        )
        check.add_argument(
            "--head",
            action="append",
            help="a head of the chain of moves you noted during the round (move_chain.head); "
            "repeat it for each",
        )
        check.set_defaults(func=_check_record)
    work = sub.add_parser(
        "worker",
        help="run the deadline worker: turn clocks, bots, what falls due (any number of copies)",
    )
    work.add_argument(
        "--health", action="store_true", help="exit 0 if a worker here is alive, else 1"
    )
    work.set_defaults(func=_worker)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
