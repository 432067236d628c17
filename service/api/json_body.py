"""Request bodies read as strict JSON (`json_types.strict_loads`): a key named twice is refused."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from service.json_types import strict_loads


class StrictJsonRequest(Request):
    """A `Request` whose `json()` is `strict_loads` (FastAPI's documented custom-request hook)."""

    async def json(self) -> Any:
        """Return the body parsed by `strict_loads`, once (cached as Starlette caches it)."""
        if not hasattr(self, "_json"):
            self._json = strict_loads(await self.body())
        return self._json
