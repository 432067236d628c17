"""Reading memories: the current version, the one believed at any time, the whole history."""

from __future__ import annotations

from datetime import datetime

from service.domain.memories.public import Memory, memory_public
from service.errors import MemoryNotFound
from service.graph.query_names import QueryName
from service.graph.records import MemoryRecord
from service.graph.repository import Graph, Tx


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

        Args:
            namespace: the tenant.
            memory_id: the memory.
            as_of: valid time (timezone-aware UTC datetime), or None for any.
            known_at: system time (timezone-aware UTC datetime), or None for now.

        Raises:
            MemoryNotFound: no such memory (or none valid/known at those times) in the namespace.
        """
        record = self.graph.memory(
            QueryName.MEMORY_GET_MEMORY,
            {"namespace": namespace, "memory_id": memory_id, "as_of": as_of, "known_at": known_at},
        )
        if record is None:
            if as_of is not None or known_at is not None:
                raise MemoryNotFound(
                    f"memory {memory_id} has no version valid at {as_of} as known at {known_at}"
                )
            raise self.not_found(namespace, memory_id)
        return memory_public(record)

    def history(self, namespace: str, memory_id: str) -> list[Memory]:
        """Return every version, oldest first.

        Raises:
            MemoryNotFound: no such memory in the namespace.
        """
        records = self.graph.memories(
            QueryName.MEMORY_LIST_VERSIONS, {"namespace": namespace, "memory_id": memory_id}
        )
        if not records:
            raise MemoryNotFound(f"memory {memory_id} not found")
        return [memory_public(r) for r in records]

    def current_in(self, tx: Tx, namespace: str, memory_id: str) -> MemoryRecord:
        """Return the current version inside a transaction.

        Raises:
            MemoryNotFound: no current version in this namespace.
        """
        record = tx.memory(
            QueryName.MEMORY_GET_MEMORY,
            {"namespace": namespace, "memory_id": memory_id, "as_of": None, "known_at": None},
        )
        if record is None:
            raise self.not_found(namespace, memory_id)
        return record

    def not_found(self, namespace: str, memory_id: str) -> MemoryNotFound:
        """Return the error for a memory with no current version (says so when it was retracted)."""
        state = self.graph.one(
            QueryName.MEMORY_GET_MEMORY_STATE, {"namespace": namespace, "memory_id": memory_id}
        )
        if state is not None and state.get("memory_id") and state.get("system_to") is not None:
            return MemoryNotFound(
                f"memory {memory_id} was retracted at {state['system_to'].isoformat()}; "
                f"its history is at /v1/memories/{memory_id}/history"
            )
        return MemoryNotFound(f"memory {memory_id} not found")
