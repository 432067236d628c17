"""The namespace (tenant name) rule, in one place: 1 to 64 of `A-Z a-z 0-9 _ -`."""

from __future__ import annotations

import re

#: A namespace: 1 to 64 ASCII letters, digits, `_` or `-` (API keys, the CLI, maintenance).
NAMESPACE_PATTERN = r"^[A-Za-z0-9_-]{1,64}$"
#: The rule in words, for error messages.
NAMESPACE_RULE = "1-64 of A-Z a-z 0-9 _ -"

_NAMESPACE = re.compile(NAMESPACE_PATTERN)


def is_namespace(value: object) -> bool:
    """Return True when `value` is a string matching `NAMESPACE_PATTERN`."""
    return isinstance(value, str) and _NAMESPACE.fullmatch(value) is not None
