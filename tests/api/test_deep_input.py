"""A body nested arbitrarily deep is a 422 with the stable code and stores nothing (real Neo4j)."""

from __future__ import annotations

import pytest
from neo4j import Driver

from service.api.errors import ECHO_ELIDED
from tests.conftest import Tenant

DEPTHS = [100, 500, 1000, 5000, 20000]


def nested(depth: int) -> str:
    """A JSON array nested `depth` levels deep (`[[[...]]]`)."""
    return "[" * depth + "]" * depth


def bodies(depth: int) -> list[tuple[str, str]]:
    """Route -> raw JSON body with a `depth`-deep value where a flat one belongs."""
    deep = nested(depth)
    return [
        ("/v1/recall", '{"query":"x","limit":1,"kinds":' + deep + "}"),
        ("/v1/memories", '{"kind":"observation","content":' + deep + "}"),
        ("/v1/memories", '{"kind":"observation","content":"ok","metadata":{"a":' + deep + "}}"),
        ("/v1/reasoning", '{"task":"t","steps":[{"kind":"thought","content":' + deep + "}]}"),
    ]


def stored(driver: Driver, namespace: str) -> int:
    with driver.session() as s:
        record = s.run("MATCH (n {namespace: $ns}) RETURN count(n) AS n", ns=namespace).single()
    assert record is not None
    return int(record["n"])


@pytest.mark.parametrize("depth", DEPTHS)
def test_deep_bodies_are_a_422_and_store_nothing(
    tenant: Tenant, neo4j_driver: Driver, depth: int
) -> None:
    for path, body in bodies(depth):
        for headers in ({}, {"Idempotency-Key": f"deep-{depth}-{path}"}):
            r = tenant.post(
                path, content=body, headers={"Content-Type": "application/json", **headers}
            )
            assert r.status_code == 422, (path, depth, r.status_code, r.text[:300])
            assert r.json()["code"] == "input.invalid"
            assert len(r.content) < 64 * 1024  # the echo is bounded, never the whole input
            if depth == 100:  # parsed, then refused by validation: the echo is cut short
                assert ECHO_ELIDED in r.text, r.text[:300]
    assert stored(neo4j_driver, tenant.namespace) == 0
