"""Request fields take their values from the domain enums; the namespace rule has one home."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from service.domain.models import WRITABLE_KINDS, Kind, StepKind, StepStatus
from service.keys import ApiKey
from service.namespaces import is_namespace
from service.schemas import MemoryCreate, ProducedIn, RecallRequest, StepIn, TracePublic


def _enum(schema: dict[str, Any], field: str) -> list[str]:
    node = schema["properties"][field]
    node = next((n for n in node.get("anyOf", [node]) if n.get("type") != "null"), node)
    if "items" in node:
        node = node["items"]
    if "$ref" in node:
        node = schema["$defs"][node["$ref"].split("/")[-1]]
    return list(node.get("enum") or [node["const"]])


def test_json_schema_enums_are_the_domain_enums() -> None:
    assert _enum(MemoryCreate.model_json_schema(), "kind") == [k.value for k in WRITABLE_KINDS]
    assert _enum(ProducedIn.model_json_schema(), "kind") == [k.value for k in WRITABLE_KINDS]
    assert _enum(RecallRequest.model_json_schema(), "kinds") == [k.value for k in Kind]
    assert _enum(StepIn.model_json_schema(), "kind") == [k.value for k in StepKind]
    assert _enum(StepIn.model_json_schema(), "status") == [s.value for s in StepStatus]
    assert _enum(TracePublic.model_json_schema(), "kind") == [Kind.REASONING.value]


def test_request_enums_validate_to_plain_values() -> None:
    body = MemoryCreate(kind="fact", content="x")
    assert type(body.kind) is str and body.kind == "fact"
    step = StepIn(kind="thought", content="x", status="hypothesis")
    assert type(step.kind) is str and step.status == StepStatus.HYPOTHESIS


def test_a_trace_is_not_a_writable_kind() -> None:
    for kind in ("reasoning", "bogus", 1):
        with pytest.raises(ValidationError) as info:
            MemoryCreate(kind=kind, content="x")
        error = info.value.errors()[0]
        assert error["type"] == "literal_error"
        assert error["msg"] == "Input should be 'fact', 'decision', 'procedure' or 'observation'"


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("default", True),
        ("a" * 64, True),
        ("a-b_C9", True),
        ("", False),
        ("a" * 65, False),
        ("a b", False),
        ("ü", False),
        ("a\n", False),
    ],
)
def test_one_namespace_rule(value: str, ok: bool) -> None:
    assert is_namespace(value) is ok
    if ok:
        ApiKey(namespace=value)
    else:
        with pytest.raises(ValidationError):
            ApiKey(namespace=value)
