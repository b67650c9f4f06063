"""A failover drill: the tables played while the primary is failed over,
and each failover's figures from the moves' answers and ``/readyz``."""

from __future__ import annotations

import http.client
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .players import GAMES, Log, Player
from .sentinels import RedisSet


@dataclass
class Failover:
    """One failover: its kind, when it began (monotonic s), when every
    Sentinel named the new primary and when every table had a move
    acknowledged again; then the figures of the module docstring."""

    kind: str
    began: float
    switched: float
    back: float
    refused_s: float = 0.0
    unready_s: float = 0.0
    ready_while_refused_s: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "switched_after_s": round(self.switched - self.began, 2),
            "back_after_s": round(self.back - self.began, 2),
            "refused_s": round(self.refused_s, 2),
            "unready_s": round(self.unready_s, 2),
            "ready_while_refused_s": round(self.ready_while_refused_s, 2),
        }


def _union(spans: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def _length(spans: list[tuple[float, float]]) -> float:
    return sum(end - start for start, end in spans)


def _overlap(a: list[tuple[float, float]], b: list[tuple[float, float]]) -> float:
    total = 0.0
    for s1, e1 in a:
        for s2, e2 in b:
            total += max(0.0, min(e1, e2) - max(s1, s2))
    return total


def figures_of(failover: Failover, log: Log, until: float) -> None:
    """Fill ``failover``'s figures from ``log``, over ``[began, until]``."""
    start = failover.began
    with log.lock:
        moves = list(log.moves)
        ready = list(log.ready)
    refused = _union(
        [(s, e) for s, e, status in moves if status in (0, 503) and start <= e <= until]
    )
    # Between two reads that agree, /readyz said so; a change between
    # two reads is counted on neither side (it came somewhere between).
    unready: list[tuple[float, float]] = []
    green: list[tuple[float, float]] = []
    for (t1, first), (t2, second) in zip(ready, ready[1:], strict=False):
        if t2 < start or t1 > until or (first == 200) != (second == 200):
            continue
        (green if first == 200 else unready).append((max(t1, start), min(t2, until)))
    failover.refused_s = _length(refused)
    failover.unready_s = _length(_union(unready))
    failover.ready_while_refused_s = _overlap(refused, _union(green))


@dataclass
class Drill:
    """What :func:`drill` found: the failovers, the moves acknowledged, the
    acknowledged moves lost, and the tables that had a move acknowledged
    after the last failover."""

    failovers: list[Failover]
    acknowledged: int
    lost: int
    played_on: int
    statuses: dict[int, int]
    lost_moves: dict[str, list[tuple[int, int, int]]] = field(default_factory=dict)
    """The first lost moves of each table that lost some: (round, step, seat)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "failovers": [f.to_json() for f in self.failovers],
            "acknowledged": self.acknowledged,
            "lost": self.lost,
            "tables": len(GAMES),
            "played_on": self.played_on,
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "lost_moves": self.lost_moves,
        }


def _read_ready(base: str, log: Log, stop: threading.Event) -> None:
    host, _, port = base.removeprefix("http://").partition(":")
    while not stop.is_set():
        at = time.monotonic()
        connection = http.client.HTTPConnection(host, int(port), timeout=2)
        try:
            connection.request("GET", "/readyz")
            answer = connection.getresponse()
            answer.read()
            status = answer.status
        except (OSError, http.client.HTTPException):
            status = 0
        finally:
            connection.close()
        with log.lock:
            log.ready.append((at, status))
        stop.wait(0.05)


def _until(what: Callable[[], bool], timeout: float, why: str) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        if time.monotonic() > deadline:
            raise RuntimeError(why)
        time.sleep(0.05)


def drill(
    redis_set: RedisSet,
    base: str,
    kind: str,
    times: int = 2,
    play_s: float = 3.0,
    seed: int = 0,
    on_failover: Callable[[int], None] = lambda n: None,
) -> Drill:
    """Six tables played on ``base`` while the primary is failed over
    ``times`` times (``kind``: ``"manual"``, ``SENTINEL FAILOVER``; ``"kill"``,
    SIGKILL and restart), each after ``play_s`` of play; see the module."""
    log = Log()
    players = [Player(game, base, random.Random(seed + i), log) for i, game in enumerate(GAMES)]
    for p in players:
        p.create()
    stop, reading = threading.Event(), threading.Event()
    threads = [threading.Thread(target=p.play, args=(stop,), daemon=True) for p in players]
    reader = threading.Thread(target=_read_ready, args=(base, log, reading), daemon=True)
    failovers: list[Failover] = []
    try:
        reader.start()
        for t in threads:
            t.start()
        for n in range(times):
            time.sleep(play_s)
            began = time.monotonic()
            before = redis_set.failover() if kind == "manual" else redis_set.kill_primary()
            on_failover(n)
            redis_set.wait_switched(before)
            switched = time.monotonic()
            counts = [p.answered for p in players]
            if kind == "kill":
                redis_set.restart(before)

            def played(counts: list[int] = counts) -> bool:
                if any(getattr(p, "error", None) is not None for p in players):
                    raise RuntimeError(
                        f"a player failed: {[p.__dict__.get('error') for p in players]}"
                    )
                return all(p.answered > c for p, c in zip(players, counts, strict=True))

            _until(played, 60, "the tables did not play on after the failover")
            failovers.append(Failover(kind, began, switched, time.monotonic()))
            redis_set.wait_replicas(2, 60)
        time.sleep(play_s)
        counts = [p.answered for p in players]
        _until(
            lambda: all(p.answered > c for p, c in zip(players, counts, strict=True)),
            60,
            "the tables stopped playing",
        )
    finally:
        stop.set()
        for t in threads:
            t.join(60)
        reading.set()
        reader.join(10)
    for i, failover in enumerate(failovers):
        following = failovers[i + 1].began if i + 1 < len(failovers) else time.monotonic()
        figures_of(failover, log, following)
    for p in players:
        if p.error is not None:
            raise RuntimeError(f"a {p.game} player failed") from p.error
        p.check()
        p.http.close()
    statuses: dict[int, int] = {}
    for _, _, status in log.moves:
        statuses[status] = statuses.get(status, 0) + 1
    return Drill(
        failovers,
        sum(p.answered for p in players),
        sum(len(p.lost) for p in players),
        sum(p.answered > 0 for p in players),
        statuses,
        {f"{i}:{p.game}": sorted(p.lost)[:10] for i, p in enumerate(players) if p.lost},
    )
