"""SIGKILL of the service process in the middle of a large ingest and of a run of batch writes.

DESIGN §13: every write is all or nothing and an acknowledged write survives. Afterwards every
acknowledged item is present and complete, nothing unacknowledged is visible half-done (each
ingested unit is one transaction; a batch is one transaction), and re-running the same ingest on
a new process completes it without duplicates. The reference namespace receives the same
material without a fault; graphs are compared by content (`tests/graph_fingerprint.py`).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from tests.graph_fingerprint import assert_complete_part, difference, fingerprint
from tests.kill_scenarios import (
    BATCH_ITEMS,
    LARGE_INGEST,
    SMALL_INGEST,
    Answer,
    Post,
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
from tests.replicas.conftest import Cluster, Replica


@contextmanager
def poster(replica: Replica) -> Iterator[Post]:
    """A `post(path, body, headers)` on one replica, its HTTP client closed on exit."""
    with httpx.Client(base_url=replica.base_url, timeout=300) as http:

        def post(path: str, body: dict[str, Any], headers: dict[str, str]) -> Answer:
            return http.post(path, json=body, headers=headers)

        yield post


def test_service_sigkill_mid_ingest_keeps_whole_units_and_rerun_completes(
    cluster: Cluster,
) -> None:
    first = cluster.replica("kill-ingest")
    cluster.start(first)
    with poster(first) as post:
        for headers in (cluster.ref_headers, cluster.headers):
            small = post("/v1/ingest", ingest_body(SMALL_INGEST), headers)
            assert small.status_code == 201 and small.json()["status"] == "complete", small.text
        ref = post("/v1/ingest", ingest_body(LARGE_INGEST), cluster.ref_headers)
        assert ref.status_code == 201 and ref.json()["status"] == "complete", ref.text
        whole = fingerprint(cluster.driver, cluster.ref_namespace)
        all_units = units_present(cluster.driver, cluster.ref_namespace)

        flight = send(post, "/v1/ingest", ingest_body(LARGE_INGEST), cluster.headers)
        wait_for_units(cluster.driver, cluster.namespace, more_than=len(small.json()["units"]))
        first.kill()
        assert flight.done.wait(60)
        assert flight.answer is None, "the ingest was answered before the kill"

    part = fingerprint(cluster.driver, cluster.namespace)
    assert_complete_part(part, whole)  # no duplicates, no half-written unit
    present = units_present(cluster.driver, cluster.namespace)
    small_units = {unit["key"] for unit in small.json()["units"]}
    assert small_units <= present, "the acknowledged ingest lost a unit"
    assert small_units < present < all_units, f"the kill was not mid-ingest: {len(present)} units"

    second = cluster.replica("kill-ingest-again")
    cluster.start(second)
    with poster(second) as post:
        again = post("/v1/ingest", ingest_body(LARGE_INGEST), cluster.headers)
    # 200: the source exists (`new: false`); only the units the kill cut off are written.
    assert again.status_code == 200 and again.json()["status"] == "complete", again.text
    done = fingerprint(cluster.driver, cluster.namespace)
    assert done == whole, difference(done, whole)
    assert source_count(cluster.driver, cluster.namespace) == 2


def test_service_sigkill_mid_batch_run_keeps_acknowledged_batches_whole(
    cluster: Cluster,
) -> None:
    first = cluster.replica("kill-batch")
    cluster.start(first)
    tag = f"run-{uuid.uuid4().hex[:8]}"
    with poster(first) as post:
        run = run_batches(post, tag, cluster.headers)
        wait_for_acks(run, 2)
        first.kill()
        assert run.done.wait(60)
    before = batch_counts(cluster.driver, cluster.namespace, tag)
    in_flight = assert_batches_all_or_nothing(before, run)
    whole_in_flight = before.get(in_flight, 0) == BATCH_ITEMS

    second = cluster.replica("kill-batch-again")
    cluster.start(second)
    with poster(second) as post:
        for b in range(in_flight + 1):
            answer = post("/v1/memories/batch", batch_body(tag, b), cluster.headers)
            # 200 when every item already existed (`created: false`), 201 when it wrote.
            wrote = b == in_flight and not whole_in_flight
            assert answer.status_code == (201 if wrote else 200), (b, answer.text[:300])
    counts = batch_counts(cluster.driver, cluster.namespace, tag)
    assert sorted(counts) == list(range(in_flight + 1)), counts
    assert all(n == BATCH_ITEMS for n in counts.values()), counts
