"""Host names for the HTTP transport: which names are this machine, which are
wildcards, and what a host name may look like."""

from __future__ import annotations

import ipaddress
import re
from typing import Final

LOOPBACK_NAMES: Final = frozenset({"localhost", "127.0.0.1", "::1"})
WILDCARD_HOSTS: Final = frozenset({"", "0.0.0.0", "::"})
HOST_LABEL: Final = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")


def is_loopback(host: str) -> bool:
    """Whether `host` (a name or an IP address, IPv6 with or without brackets) is this
    machine only. A wildcard (0.0.0.0, ::) is not: it listens on every interface."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def is_host_name(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        labels = name.removesuffix(".").split(".")
        return len(name) <= 253 and all(HOST_LABEL.fullmatch(label) for label in labels)
