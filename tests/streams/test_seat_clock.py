"""A seat's own stream carries its deadline and ``away`` (RULES.md 5.3,
issue 41), in every game: a page shows its countdown, and that its seat
timed out, without reading the table again. A real gunicorn serves the
stream; the default move is made as the worker makes it, in process, on
the same Redis (tests/api/test_seat_back.py's ``time_out``)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from service import create_app

from ..api.test_seat_back import time_out
from ..conftest import RedisProcess, Served, settings_for
from ..helpers import TableClient, bearer
from .sse import HttpClient, Reader


@pytest.fixture(scope="module")
def served(
    redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    service = Served(redis_server.url, tmp_path_factory.mktemp("seat-clock"))
    yield service
    service.stop()


@pytest.mark.parametrize("variant", ["mein-schiff", "sevens", "may-i"])
def test_a_seat_stream_carries_its_deadline_and_away(
    served: Served, redis_server: RedisProcess, variant: str
) -> None:
    tables = TableClient(HttpClient(served.base))
    t = tables.create(4, variant=variant, turn_timeout_ms=300, away_timeout_ms=60_000)
    assert tables.deal(t).status_code == 201
    view = tables.public(t)
    seat = view["awaiting"]["seats"][0]
    reader = Reader(f"{served.base}{t.url}/seats/{seat}/stream", **bearer(t.seats[seat]))
    try:
        first = reader.until("seat")[-1].data
        assert first["until_ms"] == view["seats"][seat]["until_ms"] is not None
        assert first["away"] is False
        time_out(create_app(settings_for(redis_server.url)), tables, t, seat)
        frame: Any = first
        while not frame["away"]:
            frame = reader.until("seat")[-1].data
        assert frame["until_ms"] == tables.public(t)["seats"][seat]["until_ms"]
    finally:
        reader.close()
