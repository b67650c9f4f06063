"""A client's address as the key of its quotas (imports nothing of ours:
the HTTP layer and gunicorn's worker classes both use it).

Anyone given an IPv6 /64 (a home line, a cloud VM) holds 2^64 addresses:
counted one by one, every per-address cap (rate limits, table creations,
streams, open connections) would multiply by as many as it cared to use. So
an IPv6 address counts as its /64, the smallest block handed to one
subscriber; an IPv4 address counts alone (/32), and so does an IPv4-mapped
IPv6 one (``::ffff:192.0.2.1``, what a dual-stack socket reports for an IPv4
client), as the IPv4 address it is.

An address may come from ``X-Forwarded-For`` (``TRUSTED_PROXIES``), whose
text the client's proxy wrote: ``198.51.100.7:4711`` and
``[2001:db8::1]:4711`` count as the address without its port, and text that
is no IP address at all (``unknown``, junk) counts as one shared key,
:data:`UNPARSED`, so that it never mints a fresh quota (issue 39).
"""

from __future__ import annotations

import functools
import ipaddress
import re
from typing import Any

IPV6_PREFIX = 64
"""How much of an IPv6 address names one client (its /64)."""

UNPARSED = "addr:unparsed"
"""The one key of every address that is no IP address."""

_WITH_PORT = re.compile(r"\[(?P<v6>[^\]]*)\](?::[0-9]{1,5})?|(?P<v4>[0-9.]+):[0-9]{1,5}")
"""``[IPv6]``, ``[IPv6]:port`` or ``IPv4:port``: the address without the rest."""


def address_key(address: str | None) -> str:
    """The quota key of the client ``address`` (as a socket or
    ``X-Forwarded-For`` gives it): ``addr:192.0.2.1``, ``addr:2001:db8:1:2::/64``
    for any address of that /64, ``addr:192.0.2.1`` for ``::ffff:192.0.2.1``
    and for ``192.0.2.1:4711`` (a port is dropped, also of ``[2001:db8::1]:4711``).
    Text that is no IP address (junk, ``unknown``, a Unix socket's peer):
    :data:`UNPARSED`."""
    text = (address or "").strip()
    if (with_port := _WITH_PORT.fullmatch(text)) is not None:
        text = with_port.group("v6") or with_port.group("v4") or ""
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return UNPARSED
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return f"addr:{ip.ipv4_mapped}"
        network = ipaddress.IPv6Network((int(ip), IPV6_PREFIX), strict=False)  # no zone
        return f"addr:{network}"
    return f"addr:{ip}"


def peer_key(peer: Any) -> str:
    """The quota key of a gunicorn worker's client address ``peer`` (a
    tuple whose first item is the IP, or a Unix socket's name), kept for the
    requests and connections that follow (:func:`address_key`)."""
    return _host_key(str(peer[0] if isinstance(peer, tuple) and peer else peer))


_host_key = functools.lru_cache(maxsize=4096)(address_key)
