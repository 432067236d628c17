"""What an error answer echoes of the input: bounded, and readable (real Neo4j)."""

from __future__ import annotations

from service.api.errors import MAX_DETAIL_CHARS, bounded_detail
from tests.conftest import Tenant


def test_bounded_detail_keeps_short_messages_and_cuts_long_ones() -> None:
    assert bounded_detail("memory m-1 not found") == "memory m-1 not found"
    cut = bounded_detail("x" * 5_000, limit=100)
    assert cut == "x" * 100 + "... (4900 more characters)"


def test_a_60_kb_unknown_id_is_not_echoed_whole(tenant: Tenant) -> None:
    r = tenant.get("/v1/memories/" + "a" * 60_000)
    assert r.status_code == 404 and r.json()["code"] == "memory.not_found"
    assert len(r.json()["detail"]) <= MAX_DETAIL_CHARS + 40


def test_thousands_of_unknown_citations_keep_every_id_in_missing_only(tenant: Tenant) -> None:
    ids = [f"no-such-memory-{i:05d}" for i in range(2_000)]
    r = tenant.post(
        "/v1/reasoning",
        json={
            "task": "Why did the build fail?",
            "steps": [
                {"kind": "observation", "content": "disk is 95% full", "cites": ids},
                {"kind": "conclusion", "content": "the disk being full broke the build"},
            ],
            "produced": {"kind": "decision", "content": "clean the disk"},
        },
    )
    body = r.json()
    assert r.status_code == 422 and body["code"] == "reasoning.invalid_reference"
    assert sorted(body["missing"]) == ids
    assert len(body["detail"]) <= MAX_DETAIL_CHARS + 40
    assert body["detail"].startswith("cited memories do not exist: no-such-memory-")


def test_a_validation_error_gives_its_reason_as_text(tenant: Tenant) -> None:
    r = tenant.post("/v1/recall", json={"query": "x", "as_of": "yesterday"})
    assert r.status_code == 422 and r.json()["code"] == "input.invalid", r.text
    (issue,) = r.json()["detail"]
    # pydantic's ctx.error is an exception object; encoded as is it was `{}`.
    assert issue["ctx"]["error"].startswith("a time must be an ISO 8601 string with an offset")
