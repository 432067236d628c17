"""SIGKILL of Neo4j (the test-owned server) in the middle of a large ingest and of batch writes.

DESIGN §13: an acknowledged write survives a SIGKILL of Neo4j, and every write is all or
nothing. After the server is back (the service recovers alone): every acknowledged item is
present and complete, nothing unacknowledged is visible half-done, and re-running the same
ingest completes it without duplicates. Graphs are compared by content with a reference
namespace that received the same material without a fault (`tests/graph_fingerprint.py`).
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from tests.faults.conftest import Bound
from tests.graph_fingerprint import assert_complete_part, difference, fingerprint
from tests.kill_scenarios import (
    BATCH_ITEMS,
    LARGE_INGEST,
    SMALL_INGEST,
    Answer,
    assert_batches_all_or_nothing,
    batch_body,
    batch_counts,
    ingest_body,
    run_batches,
    send,
    source_count,
    units_present,
    wait_for_acks,
    wait_for_units,
)


def poster(b: Bound) -> Any:
    def post(path: str, body: dict[str, Any], headers: dict[str, str]) -> Answer:
        return b.client.post(path, json=body, headers=headers)

    return post


def until_ok(b: Bound, path: str, body: dict[str, Any], timeout_s: float = 60.0) -> Answer:
    """Send until the service answers other than 503 (the breaker closes after the restart)."""
    deadline = time.monotonic() + timeout_s
    while True:
        answer = b.client.post(path, json=body, headers=b.headers)
        if answer.status_code != 503 or time.monotonic() > deadline:
            return answer
        time.sleep(0.5)


def test_neo4j_sigkill_mid_ingest_keeps_whole_units_and_rerun_completes(bound: Bound) -> None:
    post = poster(bound)
    for headers in (bound.ref_headers, bound.headers):
        small = post("/v1/ingest", ingest_body(SMALL_INGEST), headers)
        assert small.status_code == 201 and small.json()["status"] == "complete", small.text
    ref = post("/v1/ingest", ingest_body(LARGE_INGEST), bound.ref_headers)
    assert ref.status_code == 201 and ref.json()["status"] == "complete", ref.text
    with bound.driver() as driver:
        whole = fingerprint(driver, bound.ref_namespace)
        all_units = units_present(driver, bound.ref_namespace)
        small_units = {unit["key"] for unit in small.json()["units"]}

        flight = send(post, "/v1/ingest", ingest_body(LARGE_INGEST), bound.headers)
        wait_for_units(driver, bound.namespace, more_than=len(small_units))
        bound.server.kill()
        assert flight.done.wait(60)
        answer = flight.answer
        assert answer is not None, flight.error
        # Not acknowledged as complete: a 503, or a 201 that lists the units the kill cut off.
        acked: set[str] = set()
        if answer.status_code == 201:
            assert answer.json()["status"] != "complete", answer.text[:500]
            acked = {u["key"] for u in answer.json()["units"] if u["status"] == "ok"}
        else:
            assert answer.status_code == 503, answer.text[:500]

        bound.server.start()
    with bound.driver() as driver:
        part = fingerprint(driver, bound.namespace)
        assert_complete_part(part, whole)
        present = units_present(driver, bound.namespace)
        assert small_units | acked <= present, "an acknowledged unit was lost"
        assert small_units < present < all_units, f"the kill was not mid-ingest: {len(present)}"

    again = until_ok(bound, "/v1/ingest", ingest_body(LARGE_INGEST))
    assert again.status_code == 200 and again.json()["status"] == "complete", again.text[:500]
    with bound.driver() as driver:
        done = fingerprint(driver, bound.namespace)
        assert done == whole, difference(done, whole)
        assert source_count(driver, bound.namespace) == 2


def test_neo4j_sigkill_mid_batch_run_keeps_acknowledged_batches_whole(bound: Bound) -> None:
    tag = f"run-{uuid.uuid4().hex[:8]}"
    run = run_batches(poster(bound), tag, bound.headers)
    wait_for_acks(run, 2)
    bound.server.kill()
    assert run.done.wait(60)
    bound.server.start()
    with bound.driver() as driver:
        before = batch_counts(driver, bound.namespace, tag)
        in_flight = assert_batches_all_or_nothing(before, run)
    for b in range(in_flight + 1):
        answer = until_ok(bound, "/v1/memories/batch", batch_body(tag, b))
        assert answer.status_code in (200, 201), answer.text[:300]
    with bound.driver() as driver:
        counts = batch_counts(driver, bound.namespace, tag)
    assert sorted(counts) == list(range(in_flight + 1)), counts
    assert all(n == BATCH_ITEMS for n in counts.values()), counts
