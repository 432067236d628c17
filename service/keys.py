"""API keys as configured (`RATIONALE_API_KEYS`): each key's namespace and scopes; secrets refused."""

from __future__ import annotations

import json
from collections.abc import Collection
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


#: The password a fresh Neo4j server starts with, and the development one of `scripts/neo4j`.
NEO4J_DEFAULT_PASSWORD = "neo4j"
DEV_PASSWORD = "rationale-dev-password"


def secret_problems(password: str, env: str, api_keys: Collection[object]) -> list[str]:
    """Return what is wrong with the settings' secrets, one message each (none: nothing).

    Args:
        password: `NEO4J_PASSWORD`.
        env: `RATIONALE_ENV` (`dev`, `test`, `prod`).
        api_keys: the parsed `RATIONALE_API_KEYS`.

    Returns:
        The server's default password is refused everywhere; in prod the development password
        and an empty key list (dev mode has no authentication) are refused too.
    """
    problems = []
    if password == NEO4J_DEFAULT_PASSWORD:
        problems.append("NEO4J_PASSWORD must not be the server default 'neo4j'")
    if env == "prod" and password == DEV_PASSWORD:
        problems.append("set NEO4J_PASSWORD: the development password is refused in prod")
    if env == "prod" and not api_keys:
        problems.append("RATIONALE_API_KEYS is required in prod (dev mode has no auth)")
    return problems
