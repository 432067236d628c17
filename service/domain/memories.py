"""The bi-temporal memory store: create, read as of any time, version, invalidate, retract.

Nothing is overwritten: a change is a new version node that `SUPERSEDES` the one before, which
gets `system_to` (DESIGN §3, §4). Keyed facts (`subject` + `attribute`) are one value of a key:
a new value closes the previous value's valid time at its own `valid_from`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from service.domain.models import KIND_LABELS, WRITABLE_KINDS, Kind
from service.domain.text import check_json, clean_text, normalise_for_match
from service.embeddings import Embedder
from service.errors import (
    ConflictError,
    InvalidInputError,
    MemoryNotFound,
    TooLargeError,
    VersionConflict,
)
from service.graph.repository import Graph, Row, Tx

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
)
MAX_METADATA_BYTES = 65_536


def utcnow() -> datetime:
    """Return the current time, timezone-aware UTC (Neo4j keeps microseconds... and nanoseconds)."""
    return datetime.now(UTC)


@dataclass(frozen=True)
class Writer:
    """Who writes: the tenant, the door (origin) and the actor's name."""

    namespace: str
    origin: str
    actor: str


def memory_public(row: Row) -> dict[str, Any]:
    """Map a stored memory's properties to the public memory shape (DESIGN §8)."""
    metadata = row.get("metadata_json")
    return {
        "memory_id": row["memory_id"],
        "uid": row["uid"],
        "version": row["version"],
        "kind": row["kind"],
        "content": row["content"],
        "valid_from": row["valid_from"],
        "valid_to": row.get("valid_to"),
        "system_from": row["system_from"],
        "system_to": row.get("system_to"),
        "created_by": {
            "origin": row.get("created_by_origin") or "unknown",
            "actor": row.get("created_by_actor") or "unknown",
        },
        "last_modified_by": {
            "origin": row.get("last_modified_by_origin") or "unknown",
            "actor": row.get("last_modified_by_actor") or "unknown",
        },
        "subject": row.get("subject"),
        "attribute": row.get("attribute"),
        "confidence": row.get("confidence"),
        "status": row.get("status"),
        "trigger": row.get("trigger"),
        "metadata": json.loads(metadata) if metadata else None,
    }


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


