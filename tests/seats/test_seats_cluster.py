"""Open seats and the lobby on a real Redis Cluster of three primaries: the
lobby's sets are global keys in other slots than the tables (RULES.md 5.1, 5.6)."""

from __future__ import annotations

from typing import Any

from tests.helpers import bearer
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
    r = client.post(f"{url}/token", headers=bearer(host))
    assert r.status_code == 201
    assert client.get(url, headers=bearer(cy.get_json()["token"])).status_code == 401
    assert client.post(f"{url}/leave", headers=bearer(r.get_json()["token"])).status_code == 200
    listed = client.get("/v1/lobby", query_string={"variant": "classic"}).get_json()
    assert table_id in [t["table_id"] for t in listed["tables"]]  # open again
    assert client.delete(f"/v1/tables/{table_id}", headers=bearer(host)).status_code == 204
    listed = client.get("/v1/lobby", query_string={"variant": "classic"}).get_json()
    assert table_id not in [t["table_id"] for t in listed["tables"]]
