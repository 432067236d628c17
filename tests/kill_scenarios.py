"""A large ingest and a run of batch writes, interrupted by a SIGKILL, then checked and re-run.

Shared by the Neo4j-kill tests (`tests/faults`) and the service-kill tests (`tests/replicas`):
the caller supplies `post(path, body, headers)` and kills something while a request is in
flight; these helpers send the requests, and read back what is in the graph afterwards.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from neo4j import Driver

CORPUS = Path("/work/shared/corpus")
#: 28 units (one per user request), ~400 nodes and ~750 edges once ingested.
LARGE_INGEST = CORPUS / "sessions" / "aider-chat-history" / "afi-core.aider.chat.history.md"
#: An ADR ingested and acknowledged before the fault.
SMALL_INGEST = CORPUS / "adrs" / "madr" / "0008-add-status-field.md"
BATCH_ITEMS = 150


class Answer(Protocol):
    """What `httpx` and Starlette's TestClient both return."""

    @property
    def status_code(self) -> int:
        """The HTTP status."""
        ...

    @property
    def text(self) -> str:
        """The body as text."""
        ...

    def json(self) -> Any:
        """The JSON body."""
        ...


Post = Callable[[str, dict[str, Any], dict[str, str]], Answer]


def ingest_body(path: Path) -> dict[str, Any]:
    """The `POST /v1/ingest` body for a corpus file."""
    return {"content": path.read_text(encoding="utf-8"), "source_name": path.name}


def batch_body(tag: str, batch: int) -> dict[str, Any]:
    """Batch `batch` of a run: `BATCH_ITEMS` facts whose content names the run and the batch."""
    return {
        "items": [
            {"kind": "fact", "content": f"{tag} batch {batch} item {i}: the cache is warm"}
            for i in range(BATCH_ITEMS)
        ]
    }


@dataclass
class InFlight:
    """A request sent from a thread; `answer` or `error` once it returned."""

    answer: Answer | None = None
    error: BaseException | None = None
    done: threading.Event = field(default_factory=threading.Event)


def send(post: Post, path: str, body: dict[str, Any], headers: dict[str, str]) -> InFlight:
    """Send one request from a daemon thread and return at once."""
    flight = InFlight()

    def run() -> None:
        try:
            flight.answer = post(path, body, headers)
        except BaseException as exc:  # the process or the server died under it
            flight.error = exc
        finally:
            flight.done.set()

    threading.Thread(target=run, daemon=True).start()
    return flight


@dataclass
class BatchRun:
    """Batches sent one after the other from a thread until one fails or `stop` is set."""

    acked: list[int] = field(default_factory=list)
    sent: list[int] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    done: threading.Event = field(default_factory=threading.Event)


def run_batches(post: Post, tag: str, headers: dict[str, str], limit: int = 40) -> BatchRun:
    """Start sending batches 0, 1, ... (at most `limit`); stop at the first one not answered 201."""
    run = BatchRun()

    def loop() -> None:
        try:
            for b in range(limit):
                if run.stop.is_set():
                    return
                run.sent.append(b)
                t0 = time.monotonic()
                try:
                    answer = post("/v1/memories/batch", batch_body(tag, b), headers)
                except BaseException:
                    return
                if answer.status_code != 201:
                    return
                assert answer.json()["count"] == BATCH_ITEMS, answer.text
                run.seconds.append(time.monotonic() - t0)
                run.acked.append(b)
        finally:
            run.done.set()

    threading.Thread(target=loop, daemon=True).start()
    return run


def wait_for_acks(run: BatchRun, n: int, timeout_s: float = 120.0) -> None:
    """Wait until `n` batches were acknowledged, then half a batch's time more."""
    deadline = time.monotonic() + timeout_s
    while len(run.acked) < n:
        assert not run.done.is_set(), f"the batch run ended early: sent {run.sent}"
        assert time.monotonic() < deadline, "batches too slow"
        time.sleep(0.02)
    time.sleep(0.5 * sum(run.seconds) / len(run.seconds))


def batch_counts(driver: Driver, namespace: str, tag: str) -> dict[int, int]:
    """Memories per batch of run `tag` in `namespace` (current versions and all)."""
    with driver.session() as session:
        rows = session.run(
            "MATCH (m:Memory {namespace: $ns}) WHERE m.content STARTS WITH $prefix "
            "RETURN toInteger(split(substring(m.content, size($prefix)), ' ')[0]) AS batch, "
            "count(m) AS n",
            ns=namespace,
            prefix=f"{tag} batch ",
        ).data()
    return {int(r["batch"]): int(r["n"]) for r in rows}


def assert_batches_all_or_nothing(counts: dict[int, int], run: BatchRun) -> int:
    """Every acknowledged batch is whole; the one in flight is whole or absent; no other.

    Returns:
        The index of the batch that was in flight.
    """
    in_flight = run.sent[-1]
    assert in_flight not in run.acked, "the kill came after the last batch"
    for b in run.acked:
        assert counts.get(b) == BATCH_ITEMS, (b, counts.get(b))
    assert counts.get(in_flight, 0) in (0, BATCH_ITEMS), (in_flight, counts.get(in_flight))
    assert set(counts) <= {*run.acked, in_flight}, counts
    return in_flight


def source_count(driver: Driver, namespace: str) -> int:
    """Sources in `namespace`."""
    with driver.session() as session:
        row = session.run(
            "MATCH (s:Source {namespace: $ns}) RETURN count(s) AS n", ns=namespace
        ).single()
    assert row is not None
    return int(row["n"])


def units_present(driver: Driver, namespace: str) -> set[str]:
    """Unit keys that have at least one memory `EXTRACTED_FROM` their source in `namespace`."""
    with driver.session() as session:
        rows = session.run(
            "MATCH (:Memory {namespace: $ns})-[r:EXTRACTED_FROM]->(:Source {namespace: $ns}) "
            "UNWIND r.units AS unit RETURN DISTINCT unit",
            ns=namespace,
        ).data()
    return {str(r["unit"]) for r in rows}


def wait_for_units(
    driver: Driver, namespace: str, more_than: int, timeout_s: float = 120.0
) -> None:
    """Wait until `namespace` holds more than `more_than` units (an ingest is under way)."""
    deadline = time.monotonic() + timeout_s
    while len(units_present(driver, namespace)) <= more_than:
        assert time.monotonic() < deadline, "the ingest wrote no unit in time"
        time.sleep(0.05)
