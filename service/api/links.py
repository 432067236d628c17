"""OpenAPI links: how an answer's ids feed the next operations (Swagger UI, schemathesis' stateful runs)."""

from __future__ import annotations

import re
from typing import Any

#: The operations a memory id leads to: (route function name, path, method, parameter name).
MEMORY_OPERATIONS: tuple[tuple[str, str, str, str], ...] = (
    ("read_memory", "/v1/memories/{memory_id}", "get", "memory_id"),
    ("update_memory", "/v1/memories/{memory_id}", "patch", "memory_id"),
    ("invalidate_memory", "/v1/memories/{memory_id}/invalidate", "post", "memory_id"),
    ("retract_memory", "/v1/memories/{memory_id}/retract", "post", "memory_id"),
    ("read_history", "/v1/memories/{memory_id}/history", "get", "memory_id"),
    ("read_lineage", "/v1/memories/{memory_id}/lineage", "get", "memory_id"),
    ("challenge_memory", "/v1/memories/{memory_id}/challenge", "post", "memory_id"),
    ("read_dependents", "/v1/memories/{memory_id}/dependents", "get", "memory_id"),
    ("record_outcome", "/v1/memories/{decision_id}/outcomes", "post", "decision_id"),
    ("list_outcomes", "/v1/memories/{decision_id}/outcomes", "get", "decision_id"),
)


def operation_id(name: str, path: str, method: str) -> str:
    """Return the operationId FastAPI generates for a route (`fastapi.utils.generate_unique_id`)."""
    return re.sub(r"\W", "_", f"{name}{path}") + f"_{method}"


def memory_links(pointer: str) -> dict[str, Any]:
    """Return the `links` of an answer holding a memory id at JSON pointer `pointer`.

    PATCH's `If-Match` is left to the client: it is a string header, the version a number, and
    a runtime expression cannot turn one into the other.

    Args:
        pointer: e.g. `/memory_id`, or `/items/0/memory/memory_id` in a batch answer.

    Returns:
        `{"links": {...}}`, merged into a route's response declaration.
    """
    links: dict[str, Any] = {}
    for name, path, method, param in MEMORY_OPERATIONS:
        parameters = {param: f"$response.body#{pointer}"}
        links["".join(p.title() for p in name.split("_"))] = {
            "operationId": operation_id(name, path, method),
            "parameters": parameters,
        }
    return {"links": links}


def trace_links() -> dict[str, Any]:
    """Return the `links` of a recorded trace: read it back, and its lineage by its id."""
    return {
        "links": {
            "ReadTrace": {
                "operationId": operation_id("read_trace", "/v1/reasoning/{trace_id}", "get"),
                "parameters": {"trace_id": "$response.body#/trace_id"},
            },
            "ReadLineage": {
                "operationId": operation_id(
                    "read_lineage", "/v1/memories/{memory_id}/lineage", "get"
                ),
                "parameters": {"memory_id": "$response.body#/trace_id"},
            },
        }
    }
