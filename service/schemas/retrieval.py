"""Bodies and answers of `/v1/recall` and `/v1/search`."""

from __future__ import annotations

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
)

from service.domain.models import Kind
from service.json_types import JsonInt
from service.origins import Origin
from service.schemas.common import (
    Strict,
    UtcDatetime,
)


class RecallRequest(Strict):
    """Body of `POST /v1/recall`."""

    query: str = Field(min_length=1, description="What the agent needs context for.")
    limit: JsonInt = Field(default=10, ge=1, le=100, description="Max items returned, 1..100.")
    kinds: list[Kind] | None = Field(
        default=None, min_length=1, description="Only these kinds (at least one); omit for all."
    )
    as_of: UtcDatetime | None = Field(default=None, description="Valid time; default now.")
    known_at: UtcDatetime | None = Field(default=None, description="System time; default now.")
    explain: bool = Field(
        default=False,
        strict=True,
        description="Each item says why it matched: lexical and vector scores (raw, normalised, "
        "contribution), what episode neighbours added, the query terms it holds.",
    )


class SearchRequest(RecallRequest):
    """Body of `POST /v1/search`."""

    origins: list[Origin] | None = Field(
        default=None,
        min_length=1,
        description="Only memories created through these doors (at least one): user, "
        "ingestion or maintenance; omit for all.",
    )
    include_superseded: bool = Field(
        default=False, strict=True, description="Also return closed versions."
    )


class RetrievalItem(BaseModel):
    """One recall or search hit: a memory or a whole trace, with score and lineage path."""

    model_config = ConfigDict(extra="allow")

    memory_id: str
    kind: str
    score: float
    has_reasoning: bool
    lineage: str | None = None
    duplicates: dict[str, Any] | None = Field(
        default=None,
        description="Near-duplicates collapsed into this item: {count, memory_ids}.",
    )
    reasoning: dict[str, Any] | None = Field(
        default=None,
        description="The trace that produced this memory and ranked with it (not repeated as "
        "an item): {trace_id, version, score, task, quality_verdict}.",
    )
    produced_items: list[dict[str, Any]] | None = Field(
        default=None,
        description="For a trace: what it produced that ranked below it (not repeated as "
        "items): [{memory_id, kind, version, score}].",
    )
    in_force: bool | None = Field(
        default=None,
        description="For a trace that produced something (in a read of current versions): "
        "whether any of it still holds at `as_of`; false when all of it was superseded, "
        "invalidated or retracted (such a trace ranks lower). Absent otherwise.",
    )
    explain: dict[str, Any] | None = Field(
        default=None, description="Why it matched (when `explain` was asked)."
    )


class RetrievalPublic(BaseModel):
    """Ranked hits."""

    items: list[RetrievalItem]
    count: int
