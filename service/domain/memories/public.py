"""The public shape of one memory version (DESIGN §8), mapped from the stored record."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from service.domain.models import Provenance
from service.graph.records import MemoryRecord


@dataclass(frozen=True)
class Memory:
    """One memory version as clients see it: four times, both provenances, kind-specific fields.

    Times are timezone-aware UTC datetimes; `metadata` is the decoded JSON object, or None.
    `change_reason` says why a later version was written (`update`, `challenged: <reason>`,
    `invalidated: <reason>`, `keyed value replaced`, ...; None for a first version) and
    `retracted_reason` why a version was retracted or corrected (None unless it was): the
    reasons given to challenge, invalidate and retract (trial 17: no answer returned them).
    """

    memory_id: str
    uid: str
    version: int
    kind: str
    content: str
    valid_from: datetime
    valid_to: datetime | None
    system_from: datetime
    system_to: datetime | None
    created_by: Provenance
    last_modified_by: Provenance
    subject: str | None
    attribute: str | None
    confidence: float | None
    status: str | None
    trigger: str | None
    metadata: dict[str, Any] | None
    episode: str | None
    position: int | None
    change_reason: str | None
    retracted_reason: str | None


def as_believed(memory: Memory, known_at: datetime) -> Memory:
    """Return a version as it was believed at `known_at`: a later close is not known yet.

    A version closed in system time after `known_at` (replaced, retracted) was current then:
    its `system_to` and `retracted_reason` are left out (trial 22: a lineage `known_at` v2's
    start said v2 was "no longer believed since" a time after it).

    Args:
        memory: a version recorded by `known_at` (`system_from <= known_at`).
        known_at: the system time of the read (timezone-aware UTC).

    Returns:
        The version as then, or `memory` itself when nothing about it changed since.
    """
    if memory.system_to is None or memory.system_to <= known_at:
        return memory
    return replace(memory, system_to=None, retracted_reason=None)


def provenance(origin: str | None, actor: str | None) -> Provenance:
    """Return a provenance, `unknown` for what was not recorded."""
    return Provenance(origin=origin or "unknown", actor=actor or "unknown")


def memory_public(record: MemoryRecord) -> Memory:
    """Map a stored memory version to its public shape."""
    return Memory(
        memory_id=record.memory_id,
        uid=record.uid,
        version=record.version,
        kind=record.kind,
        content=record.content,
        valid_from=record.valid_from,
        valid_to=record.valid_to,
        system_from=record.system_from,
        system_to=record.system_to,
        created_by=provenance(record.created_by_origin, record.created_by_actor),
        last_modified_by=provenance(record.last_modified_by_origin, record.last_modified_by_actor),
        subject=record.subject,
        attribute=record.attribute,
        confidence=record.confidence,
        status=record.status,
        trigger=record.trigger,
        metadata=json.loads(record.metadata_json) if record.metadata_json else None,
        episode=record.episode,
        position=record.position,
        change_reason=record.stored("change_reason"),
        retracted_reason=record.stored("retracted_reason"),
    )
