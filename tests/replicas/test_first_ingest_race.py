"""Concurrent first ingests of one document into one namespace, across two service processes.

Issue 16 / DESIGN §13: the `:Source (namespace, sha256)` constraint makes the source the one
identity every racer meets; the losing writers get the existing node. Afterwards there is
exactly one `:Source`, every caller got a success naming it, and the graph equals (by content,
`tests/graph_fingerprint.py`) the one a single ingest of the same document left in a reference
namespace: no unit written twice.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx

from tests.graph_fingerprint import difference, fingerprint
from tests.kill_scenarios import LARGE_INGEST, ingest_body, source_count
from tests.replicas.conftest import Cluster

#: Callers per replica (two replicas): four first ingests of the same content at once.
PER_REPLICA = 2


def test_concurrent_first_ingests_make_one_source_and_no_duplicate_units(
    cluster: Cluster,
) -> None:
    a, b = cluster.replica("race-a"), cluster.replica("race-b")
    cluster.start(a, b)
    body = ingest_body(LARGE_INGEST)
    callers = [a, b] * PER_REPLICA
    barrier = threading.Barrier(len(callers))
    spans: list[tuple[float, float]] = [(0.0, 0.0)] * len(callers)

    def ingest(i: int) -> httpx.Response:
        with httpx.Client(base_url=callers[i].base_url, timeout=600) as http:
            barrier.wait()
            start = time.monotonic()
            answer = http.post("/v1/ingest", json=body, headers=cluster.headers)
            spans[i] = (start, time.monotonic())
            return answer

    with ThreadPoolExecutor(len(callers)) as pool:
        answers = list(pool.map(ingest, range(len(callers))))
    assert max(s for s, _ in spans) < min(e for _, e in spans), "the ingests did not overlap"

    for answer in answers:
        assert answer.status_code in (200, 201), answer.text[:500]
        assert answer.json()["status"] == "complete", answer.text[:500]
    assert [answer.json()["new"] for answer in answers].count(True) == 1, "one creates it"
    assert len({answer.json()["source_id"] for answer in answers}) == 1, [
        answer.json()["source_id"] for answer in answers
    ]
    # Every caller reports every unit, with the same trace for each unit.
    unit_traces = [{u["key"]: u["trace_id"] for u in answer.json()["units"]} for answer in answers]
    assert all(traces == unit_traces[0] for traces in unit_traces), unit_traces
    assert source_count(cluster.driver, cluster.namespace) == 1

    with httpx.Client(base_url=a.base_url, timeout=600) as http:
        ref = http.post("/v1/ingest", json=body, headers=cluster.ref_headers)
    assert ref.status_code == 201 and ref.json()["status"] == "complete", ref.text[:500]
    raced, alone = (
        fingerprint(cluster.driver, ns) for ns in (cluster.namespace, cluster.ref_namespace)
    )
    assert raced == alone, difference(raced, alone)
