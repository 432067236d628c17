"""Host names the service answers: the check's normal form of a name, loopback and wildcard binds."""

from __future__ import annotations

import ipaddress
import re

#: Host names that always reach the service: a rebinding page's Host is its own domain, never these.
LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "[::1]")
#: Bind addresses meaning "every interface": no Host name follows from them.
WILDCARD_BIND_HOSTS = ("0.0.0.0", "[::]")
_HOST_NAME = re.compile(r"^(\*|(\*\.)?[a-z0-9_]([a-z0-9_.-]*[a-z0-9_])?|\[[0-9a-f:.]+\])$")


def host_entry(value: str) -> str:
    """Return a host name as the Host check compares it: lower case, IPv6 literals bracketed.

    Args:
        value: a name (`api.example.com`), a pattern (`*.example.com`), `*`, or an IP address.

    Raises:
        ValueError: a scheme, port, path or other character a host name does not hold.
    """
    name = value.strip().lower()
    if ":" in name and not name.startswith("["):
        try:
            name = f"[{ipaddress.IPv6Address(name)}]"
        except ValueError:
            raise ValueError(
                f"allowed host {value!r}: give a host name without scheme or port"
            ) from None
    if not _HOST_NAME.match(name):
        raise ValueError(f"allowed host {value!r}: give a host name without scheme, port or path")
    return name
