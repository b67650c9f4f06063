"""benchmarks/game_moves.py against a real service (gunicorn, Redis): Sevens
turns and May I? moves are played and counted; the client's mirror of a May
I? table follows the service's hidden reshuffles. No speed is asserted here:
the figures belong to ``python -m benchmarks.game_moves``."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from benchmarks.game_moves import Disagree, fix_hand, measure
from benchmarks.processes import Gunicorn, gunicorn_env
from benchmarks.redis_cost import ONE_ADDRESS_ENV
from service.games.may_i import engine

from .conftest import RedisProcess, Served


def test_sevens_turns_are_played_and_counted(served: Served) -> None:
    found = measure(served.base, "sevens", 4, 2, 1.5, warmup=0.0)
    assert found["errors"] == {}
    assert set(found["moves_by_kind"]) == {"turn"}
    assert found["moves"] == found["moves_by_kind"]["turn"] > 0
    assert found["moves_per_s"] == round(found["moves"] / 1.5, 1)
    assert found["p50_ms"] <= found["p99_ms"]
    assert not [n for n in found["notes"] if "answered" in n or "differs" in n]


def test_may_i_moves_are_played_and_counted(served: Served) -> None:
    found = measure(served.base, "may-i", 4, 3, 2.0, warmup=0.0, window_ms=300)
    # A May I? request or answer may reach the service after its window: 409.
    assert set(found["errors"]) <= {"ask 409 may-i-closed", "answer 409 may-i-closed"}
    assert found["moves_by_kind"]["move"] > 0
    assert found["moves"] == sum(found["moves_by_kind"].values())
    assert not [n for n in found["notes"] if "answered" in n or "differs" in n]


@pytest.fixture(scope="module")
def streaming(redis_server: RedisProcess, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The service with streams that last (``served``'s end at once)."""
    env = gunicorn_env({**ONE_ADDRESS_ENV, "REDIS_URL": redis_server.url})
    app = Gunicorn("service.wsgi:app", env, tmp_path_factory.mktemp("g") / "s.log", "/readyz")
    yield app.start()
    app.stop()


@pytest.mark.parametrize("game", ["sevens", "may-i"])
def test_turns_are_read_from_the_seat_streams(streaming: Any, game: str) -> None:
    """With streams, every seat follows its seat stream and moves once it
    shows its turn: no seat view is read, every move waited for its frame
    (a missing one is a note), and the requests are the moves and deals."""
    found = measure(streaming.base, game, 4, 2, 3.0, warmup=0.0, window_ms=300, streams=True)
    assert "no seat frame on the stream in time" not in found["notes"], found["notes"]
    assert not [n for n in found["notes"] if "answered" in n or "differs" in n]
    requests = found["requests_whole_run"]
    assert requests["stream"] == 4 * requests["create"] and requests["deal"] >= 1
    assert set(requests) - {"create", "stream", "deal", "ask", "answer"} == {
        "turn" if game == "sevens" else "move"
    }
    assert found["moves_whole_run"] >= found["moves"] > 0


def test_measure_refuses_an_unknown_game() -> None:
    with pytest.raises(ValueError, match="sevens, may-i"):
        measure("http://127.0.0.1:1", "chess", 4, 1, 0.1)


def test_the_mirror_takes_the_services_card_after_a_reshuffle() -> None:
    names = ["A", "B", "C"]
    table = engine.create_table("may-i", {}, names, 0, random.Random(1)).table
    table = engine.start_round(table, random.Random(2), 0, {}).table
    rnd = table.round
    assert rnd is not None
    hand = list(rnd.hands[1])
    swapped = [*hand[:-1], rnd.stock[0]]  # the service drew another card than the mirror
    with pytest.raises(Disagree):
        fix_hand(table, 1, swapped)  # no reshuffle yet: the mirror is simply wrong
    reshuffled = replace(table, round=replace(rnd, reshuffles=1))
    fixed = fix_hand(reshuffled, 1, swapped)
    after = fixed.round
    assert after is not None
    assert sorted(after.hands[1]) == sorted(swapped)
    assert after.stock[0] == hand[-1] and after.stock[1:] == rnd.stock[1:]
    assert fix_hand(reshuffled, 1, hand) is reshuffled
