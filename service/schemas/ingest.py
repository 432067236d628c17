"""Bodies and answers of `/v1/ingest` and `/v1/maintenance/run`."""

from __future__ import annotations

from typing import Literal

from pydantic import (
    BaseModel,
    Field,
)

from service.domain.ingestion.report import UnitStatus
from service.domain.maintenance import JOB_NAMES
from service.schemas.common import (
    Strict,
)


class IngestRequest(Strict):
    """Body of `POST /v1/ingest`."""

    format: Literal[
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
    ] = "auto"
    content: str = Field(min_length=1, description="The material itself (text or JSON as text).")
    source_name: str = Field(min_length=1, max_length=500, description="Its file name or URL.")


class IngestQuality(BaseModel):
    """The stored quality assessment of one ingested trace (or of a refused unit's trace)."""

    unit: str = Field(
        description="Key of the unit the trace was drawn from.", examples=["episode-12"]
    )
    trace_id: str | None = Field(
        description="The trace's memory_id; null when the unit was refused."
    )
    verdict: str | None = Field(description="accepted, poor or rejected.", examples=["poor"])
    score: float | None = Field(description="Quality score in [0, 1].", examples=[0.62])
    issues: list[str] = Field(description="Issue codes.", examples=[["repetitive"]])


class IngestChunks(BaseModel):
    """How many units came through, failed, or were refused by the quality gate."""

    ok: int
    failed: int
    refused: int = 0


class IngestUnitReport(BaseModel):
    """What became of one unit (trajectory, episode, ADR or text chunk)."""

    key: str = Field(
        description="Stable key of the unit within its source.", examples=["episode-12"]
    )
    title: str = Field(description="Short human label.")
    status: UnitStatus = Field(description="ok, failed (see error) or refused (quality gate).")
    error: str | None = Field(default=None, description="Why the unit failed or was refused.")
    trace_id: str | None = Field(default=None, description="The trace drawn from the unit, if any.")
    memory_ids: list[str] = Field(
        description="Observations and produced memories drawn from the unit."
    )
    steps: int = Field(default=0, description="Steps of the unit's trace (0 without a trace).")
    observations: int = Field(default=0, description="Observations drawn from the unit.")
    trimmed: int = Field(
        default=0, description="Texts of the unit cut to their limit (tool outputs, long steps)."
    )
    verdict: str | None = Field(default=None, description="The trace's quality verdict.")
    warnings: list[str] = Field(
        default_factory=list,
        description="Warning codes, e.g. session.unanswered_request, adr.unplaced_section.",
    )


class IngestDetection(BaseModel):
    """How the format was decided: the structural signals seen (or `declared`)."""

    format: str
    signals: list[str]


class IngestWarning(BaseModel):
    """A warning of the ingest: its stable code, what it names, the unit (None: the document)."""

    code: str = Field(examples=["ingest.fallback_to_text", "jsonl.lines_skipped"])
    detail: str | None = Field(
        default=None,
        description="What the warning names, when it names something (lines, a file, a date); "
        "a unit's own `warnings` list holds `<code>: <detail>`.",
        examples=["line 11 is not a valid JSON object and was skipped (1 of 386 lines)"],
    )
    unit: str | None = None


class IngestAmendment(BaseModel):
    """An ADR decision linked by `AMENDS` (builds on / amends) to an older one; nothing closed."""

    memory_id: str = Field(description="The newer decision.")
    amends_memory_id: str = Field(description="The older decision, still valid.")
    unit: str = Field(description="The unit whose ingestion made the link.")


class IngestSupersession(BaseModel):
    """An ADR decision that superseded another one during this ingest."""

    memory_id: str = Field(description="The newer decision.")
    supersedes_memory_id: str = Field(description="The older decision, now closed in valid time.")
    unit: str = Field(description="The unit whose ingestion made the link.")


class IngestReport(BaseModel):
    """The answer to `POST /v1/ingest`: everything drawn out of the material, unit by unit."""

    source_id: str = Field(description="uid of the `:Source` node.")
    source_name: str
    format: str = Field(
        description="The format the material was parsed as.", examples=["swe-agent"]
    )
    sha256: str
    size_bytes: int
    new: bool = Field(
        description="False when the same content was ingested before in this namespace."
    )
    status: Literal["complete", "partial"] = Field(
        description="partial while some unit has failed; re-ingest retries those."
    )
    created: dict[str, int] = Field(
        description="Memories this call created, per kind.",
        examples=[{"observation": 5, "reasoning": 1, "decision": 1}],
    )
    memory_ids: list[str] = Field(
        description="Non-trace memories drawn from the source, each once."
    )
    trace_ids: list[str] = Field(description="Traces drawn from the source.")
    quality: list[IngestQuality]
    chunks: IngestChunks
    units: list[IngestUnitReport]
    supersedes: list[IngestSupersession] = Field(default_factory=list)
    amends: list[IngestAmendment] = Field(default_factory=list)
    detection: IngestDetection | None = Field(
        default=None, description="The format and the signals that decided it."
    )
    redacted: dict[str, int] = Field(
        default_factory=dict,
        description="Secrets replaced before anything was stored, per kind.",
        examples=[{"api_key": 1}],
    )
    redacted_total: int = 0
    trimmed_total: int = Field(default=0, description="Texts cut to their limits, all units.")
    warnings: list[IngestWarning] = Field(default_factory=list)
    elapsed_s: float = Field(description="Wall time of this call, in seconds.")


class MaintenanceRequest(Strict):
    """Body of `POST /v1/maintenance/run`."""

    job: str = Field(
        description="The job to run: " + ", ".join(JOB_NAMES) + ".",
        examples=["evidence-drift"],
    )


class MaintenanceReport(BaseModel):
    """What one run of one maintenance job did (`POST /v1/maintenance/run`)."""

    job: str = Field(description="The job's name.", examples=["evidence-drift"])
    examined: int = Field(
        description="Memories looked at: decisions (evidence-drift) or current facts."
    )
    changed: int = Field(
        description="Writes made: new decision versions, or new proposal traces; 0 on a repeat."
    )
    memory_ids: list[str] = Field(description="The memories those writes concern, sorted.")
    trace_ids: list[str] = Field(
        description="The maintenance traces recorded (origin `maintenance`)."
    )
