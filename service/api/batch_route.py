"""The batch route's class: a schema refusal of `POST /v1/memories/batch` names every invalid item.

FastAPI validates the body before the handler runs and stops there, so an item breaking a domain
rule (blank content, half a key, another turn at an earlier item's place) went unreported when
another item failed the schema (trial 24: a bad `position` at index 1 hid blank content at
index 2). `BatchRoute` catches FastAPI's `RequestValidationError`, checks the items the schema
let through as the write would (`batch_checks.item_rows`: no graph, no model), and raises a
`BatchValidationError` holding both, which `api.errors` renders as one 422 with `errors`.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from fastapi import Request, Response
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from service.api.auth import Principal, authenticate_request
from service.api.auth_gate import ScopedRoute
from service.api.deps import user_writer
from service.api.errors import BatchValidationError, item_issue_errors
from service.domain.memories.batch_checks import BatchItem, Problem, item_errors, item_rows
from service.domain.memories.rows import utcnow
from service.domain.models import NewMemory
from service.errors import InvalidInputError
from service.schemas import MemoryCreate


def other_item_errors(
    request: Request, principal: Principal, body: Mapping[str, Any], refused: set[int]
) -> list[dict[str, Any]]:
    """Return the domain problems of the batch items the schema did not refuse (`errors` entries).

    Args:
        request: the batch request (its app's memory store).
        principal: the caller (the writer the items would have).
        body: the parsed request body.
        refused: indexes of the items the schema refused (not checked again).
    """
    items = body.get("items")
    if not isinstance(items, list):
        return []
    checked: list[tuple[int, BatchItem]] = []
    problems: list[Problem] = []
    for index, raw in enumerate(items):
        if index in refused:
            continue
        try:
            item = MemoryCreate.model_validate(raw)
            writer = user_writer(principal, item.actor)
        except ValidationError:
            continue  # the schema's issue is already listed
        except InvalidInputError as exc:
            problems.append((index, exc))
            continue
        memory = NewMemory(**item.model_dump(exclude={"actor"}))
        checked.append((index, BatchItem(writer=writer, memory=memory)))
    memories = request.app.state.services.memories
    problems += item_rows(memories, checked, utcnow())[1]
    return item_errors(problems)


class BatchRoute(ScopedRoute):
    """A `ScopedRoute` whose schema refusal also lists the other items' domain problems."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        """Return the route's handler, turning a schema refusal into a `BatchValidationError`."""
        handler = super().get_route_handler()

        async def batch_handler(request: Request) -> Response:
            try:
                return await handler(request)
            except RequestValidationError as exc:
                if isinstance(exc, BatchValidationError) or not isinstance(exc.body, dict):
                    raise
                settings = request.app.state.services.settings
                principal = authenticate_request(settings, request.headers)
                refused = {int(e["index"]) for e in item_issue_errors(exc.errors())}
                more = other_item_errors(request, principal, exc.body, refused)
                raise BatchValidationError(exc, more) from exc

        return batch_handler
