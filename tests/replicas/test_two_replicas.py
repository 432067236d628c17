"""Two service processes on one Neo4j: writes on one, reads and replays on the other.

DESIGN §10: the service is stateless, so replicas share everything through Neo4j, including
the `Idempotency-Key` answers.
"""

from __future__ import annotations

import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx

from bench.soak import trace_body
from tests.replicas.conftest import Cluster


def fact(content: str) -> dict[str, object]:
    return {"kind": "fact", "content": content}


def test_writes_on_one_replica_are_read_and_replayed_on_the_other(cluster: Cluster) -> None:
    a, b = cluster.replica("a"), cluster.replica("b")
    cluster.start(a, b)
    tag = uuid.uuid4().hex[:8]
    with (
        httpx.Client(base_url=a.base_url, headers=cluster.headers, timeout=60) as on_a,
        httpx.Client(base_url=b.base_url, headers=cluster.headers, timeout=60) as on_b,
    ):
        # Written on A, read on B.
        key = f"idem-{uuid.uuid4().hex}"
        body = fact(f"The CI cache for {tag} lives on the shared volume")
        first = on_a.post("/v1/memories", json=body, headers={"Idempotency-Key": key})
        assert first.status_code == 201, first.text
        memory_id = first.json()["memory_id"]
        read = on_b.get(f"/v1/memories/{memory_id}")
        assert read.status_code == 200, read.text
        assert read.json()["content"] == body["content"]

        # The same key and request on B replays A's answer; a different request is refused.
        replay = on_b.post("/v1/memories", json=body, headers={"Idempotency-Key": key})
        assert replay.status_code == 201, replay.text
        assert replay.headers.get("Idempotent-Replay") == "true"
        assert replay.json() == first.json()
        reused = on_b.post("/v1/memories", json=fact("another"), headers={"Idempotency-Key": key})
        assert reused.status_code == 422, reused.text
        assert reused.json()["code"] == "input.invalid"

        # One new key sent to both replicas at once: one memory, and every 201 names it.
        key2 = f"idem-{uuid.uuid4().hex}"
        body2 = fact(f"Both replicas got this at once ({tag})")
        with ThreadPoolExecutor(2) as pool:
            answers = list(
                pool.map(
                    lambda c: c.post("/v1/memories", json=body2, headers={"Idempotency-Key": key2}),
                    [on_a, on_b],
                )
            )
        statuses = sorted(r.status_code for r in answers)
        assert set(statuses) <= {201, 409} and 201 in statuses, [r.text for r in answers]
        for r in answers:
            if r.status_code == 409:
                assert r.json()["code"] == "idempotency.in_flight", r.text
        assert len({r.json()["memory_id"] for r in answers if r.status_code == 201}) == 1
        with cluster.driver.session() as session:
            count = session.run(
                "MATCH (m:Memory {namespace: $ns, content: $content}) RETURN count(m) AS n",
                ns=cluster.namespace,
                content=body2["content"],
            ).single()
        assert count is not None and count["n"] == 1

        # A trace written on B (citing memories written on A) has its lineage on A.
        cited = []
        for i in range(5):
            r = on_a.post("/v1/memories", json={"kind": "observation", "content": f"{tag} {i}"})
            assert r.status_code == 201, r.text
            cited.append(r.json()["memory_id"])
        trace = on_b.post("/v1/reasoning", json=trace_body(tag, cited))
        assert trace.status_code == 201, trace.text
        decision = trace.json()["produced"][0]["memory_id"]
        lineage = on_a.get(f"/v1/memories/{decision}/lineage")
        assert lineage.status_code == 200, lineage.text
        assert trace.json()["trace_id"] in lineage.text

        # Recall on B finds what A wrote (the indexes are the database's, not the process's).
        deadline = time.monotonic() + 10
        while True:
            hits = on_b.post("/v1/recall", json={"query": body["content"], "limit": 5})
            assert hits.status_code == 200, hits.text
            if memory_id in hits.text or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert memory_id in hits.text, hits.text
