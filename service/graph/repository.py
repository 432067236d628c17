"""Runs named Cypher queries; the only module that catches `neo4j.exceptions`.

Every query is looked up by name in the `QueryRegistry`, its parameters are checked against the
file's declaration before anything is sent, its result shape against the file's `returns:`,
and Neo4j temporal values come back as native timezone-aware `datetime`s. Rows that are stored
memories or traces are mapped to the frozen records of `service.graph.records` here.

Values are converted both ways by `service.graph.values` (`to_graph`, `to_native`).

A write unit that fails on a uniqueness constraint is retried once: a concurrent `MERGE` or
`CREATE` of the same identity lost the race, and the retry finds the winner's node (or, for a
version, sees that it is stale).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar

import neo4j
from neo4j import Driver, ManagedTransaction, Query, RoutingControl

from service import metrics
from service.errors import (
    ConflictError,
    GraphTimeoutError,
    GraphUnavailableError,
    RationaleError,
    VectorIndexFault,
)
from service.graph.availability import UNAVAILABLE, Availability, is_connectivity_error
from service.graph.cypher import NamedQuery, QueryRegistry
from service.graph.query_names import AnyQueryName
from service.graph.records import MemoryRecord
from service.graph.values import Row as Row  # re-exported: the domain's row type
from service.graph.values import graph_params, record_row
from service.graph.values import packed_vector as packed_vector  # re-exported
from service.graph.values import to_native as to_native  # re-exported

log = logging.getLogger(__name__)

T = TypeVar("T")


def _rows(query: NamedQuery, records: Iterable[neo4j.Record]) -> list[Row]:
    """Return a result's records as rows: as decoded for a `plain` query, else by `record_row`."""
    if query.plain:
        return [dict(zip(record.keys(), record, strict=True)) for record in records]
    return [record_row(r) for r in records]


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
        GraphUnavailableError: the server is unreachable or asks the client to retry, or the
            breaker refused the call (counted as an `unavailable` error all the same).
        GraphTimeoutError: the transaction ran past the query timeout (Neo4j rolled it back).
    """
    try:
        yield
    except neo4j.exceptions.ConstraintError as exc:
        metrics.neo4j_error("conflict")
        raise ConflictError(f"the write conflicts with stored data: {exc.message}") from exc
    except (
        neo4j.exceptions.ServiceUnavailable,
        neo4j.exceptions.SessionExpired,
        neo4j.exceptions.TransientError,
    ) as exc:
        metrics.neo4j_error("unavailable")
        # The driver's text names the server's address: log it, never return it.
        log.warning("Neo4j unavailable: %s", exc)
        raise GraphUnavailableError(UNAVAILABLE) from exc
    except neo4j.exceptions.ClientError as exc:
        if "TransactionTimedOut" not in (exc.code or ""):
            raise
        metrics.neo4j_error("timeout")
        log.warning("Neo4j transaction timed out: %s", exc)
        raise GraphTimeoutError(
            "the database did not finish this request within the query timeout "
            "(RATIONALE_QUERY_TIMEOUT_S); it was rolled back, nothing of it is stored"
        ) from exc
    except GraphUnavailableError:
        # Refused by the fail-fast breaker (`Availability.call`): counted like a driver failure.
        metrics.neo4j_error("unavailable")
        raise
    else:
        metrics.neo4j_reached()


def _retry_constraint_once(attempt: Callable[[], T]) -> T:
    """Run a write `attempt`; when a uniqueness constraint refuses it, run it once more.

    The first failure means a concurrent transaction committed the same identity first (a
    `MERGE` race, a version written twice); the second attempt reads that winner. A second
    refusal propagates (`translate_errors` makes it a `ConflictError`).
    """
    try:
        return attempt()
    except neo4j.exceptions.ConstraintError as exc:
        log.info("write refused by a uniqueness constraint, retrying once: %s", exc.message)
        return attempt()


#: Neo4j 2026.09 sometimes fails a filtered vector `SEARCH` with an array index error ("Index
#: 33553859 out of bounds for length 1", in Lucene's filter bitset) where the index is much
#: written and deleted in.
_SEARCH_FAULT = re.compile(r"Index -?\d+ out of bounds for length \d+")
#: Seconds waited before each further attempt of a read the fault failed (`_retry_search_fault`).
SEARCH_FAULT_BACKOFF_S = (0.0, 0.05)


def _retry_search_fault(attempt: Callable[[], T]) -> T:
    """Run a read `attempt`; while Neo4j's vector `SEARCH` fault (`_SEARCH_FAULT`) fails it, again.

    Each further attempt is a new transaction, after `SEARCH_FAULT_BACKOFF_S` (at most 2 more,
    0.05 s of waiting): the fault may pass, but it can also hold as long as the index's segments
    stay as they are (one namespace's task search failed every time for minutes), where a
    reader does better ranking by an exact scan at once than waiting.

    Raises:
        VectorIndexFault: the last attempt failed with the fault too (503 unless the reader
            falls back: recall ranks by an exact scan, `RetrievalService._answer`).
    """
    for wait in SEARCH_FAULT_BACKOFF_S:
        try:
            return attempt()
        except neo4j.exceptions.DatabaseError as exc:
            if not _SEARCH_FAULT.search(str(exc)):
                raise
            log.warning("a read failed with Neo4j's SEARCH index fault, retrying: %s", exc)
        time.sleep(wait)
    try:
        return attempt()
    except neo4j.exceptions.DatabaseError as exc:
        if not _SEARCH_FAULT.search(str(exc)):
            raise
        raise VectorIndexFault(
            "the vector index failed the search (a Neo4j fault while it is written); retry"
        ) from exc


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


class Tx(Runner):
    """A transaction handle that runs named queries only.

    It holds a managed transaction (`Graph.read`, `Graph.write`), or a session whose queries
    each run in an auto-commit transaction of their own (`Graph.read_autocommit`).
    """

    def __init__(self, graph: Graph, tx: ManagedTransaction | neo4j.Session) -> None:
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
        if isinstance(self._tx, neo4j.Session):  # an auto-commit transaction, timed out alike
            result = self._tx.run(
                Query(query.text, timeout=self._graph.timeout_s), graph_params(params)
            )
        else:
            result = self._tx.run(query.text, graph_params(params))
        rows = _rows(query, result)
        _check_shape(query, rows)
        return rows


class Graph(Runner):
    """Runs named queries on the shared driver.

    Args:
        driver: the process's driver.
        registry: validated named queries.
        database: database name, always passed (`database_`).
        timeout_s: transaction timeout in seconds.
        availability: the fail-fast breaker every call goes through; default one with a probe
            on this driver.
    """

    def __init__(
        self,
        driver: Driver,
        registry: QueryRegistry,
        database: str,
        timeout_s: float,
        availability: Availability | None = None,
    ) -> None:
        self.driver = driver
        self.registry = registry
        self.database = database
        self.timeout_s = timeout_s
        self.availability = availability or Availability(self.probe)

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
        sent = graph_params(params)

        def attempt() -> list[Row]:
            if query.mode == "schema":
                with self.driver.session(database=self.database) as session:
                    result = session.run(Query(query.text), sent)
                    return _rows(query, result)
            records, _, _ = self.driver.execute_query(
                Query(query.text, timeout=self.timeout_s),
                parameters_=sent,
                routing_=routing,
                database_=self.database,
            )
            return _rows(query, records)

        with translate_errors():
            rows = self.availability.call(
                (lambda: _retry_constraint_once(attempt))
                if query.mode == "write"
                else (lambda: _retry_search_fault(attempt))
            )
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

    def read_autocommit(self, work: Callable[[Tx], T]) -> T:
        """Run `work`'s queries in one session, each in an auto-commit read transaction.

        No `BEGIN` and no `COMMIT` round trip: for a read whose queries need not see one
        snapshot (Neo4j reads are read-committed within a transaction too, so a later query
        of one may see another's commit either way). Recall's read (a vector statement, the
        read-back, the traces) made two waits fewer of its four: interleaved, 400 recalls
        at 10k each, p50 / p95 17.9 / 26.6 ms against 18.5 / 30.2 in one transaction.
        Failures are retried as `read`'s are (the whole of `work` again); each query has the
        graph's transaction timeout.

        Args:
            work: a function of a `Tx` that runs named read queries.

        Returns:
            What `work` returns.
        """

        def attempt() -> T:
            bookmarks = self.driver.execute_query_bookmark_manager  # as `_unit`'s
            with self.driver.session(
                database=self.database,
                bookmark_manager=bookmarks,
                default_access_mode=neo4j.READ_ACCESS,
            ) as session:
                return work(Tx(self, session))

        with translate_errors():
            return self.availability.call(lambda: _retry_search_fault(attempt))

    def _unit(self, work: Callable[[Tx], T], *, write: bool) -> T:
        @neo4j.unit_of_work(timeout=self.timeout_s)
        def body(tx: ManagedTransaction) -> T:
            return work(Tx(self, tx))

        def attempt() -> T:
            # The bookmarks `execute_query` keeps: on a cluster, a read routed to a follower
            # waits for this process's earlier writes (single-query and unit-of-work alike).
            bookmarks = self.driver.execute_query_bookmark_manager
            with self.driver.session(database=self.database, bookmark_manager=bookmarks) as session:
                if write:
                    return session.execute_write(body)
                return session.execute_read(body)

        with translate_errors():
            return self.availability.call(
                (lambda: _retry_constraint_once(attempt))
                if write
                else (lambda: _retry_search_fault(attempt))
            )

    def probe(self) -> None:
        """Run `RETURN 1` on the configured database, bypassing the breaker.

        The transaction timeout is the graph's own (`timeout_s`), not a short one: a cold server
        on a loaded machine can take seconds over its first query, and a probe cut short every
        time would keep the breaker open long after the server is back. Callers that must
        answer fast (`/readyz`) bound the wait themselves.

        Raises:
            neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError: the server did not answer.
        """
        self.driver.execute_query(
            Query("RETURN 1", timeout=self.timeout_s),
            database_=self.database,
            routing_=RoutingControl.READ,
        )

    def ping(self) -> bool:
        """Return True when the server answers `RETURN 1`; False at once while the breaker is open.

        A connectivity failure opens the breaker (its probe then watches for recovery).
        """
        if not self.availability.available:
            return False
        try:
            self.probe()
        except Exception as exc:
            if is_connectivity_error(exc):
                metrics.neo4j_error("unavailable")
                self.availability.trip(exc)
            return False
        return True
