"""The service's stable error codes arrive as the client's exception classes (real service)."""

from __future__ import annotations

import pytest
from rationale_client import (
    APIError,
    AuthError,
    Client,
    ForbiddenError,
    InvalidFormatError,
    InvalidInputError,
    InvalidReferenceError,
    MemoryCreate,
    MemoryNotFoundError,
    NotFoundError,
    RationaleError,
    ReasoningRejectedError,
    Retrieval,
    RetryPolicy,
    StepIn,
    TooLargeError,
    TraceCreate,
    TraceNotFoundError,
    TransportError,
)
from rationale_client._core import Call

from bench.service_process import free_port
from tests.client.conftest import Service
from tests.client.helpers import observation, unique


def test_unknown_key_is_auth_error(service: Service) -> None:
    with Client(service.base_url, api_key="no-such-key") as bad, pytest.raises(AuthError) as err:
        bad.diagnostics()
    assert (err.value.status, err.value.code) == (401, "auth.invalid_key")
    assert err.value.headers["WWW-Authenticate"] == "Bearer"
    with Client(service.base_url, api_key="") as none, pytest.raises(AuthError):
        none.recall("anything")


def test_read_only_key_is_forbidden_to_write(reader: Client) -> None:
    with pytest.raises(ForbiddenError) as err:
        reader.memories.create(MemoryCreate(kind="observation", content=unique("read-only")))
    assert (err.value.status, err.value.code) == (403, "auth.forbidden")
    with pytest.raises(ForbiddenError):
        reader.maintenance.run("evidence-drift")
    with pytest.raises(ForbiddenError):
        reader.ingest("some notes", source_name="n.txt")
    assert reader.health().status == "ok"


def test_not_found(client: Client) -> None:
    with pytest.raises(MemoryNotFoundError) as err:
        client.memories.get("00000000-0000-0000-0000-000000000000")
    assert (err.value.status, err.value.code) == (404, "memory.not_found")
    assert isinstance(err.value, NotFoundError) and isinstance(err.value, APIError)
    with pytest.raises(TraceNotFoundError) as trace_err:
        client.reasoning.get("no-such-trace")
    assert trace_err.value.code == "reasoning.not_found"
    with pytest.raises(MemoryNotFoundError):
        client.memories.retract("a b?c#d", reason="escaped path segments reach the route")


def test_rejected_trace_carries_quality(client: Client) -> None:
    ev = observation(client, unique("the service returned 500 errors after the deploy at 10:02"))
    body = TraceCreate(
        task="why 500s?",
        steps=[
            StepIn(kind="observation", content="500 errors after the deploy", cites=[ev.memory_id]),
            StepIn(kind="thought", content="looking at the deploy diff next"),
        ],
    )
    with pytest.raises(ReasoningRejectedError) as err:
        client.reasoning.record(body)
    assert (err.value.status, err.value.code) == (422, "reasoning.rejected")
    assert isinstance(err.value, InvalidInputError)
    quality = err.value.quality
    assert quality.verdict == "rejected" and 0 <= quality.score < 1
    assert "missing_conclusion" in [i.code for i in quality.issues]


def test_missing_citation_names_what_is_missing(client: Client) -> None:
    body = TraceCreate(
        task="t",
        steps=[
            StepIn(kind="observation", content="the disk is full", cites=["no-such-memory"]),
            StepIn(kind="conclusion", content="free some space on the disk"),
        ],
    )
    with pytest.raises(InvalidReferenceError) as err:
        client.reasoning.record(body)
    assert err.value.code == "reasoning.invalid_reference"
    assert err.value.missing == ["no-such-memory"]


def test_invalid_input(client: Client) -> None:
    with pytest.raises(InvalidInputError) as err:
        client.maintenance.run("no-such-job")
    assert (err.value.status, err.value.code) == (422, "input.invalid")
    assert "evidence-drift" in err.value.body["known_jobs"]
    # a body the client's own models would refuse, sent raw: FastAPI's detail list comes back
    with pytest.raises(InvalidInputError) as raw:
        client.send(Call("POST", "/v1/recall", Retrieval, {"query": "x", "limit": 0}))
    assert raw.value.code == "input.invalid" and isinstance(raw.value.detail, list)
    assert raw.value.detail[0]["loc"] == ["body", "limit"]
    # ... and the exception's message is that list in words, not a repr of dicts
    assert str(raw.value).startswith("422 input.invalid: limit: "), str(raw.value)
    assert "{" not in str(raw.value)


def test_invalid_format(client: Client) -> None:
    with pytest.raises(InvalidFormatError) as err:
        client.ingest("this is not JSON", source_name="run.traj", format="swe-agent")
    assert (err.value.status, err.value.code) == (422, "input.invalid_format")


def test_too_large(client: Client) -> None:
    with pytest.raises(TooLargeError) as err:
        client.memories.create(MemoryCreate(kind="observation", content="x" * 40_000))
    assert (err.value.status, err.value.code) == (413, "input.too_large")


def test_unreachable_service_is_transport_error() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    with (
        Client(url, api_key="k", retry=RetryPolicy(attempts=2, backoff_s=0.0)) as dead,
        pytest.raises(TransportError) as err,
    ):
        dead.health()
    assert isinstance(err.value, RationaleError) and err.value.__cause__ is not None
