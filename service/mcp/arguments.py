"""The argument types of the MCP tools: kinds, statuses, times, steps, the produced memory."""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
)

from service.json_types import JsonInt

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

#: What every tool's arguments model and the nested ones below are configured with: unknown
#: arguments refused and no lax coercions (`"5"` is no integer, `"true"` no boolean), as REST;
#: and, as REST's `Strict`, no NaN or infinity (the JSON parser reads them): "Input should be a
#: finite number", where a bound would say "less than or equal to 1".
STRICT = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


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
    valid_from: Time = Field(
        default=None,
        description="When it became true, if before now (ISO 8601 with an offset, e.g. "
        "2024-05-01T00:00:00Z): a decision taken or a fact holding since then. Default now; "
        "not in the future.",
    )
