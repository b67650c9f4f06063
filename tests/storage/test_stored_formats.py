"""The stored-format contract (issue 21, deploy/README "Upgrading"): what a
newer release stored is answered 503 with ``Retry-After`` and left exactly
as it was, never a 500 and never folded into the wrong step; fields a newer
release adds survive every write; ``STORED_FORMAT`` picks the formats a
release writes (shown with a Sevens format 3 that only this test knows)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
import redis

from service import create_app
from service.games import GAMES, VARIANTS, codec
from service.games.errors import StoredFormatNewer
from service.games.sevens import codec as sevens_codec
from service.storage import store as store_module
from service.storage.store import TABLE_LAYOUT, choices_key, events_key, table_key

from ..conftest import RedisProcess, settings_for
from ..helpers import WORKED_HANDS, Table, TableClient, bearer, snapshot


def problem(answer: Any, code: str) -> None:
    assert answer.status_code == 503, answer.get_json()
    assert answer.content_type == "application/problem+json"
    assert answer.get_json()["code"] == code
    assert answer.headers["Retry-After"] == "2"


@pytest.fixture()
def dealt(tables: TableClient) -> Table:
    t = tables.create(4, "mein-schiff")
    assert tables.deal(t, WORKED_HANDS).status_code == 201
    return t


def newer_state(r: redis.Redis, t: Table) -> None:
    state = json.loads(r.hget(table_key(t.table_id), "s"))
    state["fmt"] += 1
    r.hset(table_key(t.table_id), "s", json.dumps(state))


def test_a_newer_state_format_is_503_and_writes_nothing(
    tables: TableClient, dealt: Table, redis_client: redis.Redis
) -> None:
    tables.pass_(dealt, 1, 1, 0, ["4S"])
    newer_state(redis_client, dealt)
    before = snapshot(redis_client, dealt)
    c = tables.client
    problem(c.get(dealt.url), "stored-format-newer")
    problem(c.get(f"{dealt.url}/seats/1", headers=bearer(dealt.seats[1])), "stored-format-newer")
    problem(tables.pass_(dealt, 1, 1, 1, ["9C"]), "stored-format-newer")
    problem(tables.claim(dealt, 1, 0), "stored-format-newer")
    problem(c.get(f"{dealt.url}/events?after=0"), "stored-format-newer")
    assert snapshot(redis_client, dealt) == before


def test_a_newer_table_layout_or_event_code_is_503(
    tables: TableClient, dealt: Table, redis_client: redis.Redis
) -> None:
    key = table_key(dealt.table_id)
    redis_client.hset(key, "f", TABLE_LAYOUT + 1)
    before = snapshot(redis_client, dealt)
    problem(tables.client.get(dealt.url), "stored-format-newer")
    problem(tables.pass_(dealt, 1, 1, 0, ["4S"]), "stored-format-newer")
    assert snapshot(redis_client, dealt) == before
    redis_client.hdel(key, "f")
    redis_client.rpush(events_key(dealt.table_id), json.dumps([9999, 0, "x"]))
    redis_client.hincrby(key, "n", 1)
    problem(tables.client.get(f"{dealt.url}/events?after=0"), "stored-format-newer")


def test_the_scripts_never_write_over_a_newer_layout(
    app: Any, tables: TableClient, dealt: Table, redis_client: redis.Redis
) -> None:
    """A newer release writes the table between this release's read and its
    commit: ``commit.lua`` and ``choose.lua`` refuse it (the version check
    alone would not see a layout raised without a move)."""
    store = app.extensions["referee"].store
    key = table_key(dealt.table_id)

    def raise_layout(loaded: Any, move: Any) -> Any:
        redis_client.hset(key, "f", TABLE_LAYOUT + 1)
        return move(loaded)

    for body in (
        lambda: tables.pass_(dealt, 1, 1, 0, ["4S"]),  # choose.lua
        lambda: tables.claim(dealt, 1, 0),  # commit.lua (a refusal that records events)
    ):
        redis_client.hdel(key, "f")
        original = store.apply

        def apply(
            table_id: str, move: Any, *args: Any, original: Any = original, **kwargs: Any
        ) -> Any:
            return original(table_id, lambda loaded: raise_layout(loaded, move), *args, **kwargs)

        store.apply = apply
        try:
            before = snapshot(redis_client, dealt)
            answer = body()
        finally:
            store.apply = original
        problem(answer, "stored-format-newer")
        after = snapshot(redis_client, dealt)
        table_fields = dict(after.pop(key)[0])
        assert table_fields.pop(b"f") == str(TABLE_LAYOUT + 1).encode()
        assert sorted(table_fields.items()) == before.pop(key)[0]
        assert after == before


def test_choices_of_another_step_are_503_never_folded(
    tables: TableClient, dealt: Table, redis_client: redis.Redis
) -> None:
    """An older release resolved the exchange without the passes a newer one
    recorded (the state moved on, ``k`` and the choices did not): reading
    them as the new exchange's would play stale passes."""
    assert tables.pass_(dealt, 1, 1, 0, ["4S"]).status_code == 200
    key = table_key(dealt.table_id)
    redis_client.hset(key, "k", "1:9")  # the choices' step is not the state's
    before = snapshot(redis_client, dealt)
    problem(tables.client.get(dealt.url), "step-mismatch")
    problem(tables.pass_(dealt, 1, 1, 1, ["9C"]), "step-mismatch")
    assert snapshot(redis_client, dealt) == before
    # Choices kept for a state with no step at all.
    t = tables.create(4)
    redis_client.hset(choices_key(t.table_id), "0", "4S")
    problem(tables.client.get(t.url), "step-mismatch")


