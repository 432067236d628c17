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


#: Fewest characters of an API key in prod (128 bits of `secrets.token_urlsafe(16)` make 22).
MIN_PROD_KEY_CHARS = 16


def _key_problems(env: str, api_keys: Collection[object]) -> list[str]:
    """Return what is wrong with the keys themselves, naming each by its namespace, never by itself.

    A key that is empty or holds anything but visible ASCII can never authenticate (a bearer
    token is one word, read without the white space around it, and a header is read as
    Latin-1, so a non-ASCII key never compares equal: trial 14); in prod a key under `MIN_PROD_KEY_CHARS`
    characters is refused as guessable (trial 13: `"x"` was accepted).
    """
    problems = []
    grants = api_keys if isinstance(api_keys, dict) else {}
    for position, (key, grant) in enumerate(grants.items(), 1):
        namespace = getattr(grant, "namespace", "?")
        which = f"the key #{position} (namespace {namespace!r})"
        if not key or any(not "!" <= ch <= "~" for ch in key):
            problems.append(
                f"RATIONALE_API_KEYS: {which} is empty or holds white space, control or "
                "non-ASCII characters: it can never authenticate"
            )
        elif env == "prod" and len(key) < MIN_PROD_KEY_CHARS:
            problems.append(
                f"RATIONALE_API_KEYS: {which} has {len(key)} characters; prod needs at least "
                f"{MIN_PROD_KEY_CHARS} (e.g. python -c 'import secrets; "
                "print(secrets.token_urlsafe(32))')"
            )
    return problems


def secret_problems(password: str, env: str, api_keys: Collection[object]) -> list[str]:
    """Return what is wrong with the settings' secrets, one message each (none: nothing).

    Args:
        password: `NEO4J_PASSWORD`.
        env: `RATIONALE_ENV` (`dev`, `test`, `prod`).
        api_keys: the parsed `RATIONALE_API_KEYS`.

    Returns:
        The server's default password is refused everywhere, and so is a key that can never
        authenticate (empty, or holding white space); in prod the development password, an
        empty key list (dev mode has no authentication) and a key shorter than
        `MIN_PROD_KEY_CHARS` are refused too. A key is named by its position and namespace.
    """
    problems = []
    if password == NEO4J_DEFAULT_PASSWORD:
        problems.append("NEO4J_PASSWORD must not be the server default 'neo4j'")
    if env == "prod" and password == DEV_PASSWORD:
        problems.append("set NEO4J_PASSWORD: the development password is refused in prod")
    if env == "prod" and not api_keys:
        problems.append("RATIONALE_API_KEYS is required in prod (dev mode has no auth)")
    return problems + _key_problems(env, api_keys)
