"""Reading memories: the current version, the one believed at any time, the whole history."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Any

from service.domain.memories.public import Memory, as_believed, memory_public
from service.domain.memories.rows import iso_utc, utcnow
from service.errors import MemoryNotFound, VersionConflict, echo_id
from service.graph.query_names import QueryName
from service.graph.records import MemoryRecord
from service.graph.repository import Graph, Row, Runner, Tx

#: How often a read of the current version is tried while a version transition commits.
CURRENT_READ_ATTEMPTS = 6
#: Pause before the n-th repeated read: n times this, in seconds.
RETRY_PAUSE_S = 0.005
#: How recent a `known_at` must be for a read that finds nothing to look again: longer than a
#: write transaction takes to commit after stamping its versions.
IN_FLIGHT_S = 10.0


def valid_at(record: MemoryRecord, as_of: datetime) -> bool:
    """Return True when `record` is valid at `as_of`: `valid_from <= as_of < valid_to`."""
    return record.valid_from <= as_of and (record.valid_to is None or as_of < record.valid_to)


def at(as_of: datetime | None, known_at: datetime | None) -> str:
    """Return "valid at <as_of> as known at <known_at>" in ISO 8601, naming only the times given."""
    parts = []
    if as_of is not None:
        parts.append(f"valid at {iso_utc(as_of)}")
    if known_at is not None:
        parts.append(f"as known at {iso_utc(known_at)}")
    return " ".join(parts)


def state_params(namespace: str, memory_id: str) -> dict[str, Any]:
    """Return the parameters of `memory/get_memory_state`."""
    return {"namespace": namespace, "memory_id": memory_id}


def in_flight(state: Row | None) -> bool:
    """Return True when a read that found no current version must look again.

    That is when the memory's last version (`memory/get_memory_state`) is current, or was closed
    without being retracted (its successor is being committed).
    """
    if state is None or not state.get("memory_id"):
        return False
    return state.get("system_to") is None or state.get("retracted_reason") is None


def retracted_at(state: Row | None) -> datetime | None:
    """Return when a memory was retracted (its last version closed with no successor), or None.

    None also for a memory that never existed in the namespace or has a current version.

    Args:
        state: the memory's `memory/get_memory_state` row, or None.
    """
    if state is None or not state.get("memory_id") or state.get("retracted_reason") is None:
        return None
    closed: datetime | None = state.get("system_to")
    return closed


class MemoryReader:
    """Reads of the bi-temporal store (the base of `MemoryService`).

    Args:
        graph: the query runner.
    """

    def __init__(self, graph: Graph) -> None:
        self.graph = graph

    def get(
        self,
        namespace: str,
        memory_id: str,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> Memory:
        """Return the current version, or the one believed at `known_at` about `as_of`.

        A version believed at `known_at` comes as believed then (`as_believed`): a close
        recorded after `known_at` is left out.

        Periods are half-open: a version is valid at `as_of` when `valid_from <= as_of <
        valid_to` (no `valid_to`: still true), and believed at `known_at` when `system_from <=
        known_at < system_to`.

        Args:
            namespace: the tenant.
            memory_id: the memory.
            as_of: valid time (timezone-aware UTC datetime), or None for any.
            known_at: system time (timezone-aware UTC datetime), or None for now.

        Raises:
            MemoryNotFound: no such memory (or none valid/known at those times) in the namespace.
        """
        if known_at is None:
            record = self.find_current_in(self.graph, namespace, memory_id)
            if record is not None and as_of is not None and not valid_at(record, as_of):
                record = None
        else:
            record = self._believed(namespace, memory_id, as_of, known_at)
        if record is None:
            if as_of is not None or known_at is not None:
                raise MemoryNotFound(
                    f"memory {echo_id(memory_id)} has no version {at(as_of, known_at)}"
                )
            raise self.not_found(namespace, memory_id)
        public = memory_public(record)
        return public if known_at is None else as_believed(public, known_at)

    def _believed(
        self, namespace: str, memory_id: str, as_of: datetime | None, known_at: datetime
    ) -> MemoryRecord | None:
        """Return the version believed at `known_at` about `as_of`, or None.

        A `known_at` of the last `IN_FLIGHT_S` may meet an update being committed (the old
        version closed, its successor not yet found): the read is repeated then, as
        `find_current_in` does (fresh-user trial 15: 1% of `?known_at=now` reads during
        updates were 404).
        """
        params = {"namespace": namespace, "memory_id": memory_id}
        recent = known_at >= utcnow() - timedelta(seconds=IN_FLIGHT_S)
        seen_open = False
        for attempt in range(CURRENT_READ_ATTEMPTS if recent else 1):
            record = self.graph.memory(
                QueryName.MEMORY_GET_MEMORY, {**params, "as_of": as_of, "known_at": known_at}
            )
            if record is not None:
                return record
            state = self.graph.one(QueryName.MEMORY_GET_MEMORY_STATE, params) if recent else None
            if state is None or state.get("retracted_reason"):
                return None
            if state.get("system_to") is None:
                # An open last version: none was believed then, or the read above met the
                # transition the state read did not (its new version just committed): once.
                if seen_open:
                    return None
                seen_open = True
            time.sleep(RETRY_PAUSE_S * attempt)
        return None

    def history(self, namespace: str, memory_id: str) -> list[Memory]:
        """Return every version, oldest first.

        Raises:
            MemoryNotFound: no such memory in the namespace.
        """
        params = {"namespace": namespace, "memory_id": memory_id}
        for attempt in range(CURRENT_READ_ATTEMPTS):
            records = self.graph.memories(QueryName.MEMORY_LIST_VERSIONS, params)
            # The last version closed but not retracted: its successor is being committed
            # (store changes land before index changes), as `find_current_in` reads again
            # (fresh-user trial 15: 3% of histories during updates showed no current version).
            last = records[-1] if records else None
            if last is None or last.system_to is None or last.stored("retracted_reason"):
                break
            time.sleep(RETRY_PAUSE_S * attempt)
        if not records:
            raise MemoryNotFound(f"memory {echo_id(memory_id)} not found")
        return [memory_public(r) for r in records]

    def current_in(self, tx: Tx, namespace: str, memory_id: str) -> MemoryRecord:
        """Return the current version inside a transaction.

        Raises:
            MemoryNotFound: no current version in this namespace (none, or retracted).
            VersionConflict: a concurrent writer is replacing the current version (409: read
                again and retry), never reported as a 404.
        """
        record = self.find_current_in(tx, namespace, memory_id)
        if record is not None:
            return record
        if in_flight(tx.one(QueryName.MEMORY_GET_MEMORY_STATE, state_params(namespace, memory_id))):
            raise VersionConflict(
                f"memory {echo_id(memory_id)} was changed concurrently; read it again"
            )
        raise self.not_found(namespace, memory_id)

    def find_current_in(
        self, runner: Runner, namespace: str, memory_id: str
    ) -> MemoryRecord | None:
        """Return the current version (`system_to` unset), or None when there is none.

        Atomic to version transitions: a write closes the old version and creates its
        successor in one transaction, but a read-committed query can find the old node by
        index before that commit and read its `system_to` after it, seeing neither. When no
        current version is found while the last version was closed without being retracted
        (so a successor exists), the read is repeated, up to `CURRENT_READ_ATTEMPTS` times.

        Args:
            runner: the graph (own transaction per query) or an open transaction.
            namespace: the tenant.
            memory_id: the memory.
        """
        return self.current_or_state_in(runner, namespace, memory_id)[0]

    def current_or_state_in(
        self, runner: Runner, namespace: str, memory_id: str
    ) -> tuple[MemoryRecord | None, Row | None]:
        """Return `(current version, None)`, or `(None, state)` when there is no current one.

        As `find_current_in`, which reads `state` (the `memory/get_memory_state` row, None for
        a memory never stored in the namespace) anyway: a caller can say why the memory is
        absent (`retracted_at`) without another query.
        """
        params = {"namespace": namespace, "memory_id": memory_id, "as_of": None, "known_at": None}
        state: Row | None = None
        for attempt in range(CURRENT_READ_ATTEMPTS):
            record = runner.memory(QueryName.MEMORY_GET_MEMORY, params)
            if record is not None:
                return record, None
            state = runner.one(
                QueryName.MEMORY_GET_MEMORY_STATE, state_params(namespace, memory_id)
            )
            if not in_flight(state):
                return None, state
            time.sleep(RETRY_PAUSE_S * attempt)
        return None, state

    def not_found(self, namespace: str, memory_id: str) -> MemoryNotFound:
        """Return the error for a memory with no current version.

        It says when the memory was retracted, or when and by which memory it was corrected
        (`replaced_by`, also in the body: a keyed value superseded from its own valid start).
        """
        state = self.graph.one(
            QueryName.MEMORY_GET_MEMORY_STATE, state_params(namespace, memory_id)
        )
        if state is not None and state.get("memory_id") and state.get("system_to") is not None:
            closed = iso_utc(state["system_to"])
            history = f"its history is at /v1/memories/{memory_id}/history"
            if state.get("replaced_by"):
                # A new value of the same key from the same valid time: the old one was wrong
                # from the start, so it was closed in system time and the new memory supersedes it.
                return MemoryNotFound(
                    f"memory {memory_id} was corrected at {closed} by memory "
                    f"{state['replaced_by']} (a new value of the same key from the same valid "
                    f"time); {history}",
                    extra={"replaced_by": state["replaced_by"]},
                )
            return MemoryNotFound(f"memory {memory_id} was retracted at {closed}; {history}")
        return MemoryNotFound(f"memory {echo_id(memory_id)} not found")
