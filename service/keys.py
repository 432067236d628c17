"""API keys as configured (`RATIONALE_API_KEYS`): each key's namespace and scopes."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field

from service.namespaces import NAMESPACE_PATTERN

Scope = Literal["read", "write", "ingest", "maintenance"]
ALL_SCOPES: tuple[Scope, ...] = ("read", "write", "ingest", "maintenance")


class ApiKey(BaseModel):
    """One API key's grant: the namespace it is bound to and the scopes it holds."""

    namespace: str = Field(pattern=NAMESPACE_PATTERN)
    name: str | None = Field(
        default=None, max_length=200, description="Actor name for writes with this key."
    )
    scopes: list[Scope] = Field(default_factory=lambda: list(ALL_SCOPES))


def parse_api_keys(value: Any) -> Any:
    """Return `RATIONALE_API_KEYS` as data: JSON text is parsed, blank text is no keys.

    Raises:
        ValueError: the text is not valid JSON (pydantic reports it as a settings error).
    """
    if isinstance(value, str):
        if not value.strip():
            return {}
        try:
            return json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"RATIONALE_API_KEYS is not valid JSON: {exc}") from exc
    return value
