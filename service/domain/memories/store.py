"""Writing memories: create (keyed facts included), new versions, invalidate, retract.

Nothing is overwritten: a change is a new version node that `SUPERSEDES` the one before, which
gets `system_to` (DESIGN §3, §4). Keyed facts (`subject` + `attribute`) are one value of a key:
a new value closes the previous value's valid time at its own `valid_from`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from datetime import datetime
from typing import Any

from service.domain.memories.keyed import after_key_values, check_keyed_period, place_keyed_value
from service.domain.memories.locks import lock_contents, lock_key
from service.domain.memories.places import create_at_place
from service.domain.memories.public import Memory, memory_public
from service.domain.memories.rows import (
    build_memory_row,
    check_period,
    encode_metadata,
    iso_utc,
    utcnow,
)
from service.domain.memories.versions import MemoryVersions, refuse_trace
from service.domain.models import (
    KIND_LABELS,
    WRITABLE_KINDS,
    Kind,
    NewMemory,
    Writer,
    check_decision_status,
)
from service.domain.text import clean_text
from service.embeddings import Embedder
from service.errors import InvalidInputError, StateConflict, VersionConflict
from service.graph.query_names import QueryName
from service.graph.records import MemoryRecord
from service.graph.repository import Graph, Tx

#: The documented limit of a lifecycle write's `reason` (invalidate, retract, challenge), in characters.
MAX_REASON_CHARS = 2000


def equality_of(props: Mapping[str, Any]) -> dict[str, Any]:
    """Return what decides whether a would-be memory equals a stored one (`memory/find_equal_*`).

    Kind, key, normalised content and creating origin; the new memory's `valid_from` (the equal
    one must still be valid then) and whether it was given (`explicit`: then the equal one must
    also have begun by it). A defaulted start is the write's clock reading, taken before the
    locks: an equal write that committed meanwhile began after it and is still equal. An unkeyed
    memory's place (`episode`, `position`) is part of it ("ok" at another turn is another memory);
    a keyed fact is equal by its key and value wherever it was stated.

    Args:
        props: the row from `MemoryService.new_props`.
    """
    return {
        "kind": props["kind"],
        "content_norm": props["content_norm"],
        "subject": props["subject"],
        "attribute": props["attribute"],
        "origin": props["created_by_origin"],
        "valid_from": props["valid_from"],
        "explicit": props["valid_from"] != props["system_from"],
        "episode": props.get("episode"),
        "position": props.get("position"),
    }


class MemoryService(MemoryVersions):
    """Use cases on plain memories (facts, decisions, procedures, observations).

    Args:
        graph: the query runner.
        embedder: turns content into the stored embedding.
        max_content_chars: the documented size limit of `content`.
    """

    def __init__(self, graph: Graph, embedder: Embedder, max_content_chars: int) -> None:
        super().__init__(graph, embedder)
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
        episode: str | None = None,
        position: int | None = None,
        context: str | None = None,
    ) -> dict[str, Any]:
        """Validate and build the properties of version 1 of a new memory.

        `episode`, `position` and `context` place it in the material it came from (see
        `build_memory_row`); a position needs an episode.

        Returns:
            The property map for `memory/create_memory` (`props`).

        Raises:
            InvalidInputError: bad kind, half a key, `valid_to` not after `valid_from`, bad text,
                a status that is not written (`retracted`: that is `retract`).
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
        if status is not None:
            status = check_decision_status(status)
        check_period(valid_from or now, valid_to, defaulted=valid_from is None)
        valid_from = valid_from or now
        if position is not None and episode is None:
            raise InvalidInputError("position is a place in an episode: give the episode too")
        if episode is not None:
            episode = clean_text(episode, field="episode", max_chars=512)
        if context is not None:
            context = clean_text(context, field="context", max_chars=2000)
        if embedding is None:
            embedding = self.embedder.encode([content])[0]
        return build_memory_row(
            writer,
            kind,
            content,
            embedding,
            now=now,
            subject=subject,
            attribute=attribute,
            confidence=confidence,
            status=status,
            trigger=trigger,
            metadata_json=encode_metadata(metadata),
            valid_from=valid_from,
            valid_to=valid_to,
            episode=episode,
            position=position,
            context=context,
        )

    def create_in(
        self,
        tx: Tx,
        props: dict[str, Any],
        now: datetime,
        writer: Writer,
        *,
        deduplicate: bool = True,
    ) -> tuple[MemoryRecord, bool]:
        """Create a memory inside a transaction, idempotently, applying the keyed-fact rule.

        Args:
            tx: the open write transaction.
            props: from `new_props`.
            now: the write's system time.
            writer: who writes.
            deduplicate: look for an equal memory first (False: an event of its own, e.g. an
                outcome, whose caller decides what a repeat is; the content lock is still taken).

        Returns:
            `(stored version, created)`; `created` is False when an equal current memory
            (same kind, namespace, key, normalised content and creating origin) already existed,
            still valid at the new memory's `valid_from` (and begun by it, when that was given).
        """
        keyed = props["subject"] is not None
        # Lock the key (or, unkeyed, the content's stripe: `lock_contents`) before looking for
        # an equal memory: concurrent identical writes then run one after the other, and each
        # later one finds the first one's memory.
        if keyed:
            key = lock_key(tx, props["namespace"], props["subject"], props["attribute"], now)
        else:
            lock_contents(tx, props["namespace"], [props], now)
        if deduplicate:
            existing = tx.memory(
                QueryName.MEMORY_FIND_EQUAL_MEMORY,
                {"namespace": props["namespace"], **equality_of(props)},
            )
            if existing is not None:
                return existing, False
        previous: list[MemoryRecord] = []
        corrected: list[MemoryRecord] = []
        if keyed:
            values = tx.memories(QueryName.MEMORY_GET_KEY_CURRENT, key)
            props, now = after_key_values(props, now, values)
            props, previous, corrected = place_keyed_value(props, values)
        created = tx.memory(
            QueryName.MEMORY_CREATE_MEMORY,
            {"label": KIND_LABELS[Kind(props["kind"])], "props": props},
        )
        assert created is not None
        for old in corrected:
            # Same start as the new value: the old one was wrong from the start, so it is
            # closed in system time (no successor version) and the new value supersedes it.
            closed_old = self.retract_in(
                tx,
                old,
                writer,
                now,
                reason="corrected by a new value of the same key from the same time",
            )
            tx.run(
                QueryName.MEMORY_LINK_SUPERSEDES,
                {
                    "namespace": props["namespace"],
                    "new_uid": created.uid,
                    "old_uid": closed_old.uid,
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
                QueryName.MEMORY_LINK_SUPERSEDES,
                {
                    "namespace": props["namespace"],
                    "new_uid": created.uid,
                    "old_uid": closed.uid,
                    "reason": "new value of the same key",
                    "origin": writer.origin,
                    "actor": writer.actor,
                    "now": now,
                },
            )
        return created, True

    # -- use cases ------------------------------------------------------------------------

    def create(self, writer: Writer, body: NewMemory) -> tuple[Memory, bool]:
        """Create a memory (`POST /v1/memories`).

        Args:
            writer: namespace, door and actor.
            body: what to create (times timezone-aware UTC).

        Returns:
            `(public memory, created)`.

        Raises:
            InvalidInputError, TooLargeError: see `new_props`.
            PositionTaken: a current memory of other content holds its place (`places`).
        """
        fields = asdict(body)
        kind, content = fields.pop("kind"), fields.pop("content")
        if kind not in {k.value for k in WRITABLE_KINDS}:
            raise InvalidInputError(f"kind: {kind!r} cannot be created here")
        now = utcnow()
        props = self.new_props(writer, kind, content, now=now, **fields)
        record, created = self.graph.write(
            lambda tx: create_at_place(
                lambda t: self.create_in(t, props, now, writer), tx, props, now
            )
        )
        return memory_public(record), created

    def update(
        self, writer: Writer, memory_id: str, expected_version: int, body: Mapping[str, Any]
    ) -> Memory:
        """Write a new version with the given changes (`PATCH`, optimistic concurrency).

        Args:
            writer: who writes.
            memory_id: the memory.
            expected_version: the version the client read (`If-Match`).
            body: the fields of `MemoryUpdate` that were sent (`exclude_unset`: a field sent
                as null clears it, an absent one is kept).

        Raises:
            MemoryNotFound: no current version.
            VersionConflict: `expected_version` is not current (409).
            InvalidInputError: nothing to change, or a rule is broken (a keyed fact's new valid
                period overlapping another value of its key: `check_keyed_period`).
        """
        changes: dict[str, Any] = {}
        for field in ("confidence", "status", "valid_from", "valid_to"):
            if field in body:
                changes[field] = body[field]
        if changes.get("status") is not None:
            changes["status"] = check_decision_status(changes["status"])
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

        def work(tx: Tx) -> MemoryRecord:
            current = self.current_in(tx, writer.namespace, memory_id)
            if current.version != expected_version:
                raise VersionConflict(
                    f"memory {memory_id} is at version {current.version}, not {expected_version}",
                    extra={"current_version": current.version},
                )
            refuse_trace(current)
            if "status" in changes and current.kind != Kind.DECISION:
                raise InvalidInputError("only decisions have a status")
            if "trigger" in changes and current.kind != Kind.PROCEDURE:
                raise InvalidInputError("only procedures have a trigger")
            effective = {k: v for k, v in changes.items() if current.stored(k) != v}
            if not effective:
                return current  # nothing differs: no new version
            if current.subject is not None and effective.keys() & {"valid_from", "valid_to"}:
                self._check_key_timeline(tx, current, effective, now)
            if current.kind == Kind.DECISION and "valid_from" in effective:
                first = tx.one(
                    QueryName.MEMORY_FIRST_OUTCOME,
                    {"namespace": current.namespace, "memory_id": memory_id},
                )
                if (
                    first
                    and first["observed_at"]
                    and first["observed_at"] < effective["valid_from"]
                ):
                    raise InvalidInputError(
                        f"valid_from: decision {memory_id} has an outcome observed at "
                        f"{iso_utc(first['observed_at'])}; it cannot take effect after that"
                    )
            return self.version_in(tx, current, effective, writer, now, reason="update")

        return memory_public(self.write_version(work))

    def _check_key_timeline(
        self, tx: Tx, current: MemoryRecord, changes: Mapping[str, Any], now: datetime
    ) -> None:
        """Under the key's lock, refuse a changed valid period that overlaps another value.

        Raises:
            InvalidInputError: see `check_keyed_period`.
        """
        assert current.subject is not None  # a keyed value (the caller's condition)
        assert current.attribute is not None
        key = lock_key(tx, current.namespace, current.subject, current.attribute, now)
        period = {
            "valid_from": changes.get("valid_from", current.valid_from),
            "valid_to": changes.get("valid_to", current.valid_to),
        }
        check_keyed_period(current, period, tx.memories(QueryName.MEMORY_GET_KEY_CURRENT, key))

    def invalidate(
        self, writer: Writer, memory_id: str, valid_to: datetime | None, reason: str
    ) -> Memory:
        """Close valid time: a new version with `valid_to` ("it stopped being true").

        Raises:
            MemoryNotFound: no current version.
            InvalidInputError: `valid_to` not after `valid_from` or after the end already set,
                the memory is a reasoning trace (immutable), or `reason` is not valid text
                (`clean_text`).
            StateConflict: the memory was already invalidated (its valid time has ended): 409
                `conflict`, nothing written.
        """
        reason = clean_text(reason, field="reason", max_chars=MAX_REASON_CHARS)
        now = utcnow()
        end = valid_to or now

        def work(tx: Tx) -> MemoryRecord:
            current = self.current_in(tx, writer.namespace, memory_id)
            if end <= current.valid_from:  # invalid whatever the state: 422 first
                raise InvalidInputError(
                    f"valid_to must be after valid_from ({iso_utc(current.valid_from)})"
                    if valid_to is not None
                    else f"memory {memory_id} begins at {iso_utc(current.valid_from)}, after "
                    "now: give a valid_to after that to end it"
                )
            if current.valid_to is not None and current.valid_to <= now:
                raise StateConflict(
                    f"memory {memory_id} was already invalidated: it stopped being true at "
                    f"{iso_utc(current.valid_to)}"
                )
            if end == current.valid_to:
                return current  # already ends there: no new version
            if current.valid_to is not None and end > current.valid_to:
                raise InvalidInputError(
                    f"memory {memory_id} already stops being true at "
                    f"{iso_utc(current.valid_to)}; invalidate only ends it earlier "
                    "(PATCH valid_to to move its end)"
                )
            return self.version_in(
                tx, current, {"valid_to": end}, writer, now, reason=f"invalidated: {reason}"
            )

        return memory_public(self.write_version(work))

    def retract(self, writer: Writer, memory_id: str, reason: str) -> Memory:
        """Close system time with no successor ("we were wrong to record it").

        Raises:
            MemoryNotFound: no current version.
            InvalidInputError: the memory is a reasoning trace (immutable), or `reason` is not
                valid text.
        """
        reason = clean_text(reason, field="reason", max_chars=MAX_REASON_CHARS)
        now = utcnow()

        def work(tx: Tx) -> MemoryRecord:
            current = self.current_in(tx, writer.namespace, memory_id)
            return self.retract_in(tx, current, writer, now, reason=reason)

        return memory_public(self.write_version(work))
