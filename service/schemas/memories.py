"""Bodies and answers of `/v1/memories`: create, update, invalidate, retract, versions."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import (
    BaseModel,
    Field,
    model_validator,
)

from service.json_types import JsonInt
from service.schemas.common import (
    ActorRef,
    DecisionStatus,
    JsonObject,
    MemoryKind,
    Strict,
    UtcDatetime,
)


class MemoryCreate(Strict):
    """Body of `POST /v1/memories`."""

    kind: MemoryKind = Field(description="What sort of memory.", examples=["fact"])
    content: str = Field(
        min_length=1,
        description="The text, stored as given after NFC.",
        examples=["Alice lives in District 2"],
    )
    subject: str | None = Field(
        default=None,
        min_length=1,
        max_length=512,
        description="Key subject (facts).",
        examples=["alice"],
    )
    attribute: str | None = Field(
        default=None,
        min_length=1,
        max_length=512,
        description="Key attribute (facts).",
        examples=["home_district"],
    )
    confidence: float | None = Field(
        default=None, ge=0, le=1, strict=True, description="Confidence in [0, 1].", examples=[0.9]
    )
    status: DecisionStatus | None = Field(
        default=None, description="Decision status; default active."
    )
    trigger: str | None = Field(
        default=None, max_length=2000, description="When a procedure applies."
    )
    valid_from: UtcDatetime | None = Field(
        default=None, description="When it became true; default now."
    )
    valid_to: UtcDatetime | None = Field(default=None, description="When it stopped being true.")
    actor: str | None = Field(
        default=None, max_length=200, description="Who writes; default the API key's name."
    )
    metadata: JsonObject | None = Field(default=None, description="Free JSON metadata.")
    episode: str | None = Field(
        default=None,
        min_length=1,
        max_length=512,
        description="The conversation, session or document the memory came from.",
        examples=["session-2024-05-08"],
    )
    position: Annotated[JsonInt, Field(ge=0)] | None = Field(
        default=None,
        description="Its 0-based place in `episode`; the memory at position - 1 (in the "
        "store or, in a batch, an item of the same batch) is indexed with it as context for "
        "lexical search, once even when also sent as `context`.",
        examples=[3],
    )
    context: str | None = Field(
        default=None,
        min_length=1,
        max_length=2000,
        description="Its immediate context in the material (e.g. the section it sits in), "
        "indexed with it for lexical search; never part of `content`.",
    )


class MemoryUpdate(Strict):
    """Body of `PATCH /v1/memories/{memory_id}` (send `If-Match: <version>`)."""

    content: str | None = Field(default=None, min_length=1, description="New text.")
    confidence: float | None = Field(
        default=None, ge=0, le=1, strict=True, description="New confidence."
    )
    status: DecisionStatus | None = Field(default=None, description="New decision status.")
    trigger: str | None = Field(default=None, max_length=2000, description="New trigger.")
    metadata: JsonObject | None = Field(default=None, description="Replaces the metadata.")
    valid_from: UtcDatetime | None = Field(default=None, description="New start of valid time.")
    valid_to: UtcDatetime | None = Field(default=None, description="New end of valid time.")
    actor: str | None = Field(default=None, max_length=200, description="Who writes.")

    @model_validator(mode="after")
    def _no_null_for_required(self) -> MemoryUpdate:
        for name in ("content", "valid_from", "status"):
            if name in self.model_fields_set and getattr(self, name) is None:
                raise ValueError(f"{name} cannot be null (omit it to keep the current value)")
        return self


class InvalidateRequest(Strict):
    """Body of `POST .../invalidate`: it stopped being true at `valid_to` (default now)."""

    valid_to: UtcDatetime | None = Field(default=None, description="When it stopped being true.")
    reason: str = Field(min_length=1, max_length=2000, description="Why.")
    actor: str | None = Field(default=None, max_length=200, description="Who writes.")


class ReasonRequest(Strict):
    """Body of `POST .../retract` and `POST .../challenge`."""

    reason: str = Field(min_length=1, max_length=2000, description="Why.")
    actor: str | None = Field(default=None, max_length=200, description="Who writes.")


class MemoryPublic(BaseModel):
    """One version of a memory."""

    memory_id: str
    uid: str
    version: int
    kind: str
    content: str
    valid_from: datetime
    valid_to: datetime | None = None
    system_from: datetime
    system_to: datetime | None = None
    created_by: ActorRef
    last_modified_by: ActorRef
    subject: str | None = None
    attribute: str | None = None
    confidence: float | None = None
    status: str | None = None
    trigger: str | None = None
    metadata: JsonObject | None = None
    episode: str | None = None
    position: int | None = None
    change_reason: str | None = Field(
        default=None,
        description=(
            "Why this version was written: `update`, `challenged: <reason>`, `invalidated: "
            "<reason>`, `keyed value replaced`, ...; null for a first version."
        ),
    )
    retracted_reason: str | None = Field(
        default=None,
        description="The reason given when this version was retracted (or corrected); null unless it was.",
    )


class MemoryCreated(MemoryPublic):
    """The answer to `POST /v1/memories`."""

    created: bool = Field(
        description="False when an equal current memory existed (nothing was written)."
    )


class MemoriesPublic(BaseModel):
    """A list of memories."""

    items: list[MemoryPublic]
    count: int


class MemoryBatchCreate(Strict):
    """Body of `POST /v1/memories/batch`: memories created in one transaction, all or nothing."""

    items: list[MemoryCreate] = Field(
        min_length=1,
        description=(
            "The memories, each as for `POST /v1/memories`; at most RATIONALE_MAX_BATCH_ITEMS "
            "(default 1000, 413 above)."
        ),
    )


class MemoryBatchItem(BaseModel):
    """One item's result, in request order."""

    index: int = Field(description="Position of the item in the request, from 0.")
    created: bool = Field(
        description="False when an equal current memory existed, stored before or earlier in the batch."
    )
    memory: MemoryPublic


class MemoryBatchCreated(BaseModel):
    """The answer to `POST /v1/memories/batch`."""

    items: list[MemoryBatchItem]
    count: int
