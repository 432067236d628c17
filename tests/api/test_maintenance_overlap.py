"""Duplicate and contradiction candidates never propose the same pair (on real Neo4j)."""

from __future__ import annotations

from typing import Any

from tests.conftest import Tenant
from tests.factories import memory


def run_job(t: Tenant, job: str) -> dict[str, Any]:
    r = t.post("/v1/maintenance/run", json={"job": job})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def test_the_same_text_under_spelling_variant_keys_is_a_duplicate_only(tenant: Tenant) -> None:
    a = memory(
        tenant,
        "The chat store for JabRef is MVStore",
        kind="fact",
        subject="jabref",
        attribute="chat_store",
    )
    b = memory(
        tenant,
        "the chat store for jabref is mvstore!",
        kind="fact",
        subject="JabRef",
        attribute="chat store",
    )
    pair = sorted([a["memory_id"], b["memory_id"]])
    duplicates = run_job(tenant, "duplicate-candidates")
    assert (duplicates["changed"], duplicates["memory_ids"]) == (1, pair), duplicates
    contradictions = run_job(tenant, "contradiction-candidates")
    assert (contradictions["changed"], contradictions["memory_ids"]) == (0, []), contradictions


def test_a_pair_the_contradiction_job_proposes_is_no_duplicate(tenant: Tenant) -> None:
    # embeddings close enough for a duplicate, but keys that differ only in spelling and texts
    # that differ: neither replaced the other, so it is for review, not for merging
    a = memory(
        tenant,
        "The billing service runs on Postgres 16",
        kind="fact",
        subject="billing",
        attribute="database",
    )
    b = memory(
        tenant,
        "The billing service is running on Postgres 16",
        kind="fact",
        subject="Billing",
        attribute="data-base",
    )
    pair = sorted([a["memory_id"], b["memory_id"]])
    contradictions = run_job(tenant, "contradiction-candidates")
    assert (contradictions["changed"], contradictions["memory_ids"]) == (1, pair), contradictions
    duplicates = run_job(tenant, "duplicate-candidates")
    assert (duplicates["changed"], duplicates["memory_ids"]) == (0, []), duplicates
