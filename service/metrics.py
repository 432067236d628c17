"""The domain's Prometheus metrics (prometheus-client, no web framework): one registry per process.

Domain and graph code record through the small functions here; `service/api/metrics.py` serves
this registry next to the per-app HTTP metrics at `GET /metrics`. Labels are bounded: stage and
read names, issue codes, recognized origins (an unknown origin is counted as `unrecognized`,
never by its own value), job names and error kinds.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

REGISTRY = CollectorRegistry(auto_describe=True)

#: Seconds; recall stages are milliseconds to seconds on a loaded machine.
STAGE_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

RECALL_STAGE_SECONDS = Histogram(
    "rationale_recall_stage_seconds",
    "Time spent in each stage of recall and search (embed, candidates, fuse, read_back).",
    ["read", "stage"],
    buckets=STAGE_BUCKETS,
    registry=REGISTRY,
)
GATE_REFUSALS = Counter(
    "rationale_gate_refusals_total",
    "Reasoning traces refused by the quality gate at the main door, once per issue code.",
    ["code"],
    registry=REGISTRY,
)
MEMORIES_HIDDEN = Counter(
    "rationale_memories_hidden_total",
    "Candidates recall or search hid because their origin is missing or unknown "
    "('unrecognized'); origins a read never shows (maintenance in recall) are filtered in the "
    "index query and not counted.",
    ["read", "origin"],
    registry=REGISTRY,
)
# The series exist from the start (at 0), so a scrape shows them before anything was hidden.
for _read in ("recall", "search"):
    MEMORIES_HIDDEN.labels(read=_read, origin="unrecognized")
UNRECOGNIZED_ORIGINS = Counter(
    "rationale_unrecognized_origins_total",
    "Distinct memories first met with a missing or unknown origin (hidden; see /v1/diagnostics).",
    registry=REGISTRY,
)
MAINTENANCE_RUNS = Counter(
    "rationale_maintenance_runs_total",
    "Maintenance job runs, by job and result (ok or failed).",
    ["job", "result"],
    registry=REGISTRY,
)
MAINTENANCE_CHANGES = Counter(
    "rationale_maintenance_changes_total",
    "Memories or traces changed by maintenance jobs, by job.",
    ["job"],
    registry=REGISTRY,
)
NEO4J_ERRORS = Counter(
    "rationale_neo4j_errors_total",
    "Driver errors translated by the graph layer, by kind (unavailable, conflict).",
    ["kind"],
    registry=REGISTRY,
)
NEO4J_OUTAGES = Counter(
    "rationale_neo4j_outages_total",
    "Times Neo4j went from reachable to unreachable, as seen by this process.",
    registry=REGISTRY,
)
NEO4J_UP = Gauge(
    "rationale_neo4j_up",
    "1 while the last Neo4j call reached the server, 0 after it could not.",
    registry=REGISTRY,
)

_state_lock = threading.Lock()
_neo4j_up: bool | None = None


@contextmanager
def recall_stage(read: str, stage: str) -> Iterator[None]:
    """Time one stage of recall or search into `rationale_recall_stage_seconds`.

    Args:
        read: `recall` or `search`.
        stage: `embed`, `candidates`, `fuse` or `read_back`.
    """
    start = time.perf_counter()
    try:
        yield
    finally:
        RECALL_STAGE_SECONDS.labels(read=read, stage=stage).observe(time.perf_counter() - start)


def gate_refused(codes: Iterable[str]) -> None:
    """Count a trace the gate refused, once under each distinct issue code it carried."""
    for code in sorted(set(codes)) or ["(none)"]:
        GATE_REFUSALS.labels(code=code).inc()


def hidden(read: str, origin: str, count: int = 1) -> None:
    """Count candidates `read` hid because of their origin (`unrecognized` for unknown ones)."""
    if count > 0:
        MEMORIES_HIDDEN.labels(read=read, origin=origin).inc(count)


def unrecognized_first_seen(count: int) -> None:
    """Count memories met for the first time with a missing or unknown origin."""
    if count > 0:
        UNRECOGNIZED_ORIGINS.inc(count)


def maintenance_ran(job: str, changed: int, *, ok: bool = True) -> None:
    """Count one maintenance run and the memories or traces it changed."""
    MAINTENANCE_RUNS.labels(job=job, result="ok" if ok else "failed").inc()
    if changed > 0:
        MAINTENANCE_CHANGES.labels(job=job).inc(changed)


def neo4j_error(kind: str) -> None:
    """Count a driver error; an `unavailable` one marks Neo4j down (an outage when it was up)."""
    global _neo4j_up
    NEO4J_ERRORS.labels(kind=kind).inc()
    if kind != "unavailable":
        return
    with _state_lock:
        if _neo4j_up is not False:
            NEO4J_OUTAGES.inc()
        _neo4j_up = False
    NEO4J_UP.set(0)


def neo4j_reached() -> None:
    """Mark Neo4j reachable (a call got an answer)."""
    global _neo4j_up
    if _neo4j_up is True:
        return
    with _state_lock:
        _neo4j_up = True
    NEO4J_UP.set(1)
