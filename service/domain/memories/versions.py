"""Versioning: the next version of a memory, copying what the change does not set."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar

from service.domain.memories.reads import MemoryReader
from service.domain.memories.rows import VERSIONED_FIELDS, check_period
from service.domain.models import KIND_LABELS, Kind, Writer
from service.domain.text import normalise_for_match
from service.domain.text.lexical import identifier_parts
from service.embeddings import Embedder
from service.errors import (
    ConflictError,
    InvalidInputError,
    MemoryNotFound,
    StateConflict,
    VersionConflict,
)
from service.graph.query_names import QueryName
from service.graph.records import MemoryRecord
from service.graph.repository import Graph, Tx

T = TypeVar("T")

#: Runs of a write whose caller named no version when a concurrent write to its memory gets in
#: the way (`MemoryVersions.write_racing`), and the pause before the next run (seconds, times
#: the runs so far).
RACE_ATTEMPTS = 4
RACE_BACKOFF_S = 0.01

#: The refusal of any new version (or retraction) of a reasoning trace (DESIGN §2: immutable).
TRACE_IMMUTABLE = "a reasoning trace is immutable: record a new trace"


def refuse_trace(current: MemoryRecord) -> None:
    """Refuse a lifecycle write on a reasoning trace (update, invalidate, retract, status).

    Raises:
        InvalidInputError: `current` is a reasoning trace (422 `input.invalid`).
    """
    if current.kind == Kind.REASONING:
        raise InvalidInputError(TRACE_IMMUTABLE)


class MemoryVersions(MemoryReader):
    """Writes a memory's next version (the base of `MemoryService`; shared with maintenance).

    Args:
        graph: the query runner.
        embedder: re-embeds changed content.
    """

    def __init__(self, graph: Graph, embedder: Embedder) -> None:
        super().__init__(graph)
        self.embedder = embedder

    def version_in(
        self,
        tx: Tx,
        current: MemoryRecord,
        changes: Mapping[str, Any],
        writer: Writer,
        now: datetime,
        *,
        reason: str,
    ) -> MemoryRecord:
        """Create the next version of `current` inside a transaction.

        `created_by_*` is copied; `last_modified_by_*` is the writer. If content changes, the
        embedding is recomputed; otherwise the Cypher copies it from the old version. Other
        properties than `VERSIONED_FIELDS` are kept only when `changes` names them.

        Args:
            tx: the open write transaction.
            current: the version read in this transaction.
            changes: property name -> new value (stored property names, e.g. `metadata_json`).
            writer: who writes (`last_modified_by`).
            now: the write's system time (timezone-aware UTC datetime).
            reason: why the version is written ("update", "challenged: <reason>", ...): stored
                on the `SUPERSEDES` link and as the version's `change_reason`.

        Returns:
            The new version.

        Raises:
            InvalidInputError: `current` is a reasoning trace (immutable), or `valid_to` not
                after `valid_from`.
            VersionConflict: `current` is no longer the current version (a concurrent writer won).
        """
        refuse_trace(current)
        props = {f: current.stored(f) for f in VERSIONED_FIELDS}
        props.update(changes)
        props.update(
            {
                "uid": str(uuid.uuid4()),
                "version": current.version + 1,
                "system_from": now,
                "system_to": None,
                "last_modified_by_origin": writer.origin,
                "last_modified_by_actor": writer.actor,
                "change_reason": reason,
            }
        )
        # Derived from the version's own text, never carried over (`memory/create_version`).
        props["search_parts"] = identifier_parts(str(props["content"]))
        if "content" in changes:
            props["content_norm"] = normalise_for_match(changes["content"])
            props["embedding"] = self.embedder.encode([changes["content"]])[0]
        check_period(props["valid_from"], props["valid_to"], defaulted=False)
        try:
            record = tx.memory(
                QueryName.MEMORY_CREATE_VERSION,
                {
                    "namespace": current.namespace,
                    "memory_id": current.memory_id,
                    "version": current.version,
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
                f"memory {current.memory_id} version {current.version} was changed concurrently"
            ) from exc
        if record is None:
            raise VersionConflict(
                f"memory {current.memory_id} version {current.version} is no longer current"
            )
        return record

    def retract_in(
        self, tx: Tx, current: MemoryRecord, writer: Writer, now: datetime, *, reason: str
    ) -> MemoryRecord:
        """Close `current` in system time with no successor, inside a transaction.

        Args:
            tx: the open write transaction.
            current: the version read in this transaction.
            writer: who retracts (`retracted_by_*`).
            now: the write's system time (timezone-aware UTC datetime).
            reason: stored as `retracted_reason`.

        Returns:
            The closed version.

        Raises:
            InvalidInputError: `current` is a reasoning trace (immutable).
            VersionConflict: `current` is no longer the current version (a concurrent writer won).
        """
        refuse_trace(current)
        record = tx.memory(
            QueryName.MEMORY_RETRACT_MEMORY,
            {
                "namespace": current.namespace,
                "memory_id": current.memory_id,
                "now": now,
                "reason": reason,
                "origin": writer.origin,
                "actor": writer.actor,
            },
        )
        if record is None:
            raise VersionConflict(f"memory {current.memory_id} was changed concurrently")
        return record

    def write_version(self, work: Callable[[Tx], MemoryRecord]) -> MemoryRecord:
        """Run a version-writing unit of work; a lost race on `(memory_id, version)` is a 409.

        A concurrent writer can pass the version check and then fail on the uniqueness
        constraint when its transaction commits; that is the same conflict as a stale
        `If-Match` and is reported as such.

        Raises:
            VersionConflict: another writer created the same version first.
            StateConflict: `work` found the stored state contradicting the write (raised as is).
        """
        try:
            return self.graph.write(work)
        except (VersionConflict, StateConflict):
            raise
        except ConflictError as exc:
            raise VersionConflict(
                "the memory was changed concurrently; read it again and retry"
            ) from exc

    def write_racing(self, work: Callable[[Tx], T]) -> T:
        """Run a write whose caller named no version, again when a concurrent write got in its way.

        The caller sent no `If-Match`, so a race is not theirs to settle: a concurrent write
        that made the memory's next version first (`ConflictError`: the version check or the
        `(memory_id, version)` constraint), or a read that met a version being replaced (no
        current version for an instant: `MemoryNotFound`), runs `work` again on what is
        committed then, where it finds what the other write did (an outcome recorded, a
        decision already challenged). Eight concurrent outcomes on one decision gave 409s and
        once a 404 before; eight concurrent challenges wrote three `challenged` versions in a
        row (trial 17). After `RACE_ATTEMPTS` runs the race is a 409 (a missing memory is
        still a 404).

        Raises:
            VersionConflict: the memory kept changing under the write.
            MemoryNotFound: the memory has no current version.
        """
        for attempt in range(RACE_ATTEMPTS):
            try:
                return self.graph.write(work)
            except (ConflictError, MemoryNotFound) as exc:
                if attempt + 1 < RACE_ATTEMPTS:
                    time.sleep(RACE_BACKOFF_S * (attempt + 1))
                    continue
                if isinstance(exc, MemoryNotFound | VersionConflict):
                    raise
                raise VersionConflict(
                    "the memory was changed concurrently; read it again and retry"
                ) from exc
        raise AssertionError("unreachable")
