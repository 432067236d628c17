"""`GET /metrics`: Prometheus text of the app's HTTP metrics and the domain's (`service.metrics`).

HTTP metrics come from prometheus-fastapi-instrumentator, in a registry of this app (so several
apps in one process never collide): `http_request_duration_seconds{handler, method, status}`
per route, `handler` its `/openapi.json` path (`/v1/memories/{memory_id}`), and
`http_requests_total`. The endpoint is not behind a tenant key; when `RATIONALE_METRICS_KEY`
is set it requires `Authorization: Bearer <that key>`.
"""

from __future__ import annotations

import hmac
import re
from typing import Annotated

from fastapi import FastAPI, Header
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_fastapi_instrumentator import Instrumentator
from prometheus_fastapi_instrumentator import metrics as http_metrics

from service import metrics
from service.errors import AuthError
from service.settings import Settings

#: Seconds; from a cached health check to a batch of a thousand memories.
LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

#: A path parameter with its convertor in a route's path: `{memory_id:memory_id}`.
_CONVERTED_PARAM = re.compile(r"\{([^{}:]+):[^{}]*\}")


def openapi_path(path: str) -> str:
    """Return a route's path as `/openapi.json` names it: `{name:convertor}` becomes `{name}`.

    Args:
        path: a route template, e.g. `/v1/memories/{memory_id:memory_id}`.

    Returns:
        The path with each parameter's convertor dropped: `/v1/memories/{memory_id}`.
    """
    return _CONVERTED_PARAM.sub(r"{\1}", path)


def _openapi_handler(info: http_metrics.Info) -> None:
    """Label a request with its route's OpenAPI path (the instrumentator gives the template)."""
    info.modified_handler = openapi_path(info.modified_handler)


def check_metrics_key(settings: Settings, authorization: str | None) -> None:
    """Require `Bearer <RATIONALE_METRICS_KEY>` when that setting is set.

    Raises:
        AuthError: the key is set and the header is missing or another key (401).
    """
    if settings.metrics_key is None:
        return
    expected = settings.metrics_key.get_secret_value()
    scheme, _, key = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not hmac.compare_digest(
        key.strip().encode(), expected.encode()
    ):
        raise AuthError("GET /metrics needs Authorization: Bearer <RATIONALE_METRICS_KEY>")


def install_metrics(app: FastAPI, settings: Settings) -> None:
    """Instrument `app` (latency per route template) and add `GET /metrics` (not in the schema).

    Args:
        app: the application, before it starts.
        settings: for `metrics_key`.
    """
    registry = CollectorRegistry(auto_describe=True)
    instrumentator = Instrumentator(
        should_group_status_codes=False,
        excluded_handlers=["/metrics"],
        registry=registry,
    )
    # First: the instrumentations run in the order added and label with `modified_handler`.
    instrumentator.add(_openapi_handler)
    instrumentator.add(http_metrics.latency(buckets=LATENCY_BUCKETS, registry=registry))
    instrumentator.add(http_metrics.requests(registry=registry))
    instrumentator.instrument(app)

    @app.get("/metrics", include_in_schema=False)
    def scrape(
        authorization: Annotated[str | None, Header(description="Bearer <metrics key>")] = None,
    ) -> Response:
        """Return the Prometheus text exposition of the HTTP and domain metrics."""
        check_metrics_key(settings, authorization)
        body = generate_latest(registry) + generate_latest(metrics.REGISTRY)
        return Response(body, media_type=CONTENT_TYPE_LATEST)
