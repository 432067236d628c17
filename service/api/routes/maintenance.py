"""`/v1/maintenance/run`: run one maintenance job on the caller's namespace (scope `maintenance`)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from service.api.auth_gate import ScopedRoute
from service.api.deps import MaintenancePrincipal, ServicesDep
from service.api.errors import error_responses
from service.api.idempotent import IDEMPOTENCY_KEY, respond
from service.errors import ConflictError, EmbeddingError, InvalidInputError
from service.schemas import MaintenanceReport, MaintenanceRequest

router = APIRouter(tags=["maintenance"], route_class=ScopedRoute)


@router.post(
    "/v1/maintenance/run",
    response_model=MaintenanceReport,
    openapi_extra=IDEMPOTENCY_KEY,
    responses=error_responses(
        InvalidInputError, ConflictError, EmbeddingError, body=True, idempotent=True
    ),
)
def run_maintenance(
    body: MaintenanceRequest,
    request: Request,
    services: ServicesDep,
    principal: MaintenancePrincipal,
) -> JSONResponse:
    """Run one job now; 422 naming the known jobs when `job` is unknown, 403 without the scope."""

    def call() -> tuple[int, object]:
        return 200, services.maintenance.run(body.job, principal.namespace).as_dict()

    return respond(services, principal, request, body, call)
