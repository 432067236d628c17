"""Runs named Cypher queries; the only module that catches `neo4j.exceptions`.

Every query is looked up by name in the `QueryRegistry`, its parameters are checked against the
file's declaration before anything is sent, its result shape against the file's `returns:`,
and Neo4j temporal values come back as native timezone-aware `datetime`s. Rows that are stored
memories or traces are mapped to the frozen records of `service.graph.records` here.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

import neo4j
from neo4j import Driver, ManagedTransaction, Query, RoutingControl
from neo4j.time import Date, DateTime, Duration, Time

from service.errors import ConflictError, GraphUnavailableError, RationaleError
from service.graph.cypher import NamedQuery, QueryRegistry
from service.graph.query_names import AnyQueryName
from service.graph.records import MemoryRecord, TraceRecord

log = logging.getLogger(__name__)

T = TypeVar("T")
Row = dict[str, Any]


def to_native(value: Any) -> Any:
    """Convert Neo4j temporal values (also inside lists and maps) to Python ones."""
    if isinstance(value, DateTime | Date | Time):
        return value.to_native()
    if isinstance(value, Duration):
        return value
    if isinstance(value, list):
        return [to_native(v) for v in value]
    if isinstance(value, dict):
        return {k: to_native(v) for k, v in value.items()}
    return value


def _check_shape(query: NamedQuery, rows: list[Row]) -> None:
    if query.returns == "one" and len(rows) != 1:
        raise RationaleError(f"{query.name}: expected one row, got {len(rows)}")
    if query.returns == "optional" and len(rows) > 1:
        raise RationaleError(f"{query.name}: expected at most one row, got {len(rows)}")
    if query.returns == "scalar" and (len(rows) != 1 or len(rows[0]) != 1):
        raise RationaleError(f"{query.name}: expected one scalar")


@contextmanager
def translate_errors() -> Iterator[None]:
    """Translate driver exceptions into domain errors (`raise ... from exc`).

    Raises:
        ConflictError: a uniqueness constraint refused the write.
        GraphUnavailableError: the server is unreachable or asks the client to retry.
    """
    try:
        yield
    except neo4j.exceptions.ConstraintError as exc:
        raise ConflictError(f"the write conflicts with stored data: {exc.message}") from exc
    except (
        neo4j.exceptions.ServiceUnavailable,
        neo4j.exceptions.SessionExpired,
        neo4j.exceptions.TransientError,
    ) as exc:
        raise GraphUnavailableError(f"Neo4j is unavailable: {exc}") from exc


class Runner:
    """Typed reads shared by `Graph` (own transaction) and `Tx` (inside a unit of work)."""

    def run(self, name: AnyQueryName, params: Mapping[str, Any]) -> list[Row]:
        """Run the named query; see `Graph.run` and `Tx.run`."""
        raise NotImplementedError

    def one(self, name: AnyQueryName, params: Mapping[str, Any]) -> Row | None:
        """Run a query and return its only row, or None."""
        rows = self.run(name, params)
        return rows[0] if rows else None

    def mapped(
        self, name: AnyQueryName, params: Mapping[str, Any], from_row: Callable[[Row], T]
    ) -> list[T]:
        """Run a query and map every row with `from_row` (e.g. `DependentRecord.from_row`)."""
        return [from_row(r) for r in self.run(name, params)]

    def memory(self, name: AnyQueryName, params: Mapping[str, Any]) -> MemoryRecord | None:
        """Run a query whose `memory` column is a stored memory; return its only row, or None."""
        row = self.one(name, params)
        return None if row is None else MemoryRecord.from_props(row["memory"])

    def memories(self, name: AnyQueryName, params: Mapping[str, Any]) -> list[MemoryRecord]:
        """Run a query whose `memory` column is a stored memory; return every row's record."""
        return [MemoryRecord.from_props(r["memory"]) for r in self.run(name, params)]

    def trace(self, name: AnyQueryName, params: Mapping[str, Any]) -> TraceRecord | None:
        """Run a `reasoning/get_trace`-shaped query; return the trace, or None."""
        row = self.one(name, params)
        return None if row is None else TraceRecord.from_row(row)


