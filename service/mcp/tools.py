"""The MCP tools, defined once over a `Backend`: one tool per use case, each with a JSON schema.

A tool's result is the REST answer as structured content plus a short text rendering; a refusal
(bad input, missing scope, quality gate, not found) is a tool error (`isError: true`) whose text
names the code and the issues and whose structured content is the REST error body plus `status`.
Arguments that break a tool's input schema (unknown ones included) are the REST 422
`input.invalid` too, each issue naming its argument; as in REST bodies, nothing is coerced
(`"limit": "5"` or `"include_superseded": "true"` is refused, `5.0` is the integer 5).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal, cast

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from mcp.types import CallToolResult, InputRequiredResult, ToolAnnotations
from pydantic import Field, ValidationError

from service.json_types import JsonInt
from service.mcp import render, render_lineage
from service.mcp.arguments import (
    INGEST_FORMATS,
    STRICT,
    Actor,
    AnyKind,
    IngestFormat,
    MemoryId,
    OriginName,
    ProducedArg,
    Reason,
    StepArg,
    Time,
)
from service.mcp.backend import TOOL_SCOPES, BackendError, read_whole
from service.mcp.calls import BackendFor, body_of, call, refusal
from service.mcp.memory_tools import invalidate, remember, retract, update_memory

#: Checks the caller's key before a call's arguments are looked at; raises `BackendError`.
Authenticate = Callable[[], Awaitable[None]]

INSTRUCTIONS = """Rationale is agent memory that keeps why next to what. Store facts, decisions,
procedures and observations with `remember`; store how you reached a decision with
`record_reasoning` (steps, the evidence each cites by memory_id, hypotheses you ruled out). Before
acting, `recall` what is relevant. To question a past decision, read its `lineage` or `challenge`
it (which lists the steps whose evidence has since changed); to correct a memory, `update_memory`
with the version you read. Everything is scoped to the namespace of your API key."""


class RationaleServer(MCPServer[Any]):
    """An `MCPServer` with Rationale's tools, each calling the backend its transport provides.

    Args:
        backend_for: returns the backend for the caller of one tool call (HTTP: the domain as
            the request's key; stdio: the REST client); raises `BackendError` to refuse.
        authenticate: checks the caller's key before each call's arguments are validated
            (stdio: with the service); None where the transport did (HTTP, before any message).
    """

    def __init__(self, backend_for: BackendFor, authenticate: Authenticate | None = None) -> None:
        root = logging.getLogger()
        handlers, level = list(root.handlers), root.level
        super().__init__(name="rationale", instructions=INSTRUCTIONS, version="0.1.0")
        # The SDK calls logging.basicConfig(INFO); the process hosting the server owns logging.
        root.handlers[:] = handlers
        root.setLevel(level)
        self.backend_for = backend_for
        self.authenticate = authenticate
        for fn, hints in TOOLS:
            self.add_tool(fn, description=describe(fn), annotations=hints)
            # The SDK's arguments model ignores unknown arguments and coerces ("5" -> 5); like
            # the REST bodies, refuse both. FuncMetadata's fields are read on each call, so the
            # stricter model applies.
            tool = self._tool_manager.get_tool(fn.__name__)
            assert tool is not None
            loose = tool.fn_metadata.arg_model
            strict = cast(
                "type[ArgModelBase]",
                type(loose.__name__, (loose,), {"model_config": STRICT}),
            )
            tool.fn_metadata.arg_model = strict
            tool.parameters = strict.model_json_schema(by_alias=True)

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        """Call a tool; arguments that fail its input schema are the REST 422 `input.invalid`.

        The key is checked first (`authenticate`), then the tool's scope (`TOOL_SCOPES`), as
        REST does: a caller without a known key gets its 401 `auth.invalid_key`, one without
        the scope its 403 `auth.forbidden`, whatever the arguments.

        Raises:
            ToolError: an unknown tool, or a failure other than argument validation.
        """
        try:
            if self.authenticate is not None:
                await self.authenticate()
            if context is not None and name in TOOL_SCOPES:
                await (await self.backend_for(context)).require(TOOL_SCOPES[name])
        except BackendError as exc:
            return refusal(exc)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if not isinstance(exc.__cause__, ValidationError):
                raise
            errors = exc.__cause__.errors(
                include_url=False, include_context=False, include_input=False
            )
            return refusal(BackendError(422, "input.invalid", errors))


def describe(fn: Callable[..., Any]) -> str:
    """Return a tool's description: its docstring, `{formats}` replaced by the ingest formats."""
    return inspect.cleandoc(fn.__doc__ or "").replace("{formats}", INGEST_FORMATS)


async def record_reasoning(
    ctx: Context[Any, Any],
    task: Annotated[str, Field(min_length=1, description="The question the reasoning served.")],
    steps: Annotated[
        list[StepArg], Field(min_length=1, description="The steps in order; index 0 first.")
    ],
    produced: Annotated[
        ProducedArg | None, Field(description="A new memory this reasoning led to.")
    ] = None,
    produced_memory_id: Annotated[
        str | None, Field(description="Or the memory_id of an existing memory it led to.")
    ] = None,
    self_assessment: Annotated[
        dict[str, Any] | None, Field(description="Your own view of the reasoning; stored as is.")
    ] = None,
    actor: Actor = None,
) -> CallToolResult:
    """Record how a decision was reached: a reasoning trace, through the quality gate (scope write).

    Cite evidence by memory_id in each step's `cites`; mark guesses `status: hypothesis` and rule
    them out with a later step's `rejects` (0-based step indexes). The gate refuses circular,
    repetitive or unsupported traces: the tool error names each issue and its step, so fix them
    and call again. Returns the trace and what it produced.
    """
    body = body_of(
        task=task, steps=[s.model_dump(exclude_none=True) for s in steps],
        produced=produced.model_dump(exclude_none=True) if produced else None,
        produced_memory_id=produced_memory_id, self_assessment=self_assessment, actor=actor,
    )  # fmt: skip
    return await call(ctx, lambda b: b.record_reasoning(body), render.recorded_trace)


Query = Annotated[str, Field(min_length=1, description="What you need, in plain words.")]
Limit = Annotated[JsonInt, Field(ge=1, le=100, description="At most this many items, 1..100.")]
Kinds = Annotated[
    list[AnyKind] | None, Field(min_length=1, description="Only these kinds (at least one).")
]
Explain = Annotated[
    bool,
    Field(
        description="Also say why each item matched: one line with the lexical, vector and task "
        "contributions and the query words it holds."
    ),
]


async def recall(
    ctx: Context[Any, Any],
    query: Query,
    limit: Limit = 10,
    kinds: Kinds = None,
    as_of: Time = None,
    known_at: Time = None,
    explain: Explain = False,
) -> CallToolResult:
    """Recall what is relevant as context: current, valid memories and whole traces (scope read).

    Ranked best first; an item produced by reasoning says so (`has_reasoning`, its lineage path).
    `as_of` asks what was true at that time, `known_at` what was believed then; `explain` adds
    a "why:" line to each item.
    """
    body = body_of(
        query=query, limit=limit, kinds=kinds, as_of=as_of, known_at=known_at, explain=explain
    )
    return await call(ctx, lambda b: b.recall(body), lambda a: render.ranked(a, "recall"))


async def search(
    ctx: Context[Any, Any],
    query: Query,
    limit: Limit = 10,
    kinds: Kinds = None,
    origins: Annotated[
        list[OriginName] | None,
        Field(min_length=1, description="Only from these doors: user, ingestion, maintenance."),
    ] = None,
    include_superseded: Annotated[
        bool, Field(description="Also return closed (superseded, retracted) versions.")
    ] = False,
    as_of: Time = None,
    known_at: Time = None,
    explain: Explain = False,
) -> CallToolResult:
    """Look memories up explicitly, with each item's origin; maintenance proposals included (scope read).

    `explain` adds a "why:" line to each item.
    """
    body = body_of(
        query=query, limit=limit, kinds=kinds, origins=origins,
        include_superseded=include_superseded, as_of=as_of, known_at=known_at, explain=explain,
    )  # fmt: skip
    return await call(ctx, lambda b: b.search(body), lambda a: render.ranked(a, "search"))


async def get_memory(
    ctx: Context[Any, Any], memory_id: MemoryId, as_of: Time = None, known_at: Time = None
) -> CallToolResult:
    """Read one memory: the current version, or the one believed at `known_at` about `as_of`; a reasoning trace comes whole, every step in order (scope read)."""
    return await call(ctx, lambda b: read_whole(b, memory_id, as_of, known_at), render.record)


async def history(ctx: Context[Any, Any], memory_id: MemoryId) -> CallToolResult:
    """List every version of a memory, oldest first, with its times and provenance (scope read)."""
    return await call(ctx, lambda b: b.history(memory_id), render_lineage.history)


async def lineage(
    ctx: Context[Any, Any], memory_id: MemoryId, as_of: Time = None, known_at: Time = None
) -> CallToolResult:
    """Explain why a memory exists: its versions and every reasoning trace that produced them (scope read).

    Each trace reads as numbered steps with the evidence each cited (and whether it still holds);
    rejected hypotheses are marked "(rejected by step N)". A decision also lists its outcomes.
    `as_of` (valid time) shows the version valid then and only the outcomes observed by then;
    `known_at` (system time) only what was recorded by then.
    """
    return await call(ctx, lambda b: b.lineage(memory_id, as_of, known_at), render_lineage.lineage)


async def challenge(
    ctx: Context[Any, Any], memory_id: MemoryId, reason: Reason, actor: Actor = None
) -> CallToolResult:
    """Question a decision: its lineage plus the steps whose cited evidence has since changed (scope write).

    A decision becomes `challenged` (a new version); revisit the listed steps.
    """
    body = body_of(reason=reason, actor=actor)
    return await call(ctx, lambda b: b.challenge(memory_id, body), render_lineage.challenge)


async def dependents(ctx: Context[Any, Any], memory_id: MemoryId) -> CallToolResult:
    """List the decisions resting on reasoning that cites this memory (scope read)."""
    return await call(
        ctx,
        lambda b: b.dependents(memory_id),
        lambda a: render.memories(a, "Decisions resting on it"),
    )


async def ingest(
    ctx: Context[Any, Any],
    content: Annotated[
        str, Field(min_length=1, description="The material (text, or JSON as text).")
    ],
    source_name: Annotated[
        str, Field(min_length=1, max_length=500, description="Its file name or URL.")
    ],
    format: Annotated[IngestFormat, Field(description="Its format; auto detects it.")] = "auto",
) -> CallToolResult:
    """Draw memories and reasoning out of material: agent trajectories, ADRs, notes (scope ingest).

    Formats (`format`): {formats}. Ingesting the same content again creates nothing.
    Returns what was created, per kind, with each trace's quality.
    """
    body = body_of(content=content, source_name=source_name, format=format)
    return await call(ctx, lambda b: b.ingest(body), render.ingest)


async def record_outcome(
    ctx: Context[Any, Any],
    decision_id: Annotated[str, Field(min_length=1, description="The decision's memory_id.")],
    result: Annotated[Literal["success", "failure", "mixed"], Field(description="What happened.")],
    content: Annotated[str, Field(min_length=1, description="What was observed, in a sentence.")],
    observed_at: Time = None,
    cites: Annotated[
        list[str] | None,
        Field(max_length=50, description="memory_ids of evidence of the outcome (at most 50)."),
    ] = None,
    actor: Actor = None,
) -> CallToolResult:
    """Record what happened when a decision was acted on (scope write).

    A failure or mixed outcome makes an active decision `challenged` (a new version), so its
    reasoning gets revisited. Recording the same outcome again writes nothing.
    """
    body = body_of(
        result=result, content=content, observed_at=observed_at, cites=cites, actor=actor
    )
    return await call(ctx, lambda b: b.record_outcome(decision_id, body), render_lineage.outcome)


async def find_precedents(
    ctx: Context[Any, Any],
    situation: Annotated[
        str, Field(min_length=1, description="The situation at hand: what is being decided.")
    ],
    limit: Annotated[JsonInt, Field(ge=1, le=100, description="At most this many, 1..100.")] = 5,
    kinds: Annotated[
        list[Literal["decision", "procedure", "fact"]] | None,
        Field(
            min_length=1, description="Kinds a precedent may be (at least one); default decisions."
        ),
    ] = None,
    as_of: Time = None,
    known_at: Time = None,
) -> CallToolResult:
    """Find past decisions like this situation, with their reasoning in brief and outcome record (scope read).

    Use it before deciding: how it went last time (successes, failures), which hypotheses were
    ruled out and why, and why each precedent matched.
    """
    body = body_of(situation=situation, limit=limit, kinds=kinds, as_of=as_of, known_at=known_at)
    return await call(ctx, lambda b: b.find_precedents(body), render_lineage.precedents)


_READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
_ADD = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
_CLOSE = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)

#: Every tool with its hints, in the order `tools/list` shows them.
TOOLS: tuple[tuple[Callable[..., Awaitable[CallToolResult]], ToolAnnotations], ...] = (
    (remember, _ADD.model_copy(update={"idempotent_hint": True})),
    (record_reasoning, _ADD),
    (recall, _READ),
    (search, _READ),
    (get_memory, _READ),
    (history, _READ),
    (update_memory, _ADD),
    (lineage, _READ),
    (challenge, _ADD),
    (dependents, _READ),
    (invalidate, _CLOSE),
    (retract, _CLOSE),
    (ingest, _ADD.model_copy(update={"idempotent_hint": True})),
    (record_outcome, _ADD.model_copy(update={"idempotent_hint": True})),
    (find_precedents, _READ),
)
