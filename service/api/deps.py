"""Dependency getters reading `request.app.state`, exposed as `Annotated` aliases.

They are `async def` because they never block: FastAPI runs a plain `def` dependency on its
thread pool, one hand-off between threads per dependency and request (three for every
authenticated operation), while these return at once on the event loop.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request, Security
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from service.api.auth import Principal, authenticate
from service.container import Services
from service.domain.memories import Writer
from service.domain.text import clean_text
from service.origins import Origin


async def get_services(request: Request) -> Services:
    """Return the process's services (built by the lifespan)."""
    services: Services = request.app.state.services
    return services


ServicesDep = Annotated[Services, Depends(get_services)]


#: The API key as the OpenAPI document declares it (a `bearer` security scheme, which Swagger
#: UI's Authorize button fills); it checks nothing itself (`auto_error=False`): `get_principal`
#: authenticates, with the service's own 401 body.
BEARER = HTTPBearer(
    auto_error=False,
    scheme_name="apiKey",
    description="`Authorization: Bearer <key>`, a key of `RATIONALE_API_KEYS` (none in dev mode).",
)


async def get_principal(
    services: ServicesDep,
    _declared: Annotated[HTTPAuthorizationCredentials | None, Security(BEARER)],
    authorization: Annotated[str | None, Header(include_in_schema=False)] = None,
) -> Principal:
    """Authenticate the request's API key (401 when missing or unknown)."""
    return authenticate(services.settings, authorization)


PrincipalDep = Annotated[Principal, Depends(get_principal)]


def _scoped(scope: str):  # type: ignore[no-untyped-def]
    async def dependency(principal: PrincipalDep) -> Principal:
        principal.require(scope)
        return principal

    # Read by `api.auth_gate.route_scope`: the gate refuses a key without it before the body.
    dependency.required_scope = scope  # type: ignore[attr-defined]
    return dependency


ReadPrincipal = Annotated[Principal, Depends(_scoped("read"))]
WritePrincipal = Annotated[Principal, Depends(_scoped("write"))]
IngestPrincipal = Annotated[Principal, Depends(_scoped("ingest"))]
MaintenancePrincipal = Annotated[Principal, Depends(_scoped("maintenance"))]


def user_writer(principal: Principal, actor: str | None) -> Writer:
    """Return the writer for the main door: origin `user`, the body's actor or the key's name."""
    if actor is not None:
        actor = clean_text(actor, field="actor", max_chars=200)
    return Writer(namespace=principal.namespace, origin=Origin.USER, actor=actor or principal.actor)
