"""Host powers show no card, and the lobby cannot be blanked (RULES.md 5.1,
5.6; issue 39), through a real gunicorn with two workers, its own real
Redis (the lobby's keys are global) and a real ``referee worker``."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import requests

from service.storage.lobby import lobby_key
from tests.conftest import RedisProcess, Served
from tests.helpers import Table, bearer, cards_in, snapshot

pytestmark = pytest.mark.timeout(240)

VARIANT = "sevens-penalty"
"""The preset of the lobby test's tables (the lobby's index is one set per preset)."""
PRESENCE_SECONDS = 1.0
"""A seat is ``connected`` this long after its last request (RULES.md 5.5)."""


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("host-powers")
    server = RedisProcess(folder / "redis").start()
    try:
        served = Served(server.url, folder, worker=True, PRESENCE_SECONDS=str(PRESENCE_SECONDS))
    except BaseException:
        server.stop()
        raise
    try:
        yield {"base": served.base, "redis": redis.Redis.from_url(server.url)}
    finally:
        served.stop()
        server.stop()


def _post(base: str, path: str, body: Any = None, token: str | None = None) -> requests.Response:
    headers = bearer(token) if token else {}
    return requests.post(f"{base}{path}", json=body, headers=headers, timeout=10)


def _created(base: str, **body: Any) -> dict[str, Any]:
    r = _post(base, "/v1/tables", {"first_dealer": 0, **body})
    assert r.status_code == 201, r.text
    return dict(r.json())


def _problem(r: requests.Response, status: int, code: str) -> None:
    assert (r.status_code, r.headers["Content-Type"]) == (status, "application/problem+json")
    assert r.json()["code"] == code, r.text


@pytest.mark.parametrize("variant", ["classic", "sevens", "may-i"])
def test_a_host_cannot_read_a_seats_cards_mid_round(stack: dict[str, Any], variant: str) -> None:
    """The peeks of issue 39, each refused with a code and nothing changed:
    a bot's seat taken back is played by default moves and no code seats
    anyone in it; a bot's token is never reissued; a connected person's
    token is not reissued while the round is in play; a lost phone's is,
    and the public view marks the seat ``reissued``."""
    base, r_client = stack["base"], stack["redis"]
    bots = {"bot": "basic"}
    created = _created(
        base,
        variant=variant,
        players=["Ann", bots, bots, bots],
        listed=True,
        # The bots wait a minute: the round stays in play while the test runs.
        options={"bot_delay_ms": 60_000},
    )
    tid, host = created["table_id"], created["host_token"]
    ann = created["seat_tokens"][0]["token"]
    table = f"/v1/tables/{tid}"
    dealt = _post(base, f"{table}/rounds", token=host)
    assert dealt.status_code == 201, dealt.text

    # The host takes bot seat 1 back mid-round: allowed, the seat is open and
    # the referee plays it by default moves until the round ends.
    back = requests.delete(f"{base}{table}/seats/1/bot", headers=bearer(host), timeout=10)
    assert back.status_code == 200, back.text
    assert (back.json()["seats"][1]["open"], back.json()["seats"][1]["bot"]) == (True, None)
    code = _post(base, f"{table}/codes", {"seat": 1}, token=host)
    assert code.status_code == 201, code.text
    held = Table(tid, host, [], created)
    before = snapshot(r_client, held)
    # ...but no code seats anyone in a dealt seat, nor does the lobby's open seat.
    for body in ({"name": "Mallory", "code": code.json()["code"]}, {"name": "Mallory"}):
        joined = _post(base, f"{table}/join", body)
        _problem(joined, 409, "seat-in-play")
        assert cards_in(joined.json()) == set()
    # A person cannot take the bot's own name either (RULES.md 5.1).
    for name in ("Bot 2 (basic)", "bot 2", "Bοt 2 (basic)"):  # the last with a Greek omicron
        _problem(_post(base, f"{table}/join", {"name": name, "code": code.json()["code"]}),
                 422, "invalid-request")  # fmt: skip
    # A bot's seat has no person's token to reissue (it would read its hand).
    _problem(_post(base, f"{table}/seats/2/token", token=host), 409, "seat-is-bot")
    # Ann is connected (her request just now): her token stays hers.
    assert requests.get(f"{base}{table}/seats/0", headers=bearer(ann), timeout=10).ok
    _problem(_post(base, f"{table}/seats/0/token", token=host), 409, "seat-connected")
    assert snapshot(r_client, held) == before  # every refusal left Redis as it was

    # Ann's phone is lost (no request of hers since): the host may reissue, in the open.
    # (Not seen for the window and a third more: the throttle's slack.)
    time.sleep(PRESENCE_SECONDS * 4 / 3 + 0.2)
    reissued = _post(base, f"{table}/seats/0/token", token=host)
    assert reissued.status_code == 201, reissued.text
    shown = [s["reissued"] for s in reissued.json()["table"]["seats"]]
    assert shown == [True, False, False, False]
    view = requests.get(f"{base}{table}", timeout=10).json()
    assert [s["reissued"] for s in view["seats"]] == [True, False, False, False]
    events = requests.get(f"{base}{table}/events", timeout=10).json()["events"]
    assert [(e["type"], e["seat"]) for e in events if e["type"] == "token-reissued"] == [
        ("token-reissued", 0)
    ]
    old = requests.get(f"{base}{table}/seats/0", headers=bearer(ann), timeout=10)
    assert old.status_code == 401


def test_a_seat_taken_back_mid_round_is_played_by_default_moves(stack: dict[str, Any]) -> None:
    """Without a turn clock too: its deadline is ``away_timeout_ms`` after
    its step opened (a table whose taken-back seat nobody may join must not
    stall until the round ends)."""
    base = stack["base"]
    bots = {"bot": "basic"}
    created = _created(
        base,
        variant="classic",
        players=["Ann", bots, bots, bots],
        options={"bot_delay_ms": 60_000, "away_timeout_ms": 300},
    )
    tid, host = created["table_id"], created["host_token"]
    assert _post(base, f"/v1/tables/{tid}/rounds", token=host).status_code == 201
    back = requests.delete(f"{base}/v1/tables/{tid}/seats/2/bot", headers=bearer(host), timeout=10)
    assert back.status_code == 200, back.text
    assert back.json()["seats"][2]["until_ms"] is not None

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        events = requests.get(f"{base}/v1/tables/{tid}/events", timeout=10).json()["events"]
        chosen = [e for e in events if e["type"] == "pass-chosen" and e["seat"] == 2]
        if chosen:
            break
        time.sleep(0.1)
    assert [e["exchange"] for e in chosen] == [1]


def _lobby(base: str, **query: Any) -> dict[str, Any]:
    r = requests.get(f"{base}/v1/lobby", params=query, timeout=10)
    assert r.status_code == 200, r.text
    return dict(r.json())


def test_ended_and_full_tables_do_not_blank_the_lobby(stack: dict[str, Any]) -> None:
    """Issue 39: 63 ended listed tables made the first page `tables: []`,
    `more: true`. Every change of a listed table's seats or match keeps the
    index right, and a read removes what a lost update left behind."""
    base, r_client = stack["base"], stack["redis"]
    # A preset of its own: the other tests' listed tables are not this one's.
    waiting = [
        _created(base, variant=VARIANT, players=["Ann", None, None, None], listed=True)
        for _ in range(2)
    ]
    for _ in range(70):  # newer than the waiting ones: the first page's place
        ended = _created(base, variant=VARIANT, players=["Ann", None, None, None], listed=True)
        r = _post(base, f"/v1/tables/{ended['table_id']}/finish", token=ended["host_token"])
        assert r.status_code == 200, r.text
    for _ in range(5):
        full = _created(base, variant=VARIANT, players=["Ann", "Ben", "Cy", None], listed=True)
        assert _post(base, f"/v1/tables/{full['table_id']}/join", {"name": "Dee"}).ok
    wanted = sorted(t["table_id"] for t in waiting)
    page = _lobby(base, variant=VARIANT, limit=20)
    assert sorted(t["table_id"] for t in page["tables"]) == wanted
    assert page["more"] is False
    assert r_client.zcard(lobby_key(VARIANT)) == 2  # the index holds only what it shows

    # Entries a lost update left (a worker killed between a commit and its
    # update): a read examines at most limit + 1 and removes them.
    now = int(time.time() * 1000)
    stale = {t: now for t in r_client.scan_iter(match="referee:{*}:table")}
    r_client.zadd(
        lobby_key(VARIANT),
        {k.decode()[len("referee:{") : -len("}:table")]: s for k, s in stale.items()},
    )
    shown: list[str] = []
    after = None
    for _ in range(len(stale)):  # following next_after, as the web table does
        page = _lobby(
            base, variant=VARIANT, limit=20, **({} if after is None else {"after": after})
        )
        shown += [t["table_id"] for t in page["tables"]]
        if not page["more"]:
            break
        after = page["next_after"]
    assert sorted(shown) == sorted(wanted)
    page = _lobby(base, variant=VARIANT, limit=20)
    assert sorted(t["table_id"] for t in page["tables"]) == wanted
    assert r_client.zcard(lobby_key(VARIANT)) == 2
