"""The argument types of the MCP tools: kinds, statuses, times, steps, the produced memory."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError

#: The kinds `remember` creates (the domain's `WRITABLE_KINDS`; a unit test keeps them equal).
MemoryKind = Literal["fact", "decision", "procedure", "observation"]
#: Every kind, for the `kinds` filter of recall and search (the domain's `Kind`).
AnyKind = Literal["fact", "decision", "procedure", "observation", "reasoning"]
StepKind = Literal["thought", "action", "observation", "decision", "conclusion"]
StepStatus = Literal["asserted", "hypothesis", "rejected"]
#: The doors a memory is created through (`service.origins.Origin`; a unit test keeps them equal).
OriginName = Literal["user", "ingestion", "maintenance"]
#: `auto` or one of the ingestion's `FORMATS` (a unit test keeps them equal).
IngestFormat = Literal[
    "auto",
    "swe-agent",
    "react",
    "openhands",
    "claude-code",
    "codex",
    "aider",
    "terminal",
    "adr",
    "text",
]

#: The formats `ingest` names in its description: `IngestFormat`'s, `auto` first.
INGEST_FORMATS = "auto (detects it), " + ", ".join(get_args(IngestFormat)[1:])

#: The integers Neo4j stores (signed 64-bit), as the REST schemas bound them.
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

#: What every tool's arguments model and the nested ones below are configured with: unknown
#: arguments refused and no lax coercions (`"5"` is no integer, `"true"` no boolean), as REST.
STRICT = ConfigDict(extra="forbid", strict=True)


def _json_int(value: Any) -> Any:
    # REST's `JsonInt`: JSON Schema's integer includes 7.0; a string or a boolean is no number.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    if isinstance(value, float):
        if not value.is_integer():
            raise PydanticCustomError(
                "int_from_float",
                "Input should be a valid integer, got a number with a fractional part",
            )
        return int(value)
    return value


def _int64(value: int) -> int:
    # As REST: checked after the argument's own bounds, so a narrower bound is the one named.
    if value > INT64_MAX:
        raise PydanticCustomError(
            "less_than_equal", "Input should be less than or equal to {le}", {"le": INT64_MAX}
        )
    if value < INT64_MIN:
        raise PydanticCustomError(
            "greater_than_equal", "Input should be greater than or equal to {ge}", {"ge": INT64_MIN}
        )
    return value


class _IntBounds:
    """JSON schema of `JsonInt`: JSON Schema's `minimum`/`maximum`, the 64-bit range by default."""

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        # Behind a BeforeValidator pydantic writes an argument's `Field(ge=, le=)` as raw ge/le
        # keys, which no JSON Schema reader (an MCP host) knows.
        for raw, keyword in (("ge", "minimum"), ("le", "maximum")):
            if raw in schema:
                schema[keyword] = schema.pop(raw)
        schema.setdefault("minimum", INT64_MIN)
        schema.setdefault("maximum", INT64_MAX)
        return schema


#: An integer argument: `7` or `7.0`, never `"7"` or `true`, in the signed 64-bit range (the
#: REST schemas' `JsonInt`); an argument's own `ge`/`le` narrows it, shown as minimum/maximum.
JsonInt = Annotated[int, BeforeValidator(_json_int), AfterValidator(_int64), _IntBounds()]

MemoryId = Annotated[str, Field(min_length=1, description="The memory's memory_id.")]
#: A keyed fact's subject or attribute (REST bounds them so).
KeyPart = Annotated[str | None, Field(min_length=1, max_length=512)]
Time = Annotated[
    str | None,
    Field(
        description="ISO 8601 time with an offset, e.g. 2024-05-01T00:00:00Z.",
        json_schema_extra={"format": "date-time"},
    ),
]
Reason = Annotated[str, Field(min_length=1, max_length=2000, description="Why, in a sentence.")]
Actor = Annotated[
    str | None,
    Field(max_length=200, description="Who writes (e.g. agent:ci-triage); default the key's name."),
]


class StepArg(BaseModel):
    """One reasoning step to record (`rejects` holds 0-based indexes of earlier steps)."""

    model_config = STRICT

    kind: StepKind = Field(description="thought, action, observation, decision or conclusion.")
    content: str = Field(min_length=1, description="What was thought, done or seen.")
    status: StepStatus | None = Field(
        default=None, description="hypothesis for a guess under test; default asserted."
    )
    rejects: list[JsonInt] = Field(
        default_factory=list,
        description="0-based indexes of earlier hypotheses this step rules out.",
    )
    cites: list[str] = Field(
        default_factory=list, description="memory_ids of the evidence this step relies on."
    )


class ProducedArg(BaseModel):
    """The memory a trace creates as its outcome (usually a decision)."""

    model_config = STRICT

    kind: MemoryKind = Field(default="decision", description="Usually decision.")
    content: str = Field(min_length=1, description="The decision (or fact...) itself.")
    confidence: float | None = Field(default=None, ge=0, le=1, description="In [0, 1].")
    subject: KeyPart = Field(default=None, description="Key subject (facts).")
    attribute: KeyPart = Field(default=None, description="Key attribute (facts).")
