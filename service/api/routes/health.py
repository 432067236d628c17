"""Liveness and readiness."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from service.api.deps import ServicesDep
from service.graph.schema import is_online

router = APIRouter(tags=["health"])


@router.get("/healthz")
def healthz() -> dict[str, str]:
    """Answer while the process is alive."""
    return {"status": "ok"}


@router.get("/readyz")
def readyz(services: ServicesDep) -> JSONResponse:
    """Answer 200 when Neo4j is reachable, the schema is ONLINE and the model is loaded."""
    neo4j = services.graph.ping()
    schema = neo4j and is_online(services.graph)
    model = services.ready.get("model", False)
    ok = neo4j and schema and model
    body = {
        "status": "ready" if ok else "not ready",
        "neo4j": neo4j,
        "schema": schema,
        "model": model,
    }
    return JSONResponse(body, status_code=200 if ok else 503)
