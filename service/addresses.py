"""A client's address as the key of its quotas (imports nothing of ours:
the HTTP layer and gunicorn's worker classes both use it).

Anyone given an IPv6 /64 (a home line, a cloud VM) holds 2^64 addresses:
counted one by one, every per-address cap (rate limits, table creations,
streams, open connections) would multiply by as many as it cared to use. So
an IPv6 address counts as its /64, the smallest block handed to one
subscriber; an IPv4 address counts alone (/32), and so does an IPv4-mapped
IPv6 one (``::ffff:192.0.2.1``, what a dual-stack socket reports for an IPv4
client), as the IPv4 address it is.
"""

from __future__ import annotations

import ipaddress

IPV6_PREFIX = 64
"""How much of an IPv6 address names one client (its /64)."""


def address_key(address: str | None) -> str:
    """The quota key of the client ``address`` (as a socket or
    ``X-Forwarded-For`` gives it): ``addr:192.0.2.1``, ``addr:2001:db8:1:2::/64``
    for any address of that /64, ``addr:192.0.2.1`` for ``::ffff:192.0.2.1``.
    Text that is no IP address (a Unix socket's peer) is kept as it is."""
    text = (address or "").strip()
    try:
        ip = ipaddress.ip_address(text.removeprefix("[").removesuffix("]"))
    except ValueError:
        return f"addr:{text}"
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return f"addr:{ip.ipv4_mapped}"
        network = ipaddress.IPv6Network((int(ip), IPV6_PREFIX), strict=False)  # no zone
        return f"addr:{network}"
    return f"addr:{ip}"
