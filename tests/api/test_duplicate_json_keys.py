"""A JSON object naming one key twice is a 422 naming the key, and stores nothing (RFC 8259 §4).

Python's `json` keeps the last value: `{"content": "A", "content": "B"}` stored "B" while a
proxy or a log reading the first value saw "A" (fresh-user trial 6).
"""

from __future__ import annotations

import pytest
from neo4j import Driver

from tests.api.test_deep_input import stored
from tests.conftest import Tenant


@pytest.mark.parametrize(
    ("path", "body", "key"),
    [
        ("/v1/memories", '{"kind": "fact", "content": "A", "content": "B"}', "content"),
        (
            "/v1/memories",
            '{"kind": "fact", "content": "A", "metadata": {"team": "a", "team": "b"}}',
            "team",
        ),
        (
            "/v1/memories/batch",
            '{"items": [{"kind": "fact", "kind": "decision", "content": "A"}]}',
            "kind",
        ),
        ("/v1/recall", '{"query": "rack", "limit": 1, "limit": 100}', "limit"),
        ("/v1/reasoning", '{"task": "t", "task": "u", "steps": []}', "task"),
    ],
)
def test_a_key_named_twice_is_a_422_and_stores_nothing(
    tenant: Tenant, neo4j_driver: Driver, path: str, body: str, key: str
) -> None:
    r = tenant.client.post(
        path, content=body, headers={**tenant.headers, "Content-Type": "application/json"}
    )
    assert r.status_code == 422, r.text
    answer = r.json()
    assert answer["code"] == "input.invalid"
    assert f"duplicate key {key!r}" in str(answer["detail"]), answer
    assert stored(neo4j_driver, tenant.namespace) == 0


def test_equal_keys_in_different_objects_are_fine(tenant: Tenant) -> None:
    body = '{"kind": "fact", "content": "A", "metadata": {"content": "x", "kind": "y"}}'
    r = tenant.client.post(
        "/v1/memories", content=body, headers={**tenant.headers, "Content-Type": "application/json"}
    )
    assert r.status_code == 201, r.text
    assert r.json()["metadata"] == {"content": "x", "kind": "y"}
