"""The one builder of a new `:Memory` node's properties, used by the store and the benchmarks."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from service.domain.models import Kind, Writer
from service.domain.text import check_json, normalise_for_match
from service.domain.text.lexical import identifier_parts, namespace_token, search_text
from service.errors import InvalidInputError, TooLargeError

#: How far past the server's clock a time the caller says has already happened may be (its
#: clock runs ahead): an outcome's `observed_at`, a reasoning's `produced.valid_from`.
CLOCK_SKEW = timedelta(seconds=60)

#: Properties a new version copies from the one before unless the change sets them.
VERSIONED_FIELDS = (
    "namespace",
    "memory_id",
    "kind",
    "content",
    "content_norm",
    "subject",
    "attribute",
    "confidence",
    "status",
    "trigger",
    "metadata_json",
    "valid_from",
    "valid_to",
    "created_by_origin",
    "created_by_actor",
    "task_text",
    "conclusion",
    "quality_score",
    "quality_issues",
    "quality_verdict",
    "quality_json",
    "step_count",
    "source_id",
    "trace_digest",
)
MAX_METADATA_BYTES = 65_536


def utcnow() -> datetime:
    """Return the current time, timezone-aware UTC (Neo4j keeps microseconds... and nanoseconds)."""
    return datetime.now(UTC)


def iso_utc(value: datetime) -> str:
    """Return a time as the API writes it, for messages: ISO 8601 in UTC with `Z`.

    `datetime.isoformat` writes `+00:00` where every answer body has `Z` (pydantic's JSON), so an
    error naming a memory's time read as another time than the memory's own fields.
    """
    return value.astimezone(UTC).isoformat().replace("+00:00", "Z")


def shifted(value: datetime, delta: timedelta, *, what: str) -> datetime:
    """Return `value + delta`, refused when that falls outside the times a `datetime` can hold.

    Times run from 0001-01-01T00:00:00Z to 9999-12-31T23:59:59.999999Z; a given time at an end
    (e.g. a record dated the last microsecond, whose end must come after it) cannot move past it.

    Args:
        value: the time (timezone-aware UTC datetime), e.g. a memory's `valid_from`.
        delta: how far to move it.
        what: what `value` is, named in the message (e.g. ``"valid_from"``).

    Raises:
        InvalidInputError: e.g. `valid_from: 9999-12-31T23:59:59.999999Z is too close to the
            end of time: 1 microsecond after it cannot be held ...`.
    """
    try:
        return value + delta
    except OverflowError:
        side, where = ("end", "after") if delta > timedelta(0) else ("start", "before")
        raise InvalidInputError(
            f"{what}: {iso_utc(value)} is too close to the {side} of time: {_span(delta)} "
            f"{where} it cannot be held (times run from 0001-01-01T00:00:00Z to "
            "9999-12-31T23:59:59.999999Z); give a time within that range"
        ) from None


def _span(delta: timedelta) -> str:
    micros = abs(delta) // timedelta(microseconds=1)
    return "1 microsecond" if micros == 1 else f"{micros} microseconds"


def check_period(valid_from: datetime, valid_to: datetime | None, *, defaulted: bool) -> None:
    """Refuse an empty valid-time period: `valid_to` at or before `valid_from`.

    Args:
        valid_from: the period's start (timezone-aware UTC).
        valid_to: its end, or None (open).
        defaulted: `valid_from` was not given and is the write's time, which the message says.

    Raises:
        InvalidInputError: e.g. `valid_to (2020-01-01T00:00:00Z) must be after valid_from (not
            given: now, 2026-12-04T21:30:00Z)`.
    """
    if valid_to is None or valid_to > valid_from:
        return
    start = f"not given: now, {iso_utc(valid_from)}" if defaulted else iso_utc(valid_from)
    raise InvalidInputError(f"valid_to ({iso_utc(valid_to)}) must be after valid_from ({start})")


def encode_metadata(metadata: dict[str, Any] | None) -> str | None:
    """Serialise metadata for storage (Neo4j properties cannot hold maps).

    Raises:
        TooLargeError: the JSON is over `MAX_METADATA_BYTES`.
    """
    if metadata is None:
        return None
    check_json(metadata, field="metadata")
    text = json.dumps(metadata, ensure_ascii=False, sort_keys=True, allow_nan=False)
    if len(text.encode("utf-8")) > MAX_METADATA_BYTES:
        raise TooLargeError(f"metadata: over {MAX_METADATA_BYTES} bytes as JSON")
    return text


def build_memory_row(
    writer: Writer,
    kind: str,
    content: str,
    embedding: list[float],
    *,
    now: datetime,
    subject: str | None = None,
    attribute: str | None = None,
    confidence: float | None = None,
    status: str | None = None,
    trigger: str | None = None,
    metadata_json: str | None = None,
    valid_from: datetime | None = None,
    valid_to: datetime | None = None,
    episode: str | None = None,
    position: int | None = None,
    context: str | None = None,
) -> dict[str, Any]:
    """Build the properties of version 1 of a new memory (the `props` of `memory/create_memory`).

    No validation happens here: the store validates first (`MemoryService.new_props`); the
    benchmarks call this directly with clean synthetic text, so their corpora are stored exactly
    as the service stores a memory. A decision without a status gets `active`.

    Args:
        writer: namespace, door (origin) and actor; both provenances start as the writer.
        kind: a `Kind` value.
        content: the memory's text, already cleaned.
        embedding: list[float], len == the model's `Embedder.dimension`, L2-normalised.
        now: the write's system time (timezone-aware UTC datetime); `system_from`.
        subject: a fact's key subject, or None.
        attribute: a fact's key attribute, or None.
        confidence: in [0, 1], or None.
        status: a decision's status, or None (`active` for a decision).
        trigger: a procedure's trigger, or None.
        metadata_json: metadata serialised by `encode_metadata`, or None.
        valid_from: start of valid time (timezone-aware UTC datetime); default `now`.
        valid_to: end of valid time, or None (open).
        episode: the conversation, session or document the memory came from, or None.
        position: its 0-based place in `episode`, or None.
        context: its immediate context in that material (a section title, a trace's task;
            the previous turn is looked up by `memory/create_memory`), or None.

    Returns:
        The property map: fresh `uid` and `memory_id`, `version` 1, `content_norm`, the four
        times, both provenances, `current` and the lexical fields (`search_context`,
        `search_parts` = the content's `identifier_parts`, `search_text` = context + content +
        parts, `search_ns` = the namespace's fulltext token).
    """
    if kind == Kind.DECISION and status is None:
        status = "active"
    parts = identifier_parts(content)
    return {
        "uid": str(uuid.uuid4()),
        "namespace": writer.namespace,
        "memory_id": str(uuid.uuid4()),
        "version": 1,
        "kind": str(kind),
        "content": content,
        "content_norm": normalise_for_match(content),
        "subject": subject,
        "attribute": attribute,
        "confidence": confidence,
        "status": status,
        "trigger": trigger,
        "metadata_json": metadata_json,
        "embedding": embedding,
        "valid_from": valid_from or now,
        "valid_to": valid_to,
        "system_from": now,
        "system_to": None,
        "current": True,
        "episode": episode,
        "position": position,
        "search_context": context,
        "search_parts": parts,
        "search_text": search_text(context, content, parts),
        "search_ns": namespace_token(writer.namespace),
        "created_by_origin": writer.origin,
        "created_by_actor": writer.actor,
        "last_modified_by_origin": writer.origin,
        "last_modified_by_actor": writer.actor,
    }
