"""`POST /v1/ingest`: draw memories and reasoning out of handed-in material (origin `ingestion`)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from service.api.auth_gate import ScopedRoute
from service.api.deps import IngestPrincipal, ServicesDep
from service.api.errors import error_responses
from service.api.idempotent import IDEMPOTENCY_KEY, respond
from service.errors import ConflictError, EmbeddingError, InvalidInputError, UnsupportedFormat
from service.schemas import IngestReport, IngestRequest

router = APIRouter(tags=["ingest"], route_class=ScopedRoute)


@router.post(
    "/v1/ingest",
    status_code=201,
    response_model=IngestReport,
    openapi_extra=IDEMPOTENCY_KEY,
    responses={
        200: {
            "model": IngestReport,
            "description": "The same content was ingested before (`new: false`).",
        },
        **error_responses(
            UnsupportedFormat,
            InvalidInputError,
            EmbeddingError,
            ConflictError,
            body=True,
            idempotent=True,
        ),
    },
)
def ingest_material(
    body: IngestRequest, request: Request, services: ServicesDep, principal: IngestPrincipal
) -> JSONResponse:
    """Ingest one document: 201 with the per-unit report, 200 when it was ingested before."""

    def call() -> tuple[int, object]:
        report = services.ingestion.ingest(
            principal.namespace, principal.actor, body.content, body.format, body.source_name
        )
        return (201 if report["new"] else 200), report

    return respond(services, principal, request, body, call)
