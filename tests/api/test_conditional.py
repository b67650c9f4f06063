"""Conditional requests as RFC 9110 has them (13.1.2 If-None-Match, 15.4.5 304)."""

from __future__ import annotations

from typing import Any

import pytest

from ..helpers import TableClient, bearer


def etag_of(client: Any, url: str) -> tuple[str, Any]:
    first = client.get(url)
    assert first.status_code == 200
    return first.headers["ETag"], first


@pytest.mark.parametrize(
    "header",
    [
        "{tag}",
        "W/{tag}",  # the reported case: weak comparison
        '"other", {tag}',  # a list
        'W/"other",W/{tag}',
        "*",
    ],
)
def test_if_none_match_is_compared_weakly_over_a_list(
    tables: TableClient, client: Any, header: str
) -> None:
    t = tables.create(4)
    etag, first = etag_of(client, t.url)
    r = client.get(t.url, headers={"If-None-Match": header.format(tag=etag)})
    assert r.status_code == 304
    assert r.get_data() == b""
    # What the 200 would carry: its validator and its caching rules.
    assert r.headers["ETag"] == etag
    assert r.headers["Cache-Control"] == first.headers["Cache-Control"] == "no-cache"
    assert r.headers.get("Vary") == first.headers.get("Vary")


def test_a_tag_that_does_not_match_gets_the_view(tables: TableClient, client: Any) -> None:
    t = tables.create(4)
    etag, _ = etag_of(client, t.url)
    for header in ('"other"', 'W/"other"', etag[:-2] + '"'):
        r = client.get(t.url, headers={"If-None-Match": header})
        assert r.status_code == 200 and r.headers["ETag"] == etag
    tables.deal(t)
    r = client.get(t.url, headers={"If-None-Match": "W/" + etag})
    assert r.status_code == 200 and r.headers["ETag"] != etag


def test_if_none_match_on_delete_that_matches_is_412_and_deletes_nothing(
    tables: TableClient, client: Any
) -> None:
    t = tables.create(4)
    etag, _ = etag_of(client, t.url)
    for header in (etag, "W/" + etag, "*"):
        r = client.delete(t.url, headers={**bearer(t.host), "If-None-Match": header})
        assert r.status_code == 412, r.get_json()
        assert r.get_json()["code"] == "precondition-failed"
        assert client.get(t.url).status_code == 200
    # Authorization comes first: the host alone learns of the precondition.
    r = client.delete(t.url, headers={**bearer(t.seats[0]), "If-None-Match": "*"})
    assert r.status_code == 403
    r = client.delete(t.url, headers={**bearer(t.host), "If-None-Match": '"other"'})
    assert r.status_code == 204
    assert client.get(t.url).status_code == 404
