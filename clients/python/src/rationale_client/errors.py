"""Exceptions of the client: one class per stable error code of the service, plus transport errors."""

from __future__ import annotations

from typing import Any

import httpx

from rationale_client.answers import Quality


class RationaleError(Exception):
    """Base of every error this client raises."""


class ArgumentError(RationaleError, ValueError):
    """An argument was refused before anything was sent: nothing reached the service.

    A value outside a body's schema (`limit=0`, an unknown kind, a misspelt field), a body that
    is not its request model (a dict for `MemoryUpdate`), an id no URL path segment can carry
    (empty, `.`, `..`, or holding `/`), or a time that is not ISO 8601 or has no offset.

    Attributes:
        errors: pydantic's issues (`loc`, `msg`, `type`) when a body was refused, else `[]`.
    """

    def __init__(self, message: str, errors: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.errors = errors or []


class TransportError(RationaleError):
    """The service could not be reached or did not answer in time (httpx's error is `__cause__`)."""


class RequestTimeoutError(TransportError):
    """A connect, read, write or pool timeout expired."""


class APIError(RationaleError):
    """The service answered with an error status.

    Attributes:
        status: the HTTP status, e.g. 404.
        code: the stable dotted code, e.g. `memory.not_found` (`http.<status>` if absent).
        detail: the message, or FastAPI's list of validation errors for `input.invalid`.
        body: the whole decoded error body (`{"detail", "code", ...}`), `{}` if not JSON.
        headers: the answer's headers.
    """

    error_code: str | None = None

    def __init__(
        self, status: int, code: str, detail: Any, body: dict[str, Any], headers: httpx.Headers
    ) -> None:
        super().__init__(f"{status} {code}: {describe(detail)}")
        self.status = status
        self.code = code
        self.detail = detail
        self.body = body
        self.headers = headers


def describe(detail: Any) -> str:
    """Return an error's detail as one line: FastAPI's validation list as `field: message; ...`.

    Args:
        detail: the body's `detail`: a message, or a list of `{loc, msg, ...}` (422
            `input.invalid` from request validation).
    """
    if not isinstance(detail, list):
        return str(detail)
    parts = []
    for issue in detail:
        if not isinstance(issue, dict):
            parts.append(str(issue))
            continue
        loc = [str(p) for p in issue.get("loc", ()) if p not in ("body", "query", "path")]
        message = str(issue.get("msg", issue))
        parts.append(f"{'.'.join(loc)}: {message}" if loc else message)
    return "; ".join(parts)


class NotFoundError(APIError):
    """404: nothing with that id in the key's namespace (another namespace's data is a 404 too)."""

    error_code = "not_found"


class MemoryNotFoundError(NotFoundError):
    """404 `memory.not_found`."""

    error_code = "memory.not_found"


class TraceNotFoundError(NotFoundError):
    """404 `reasoning.not_found`."""

    error_code = "reasoning.not_found"


class ConflictError(APIError):
    """409: the write lost a race or contradicts the current state."""

    error_code = "conflict"


class VersionConflictError(ConflictError):
    """409 `memory.version_conflict`: the `If-Match` version is no longer the current one."""

    error_code = "memory.version_conflict"


class InvalidInputError(APIError):
    """422 `input.invalid`: the body breaks the schema or a domain rule; nothing was written."""

    error_code = "input.invalid"


class InvalidFormatError(InvalidInputError):
    """422 `input.invalid_format`: ingested material of an unknown or malformed format."""

    error_code = "input.invalid_format"


class InvalidReferenceError(InvalidInputError):
    """422 `reasoning.invalid_reference`: cited or produced memories do not exist.

    Attributes:
        missing: the memory_ids that do not exist in the key's namespace.
    """

    error_code = "reasoning.invalid_reference"

    @property
    def missing(self) -> list[str]:
        """The memory_ids that were not found."""
        return [str(m) for m in self.body.get("missing", [])]


class ReasoningRejectedError(InvalidInputError):
    """422 `reasoning.rejected`: the quality gate refused the trace; nothing was written.

    Attributes:
        quality: the gate's assessment (`score`, `verdict`, `issues[{code, severity, step}]`).
    """

    error_code = "reasoning.rejected"

    @property
    def quality(self) -> Quality:
        """The gate's assessment of the refused trace."""
        return Quality.model_validate(self.body.get("quality", {}))


class TooLargeError(APIError):
    """413 `input.too_large`: content, query, metadata or body over a documented limit."""

    error_code = "input.too_large"


class AuthError(APIError):
    """401 `auth.invalid_key`: the API key is missing, malformed or unknown."""

    error_code = "auth.invalid_key"


class ForbiddenError(APIError):
    """403 `auth.forbidden`: the key lacks the scope (read, write, ingest, maintenance)."""

    error_code = "auth.forbidden"


class ServiceUnavailableError(APIError):
    """503: the service cannot serve now; retried by the client, raised once attempts run out."""

    error_code = "unavailable"


class GraphUnavailableError(ServiceUnavailableError):
    """503 `graph.unavailable`: Neo4j cannot be reached."""

    error_code = "graph.unavailable"


class EmbeddingError(ServiceUnavailableError):
    """503 `embedding.failed`: the embedding model failed."""

    error_code = "embedding.failed"


class ServerError(APIError):
    """5xx other than 503 (`internal`): a bug on the server side."""

    error_code = "internal"


_CLASSES: tuple[type[APIError], ...] = (
    NotFoundError,
    MemoryNotFoundError,
    TraceNotFoundError,
    ConflictError,
    VersionConflictError,
    InvalidInputError,
    InvalidFormatError,
    InvalidReferenceError,
    ReasoningRejectedError,
    TooLargeError,
    AuthError,
    ForbiddenError,
    ServiceUnavailableError,
    GraphUnavailableError,
    EmbeddingError,
    ServerError,
)

#: Stable code -> exception class.
BY_CODE: dict[str, type[APIError]] = {cls.error_code: cls for cls in _CLASSES if cls.error_code}

#: HTTP status -> exception class, for codes this client does not know.
BY_STATUS: dict[int, type[APIError]] = {
    404: NotFoundError,
    409: ConflictError,
    413: TooLargeError,
    422: InvalidInputError,
    401: AuthError,
    403: ForbiddenError,
    503: ServiceUnavailableError,
}


def error_from_response(response: httpx.Response) -> APIError:
    """Build the exception for an error answer: by its code first, then by its status.

    Args:
        response: an answer with status >= 400.

    Returns:
        The most specific `APIError` subclass; `APIError` itself for an unknown 4xx.
    """
    try:
        decoded = response.json()
    except ValueError:
        decoded = None
    body: dict[str, Any] = decoded if isinstance(decoded, dict) else {}
    status = response.status_code
    code = str(body.get("code") or f"http.{status}")
    detail = body.get("detail", response.text)
    cls = BY_CODE.get(code) or BY_STATUS.get(status)
    if cls is None:
        cls = ServerError if status >= 500 else APIError
    return cls(status, code, detail, body, response.headers)