class MemoryService:
    """Use cases on plain memories (facts, decisions, procedures, observations).

    Args:
        graph: the query runner.
        embedder: turns content into the stored embedding.
        max_content_chars: the documented size limit of `content`.
    """

    def __init__(self, graph: Graph, embedder: Embedder, max_content_chars: int) -> None:
        self.graph = graph
        self.embedder = embedder
        self.max_content_chars = max_content_chars

    # -- building blocks shared with reasoning, ingestion and maintenance -----------------

    def new_props(
        self,
        writer: Writer,
        kind: str,
        content: str,
        *,
        now: datetime,
        embedding: list[float] | None = None,
        subject: str | None = None,
        attribute: str | None = None,
        confidence: float | None = None,
        status: str | None = None,
        trigger: str | None = None,
        metadata: dict[str, Any] | None = None,
        valid_from: datetime | None = None,
        valid_to: datetime | None = None,
    ) -> dict[str, Any]:
        """Validate and build the properties of version 1 of a new memory.

        Returns:
            The property map for `memory/create_memory` (`props`).

        Raises:
            InvalidInputError: bad kind, half a key, `valid_to` not after `valid_from`, bad text.
            TooLargeError: content or metadata over the limits.
        """
        if kind not in {k.value for k in Kind}:
            raise InvalidInputError(f"kind: unknown kind {kind!r}")
        content = clean_text(content, field="content", max_chars=self.max_content_chars)
        if (subject is None) != (attribute is None):
            raise InvalidInputError("subject and attribute form a key: give both or neither")
        if subject is not None and kind != Kind.FACT:
            raise InvalidInputError("only facts have a key (subject + attribute)")
        if subject is not None and attribute is not None:
            subject = clean_text(subject, field="subject", max_chars=512)
            attribute = clean_text(attribute, field="attribute", max_chars=512)
        if trigger is not None:
            if kind != Kind.PROCEDURE:
                raise InvalidInputError("only procedures have a trigger")
            trigger = clean_text(trigger, field="trigger", max_chars=2000)
        if status is not None and kind != Kind.DECISION:
            raise InvalidInputError("only decisions have a status")
        valid_from = valid_from or now
        if valid_to is not None and valid_to <= valid_from:
            raise InvalidInputError("valid_to must be after valid_from")
        if kind == Kind.DECISION and status is None:
            status = "active"
        if embedding is None:
            embedding = self.embedder.encode([content])[0]
        return {
            "uid": str(uuid.uuid4()),
            "namespace": writer.namespace,
            "memory_id": str(uuid.uuid4()),
            "version": 1,
            "kind": kind,
            "content": content,
            "content_norm": normalise_for_match(content),
            "subject": subject,
            "attribute": attribute,
            "confidence": confidence,
            "status": status,
            "trigger": trigger,
            "metadata_json": encode_metadata(metadata),
            "embedding": embedding,
            "valid_from": valid_from,
            "valid_to": valid_to,
            "system_from": now,
            "system_to": None,
            "created_by_origin": writer.origin,
            "created_by_actor": writer.actor,
            "last_modified_by_origin": writer.origin,
            "last_modified_by_actor": writer.actor,
        }

    def create_in(
        self, tx: Tx, props: dict[str, Any], now: datetime, writer: Writer
    ) -> tuple[Row, bool]:
        """Create a memory inside a transaction, idempotently, applying the keyed-fact rule.

        Args:
            tx: the open write transaction.
            props: from `new_props`.
            now: the write's system time.
            writer: who writes.

        Returns:
            `(stored properties, created)`; `created` is False when an equal current memory
            (same kind, namespace, key and normalised content) already existed.
        """
        existing = tx.one(
            "memory/find_equal_memory",
            {
                "namespace": props["namespace"],
                "kind": props["kind"],
                "content_norm": props["content_norm"],
                "subject": props["subject"],
                "attribute": props["attribute"],
            },
        )
        if existing is not None:
            return existing["memory"], False
        keyed = props["subject"] is not None
        previous: list[Row] = []
        corrected: list[Row] = []
        if keyed:
            key = {
                "namespace": props["namespace"],
                "subject": props["subject"],
                "attribute": props["attribute"],
            }
            tx.run("memory/lock_key", {**key, "now": now})
            values = [r["memory"] for r in tx.run("memory/get_key_current", key)]
            props, previous, corrected = self._place_keyed_value(props, values)
        row = tx.one(
            "memory/create_memory", {"label": KIND_LABELS[Kind(props["kind"])], "props": props}
        )
        assert row is not None
        created = row["memory"]
        for old in corrected:
            # Same start as the new value: the old one was wrong from the start, so it is
            # closed in system time (no successor version) and the new value supersedes it.
            closed_row = tx.one(
                "memory/retract_memory",
                {
                    "namespace": props["namespace"],
                    "memory_id": old["memory_id"],
                    "now": now,
                    "reason": "corrected by a new value of the same key from the same time",
                    "origin": writer.origin,
                    "actor": writer.actor,
                },
            )
            if closed_row is None:
                raise VersionConflict(f"memory {old['memory_id']} was changed concurrently")
            tx.run(
                "memory/link_supersedes",
                {
                    "namespace": props["namespace"],
                    "new_uid": created["uid"],
                    "old_uid": closed_row["memory"]["uid"],
                    "reason": "corrected value of the same key",
                    "origin": writer.origin,
                    "actor": writer.actor,
                    "now": now,
                },
            )
        for old in previous:
            closed = self.version_in(
                tx,
                old,
                {"valid_to": props["valid_from"]},
                writer,
                now,
                reason="keyed value replaced",
            )
            tx.run(
                "memory/link_supersedes",
                {
                    "namespace": props["namespace"],
                    "new_uid": created["uid"],
                    "old_uid": closed["uid"],
                    "reason": "new value of the same key",
                    "origin": writer.origin,
                    "actor": writer.actor,
                    "now": now,
                },
            )
        return created, True

    @staticmethod
    def _place_keyed_value(
        props: dict[str, Any], values: list[Row]
    ) -> tuple[dict[str, Any], list[Row], list[Row]]:
        """Fit a new value of a key into the key's timeline (valid time never overlaps).

        Args:
            props: the new value's properties (`valid_from`, `valid_to`).
            values: the current versions of the key's other values.

        Returns:
            `(props, to_close, to_correct)`: the new value's properties (its `valid_to` set to
            the next value's start when it had none), the values whose valid period contains the
            new start (closed at it, by a new version), and the values starting at the very same
            time (corrected: closed in system time).

        Raises:
            InvalidInputError: the new value's explicit `valid_to` runs into a later value.
        """
        start = props["valid_from"]
        later = [v for v in values if v["valid_from"] > start]
        if later:
            next_start = min(v["valid_from"] for v in later)
            if props["valid_to"] is None:
                props = {**props, "valid_to": next_start}
            elif props["valid_to"] > next_start:
                raise InvalidInputError(
                    f"valid_to runs into the next value of this key, which starts at {next_start.isoformat()}"
                )
        to_close = [
            v
            for v in values
            if v["valid_from"] < start and (v.get("valid_to") is None or v["valid_to"] > start)
        ]
        to_correct = [v for v in values if v["valid_from"] == start]
        return props, to_close, to_correct

    def version_in(
        self,
        tx: Tx,
        current: Row,
        changes: dict[str, Any],
        writer: Writer,
        now: datetime,
        *,
        reason: str,
    ) -> Row:
        """Create the next version of `current` inside a transaction.

        `created_by_*` is copied; `last_modified_by_*` is the writer. If content changes, the
        embedding is recomputed; otherwise the Cypher copies it from the old version.

        Raises:
            VersionConflict: `current` is no longer the current version (a concurrent writer won).
        """
        props = {f: current.get(f) for f in VERSIONED_FIELDS}
        props.update(changes)
        props.update(
            {
                "uid": str(uuid.uuid4()),
                "version": current["version"] + 1,
                "system_from": now,
                "system_to": None,
                "last_modified_by_origin": writer.origin,
                "last_modified_by_actor": writer.actor,
            }
        )
        if "content" in changes:
            props["content_norm"] = normalise_for_match(changes["content"])
            props["embedding"] = self.embedder.encode([changes["content"]])[0]
        if props["valid_to"] is not None and props["valid_to"] <= props["valid_from"]:
            raise InvalidInputError("valid_to must be after valid_from")
        try:
            row = tx.one(
                "memory/create_version",
                {
                    "namespace": current["namespace"],
                    "memory_id": current["memory_id"],
                    "version": current["version"],
                    "label": KIND_LABELS[Kind(str(props["kind"]))],
                    "now": now,
                    "props": props,
                    "reason": reason,
                    "origin": writer.origin,
                    "actor": writer.actor,
                },
            )
        except ConflictError as exc:
            raise VersionConflict(
                f"memory {current['memory_id']} version {current['version']} was changed concurrently"
            ) from exc
        if row is None:
            raise VersionConflict(
                f"memory {current['memory_id']} version {current['version']} is no longer current"
            )
        memory: Row = row["memory"]
        return memory

    def write_version(self, work: Callable[[Tx], Row]) -> Row:
        """Run a version-writing unit of work; a lost race on `(memory_id, version)` is a 409.

        A concurrent writer can pass the version check and then fail on the uniqueness
        constraint when its transaction commits; that is the same conflict as a stale
        `If-Match` and is reported as such.

        Raises:
            VersionConflict: another writer created the same version first.
        """
        try:
            return self.graph.write(work)
        except VersionConflict:
            raise
        except ConflictError as exc:
            raise VersionConflict(
                "the memory was changed concurrently; read it again and retry"
            ) from exc

    def current_in(self, tx: Tx, namespace: str, memory_id: str) -> Row:
        """Return the current version inside a transaction.

        Raises:
            MemoryNotFound: no current version in this namespace.
        """
        row = tx.one(
            "memory/get_memory",
            {"namespace": namespace, "memory_id": memory_id, "as_of": None, "known_at": None},
        )
        if row is None:
            raise self._not_found(namespace, memory_id)
        memory: Row = row["memory"]
        return memory

    def _not_found(self, namespace: str, memory_id: str) -> MemoryNotFound:
        state = self.graph.one(
            "memory/get_memory_state", {"namespace": namespace, "memory_id": memory_id}
        )
        if state is not None and state.get("memory_id") and state.get("system_to") is not None:
            return MemoryNotFound(
                f"memory {memory_id} was retracted at {state['system_to'].isoformat()}; "
                f"its history is at /v1/memories/{memory_id}/history"
            )
        return MemoryNotFound(f"memory {memory_id} not found")

    # -- use cases ------------------------------------------------------------------------

    def create(self, writer: Writer, body: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """Create a memory (`POST /v1/memories`).

        Args:
            writer: namespace, door and actor.
            body: the fields of `MemoryCreate` (times timezone-aware UTC).

        Returns:
            `(public memory, created)`.

        Raises:
            InvalidInputError, TooLargeError: see `new_props`.
        """
        kind = body["kind"]
        if kind not in {k.value for k in WRITABLE_KINDS}:
            raise InvalidInputError(f"kind: {kind!r} cannot be created here")
        now = utcnow()
        props = self.new_props(
            writer,
            kind,
            body["content"],
            now=now,
            subject=body.get("subject"),
            attribute=body.get("attribute"),
            confidence=body.get("confidence"),
            status=body.get("status"),
            trigger=body.get("trigger"),
            metadata=body.get("metadata"),
            valid_from=body.get("valid_from"),
            valid_to=body.get("valid_to"),
        )
        row, created = self.graph.write(lambda tx: self.create_in(tx, props, now, writer))
        return memory_public(row), created

    def get(
        self,
        namespace: str,
        memory_id: str,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> dict[str, Any]:
        """Return the current version, or the one believed at `known_at` about `as_of`.

        Raises:
            MemoryNotFound: no such memory (or none valid/known at those times) in the namespace.
        """
        row = self.graph.one(
            "memory/get_memory",
            {"namespace": namespace, "memory_id": memory_id, "as_of": as_of, "known_at": known_at},
        )
        if row is None:
            if as_of is not None or known_at is not None:
                raise MemoryNotFound(
                    f"memory {memory_id} has no version valid at {as_of} as known at {known_at}"
                )
            raise self._not_found(namespace, memory_id)
        return memory_public(row["memory"])

    def history(self, namespace: str, memory_id: str) -> list[dict[str, Any]]:
        """Return every version, oldest first.

        Raises:
            MemoryNotFound: no such memory in the namespace.
        """
        rows = self.graph.run(
            "memory/list_versions", {"namespace": namespace, "memory_id": memory_id}
        )
        if not rows:
            raise MemoryNotFound(f"memory {memory_id} not found")
        return [memory_public(r["memory"]) for r in rows]

    def update(
        self, writer: Writer, memory_id: str, expected_version: int, body: dict[str, Any]
    ) -> dict[str, Any]:
        """Write a new version with the given changes (`PATCH`, optimistic concurrency).

        Args:
            writer: who writes.
            memory_id: the memory.
            expected_version: the version the client read (`If-Match`).
            body: the fields of `MemoryUpdate` that were sent.

        Raises:
            MemoryNotFound: no current version.
            VersionConflict: `expected_version` is not current (409).
            InvalidInputError: nothing to change, or a rule is broken.
        """
        changes: dict[str, Any] = {}
        for field in ("confidence", "status", "valid_from", "valid_to"):
            if field in body:
                changes[field] = body[field]
        if "content" in body:
            changes["content"] = clean_text(
                body["content"], field="content", max_chars=self.max_content_chars
            )
        if "trigger" in body:
            trigger = body["trigger"]
            changes["trigger"] = (
                clean_text(trigger, field="trigger", max_chars=2000) if trigger else None
            )
        if "metadata" in body:
            changes["metadata_json"] = encode_metadata(body["metadata"])
        if not changes:
            raise InvalidInputError("nothing to change: send at least one field")
        now = utcnow()

        def work(tx: Tx) -> Row:
            current = self.current_in(tx, writer.namespace, memory_id)
            if current["version"] != expected_version:
                raise VersionConflict(
                    f"memory {memory_id} is at version {current['version']}, not {expected_version}",
                    extra={"current_version": current["version"]},
                )
            if current["kind"] == Kind.REASONING:
                raise InvalidInputError("a reasoning trace is immutable: record a new trace")
            if "status" in changes and current["kind"] != Kind.DECISION:
                raise InvalidInputError("only decisions have a status")
            if "trigger" in changes and current["kind"] != Kind.PROCEDURE:
                raise InvalidInputError("only procedures have a trigger")
            effective = {k: v for k, v in changes.items() if current.get(k) != v}
            if not effective:
                return current  # nothing differs: no new version
            return self.version_in(tx, current, effective, writer, now, reason="update")

        return memory_public(self.write_version(work))

    def invalidate(
        self, writer: Writer, memory_id: str, valid_to: datetime | None, reason: str
    ) -> dict[str, Any]:
        """Close valid time: a new version with `valid_to` ("it stopped being true").

        Raises:
            MemoryNotFound: no current version.
            InvalidInputError: `valid_to` not after `valid_from`, or already closed.
        """
        now = utcnow()
        end = valid_to or now

        def work(tx: Tx) -> Row:
            current = self.current_in(tx, writer.namespace, memory_id)
            if current.get("valid_to") is not None and current["valid_to"] <= now:
                raise InvalidInputError(
                    f"memory {memory_id} already stopped being true at {current['valid_to'].isoformat()}"
                )
            if end <= current["valid_from"]:
                raise InvalidInputError("valid_to must be after valid_from")
            return self.version_in(
                tx, current, {"valid_to": end}, writer, now, reason=f"invalidated: {reason}"
            )

        return memory_public(self.write_version(work))

    def retract(self, writer: Writer, memory_id: str, reason: str) -> dict[str, Any]:
        """Close system time with no successor ("we were wrong to record it").

        Raises:
            MemoryNotFound: no current version.
        """
        row = self.graph.one(
            "memory/retract_memory",
            {
                "namespace": writer.namespace,
                "memory_id": memory_id,
                "now": utcnow(),
                "reason": reason,
                "origin": writer.origin,
                "actor": writer.actor,
            },
        )
        if row is None:
            raise self._not_found(writer.namespace, memory_id)
        return memory_public(row["memory"])
