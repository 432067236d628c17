"""Applies `cypher/schema/*.cypher` idempotently and waits until every index is ONLINE."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from service.errors import GraphUnavailableError, SchemaError
from service.graph.query_names import QueryName
from service.graph.repository import Graph

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class IndexState:
    """One index as `SHOW INDEXES` reports it."""

    name: str
    type: str
    state: str
    population_percent: float


def apply_schema(graph: Graph) -> list[str]:
    """Run every schema statement (all are `IF NOT EXISTS`, so a second run changes nothing).

    Args:
        graph: the query runner.

    Returns:
        The names of the statements applied, in order.
    """
    applied = []
    for query in graph.registry.schema():
        graph.run(QueryName(query.name), {})
        applied.append(query.name)
    return applied


def index_states(graph: Graph) -> list[IndexState]:
    """Return the state of every index of the database."""
    rows = graph.run(QueryName.SCHEMA_STATE_LIST_INDEXES, {})
    return [
        IndexState(
            name=r["name"],
            type=r["type"],
            state=r["state"],
            population_percent=float(r["population_percent"]),
        )
        for r in rows
    ]


def wait_online(graph: Graph, timeout_s: float) -> None:
    """Block until every index is ONLINE.

    Args:
        graph: the query runner.
        timeout_s: how long to wait, in seconds.

    Raises:
        SchemaError: an index FAILED.
        GraphUnavailableError: the timeout passed with indexes still populating.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        states = index_states(graph)
        failed = [s.name for s in states if s.state == "FAILED"]
        if failed:
            raise SchemaError(f"indexes FAILED: {', '.join(failed)}")
        pending = [s for s in states if s.state != "ONLINE"]
        if not pending:
            return
        if time.monotonic() > deadline:
            detail = ", ".join(f"{s.name} {s.state} {s.population_percent:.0f}%" for s in pending)
            raise GraphUnavailableError(f"indexes not ONLINE after {timeout_s:.0f} s: {detail}")
        time.sleep(0.2)


def vector_dimension(graph: Graph, index_name: str) -> int | None:
    """Return the configured dimension of the named vector index, or None when it is absent."""
    row = graph.one(QueryName.SCHEMA_STATE_GET_VECTOR_INDEX, {"name": index_name})
    if row is None:
        return None
    return int(row["dimensions"])


def check_vector_dimension(graph: Graph, index_name: str, model_dim: int) -> None:
    """Stop start-up when the vector index and the model disagree on the dimension.

    Raises:
        SchemaError: naming the index and both numbers.
    """
    dims = vector_dimension(graph, index_name)
    if dims is None:
        raise SchemaError(f"vector index {index_name!r} does not exist after applying the schema")
    if dims != model_dim:
        raise SchemaError(
            f"vector index {index_name!r} has {dims} dimensions but the embedding model gives "
            f"{model_dim}; drop the index (DROP INDEX {index_name}) and re-embed, or configure "
            f"the matching model"
        )


def is_online(graph: Graph) -> bool:
    """Return True when every index is ONLINE (for `/readyz`)."""
    try:
        return all(s.state == "ONLINE" for s in index_states(graph))
    except GraphUnavailableError:
        return False
