"""What an error answer echoes of the input: bounded, and readable (real Neo4j)."""

from __future__ import annotations

import httpx2 as httpx

from service.api.errors import MAX_DETAIL_CHARS, bounded_detail
from service.errors import MAX_ECHOED_ID_CHARS, MAX_ECHOED_IDS, echo_id, echo_ids
from tests.conftest import Tenant


def test_bounded_detail_keeps_short_messages_and_cuts_long_ones() -> None:
    assert bounded_detail("memory m-1 not found") == "memory m-1 not found"
    cut = bounded_detail("x" * 5_000, limit=100)
    assert cut == "x" * 100 + "... (4900 more characters)"


def _trace_citing(tenant: Tenant, ids: list[str]) -> httpx.Response:
    return tenant.post(
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


def test_a_60_kb_unknown_id_is_not_echoed_whole(tenant: Tenant) -> None:
    r = tenant.get("/v1/memories/" + "a" * 60_000)
    assert r.status_code == 404 and r.json()["code"] == "memory.not_found"
    assert len(r.json()["detail"]) <= MAX_DETAIL_CHARS + 40


def test_thousands_of_unknown_citations_keep_every_id_in_missing_only(tenant: Tenant) -> None:
    ids = [f"no-such-memory-{i:05d}" for i in range(2_000)]
    r = _trace_citing(tenant, ids)
    body = r.json()
    assert r.status_code == 422 and body["code"] == "reasoning.invalid_reference"
    assert sorted(body["missing"]) == ids
    assert len(body["detail"]) <= MAX_DETAIL_CHARS + 40
    assert body["detail"].startswith("cited memories do not exist: no-such-memory-")


def test_echo_cuts_a_long_id_and_lists_ten_ids_at_most() -> None:
    assert echo_id("m-1") == "m-1"
    assert echo_id("x" * MAX_ECHOED_ID_CHARS) == "x" * MAX_ECHOED_ID_CHARS
    assert echo_id("x" * 60_000) == "x" * MAX_ECHOED_ID_CHARS + "... (60000 characters)"
    assert echo_ids(["a", "b"]) == "a, b"
    ids = [f"id-{i}" for i in range(MAX_ECHOED_IDS + 3)]
    assert echo_ids(ids) == ", ".join(ids[:MAX_ECHOED_IDS]) + " and 3 more"


def test_an_error_names_a_long_id_cut_and_ten_unknown_ids_at_most(tenant: Tenant) -> None:
    # A fresh-user trial: the 404 repeated the path id up to 1,000 characters, the 422 listed
    # the unknown cited ids up to 1,000 characters.
    r = tenant.get("/v1/memories/" + "a" * 60_000)
    assert r.status_code == 404 and r.json()["code"] == "memory.not_found"
    assert (
        r.json()["detail"] == f"memory {'a' * MAX_ECHOED_ID_CHARS}... (60000 characters) not found"
    )
    ids = [f"no-such-memory-{i:05d}" for i in range(2_000)]
    r = _trace_citing(tenant, ids)
    assert r.status_code == 422 and r.json()["code"] == "reasoning.invalid_reference"
    shown = ", ".join(ids[:MAX_ECHOED_IDS])
    assert r.json()["detail"] == f"cited memories do not exist: {shown} and 1990 more"


def test_a_validation_error_gives_its_reason_as_text(tenant: Tenant) -> None:
    r = tenant.post("/v1/recall", json={"query": "x", "as_of": "yesterday"})
    assert r.status_code == 422 and r.json()["code"] == "input.invalid", r.text
    (issue,) = r.json()["detail"]
    # pydantic's ctx.error is an exception object; encoded as is it was `{}`.
    assert issue["ctx"]["error"].startswith("a time must be an ISO 8601 string with an offset")
