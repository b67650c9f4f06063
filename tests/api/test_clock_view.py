"""What the public view shows of the clocks (RULES.md 5.3, 5.4): a deadline
only for the seats the step waits on, never one that tells which bots may
act where that depends on a hidden hand."""

from __future__ import annotations

from ..helpers import TableClient, bearer


def test_a_claim_window_shows_no_deadline_of_a_bot_whose_hand_wins(
    tables: TableClient,
) -> None:
    # The worker gives a bot whose hand wins a deadline to claim in the
    # window; shown, it said which bot held seven spades before anyone claimed.
    players = ["Ann", {"bot": "basic"}, {"bot": "basic"}, {"bot": "basic"}]
    body = {"variant": "circle", "players": players, "first_dealer": 0,
            "options": {"bot_delay_ms": 60_000, "claim_window_ms": 5_000}}  # fmt: skip
    created = tables.client.post("/v1/tables", json=body).get_json()
    table_id, host = created["table_id"], created["host_token"]
    ann = created["seat_tokens"][0]["token"]
    hands = [
        ["2H", "3H", "4H", "5H", "6H", "7H", "8H"],
        ["2S", "3S", "4S", "5S", "6S", "7S", "8S"],
        ["2D", "3D", "4D", "5D", "6D", "7D", "9C"],
        ["2C", "3C", "4C", "5C", "6C", "7C", "9D"],
    ]
    url = f"/v1/tables/{table_id}"
    dealt = tables.client.post(f"{url}/rounds", json={"hands": hands}, headers=bearer(host))
    assert dealt.status_code == 201, dealt.get_json()
    claimed = tables.client.post(f"{url}/rounds/1/claims", json={}, headers=bearer(ann))
    assert claimed.status_code == 200, claimed.get_json()
    view = tables.client.get(url).get_json()
    assert view["round"]["status"] == "claim-window"
    assert [s["until_ms"] for s in view["seats"]] == [None, None, None, None]


def test_a_bot_handed_a_seat_again_in_the_same_step_has_a_deadline_of_its_own(
    tables: TableClient,
) -> None:
    # Taken back and handed again within one step, the bot's deadline was the
    # one its first job had fired for (a person held the seat then: nothing
    # to do); no worker sent another, and the table stalled.
    players = [{"bot": "basic"}] * 4
    body = {"variant": "sevens", "players": players, "first_dealer": 0,
            "options": {"bot_delay_ms": 2_000}}  # fmt: skip
    created = tables.client.post("/v1/tables", json=body).get_json()
    url, host = f"/v1/tables/{created['table_id']}", bearer(created["host_token"])
    assert tables.client.post(f"{url}/rounds", json={}, headers=host).status_code == 201
    view = tables.client.get(url).get_json()
    seat = view["awaiting"]["seats"][0]
    first = view["seats"][seat]["until_ms"]
    assert isinstance(first, int)
    assert tables.client.delete(f"{url}/seats/{seat}/bot", headers=host).status_code == 200
    # Taken back mid-round, the open seat is played by default moves (RULES.md 5.1).
    away_ms = 2_000  # away_timeout_ms's default
    assert tables.client.get(url).get_json()["seats"][seat]["until_ms"] == first - 2_000 + away_ms
    again = tables.client.post(f"{url}/seats/{seat}/bot", json={"kind": "basic"}, headers=host)
    assert again.status_code == 200, again.get_json()
    handed = again.get_json()["seats"][seat]["until_ms"]
    assert handed is not None and handed > first
    events = tables.client.get(f"{url}/events").get_json()["events"]
    at = next(e["at_ms"] for e in reversed(events) if e["type"] == "seat-bot")
    assert handed == at + 2_000
