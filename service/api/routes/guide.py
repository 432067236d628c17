"""`/browser/*`: the Neo4j Browser guide (`:play <url>`) and style (`:style <url>`), public, offline."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import PlainTextResponse, Response
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.types import Message, Receive, Scope, Send

from service.api.auth_gate import ScopedRoute
from service.api.deps import ServicesDep
from service.api.errors import BROWSER_CORS, error_responses
from service.errors import InvalidInputError
from service.namespaces import NAMESPACE_PATTERN, NAMESPACE_RULE, is_namespace


class BrowserRoute(ScopedRoute):
    """A `/browser/*` route: every answer it gives carries `BROWSER_CORS`, refusals included.

    The exception handlers render a refusal (a 422 for a bad `namespace`) inside the route's
    app, so headers added to what the route sends reach the Browser with the error's detail,
    where a refusal without `Access-Control-Allow-Origin` was only a network error there. A
    method the route does not take is refused before its app runs (Starlette raises the 405):
    the exception carries the headers, which its handler sends. A query parameter the route
    does not take is refused (422), as on `/v1/` (`strict_query`).
    """

    strict_query = True

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the route, adding the `BROWSER_CORS` headers it did not set to its answer."""

        async def send_with_cors(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in BROWSER_CORS.items():
                    headers.setdefault(name, value)
            await send(message)

        try:
            await super().handle(scope, receive, send_with_cors)
        except HTTPException as exc:
            exc.headers = {**BROWSER_CORS, **(exc.headers or {})}
            raise


router = APIRouter(prefix="/browser", tags=["browser"], route_class=BrowserRoute)
_QUERY = re.compile(r"\{\{query:([a-z_]+)\}\}")


def statement(path: Path) -> str:
    """Return a Cypher file's statement without its leading `//` header lines."""
    lines = path.read_text(encoding="utf-8").splitlines()
    while lines and lines[0].lstrip().startswith("//"):
        lines.pop(0)
    return "\n".join(lines).strip()


def params_command(namespace: str) -> str:
    """Return the one `:params` command that sets every parameter of `cypher/browser/`."""
    return (
        f":params {{namespace: '{namespace}', decision: '', evidence_id: '', limit: 10, "
        "since: '', until: '', "
        "recognized: ['user', 'ingestion', 'maintenance']}"
    )


def render_guide(folder: Path, base: str, namespace: str) -> str:
    """Fill `guide.html` with the service's URL, the namespace and the queries' text.

    Args:
        folder: `cypher/browser/`.
        base: the service's URL as the Browser reaches it, no trailing slash.
        namespace: the namespace the `:params` block sets.

    Returns:
        The guide's HTML (slides); every `{{query:name}}` becomes `name.cypher`'s statement.

    Raises:
        FileNotFoundError: the template or a named query is missing.
    """
    text = (folder / "guide.html").read_text(encoding="utf-8")
    text = _QUERY.sub(lambda m: html.escape(statement(folder / f"{m.group(1)}.cypher")), text)
    text = text.replace("{{params}}", html.escape(params_command(namespace)))
    return text.replace("{{base}}", html.escape(base)).replace(
        "{{namespace}}", html.escape(namespace)
    )


@router.get(
    "/guide",
    response_class=Response,
    responses={
        200: {"content": {"text/html": {}}, "description": "The guide's slides."},
        **error_responses(InvalidInputError, auth=False, graph=False),
    },
)
def guide(
    request: Request,
    services: ServicesDep,
    namespace: Annotated[
        str,
        # The service's own rule, so the OpenAPI document states what is accepted (it said
        # `.` and up to 100 characters while both were refused).
        Query(pattern=NAMESPACE_PATTERN, description="Namespace the guide's `:params` sets."),
    ] = "default",
) -> Response:
    """Return the Browser guide (`:play http://localhost:8000/browser/guide`); 422 on a bad namespace."""
    if not is_namespace(namespace):
        raise InvalidInputError(f"namespace: {NAMESPACE_RULE}")
    base = str(request.base_url).rstrip("/")
    body = render_guide(services.settings.cypher_dir / "browser", base, namespace)
    return Response(body, media_type="text/html; charset=utf-8")


@router.get(
    "/rationale.grass",
    # `Response`, not `PlainTextResponse`: FastAPI gives the route class's media type to every
    # answer it declares, and the errors are JSON (trial 13: declared as text/plain).
    response_class=Response,
    responses={
        200: {"content": {"text/plain": {}}, "description": "The Browser style (GraSS)."},
        **error_responses(auth=False, graph=False),
    },
)
def grass(services: ServicesDep) -> PlainTextResponse:
    """Return the Browser style (`:style http://localhost:8000/browser/rationale.grass`)."""
    path = services.settings.cypher_dir / "browser" / "rationale.grass"
    return PlainTextResponse(path.read_text(encoding="utf-8"))


@router.options("/guide", include_in_schema=False)
@router.options("/rationale.grass", include_in_schema=False)
def preflight() -> Response:
    """Answer the Browser's CORS preflight for the guide and the style (no other name: 404)."""
    return Response(status_code=204)
