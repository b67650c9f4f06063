"""Open seats and the lobby on a real Redis Cluster of three primaries: the
lobby's sets are global keys in other slots than the tables (RULES.md 5.1, 5.6)."""

from __future__ import annotations

from typing import Any

from tests.helpers import bearer, phone_lost
from tests.storage.test_cluster import cluster, cluster_app  # noqa: F401 - fixtures


def test_joining_reissue_leave_and_the_lobby_on_a_cluster(cluster_app: Any) -> None:  # noqa: F811
    client = cluster_app.test_client()
    made = []
    for variant in ("classic", "sevens", "may-i", "classic"):
        body = {"variant": variant, "players": ["Ann", None, None, "Dan"], "listed": True}
        r = client.post("/v1/tables", json={**body, "first_dealer": 0})
        assert r.status_code == 201, r.get_json()
        made.append(r.get_json())
    page = client.get("/v1/lobby", query_string={"game": "my-ship-sails"}).get_json()
    assert [t["table_id"] for t in page["tables"]][:2] == [made[3]["table_id"], made[0]["table_id"]]

    table = made[0]
    table_id, host = table["table_id"], table["host_token"]
    code = table["join_codes"][0]["code"]
    bea = client.post(f"/v1/tables/{table_id}/join", json={"name": "Bea", "code": code})
    assert bea.status_code == 201
    cy = client.post(f"/v1/tables/{table_id}/join", json={"name": "Cy"})  # listed: no code
    assert cy.get_json()["seat"] == 2
    listed = client.get("/v1/lobby", query_string={"variant": "classic"}).get_json()
    assert table_id not in [t["table_id"] for t in listed["tables"]]  # full

    url = f"/v1/tables/{table_id}/seats/2"
    # Cy joined just now, so she is connected: her phone is lost first (RULES.md 5.1).
    assert client.post(f"{url}/token", headers=bearer(host)).status_code == 409
    phone_lost(cluster_app.extensions["referee"].store.client, table_id, 2)
    r = client.post(f"{url}/token", headers=bearer(host))
    assert r.status_code == 201
    assert client.get(url, headers=bearer(cy.get_json()["token"])).status_code == 401
    assert client.post(f"{url}/leave", headers=bearer(r.get_json()["token"])).status_code == 200
    listed = client.get("/v1/lobby", query_string={"variant": "classic"}).get_json()
    assert table_id in [t["table_id"] for t in listed["tables"]]  # open again
    assert client.delete(f"/v1/tables/{table_id}", headers=bearer(host)).status_code == 204
    listed = client.get("/v1/lobby", query_string={"variant": "classic"}).get_json()
    assert table_id not in [t["table_id"] for t in listed["tables"]]


def test_ended_tables_and_stale_entries_do_not_blank_the_lobby_on_a_cluster(
    cluster_app: Any,  # noqa: F811
) -> None:
    """Issue 39 on a cluster: the host's finish unlists its table though the
    lobby's set is in another slot, and a read removes the entries a lost
    update left (its removals and version reads on different nodes)."""
    from redis.cluster import RedisCluster

    from service.storage.lobby import lobby_key

    client = cluster_app.test_client()
    variant = "sevens-last-card"  # a preset of its own: the index is one set per preset
    body = {"variant": variant, "players": ["Ann", None, None, None], "listed": True}
    waiting = client.post("/v1/tables", json={**body, "first_dealer": 0}).get_json()
    ended = []
    for _ in range(25):  # more than a page's limit + 1, all newer than the waiting table
        made = client.post("/v1/tables", json={**body, "first_dealer": 0}).get_json()
        r = client.post(f"/v1/tables/{made['table_id']}/finish", headers=bearer(made["host_token"]))
        assert r.status_code == 200, r.get_json()
        ended.append(made["table_id"])
    page = client.get("/v1/lobby", query_string={"variant": variant, "limit": 5}).get_json()
    assert [t["table_id"] for t in page["tables"]] == [waiting["table_id"]]
    assert page["more"] is False

    store = cluster_app.extensions["referee"].store.client
    assert isinstance(store, RedisCluster)
    store.zadd(lobby_key(variant), dict.fromkeys(ended, 2**52))  # as lost updates would leave
    shown, after = [], None
    for _ in range(10):
        query = {"variant": variant, "limit": 5, **({} if after is None else {"after": after})}
        page = client.get("/v1/lobby", query_string=query).get_json()
        shown += [t["table_id"] for t in page["tables"]]
        if not page["more"]:
            break
        after = page["next_after"]
    assert shown == [waiting["table_id"]]
    assert store.zcard(lobby_key(variant)) == 1
