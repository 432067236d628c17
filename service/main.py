"""The FastAPI app factory and its lifespan (no business logic here)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi_offline import FastAPIOffline

from service.api.auth_gate import AuthGateMiddleware
from service.api.errors import install_error_handlers
from service.api.head import HeadAsGetMiddleware
from service.api.hosts import HostCheckMiddleware
from service.api.idempotent import declare_replays
from service.api.limits import BodyLimitMiddleware
from service.api.media import require_json_body
from service.api.metrics import install_metrics
from service.api.routes import (
    diagnostics,
    guide,
    health,
    ingest,
    lineage,
    maintenance,
    memories,
    outcomes,
    precedents,
    reasoning,
    retrieval,
)
from service.container import Services, build_services
from service.domain.maintenance import Lease, MaintenanceScheduler
from service.embeddings import Embedder
from service.mcp.http import McpMount
from service.settings import Settings, get_settings

log = logging.getLogger("rationale")

DESCRIPTION = """Agent memory on Neo4j that keeps **why** next to **what**.

Authenticate with `Authorization: Bearer <key>` (keys from `RATIONALE_API_KEYS`); with no keys
configured the service runs in dev mode (namespace `default`, every scope, loopback only).
Errors are `{"detail": ..., "code": "<stable.dotted.code>"}`.
"""


def create_app(settings: Settings | None = None, embedder: Embedder | None = None) -> FastAPI:
    """Build the app; the lifespan connects to Neo4j, applies the schema and loads the model once.

    Args:
        settings: defaults to `get_settings()` (environment and `.env`).
        embedder: a ready embedder (tests pass a fake); default loads the configured model.

    Returns:
        The FastAPI application.
    """
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        services: Services = build_services(settings, embedder)
        if settings.dev_mode:
            log.warning(
                "dev mode: no RATIONALE_API_KEYS configured; one namespace 'default', all scopes, "
                "no authentication. Bind to 127.0.0.1 only."
            )
        app.state.services = services
        interval = settings.maintenance_schedule_s
        scheduler = MaintenanceScheduler(
            services.maintenance,
            interval,
            lease=Lease(services.graph, settings.maintenance_lease, interval) if interval else None,
            namespaces=tuple(settings.maintenance_namespaces),
        )
        scheduler.start()  # a no-op when maintenance_schedule_s is 0
        try:
            async with mcp.running():
                yield
        finally:
            scheduler.stop()
            services.close()

    # Swagger UI (/docs) and ReDoc (/redoc) from assets shipped in `fastapi-offline`: no CDN.
    app = FastAPIOffline(
        title="Rationale",
        version="0.1.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        dependencies=[Depends(require_json_body)],  # 415 for a body that is not JSON
        # `/v1/memories/x/` is no route: a 404 `not_found` as the README says, not a bare 307
        # to the path without the slash (trial 13), which a client had to follow.
        redirect_slashes=False,
    )
    install_error_handlers(app)
    install_metrics(app, settings)
    declare_replays(app)

    # A /v1 request without a known key is refused before its body is read (401, not 415/422).
    app.add_middleware(AuthGateMiddleware, settings=settings)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    # HEAD of a GET resource runs as that GET, its answer sent without the body (RFC 9110).
    app.add_middleware(HeadAsGetMiddleware)
    # Outermost: a request for a Host the service does not serve is refused before anything else.
    app.add_middleware(HostCheckMiddleware, allowed=settings.host_allow_list)

    app.include_router(health.router)
    app.include_router(memories.router)
    app.include_router(reasoning.router)
    app.include_router(lineage.router)
    app.include_router(outcomes.router)
    app.include_router(precedents.router)
    app.include_router(maintenance.router)
    app.include_router(ingest.router)
    app.include_router(retrieval.router)
    app.include_router(diagnostics.router)
    app.include_router(guide.router)
    mcp = McpMount(app, settings)  # streamable HTTP MCP at /mcp, same keys
    return app
