"""The MCP tools that write one memory: remember, update_memory, invalidate and retract."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult
from pydantic import Field

from service.json_types import INT64_MAX, JsonInt
from service.mcp import render
from service.mcp.arguments import Actor, KeyPart, MemoryId, MemoryKind, Reason, Time
from service.mcp.calls import body_of, call

#: A status a decision is written with (REST's `DecisionStatus`; retract is its own tool).
Status = Annotated[
    Literal["active", "challenged"] | None,
    Field(description="A decision's status; default active (to retract, use the retract tool)."),
]
Confidence = Annotated[float | None, Field(ge=0, le=1, description="In [0, 1].")]
Trigger = Annotated[str | None, Field(max_length=2000, description="When a procedure applies.")]
Metadata = Annotated[dict[str, Any] | None, Field(description="Free JSON metadata.")]


async def remember(
    ctx: Context[Any, Any],
    kind: Annotated[MemoryKind, Field(description="fact, decision, procedure or observation.")],
    content: Annotated[str, Field(min_length=1, description="The memory's text.")],
    subject: Annotated[KeyPart, Field(description="Key subject of a fact, e.g. alice.")] = None,
    attribute: Annotated[
        KeyPart, Field(description="Key attribute of a fact, e.g. home_district.")
    ] = None,
    confidence: Confidence = None,
    status: Status = None,
    trigger: Trigger = None,
    valid_from: Time = None,
    valid_to: Time = None,
    metadata: Metadata = None,
    actor: Actor = None,
    episode: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=512,
            description="The conversation, session or document it came from.",
        ),
    ] = None,
    position: Annotated[
        Annotated[JsonInt, Field(ge=0)] | None,
        Field(description="Its 0-based place in `episode`."),
    ] = None,
    context: Annotated[
        str | None,
        Field(
            min_length=1,
            max_length=2000,
            description="Its immediate context in the material (e.g. its section), indexed "
            "with it for lexical search; never part of `content`.",
        ),
    ] = None,
) -> CallToolResult:
    """Store a fact, decision, procedure or observation (scope write).

    A fact with `subject` and `attribute` is keyed: a new value for the same key is a new memory
    (its own memory_id), and the previous value's memory gets a version closed in valid time
    (its `valid_to` is the new value's `valid_from`; `as_of` reads find either). Remembering the
    same thing twice writes nothing (`created: false`). Returns the memory with its memory_id,
    to cite from `record_reasoning`.
    """
    body = body_of(
        kind=kind, content=content, subject=subject, attribute=attribute, confidence=confidence,
        status=status, trigger=trigger, valid_from=valid_from, valid_to=valid_to,
        metadata=metadata, actor=actor, episode=episode, position=position, context=context,
    )  # fmt: skip
    return await call(ctx, lambda b: b.remember(body), render.created)


async def update_memory(
    ctx: Context[Any, Any],
    memory_id: MemoryId,
    version: Annotated[
        JsonInt,
        Field(
            ge=1,
            le=INT64_MAX,
            description="The version you read (get_memory, history): the update is written "
            "only while it is still the current version.",
        ),
    ],
    content: Annotated[str | None, Field(min_length=1, description="New text.")] = None,
    confidence: Confidence = None,
    status: Status = None,
    trigger: Trigger = None,
    metadata: Annotated[
        dict[str, Any] | None, Field(description="Replaces the metadata (free JSON).")
    ] = None,
    valid_from: Time = None,
    valid_to: Time = None,
    actor: Actor = None,
) -> CallToolResult:
    """Change a memory: a new version with the given fields, the others kept (scope write).

    E.g. set a decision's `status` back to active after a success, or correct a text. Pass the
    `version` you read: if the memory changed since, nothing is written and the refusal
    (409 memory.version_conflict) names the current version; read it again and retry.
    Returns the new version (the same one when nothing differed).
    """
    body = body_of(
        content=content, confidence=confidence, status=status, trigger=trigger,
        metadata=metadata, valid_from=valid_from, valid_to=valid_to, actor=actor,
    )  # fmt: skip
    return await call(
        ctx,
        lambda b: b.update_memory(memory_id, version, body),
        lambda a: render.updated(a, version),
    )


async def invalidate(
    ctx: Context[Any, Any],
    memory_id: MemoryId,
    reason: Reason,
    valid_to: Time = None,
    actor: Actor = None,
) -> CallToolResult:
    """Record that a memory stopped being true at `valid_to` (default now); history keeps it (scope write)."""
    body = body_of(reason=reason, valid_to=valid_to, actor=actor)
    return await call(
        ctx,
        lambda b: b.invalidate(memory_id, body),
        lambda a: "Invalidated: " + render.memory_line(a),
    )


async def retract(
    ctx: Context[Any, Any], memory_id: MemoryId, reason: Reason, actor: Actor = None
) -> CallToolResult:
    """Withdraw a memory that should never have been believed; history keeps it (scope write)."""
    body = body_of(reason=reason, actor=actor)
    return await call(
        ctx, lambda b: b.retract(memory_id, body), lambda a: "Retracted: " + render.memory_line(a)
    )
