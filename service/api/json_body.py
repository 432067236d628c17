"""Request bodies read as strict JSON: an object that names one key twice is refused.

RFC 8259 §4: names within an object SHOULD be unique, and parsers disagree on which value wins
(I-JSON, RFC 7493 §2.3, forbids duplicates). Python's `json` keeps the last, so a body whose
first `content` a proxy or an audit log read was stored with its second.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Build one JSON object (`json.loads`' `object_pairs_hook`); raise on a repeated key."""
    built = dict(pairs)
    if len(built) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return built


def strict_loads(body: bytes | str) -> Any:
    """Parse a JSON document as `json.loads` does, refusing an object with a repeated key.

    Args:
        body: the document (bytes are decoded as `json.loads` decodes them: UTF-8/16/32).

    Returns:
        The value.

    Raises:
        json.JSONDecodeError: not JSON, or an object names a key twice (`msg` says `duplicate
            key 'name' in an object`; `pos` is the repeated key's last occurrence, 0 when it
            is written with escapes). FastAPI answers it as a 422 issue of type `json_invalid`.
        UnicodeDecodeError: bytes that are not text (FastAPI's 400, the service's 422).
    """
    try:
        return json.loads(body, object_pairs_hook=_unique_object)
    except _DuplicateKey as exc:
        text = body if isinstance(body, str) else body.decode("utf-8", "replace")
        pos = max(text.rfind(json.dumps(exc.key, ensure_ascii=False)), 0)
        raise json.JSONDecodeError(f"duplicate key {exc.key!r} in an object", text, pos) from exc


class StrictJsonRequest(Request):
    """A `Request` whose `json()` is `strict_loads` (FastAPI's documented custom-request hook)."""

    async def json(self) -> Any:
        """Return the body parsed by `strict_loads`, once (cached as Starlette caches it)."""
        if not hasattr(self, "_json"):
            self._json = strict_loads(await self.body())
        return self._json
