"""Units between parsing and writing: unique keys, validation, embedding windows."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass, replace
from typing import Any

from service.domain.ingestion.formats import adr_key
from service.domain.ingestion.report import UnitOutcome
from service.domain.models import IngestUnit, Kind, TraceDraft
from service.domain.reasoning import ReasoningService
from service.domain.text import clean_text

log = logging.getLogger(__name__)

#: Texts embedded per model call: units are embedded in windows of about this many texts
#: (deduplicated, so padding and repeated observations cost less), each unit still written in
#: its own transaction after its window was embedded.
EMBED_WINDOW_TEXTS = 512


@dataclass(frozen=True)
class CleanedUnit:
    """A unit's validated texts: observations, trace draft, texts to embed (in order), ADR names."""

    observations: list[str]
    draft: TraceDraft | None
    texts: list[str]
    adr: dict[str, Any] | None


@dataclass(frozen=True)
class StagedWindow:
    """A window of units: those that failed validation, the cleaned ones, and their embeddings to come."""

    failed: list[tuple[int, UnitOutcome]]
    cleaned: list[tuple[int, IngestUnit, CleanedUnit]]
    texts: list[str]
    vectors: Future[list[list[float]]]


@dataclass(frozen=True)
class PreparedUnit:
    """A unit validated and embedded, ready for its transaction."""

    observations: list[dict[str, Any]]
    draft: TraceDraft | None
    trace_vectors: list[list[float]]
    adr: dict[str, Any] | None


def windows(pending: Sequence[tuple[int, IngestUnit]]) -> list[list[tuple[int, IngestUnit]]]:
    """Group pending units so that each group has about `EMBED_WINDOW_TEXTS` texts to embed.

    Args:
        pending: `(position in the document, unit)` pairs, in order.

    Returns:
        The pairs cut into consecutive windows (a unit counts its observations plus 2 texts
        for a trace).
    """
    out: list[list[tuple[int, IngestUnit]]] = []
    current: list[tuple[int, IngestUnit]] = []
    size = 0
    for item in pending:
        current.append(item)
        size += len(item[1].observations) + (2 if item[1].trace is not None else 0)
        if size >= EMBED_WINDOW_TEXTS:
            out.append(current)
            current, size = [], 0
    if current:
        out.append(current)
    return out


def unique_keys(units: Sequence[IngestUnit]) -> list[IngestUnit]:
    """Return the units with unique keys (a repeated key gets `~<n>`; units are tracked by key).

    Args:
        units: the parser's units, in order.

    Returns:
        The same units, the second and later of a repeated key renamed `<key>~<n>`.
    """
    seen: Counter[str] = Counter()
    out: list[IngestUnit] = []
    for unit in units:
        seen[unit.key] += 1
        if seen[unit.key] > 1:
            log.warning(
                "ingest: the parser gave unit key %r twice; using %r~%d",
                unit.key,
                unit.key,
                seen[unit.key],
            )
            unit = replace(unit, key=f"{unit.key}~{seen[unit.key]}")
        out.append(unit)
    return out


def clean_unit(
    unit: IngestUnit, reasoning: ReasoningService, max_content_chars: int
) -> CleanedUnit:
    """Validate a unit's texts and list those to embed: observations, then the trace's.

    An ADR decision (format `adr`, or a unit with supersession links, and a name) also gets
    its normalised name (the parser's ``extra["adr_key"]``, else the `adr_key` of the unit's
    name) and links (`adr_key` values), its own status text and how it says it ended
    (`lifecycle`: superseded, deprecated, rejected or None).

    Args:
        unit: a parsed unit.
        reasoning: the trace store (`clean_draft`, `embedding_texts`).
        max_content_chars: the longest memory content allowed, in characters.

    Returns:
        The cleaned unit.

    Raises:
        InvalidInputError, TooLargeError: invalid text, too many steps, bad step shape.
    """
    observations = [
        clean_text(text, field=f"{unit.key}: observations[{i}]", max_chars=max_content_chars)
        for i, text in enumerate(unit.observations)
    ]
    draft = reasoning.clean_draft(unit.trace) if unit.trace is not None else None
    texts = observations + (reasoning.embedding_texts(draft) if draft else [])
    adr = None
    if draft is not None and draft.produced is not None and draft.produced.kind == Kind.DECISION:
        is_adr = unit.extra.get("format") == "adr" or unit.supersedes or unit.superseded_by
        if is_adr and unit.name:
            name = str(unit.extra.get("adr_key") or adr_key(unit.name))
            adr = {
                "name": name,
                # A slug file numbered in its title answers to both ("ADR-7", "use-postgres").
                "aliases": list(dict.fromkeys([name, adr_key(unit.name)])),
                "supersedes": list(dict.fromkeys(unit.supersedes)),
                "superseded_by": list(dict.fromkeys(unit.superseded_by)),
                "amends": list(dict.fromkeys(unit.extra.get("amends") or [])),
                "amended_by": list(dict.fromkeys(unit.extra.get("amended_by") or [])),
                "status": str(unit.extra.get("status") or ""),
                "status_history": [str(h) for h in unit.extra.get("status_history") or []],
                "lifecycle": unit.extra.get("lifecycle"),
            }
    return CleanedUnit(observations, draft, texts, adr)
