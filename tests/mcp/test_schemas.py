"""The tools' input schemas as `tools/list` shows them: JSON Schema keywords, REST's bounds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from mcp import Client
from mcp.server.mcpserver import Context
from pydantic import BaseModel

from service.mcp.backend import TOOL_SCOPES, Backend
from service.mcp.tools import TOOLS, RationaleServer, describe
from service.schemas import (
    IngestRequest,
    InvalidateRequest,
    MemoryCreate,
    MemoryUpdate,
    ReasonRequest,
    RecallRequest,
    SearchRequest,
    TraceCreate,
)
from service.schemas.outcomes import OutcomeCreate, PrecedentsRequest

pytestmark = pytest.mark.anyio

#: The REST body each tool sends (the path's memory id is an argument REST has no field for).
REST_BODIES: dict[str, type[BaseModel]] = {
    "remember": MemoryCreate,
    "record_reasoning": TraceCreate,
    "recall": RecallRequest,
    "search": SearchRequest,
    "update_memory": MemoryUpdate,
    "challenge": ReasonRequest,
    "invalidate": InvalidateRequest,
    "retract": ReasonRequest,
    "ingest": IngestRequest,
    "record_outcome": OutcomeCreate,
    "find_precedents": PrecedentsRequest,
}
BOUNDS = {"minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"}
#: pydantic's names, which JSON Schema (and so an MCP host) does not know.
NOT_JSON_SCHEMA = {"ge", "le", "gt", "lt", "min_length", "max_length", "multiple_of"}


async def _no_backend(ctx: Context[Any, Any]) -> Backend:
    raise AssertionError("listing tools calls no backend")


async def listed() -> dict[str, dict[str, Any]]:
    async with Client(RationaleServer(_no_backend)) as client:
        return {t.name: t.input_schema for t in (await client.list_tools()).tools}


def bounds(schema: Any, defs: dict[str, Any], path: str = "") -> Iterator[tuple[str, str, Any]]:
    """Yield `(argument path, keyword, value)` for every bound in a schema ($refs followed)."""
    if not isinstance(schema, dict):
        return
    if "$ref" in schema:
        yield from bounds(defs[schema["$ref"].rsplit("/", 1)[1]], defs, path)
        return
    for key, value in schema.items():
        if key in BOUNDS or key in NOT_JSON_SCHEMA:
            yield path, key, value
        elif key == "properties":
            for name, sub in value.items():
                yield from bounds(sub, defs, f"{path}.{name}".lstrip("."))
        elif key in ("anyOf", "allOf", "oneOf"):
            for sub in value:
                yield from bounds(sub, defs, path)
        elif key == "items":
            yield from bounds(value, defs, f"{path}[]")


def bounds_of(schema: dict[str, Any]) -> set[tuple[str, str, Any]]:
    return set(bounds(schema, schema.get("$defs", {})))


def arguments(schema: dict[str, Any], defs: dict[str, Any], path: str = "") -> set[str]:
    """Return every argument path of a schema (nested models' fields included)."""
    if "$ref" in schema:
        return arguments(defs[schema["$ref"].rsplit("/", 1)[1]], defs, path)
    found: set[str] = set()
    for sub in schema.get("anyOf", []):
        found |= arguments(sub, defs, path)
    if "items" in schema:
        found |= {f"{path}[]"} | arguments(schema["items"], defs, f"{path}[]")
    for name, sub in schema.get("properties", {}).items():
        here = f"{path}.{name}".lstrip(".")
        found |= {here} | arguments(sub, defs, here)
    return found


async def test_bounds_use_json_schema_keywords_only() -> None:
    for name, schema in (await listed()).items():
        raw = sorted((p, k) for p, k, _ in bounds_of(schema) if k in NOT_JSON_SCHEMA)
        assert not raw, (name, raw)


async def test_limits_and_non_empty_lists_are_declared() -> None:
    tools = await listed()
    for name in ("recall", "search", "find_precedents"):
        limit = tools[name]["properties"]["limit"]
        assert (limit["minimum"], limit["maximum"], limit["type"]) == (1, 100, "integer"), name
    for name, argument in (
        ("recall", "kinds"),
        ("search", "kinds"),
        ("search", "origins"),
        ("find_precedents", "kinds"),
        ("record_reasoning", "steps"),
    ):
        assert (argument, "minItems", 1) in bounds_of(tools[name]), (name, argument)


async def test_every_bound_of_the_rest_body_is_declared_by_the_tool() -> None:
    tools = await listed()
    for name, model in REST_BODIES.items():
        tool = tools[name]
        known = arguments(tool, tool.get("$defs", {}))
        rest = {b for b in bounds_of(model.model_json_schema()) if b[0] in known}
        missing = rest - bounds_of(tool)
        assert not missing, (name, sorted(missing))


async def test_ingest_description_lists_the_format_enum() -> None:
    async with Client(RationaleServer(_no_backend)) as client:
        ingest = next(t for t in (await client.list_tools()).tools if t.name == "ingest")
    assert ingest.description is not None
    formats = ingest.input_schema["properties"]["format"]["enum"]
    line = " ".join(ingest.description.split())  # the sentence may wrap
    listed_formats = line.split("Formats (`format`): ", 1)[1].split(". ", 1)[0]
    assert [f.split(" (")[0] for f in listed_formats.split(", ")] == formats


def test_every_tool_has_the_scope_its_description_names() -> None:
    """`TOOL_SCOPES` (checked before the arguments) and each description's `(scope x)` agree."""
    assert set(TOOL_SCOPES) == {fn.__name__ for fn, _ in TOOLS}
    for fn, _ in TOOLS:
        assert f"(scope {TOOL_SCOPES[fn.__name__]})" in describe(fn), fn.__name__
