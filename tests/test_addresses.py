"""Client addresses as quota keys (issue 39, M5): an IPv6 address counts as
its /64, an IPv4 address (also IPv4-mapped) as itself."""

from __future__ import annotations

import pytest

from service.addresses import address_key


@pytest.mark.parametrize(
    ("address", "key"),
    [
        ("192.0.2.1", "addr:192.0.2.1"),
        ("::ffff:192.0.2.1", "addr:192.0.2.1"),
        ("2001:db8:1:2:3:4:5:6", "addr:2001:db8:1:2::/64"),
        ("2001:DB8:1:2::9", "addr:2001:db8:1:2::/64"),
        ("[2001:db8:1:2::9]", "addr:2001:db8:1:2::/64"),
        ("2001:db8:1:3::9", "addr:2001:db8:1:3::/64"),
        ("fe80::1%eth0", "addr:fe80::/64"),
        (" 198.51.100.7 ", "addr:198.51.100.7"),
        ("198.51.100.8:4711", "addr:198.51.100.8"),
        ("[2001:db8:1:3::1]:4711", "addr:2001:db8:1:3::/64"),
        ("[::ffff:192.0.2.1]:80", "addr:192.0.2.1"),
        # No IP address: one shared key, whatever the text (never a fresh quota).
        ("", "addr:unparsed"),
        (None, "addr:unparsed"),
        ("unix-peer", "addr:unparsed"),
        ("unknown-17", "addr:unparsed"),
        ("_hidden", "addr:unparsed"),
        ("1.2.3:80", "addr:unparsed"),
        ("[junk]:80", "addr:unparsed"),
    ],
)
def test_address_key(address: str | None, key: str) -> None:
    assert address_key(address) == key


def test_every_address_of_a_64_is_one_key() -> None:
    keys = {address_key(f"2001:db8:aa:bb:{i:x}:{i * 7:x}::{i:x}") for i in range(1, 500)}
    assert keys == {"addr:2001:db8:aa:bb::/64"}
