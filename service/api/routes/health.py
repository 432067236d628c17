"""Liveness and readiness."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from service.api.deps import ServicesDep
from service.graph.schema import is_online

router = APIRouter(tags=["health"])


class Liveness(BaseModel):
    """The process is alive."""

    status: str


class Readiness(BaseModel):
    """Whether the service can serve, and what is missing when not."""

    status: str
    neo4j: bool
    schema_online: bool = Field(alias="schema")
    model: bool


@router.get("/healthz", response_model=Liveness)
def healthz() -> dict[str, str]:
    """Answer while the process is alive."""
    return {"status": "ok"}


@router.get(
    "/readyz",
    response_model=Readiness,
    responses={503: {"model": Readiness, "description": "Not ready: what is missing."}},
)
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
