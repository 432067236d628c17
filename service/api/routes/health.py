"""Liveness and readiness."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from service.api.auth_gate import ScopedRoute
from service.api.deps import ServicesDep
from service.api.errors import RESPONSE_HEADERS, error_responses
from service.graph.availability import Bounded
from service.graph.schema import is_online

router = APIRouter(tags=["health"], route_class=ScopedRoute)


class Liveness(BaseModel):
    """The process is alive."""

    status: str


class Readiness(BaseModel):
    """Whether the service can serve, and what is missing when not."""

    status: str
    neo4j: bool
    schema_online: bool = Field(alias="schema")
    model: bool
    breaker: dict[str, object] = Field(
        description="The fail-fast breaker: `state` closed|open, `open_for_s`; `check` when timed out."
    )


@router.get(
    "/healthz",
    response_model=Liveness,
    responses=error_responses(auth=False, validation=False, graph=False, host=False),
)
def healthz() -> dict[str, str]:
    """Answer while the process is alive (whatever the state of Neo4j)."""
    return {"status": "ok"}


def _checker(request: Request, budget_s: float) -> Bounded[tuple[bool, bool]]:
    """The app's one bounded readiness checker (made on first use)."""
    checker = getattr(request.app.state, "readyz_checker", None)
    if not isinstance(checker, Bounded):
        checker = Bounded[tuple[bool, bool]](budget_s)
        request.app.state.readyz_checker = checker
    return checker


@router.get(
    "/readyz",
    response_model=Readiness,
    responses={
        **error_responses(auth=False, validation=False, graph=False, host=False),
        503: {
            "model": Readiness,
            "description": "Not ready: what is missing.",
            "headers": RESPONSE_HEADERS[503],
        },
    },
)
def readyz(request: Request, services: ServicesDep) -> JSONResponse:
    """Answer 200 when Neo4j is reachable, the schema is ONLINE and the model is loaded.

    Answers within `readyz_budget_s` (< 1 s) in every state: while the fail-fast breaker is
    open it answers 503 from the breaker's state at once; otherwise the Neo4j check runs with
    that budget and counts as failed when it does not finish in time.
    """
    graph = services.graph
    model = services.ready.get("model", False)
    breaker = graph.availability.state()
    neo4j = schema = False
    if graph.availability.available:
        checker = _checker(request, services.settings.readyz_budget_s)

        def check() -> tuple[bool, bool]:
            reachable = graph.ping()
            return reachable, reachable and is_online(graph)

        result = checker.run(check)
        if result is None:
            breaker = {**breaker, "check": "timed out"}
        else:
            neo4j, schema = result
    ok = neo4j and schema and model
    body = {
        "status": "ready" if ok else "not ready",
        "neo4j": neo4j,
        "schema": schema,
        "model": model,
        "breaker": breaker,
    }
    headers = None if ok else {"Retry-After": "1"}
    return JSONResponse(body, status_code=200 if ok else 503, headers=headers)
