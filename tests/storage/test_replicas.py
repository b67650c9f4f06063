"""Replica-acknowledged moves (``REDIS_WAIT_REPLICAS``) on a real primary
and its replica: a move is answered once the replica holds it; a replica
that does not confirm in time makes it 503 ``replicas-behind``, and its
retry with the same Idempotency-Key is answered from its record (the move
made once), only once the replica holds that too."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from service import create_app
from service.config import Settings, SettingsError
from service.storage.store import choices_key, table_key

from ..conftest import RedisProcess, settings_for
from ..helpers import WORKED_HANDS, TableClient


def replica_of(primary: RedisProcess, folder: Path) -> RedisProcess:
    replica = RedisProcess(folder, "--replicaof", "127.0.0.1", str(primary.port)).start()
    r = redis.Redis(port=replica.port)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if r.info("replication")["master_link_status"] == "up":
            return replica
        time.sleep(0.025)
    replica.stop()
    raise RuntimeError("the replica did not catch up in 30 s")


@pytest.fixture()
def pair(tmp_path: Path) -> Iterator[tuple[RedisProcess, RedisProcess]]:
    with RedisProcess(tmp_path / "primary") as primary:
        replica = replica_of(primary, tmp_path / "replica")
        try:
            yield primary, replica
        finally:
            if replica.proc is not None:  # a test may have stopped it (SIGSTOP)
                os.kill(replica.proc.pid, signal.SIGCONT)
            replica.stop()


def test_a_move_waits_for_the_replica_and_its_retry_answers_from_its_record(
    pair: tuple[RedisProcess, RedisProcess],
) -> None:
    primary, replica = pair
    # A second for a healthy replica to confirm (300 ms was too short for one
    # starved of CPU by the suite on a slow machine); each refusal waits it out.
    settings = settings_for(
        primary.url, redis_wait_replicas=1, redis_wait_timeout_ms=1000, redis_timeout_seconds=3
    )
    app = create_app(settings)
    tables = TableClient(app.test_client())
    on_replica = redis.Redis(port=replica.port)
    t = tables.create(4, "mein-schiff")
    assert tables.deal(t, WORKED_HANDS).status_code == 201
    assert tables.pass_(t, 1, 1, 0, ["4S"]).status_code == 200
    # Acknowledged: the replica holds it already (WAIT confirmed it).
    assert on_replica.hget(choices_key(t.table_id), "0") == b"4S"

    os.kill(replica.proc.pid, signal.SIGSTOP)  # type: ignore[union-attr]
    # A pass (a PUT: its repeat is its retry).
    first = tables.pass_(t, 1, 1, 1, ["9C"])
    assert first.status_code == 503, first.get_json()
    assert first.get_json()["code"] == "replicas-behind"
    assert first.headers["Retry-After"] == "2"
    on_primary = redis.Redis(port=primary.port)
    assert on_primary.hget(choices_key(t.table_id), "1") == b"9C"  # made, not acknowledged
    count = on_primary.hget(table_key(t.table_id), "n")
    # The retry finds the pass made, but the frozen replica does not hold it yet.
    again = tables.pass_(t, 1, 1, 1, ["9C"])
    assert again.status_code == 503 and again.get_json()["code"] == "replicas-behind"
    # A creation with an Idempotency-Key: recorded with the table, not acknowledged.
    body = {"variant": "sevens", "players": ["A", "B", "C"], "first_dealer": 0}
    key = {"Idempotency-Key": "replicas-behind-creation-1"}
    created = tables.client.post("/v1/tables", json=body, headers=key)
    assert created.status_code == 503 and created.get_json()["code"] == "replicas-behind"
    retried = tables.client.post("/v1/tables", json=body, headers=key)
    assert retried.status_code == 503 and retried.get_json()["code"] == "replicas-behind"
    assert len(on_primary.keys("referee:{*}:table")) == 2

    os.kill(replica.proc.pid, signal.SIGCONT)  # type: ignore[union-attr]
    last = tables.pass_(t, 1, 1, 1, ["9C"])
    assert last.status_code == 200, last.get_json()
    assert last.get_json()["seat"] == 1 and last.get_json()["waiting_for"] == [2, 3]
    assert on_primary.hget(table_key(t.table_id), "n") == count  # nothing done twice
    assert on_replica.hget(choices_key(t.table_id), "1") == b"9C"
    replayed = tables.client.post("/v1/tables", json=body, headers=key)
    assert replayed.status_code == 201, replayed.get_json()
    assert replayed.headers["Idempotent-Replayed"] == "true"
    assert len(on_primary.keys("referee:{*}:table")) == 2  # made once
    assert on_replica.exists(table_key(replayed.get_json()["table_id"]))


def test_a_wait_as_long_as_the_connections_timeout_is_refused_at_start() -> None:
    # It would end every unconfirmed move as redis-unavailable (the socket's
    # timeout), not replicas-behind: a retry would not know the move was made.
    with pytest.raises(SettingsError) as refused:
        Settings(redis_wait_replicas=1, redis_wait_timeout_ms=1000, redis_timeout_seconds=1.0)
    assert str(refused.value) == (
        "REDIS_WAIT_TIMEOUT_MS=1000 is not below REDIS_TIMEOUT_SECONDS=1 (in ms): a WAIT that "
        "long outlasts the connection's timeout. Lower it, or raise REDIS_TIMEOUT_SECONDS."
    )
    Settings(redis_wait_replicas=1, redis_wait_timeout_ms=999, redis_timeout_seconds=1.0)
    Settings(redis_wait_replicas=0, redis_wait_timeout_ms=5000, redis_timeout_seconds=1.0)


def test_without_replica_acknowledgement_a_frozen_replica_changes_nothing(
    pair: tuple[RedisProcess, RedisProcess],
) -> None:
    primary, replica = pair
    tables = TableClient(create_app(settings_for(primary.url)).test_client())
    t = tables.create(4, "mein-schiff")
    os.kill(replica.proc.pid, signal.SIGSTOP)  # type: ignore[union-attr]
    assert tables.deal(t, WORKED_HANDS).status_code == 201
    assert tables.pass_(t, 1, 1, 0, ["4S"]).status_code == 200