class Tx(Runner):
    """A transaction handle that runs named queries only."""

    def __init__(self, graph: Graph, tx: ManagedTransaction) -> None:
        self._graph = graph
        self._tx = tx

    def run(self, name: AnyQueryName, params: Mapping[str, Any]) -> list[Row]:
        """Run the named query inside this transaction.

        Args:
            name: query name (path below `cypher/`).
            params: exactly the file's declared parameters.

        Returns:
            The rows as dicts of native values.
        """
        query = self._graph.query(name, params)
        result = self._tx.run(query.text, dict(params))
        rows = [to_native(r.data()) for r in result]
        _check_shape(query, rows)
        return rows


class Graph(Runner):
    """Runs named queries on the shared driver.

    Args:
        driver: the process's driver.
        registry: validated named queries.
        database: database name, always passed (`database_`).
        timeout_s: transaction timeout in seconds.
    """

    def __init__(
        self, driver: Driver, registry: QueryRegistry, database: str, timeout_s: float
    ) -> None:
        self.driver = driver
        self.registry = registry
        self.database = database
        self.timeout_s = timeout_s

    def query(self, name: AnyQueryName, params: Mapping[str, Any]) -> NamedQuery:
        """Return the named query after checking `params` equals its declared set.

        Raises:
            RationaleError: unknown query or parameter mismatch (a programming error).
        """
        if name not in self.registry:
            raise RationaleError(f"no Cypher file named {name!r}")
        query = self.registry[name]
        if set(params) != query.params:
            raise RationaleError(
                f"{name}: parameters {sorted(params)} differ from declared {sorted(query.params)}"
            )
        return query

    def run(self, name: AnyQueryName, params: Mapping[str, Any]) -> list[Row]:
        """Run one named query in its own transaction, routed by its `mode`.

        Returns:
            The rows as dicts of native values.

        Raises:
            ConflictError, GraphUnavailableError: see `translate_errors`.
        """
        query = self.query(name, params)
        routing = RoutingControl.READ if query.mode == "read" else RoutingControl.WRITE
        with translate_errors():
            if query.mode == "schema":
                with self.driver.session(database=self.database) as session:
                    result = session.run(Query(query.text), dict(params))
                    rows = [to_native(r.data()) for r in result]
            else:
                records, _, _ = self.driver.execute_query(
                    Query(query.text, timeout=self.timeout_s),
                    parameters_=dict(params),
                    routing_=routing,
                    database_=self.database,
                )
                rows = [to_native(r.data()) for r in records]
        _check_shape(query, rows)
        return rows

    def write(self, work: Callable[[Tx], T]) -> T:
        """Run `work` in one write transaction: it commits entirely or not at all.

        Transient failures are retried by the driver; a domain error raised by `work` rolls the
        transaction back and propagates.

        Args:
            work: a function of a `Tx` that runs named queries.

        Returns:
            What `work` returns.
        """
        return self._unit(work, write=True)

    def read(self, work: Callable[[Tx], T]) -> T:
        """Run `work` in one read transaction (a consistent snapshot of several queries)."""
        return self._unit(work, write=False)

    def _unit(self, work: Callable[[Tx], T], *, write: bool) -> T:
        @neo4j.unit_of_work(timeout=self.timeout_s)
        def body(tx: ManagedTransaction) -> T:
            return work(Tx(self, tx))

        with translate_errors(), self.driver.session(database=self.database) as session:
            if write:
                return session.execute_write(body)
            return session.execute_read(body)

    def ping(self) -> bool:
        """Return True when the server answers `RETURN 1`."""
        try:
            with translate_errors():
                self.driver.execute_query(
                    "RETURN 1", database_=self.database, routing_=RoutingControl.READ
                )
        except GraphUnavailableError:
            return False
        return True
