"""Host names and addresses as the HTTP settings check them: which mean this machine
only, and which are well formed."""

from __future__ import annotations

import ipaddress
import re
from typing import Final

#: Host names that always mean this machine.
LOOPBACK_NAMES: Final = frozenset({"localhost", "127.0.0.1", "::1"})
#: Bind addresses that listen on every interface (or leave it to the system).
WILDCARD_HOSTS: Final = frozenset({"", "0.0.0.0", "::"})
_HOST_LABEL: Final = re.compile(r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?")


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
    """Whether `name` is an IP address or a well-formed DNS name (labels of letters,
    digits, - and _, at most 253 characters)."""
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        labels = name.removesuffix(".").split(".")
        return len(name) <= 253 and all(_HOST_LABEL.fullmatch(label) for label in labels)
