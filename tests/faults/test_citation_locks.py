"""Concurrent traces citing the same memories in different orders do not deadlock.

The soak's only 5xx (`bench/HISTORY.md`, Soak) were the first traces of a namespace: they all
cite the same few memories, and a trace write locks each cited memory as it links a step to it.
With the retry window at 0 (`RATIONALE_NEO4J_RETRY_TIME_S`), a deadlock is a 503 at once instead of a
retry, so the test sees every one.
"""

from __future__ import annotations

import random
import threading
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi.testclient import TestClient
from neo4j import Driver

from service.embeddings import FakeEmbedder
from service.keys import ApiKey
from service.main import create_app
from tests.conftest import make_settings

CITED = 6
WRITERS = 8
TRACES_EACH = 4


@pytest.fixture
def client_and_headers(neo4j_driver: Driver) -> Iterator[tuple[TestClient, dict[str, str]]]:
    namespace, key = f"test_{uuid.uuid4().hex[:16]}", f"k-{uuid.uuid4().hex}"
    settings = make_settings(
        RATIONALE_API_KEYS={key: ApiKey(namespace=namespace, name="locks").model_dump()},
        RATIONALE_NEO4J_RETRY_TIME_S=0,
    )
    try:
        with TestClient(create_app(settings, embedder=FakeEmbedder(384))) as client:
            yield client, {"Authorization": f"Bearer {key}"}
    finally:
        neo4j_driver.execute_query("MATCH (n {namespace: $ns}) DETACH DELETE n", ns=namespace)


def trace(tag: str, cited: list[str]) -> dict[str, object]:
    """A trace whose observations cite `cited` in the given order, one memory per step."""
    steps: list[dict[str, object]] = [
        {"kind": "observation", "content": f"{tag}: check {i} of the build", "cites": [memory]}
        for i, memory in enumerate(cited)
    ]
    steps.append({"kind": "conclusion", "content": f"{tag}: the build broke on the full disk"})
    return {"task": f"Why did build {tag} break?", "steps": steps}


def test_traces_citing_shared_memories_in_any_order_never_deadlock(
    client_and_headers: tuple[TestClient, dict[str, str]],
) -> None:
    client, headers = client_and_headers
    memories = []
    for i in range(CITED):
        r = client.post(
            "/v1/memories",
            json={"kind": "observation", "content": f"build log line {i}: disk 9{i}% full"},
            headers=headers,
        )
        assert r.status_code == 201, r.text
        memories.append(r.json()["memory_id"])
    barrier = threading.Barrier(WRITERS)

    def writer(w: int) -> list[int]:
        rng = random.Random(w)
        barrier.wait()
        statuses = []
        for t in range(TRACES_EACH):
            order = rng.sample(memories, len(memories))
            r = client.post("/v1/reasoning", json=trace(f"w{w}t{t}", order), headers=headers)
            assert r.status_code in (201, 503), r.text
            statuses.append(r.status_code)
            if r.status_code == 503:
                assert "Deadlock" in r.text, r.text
        return statuses

    with ThreadPoolExecutor(WRITERS) as pool:
        statuses = [s for batch in pool.map(writer, range(WRITERS)) for s in batch]
    assert statuses.count(503) == 0, f"{statuses.count(503)} of {len(statuses)} traces deadlocked"
