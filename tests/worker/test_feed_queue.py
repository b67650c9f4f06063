"""The worker's feed: a table's commits that arrive faster than its pool
schedules them queue one run, not one per commit (a busy bot table grew the
pool's queue by 200 KB/s and made every other table's deadlines 30 s late)."""

from __future__ import annotations

import threading
from typing import Any

from service.worker.run import Worker

from ..conftest import RedisProcess, settings_for


def test_commits_of_one_table_queue_one_schedule(redis_server: RedisProcess) -> None:
    worker = Worker(settings_for(redis_server.url, worker_threads=2))
    release = threading.Event()
    runs: list[str] = []

    def schedule(table_id: str, force: bool = False) -> None:
        release.wait(10)
        runs.append(table_id)

    worker.schedule = schedule  # type: ignore[method-assign]
    # Both pool threads busy, then a burst of commits of two tables.
    for busy in ("busy-1", "busy-2"):
        worker.enqueue(busy)
    for _ in range(500):
        worker.enqueue("hot")
        worker.enqueue("other")
    assert worker._pool._work_queue.qsize() <= 2 + 2  # type: ignore[attr-defined]
    release.set()
    worker._pool.shutdown(wait=True)
    assert sorted(runs) == ["busy-1", "busy-2", "hot", "other"]
    # Once a run has begun, a new commit queues the table again.
    assert "hot" not in worker._queued


def test_a_far_deadline_is_sent_when_near_and_leaves_no_mark(
    redis_server: RedisProcess, redis_client: Any
) -> None:
    # A day's clock and moves made in seconds held a job and a sent mark per
    # step for a day (3,954 of each for one table, deleted long before).
    from service import create_app

    client = create_app(settings_for(redis_server.url)).test_client()
    sent: list[tuple[str, int, tuple[Any, ...]]] = []
    worker = Worker(settings_for(redis_server.url))

    def at(actor: Any, delay_ms: int, *args: Any) -> None:
        sent.append(("deadline" if actor is worker.jobs.deadline else "table", delay_ms, args))

    worker.jobs.at = at  # type: ignore[method-assign]  # what it sends, not a broker's queue
    for timeout in (86_400_000, 30_000):
        body = {"variant": "sevens", "players": ["A", "B", "C", "D"], "first_dealer": 0,
                "options": {"turn_timeout_ms": timeout}}  # fmt: skip
        made = client.post("/v1/tables", json=body).get_json()
        host = {"Authorization": f"Bearer {made['host_token']}"}
        dealt = client.post(f"/v1/tables/{made['table_id']}/rounds", json={}, headers=host)
        assert dealt.status_code == 201
        sent.clear()
        worker.schedule(made["table_id"])
        worker.schedule(made["table_id"])  # again: nothing more
        marks = list(redis_client.scan_iter(match=f"referee:{{{made['table_id']}}}:sent:*"))
        if timeout > 60_000:
            assert sent == [("table", 60_000, (made["table_id"],))]
            assert marks == []
        else:
            assert [(kind, args[0]) for kind, _, args in sent] == [("deadline", made["table_id"])]
            assert 25_000 < sent[0][1] <= 30_000
            assert len(marks) == 1 and 0 < redis_client.pttl(marks[0]) <= 35_000
    worker._pool.shutdown(wait=False)
