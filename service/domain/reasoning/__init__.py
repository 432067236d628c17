"""Reasoning traces: drafts, the gated record, reads (trace, lineage, challenge, dependents)."""

from service.domain.reasoning.drafts import (
    MAX_TRACE_CONTENT_CHARS,
    clean_draft,
    draft_from_body,
    embedding_texts,
    trace_content,
)
from service.domain.reasoning.public import (
    Challenge,
    Dependent,
    Lineage,
    Revisit,
    Trace,
    trace_public,
)
from service.domain.reasoning.read import TraceReader, read_traces
from service.domain.reasoning.record import ReasoningService, RecordedTrace

__all__ = [
    "MAX_TRACE_CONTENT_CHARS",
    "Challenge",
    "Dependent",
    "Lineage",
    "ReasoningService",
    "RecordedTrace",
    "Revisit",
    "Trace",
    "TraceReader",
    "clean_draft",
    "draft_from_body",
    "embedding_texts",
    "read_traces",
    "trace_content",
    "trace_public",
]