def test_fields_a_newer_release_adds_survive_every_write(
    tables: TableClient, redis_client: redis.Redis
) -> None:
    t = tables.create(4, "mein-schiff")
    key = table_key(t.table_id)
    redis_client.hset(key, mapping={"zz": "kept", "presence": "{}"})
    assert tables.deal(t, WORKED_HANDS).status_code == 201
    for seat, card in enumerate(["4S", "9C", "8D", "9H"]):
        assert tables.pass_(t, 1, 1, seat, [card]).status_code == 200
    assert tables.claim(t, 1, 0).status_code == 422  # a refusal that records an event
    assert redis_client.hget(key, "zz") == b"kept"
    assert redis_client.hget(key, "presence") == b"{}"
    assert tables.public(t)["round"]["exchange"] == 2


def test_the_scripts_know_this_releases_layout() -> None:
    from importlib import resources

    lua = resources.files(store_module.__package__).joinpath("lua")
    for name in ("commit.lua", "choose.lua"):
        assert f"local LAYOUT = {TABLE_LAYOUT}\n" in lua.joinpath(name).read_text()


# --- STORED_FORMAT, with a Sevens format 3 that adds a member ---------------------------


@pytest.fixture()
def sevens_fmt3(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """A "next release" of Sevens: format 3 is format 2 with a member ``x``;
    it reads both, and its down-writer gives the previous release's format 2."""
    game = GAMES["sevens"]

    def encode3(table: Any) -> str:
        data = json.loads(game.encode(table))
        return json.dumps({**data, "fmt": 3, "x": 1}, separators=(",", ":"))

    def decode3(text: str | bytes) -> Any:
        data = json.loads(text)
        if data.get("fmt") == 3:
            assert data.pop("x") == 1
            data["fmt"] = 2
        return game.decode(json.dumps(data, separators=(",", ":")))

    newer = replace(game, encode=encode3, decode=decode3)
    monkeypatch.setitem(GAMES, "sevens", newer)
    for name in game.presets:
        monkeypatch.setitem(VARIANTS, name, (newer, VARIANTS[name][1]))
    monkeypatch.setitem(
        codec.DOWN, "sevens", lambda d: {k: v for k, v in d.items() if k != "x"} | {"fmt": 2}
    )
    # The texts this "release" encodes are its own to decode (codec._encoded).
    monkeypatch.setattr(codec, "_encoded", {})
    yield monkeypatch


def stored_fmt(r: redis.Redis, t: Table) -> int:
    return int(json.loads(r.hget(table_key(t.table_id), "s"))["fmt"])


def test_stored_format_previous_writes_what_the_previous_release_reads(
    redis_server: RedisProcess, redis_client: redis.Redis, sevens_fmt3: pytest.MonkeyPatch
) -> None:
    expand = TableClient(create_app(settings_for(redis_server.url)).test_client())
    contract = TableClient(
        create_app(settings_for(redis_server.url, stored_format="current")).test_client()
    )
    t = expand.create(4, "sevens")
    assert expand.deal(t).status_code == 201
    assert stored_fmt(redis_client, t) == 2  # the default: the previous release's format
    assert sevens_codec.FORMAT == 2
    # Both read either format, and the contract step writes the new one.
    assert contract.deal(t).status_code == 409  # a round is in play: nothing written
    assert stored_fmt(redis_client, t) == 2
    assert contract.client.post(f"{t.url}/finish", headers=bearer(t.host)).status_code == 200
    assert stored_fmt(redis_client, t) == 3
    assert expand.public(t)["match"]["status"] == "abandoned"
    # The previous release (the unpatched codec) refuses format 3: 503, not 500.
    sevens_fmt3.undo()
    with pytest.raises(StoredFormatNewer):
        codec.decode(redis_client.hget(table_key(t.table_id), "s"))
    old = TableClient(create_app(settings_for(redis_server.url)).test_client())
    problem(old.client.get(t.url), "stored-format-newer")


def test_a_stored_format_setting_is_checked() -> None:
    from service.config import Settings, SettingsError

    with pytest.raises(SettingsError, match="STORED_FORMAT='newest'"):
        Settings(stored_format="newest")
    assert Settings.from_env({"STORED_FORMAT": "current"}).stored_format == "current"
    assert Settings().stored_format == "previous"
