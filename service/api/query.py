"""Query strings read strictly: a parameter the operation does not take, or one given twice, is a 422.

A body's unknown field is refused (`extra_forbidden`); a query string's was ignored, so
`GET /v1/reasoning/{id}?as_of=2020-...` answered the trace of today as if it were the one
read at 2020, and `?as_of=A&as_of=B` answered at B (FastAPI takes the last value).
"""

from __future__ import annotations

from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.datastructures import QueryParams


def query_names(route: APIRoute) -> frozenset[str]:
    """Return the query parameters a route takes (its own and its dependencies', by alias)."""
    names: set[str] = set()
    stack = [route.dependant]
    while stack:
        dependant = stack.pop()
        names.update(field.alias for field in dependant.query_params)
        stack.extend(dependant.dependencies)
    return frozenset(names)


def check_query(params: QueryParams, known: frozenset[str]) -> None:
    """Refuse a query string naming a parameter outside `known`, or one parameter twice.

    Args:
        params: the request's query parameters (a multi-dict).
        known: the names the operation takes (`query_names`).

    Raises:
        RequestValidationError: one issue per offending name, `loc` `["query", name]`, type
            `extra_forbidden` (as pydantic names a body's unknown field) or `repeated`;
            answered as 422 `input.invalid`.
    """
    if not params:
        return
    issues = []
    for name in dict.fromkeys(params.keys()):  # each name once, in the order given
        values = params.getlist(name)
        if name not in known:
            issues.append(
                {
                    "type": "extra_forbidden",
                    "loc": ("query", name),
                    "msg": "Extra inputs are not permitted"
                    + (f": this operation takes {', '.join(sorted(known))}" if known else ""),
                    "input": values[-1],
                }
            )
        elif len(values) > 1:
            issues.append(
                {
                    "type": "repeated",
                    "loc": ("query", name),
                    "msg": f"given {len(values)} times: send one value",
                    "input": values,
                }
            )
    if issues:
        raise RequestValidationError(issues)
