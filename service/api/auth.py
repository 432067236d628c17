"""API-key authentication and scopes (DESIGN §8); dev mode when no keys are configured."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from starlette.datastructures import Headers

from service.errors import AuthError, ForbiddenError
from service.keys import ALL_SCOPES
from service.settings import Settings

DEV_NAMESPACE = "default"


@dataclass(frozen=True)
class Principal:
    """The caller: the namespace its key is bound to, its scopes, and its actor name."""

    namespace: str
    scopes: frozenset[str]
    actor: str

    def require(self, scope: str) -> None:
        """Raise `ForbiddenError` unless the key holds `scope`."""
        if scope not in self.scopes:
            raise ForbiddenError(f"this API key lacks the {scope!r} scope")


def authenticate(settings: Settings, authorization: str | None) -> Principal:
    """Resolve an `Authorization: Bearer <key>` header to a principal.

    Args:
        settings: holds `api_keys`; none configured means dev mode.
        authorization: the header's value, if any.

    Returns:
        The principal; in dev mode namespace `default` with every scope.

    Raises:
        AuthError: a key is required and missing, malformed or unknown.
    """
    if settings.dev_mode:
        return Principal(namespace=DEV_NAMESPACE, scopes=frozenset(ALL_SCOPES), actor="dev")
    if not authorization:
        raise AuthError("missing Authorization: Bearer <key>")
    scheme, _, key = authorization.partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        raise AuthError("Authorization must be `Bearer <key>`")
    key = key.strip()
    for candidate, grant in settings.api_keys.items():
        if hmac.compare_digest(candidate.encode(), key.encode()):
            digest = hashlib.sha256(key.encode()).hexdigest()[:8]
            return Principal(
                namespace=grant.namespace,
                scopes=frozenset(grant.scopes),
                actor=grant.name or f"key:{digest}",
            )
    raise AuthError("unknown API key")


def authenticate_request(settings: Settings, headers: Headers) -> Principal:
    """`authenticate` a request by its one `Authorization` header.

    Raises:
        AuthError: as `authenticate`; or the request carries more than one `Authorization`
            header (which key speaks for it would depend on which one a reader takes: the
            first was used, silently).
    """
    values = headers.getlist("authorization")
    if len(values) > 1 and not settings.dev_mode:
        raise AuthError(f"{len(values)} Authorization headers; send exactly one key")
    return authenticate(settings, values[0] if values else None)
