"""The ingest report: what became of each unit, and the answer of one ingest call."""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from service.domain.ingestion.formats import ParsedDocument
from service.domain.models import IngestUnit
from service.errors import RationaleError
from service.graph.repository import Row

log = logging.getLogger(__name__)

UnitStatus = Literal["ok", "failed", "refused"]


@dataclass
class UnitOutcome:
    """What became of one unit (a line of the report)."""

    key: str
    title: str
    status: UnitStatus
    error: str | None = None
    trace_id: str | None = None
    memory_ids: list[str] = field(default_factory=list)
    quality: dict[str, Any] | None = None
    created: Counter[str] = field(default_factory=Counter)
    supersedes: list[dict[str, str]] = field(default_factory=list)
    amends: list[dict[str, str]] = field(default_factory=list)
    #: Warnings of the write, after the parser's (e.g. `ingest.outcome_in_future: ...`).
    warnings: list[str] = field(default_factory=list)
    #: A failed unit's stable error code (`graph.unavailable`, ...); not in the report.
    code: str | None = None

    def public(self, unit: IngestUnit | None = None) -> dict[str, Any]:
        """Return the report's unit shape.

        Args:
            unit: the parsed unit, for what the parser did (steps, trimmed, warnings).

        Returns:
            `{key, title, status, error, trace_id, memory_ids, steps, observations, trimmed,
            verdict, warnings[code]}`; `steps` is the trace's step count (0 without a trace),
            `trimmed` how many texts were cut to their limit, `verdict` the quality verdict,
            `warnings` the parser's then the write's.
        """
        extra = unit.extra if unit is not None else {}
        return {
            "key": self.key,
            "title": self.title,
            "status": self.status,
            "error": self.error,
            "trace_id": self.trace_id,
            "memory_ids": self.memory_ids,
            "steps": len(unit.trace.steps) if unit is not None and unit.trace is not None else 0,
            "observations": len(unit.observations) if unit is not None else 0,
            "trimmed": int(extra.get("trimmed") or 0) + int(extra.get("dropped_steps") or 0),
            "verdict": (self.quality or {}).get("verdict"),
            "warnings": [*(extra.get("warnings") or []), *self.warnings],
        }


def printable(text: str) -> str:
    """Return `text` safe to serialise (lone surrogates replaced)."""
    return text.encode("utf-8", "replace").decode("utf-8")


def quality_entry(unit: str, trace_id: str | None, quality: Mapping[str, Any]) -> dict[str, Any]:
    """Return the report's quality line `{unit, trace_id, verdict, score, issues[code]}`."""
    issues = quality.get("issues") or []
    return {
        "unit": unit,
        "trace_id": trace_id,
        "verdict": quality.get("verdict"),
        "score": quality.get("score"),
        "issues": [i["code"] if isinstance(i, Mapping) else str(i) for i in issues],
    }


def failed_outcome(unit: IngestUnit, exc: RationaleError, *, tried: bool = True) -> UnitOutcome:
    """Return the outcome of a unit that failed with a domain error (logged when it was tried).

    A unit not tried (`tried=False`: the attempt stopped before it) says so in its error.
    """
    if tried:
        log.warning("ingest: unit %s failed (%s): %s", unit.key, exc.code, exc.message)
    reason = exc.message if tried else f"not attempted: {exc.message}"
    return UnitOutcome(
        key=unit.key,
        title=printable(unit.title),
        status="failed",
        error=printable(f"{exc.code}: {reason}"),
        code=exc.code,
    )


def report_warning(warning: str, unit: str | None) -> dict[str, str | None]:
    """Return a warning of the report: `{code, detail, unit}` from `<code>` or `<code>: <detail>`.

    Args:
        warning: as a parser or a write states it (`jsonl.lines_skipped: line 11 ...`).
        unit: the unit's key, or None for the document.
    """
    code, _, detail = warning.partition(": ")
    return {"code": code, "detail": detail or None, "unit": unit}


def build_report(
    source: Row,
    parsed: ParsedDocument,
    units: Sequence[IngestUnit],
    sha256: str,
    size_bytes: int,
    source_name: str,
    new: bool,
    status: str,
    outcomes: Sequence[UnitOutcome],
    started: float,
) -> dict[str, Any]:
    """Return the answer of one ingest call (the shape documented on `IngestionService.ingest`).

    Args:
        source: the `:Source` row (``uid``, ``name``).
        parsed: the parsed document: format, detection signals, redactions, warnings.
        units: its units (unique keys), in order; outcomes are matched to them by key.
        sha256: hex SHA-256 of the content's UTF-8 bytes.
        size_bytes: the content's size in UTF-8 bytes.
        source_name: the name handed in (used when the source has none).
        new: True when this call created the source.
        status: the source's status after the call (`complete` or `partial`).
        outcomes: one outcome per unit, in unit order.
        started: `time.monotonic()` at the start of the call.

    Returns:
        The report dict, with `elapsed_s` in seconds. Beside the counts: `detection {format,
        signals[]}` (why the format was chosen), `redacted {kind: n}` and `redacted_total`,
        `trimmed_total` (texts cut to their limits), `warnings[{code, detail, unit}]` (document-level
        ones such as ``ingest.fallback_to_text`` have unit None; one that names lines is
        ``"<code>: <detail>"``, e.g. ``jsonl.lines_skipped: line 11 ...``), and per unit its
        steps, trimmed count, verdict and warnings (`UnitOutcome.public`).
    """
    by_key = {u.key: u for u in units}
    created: Counter[str] = Counter()
    memory_ids: list[str] = []
    trace_ids: list[str] = []
    quality: list[dict[str, Any]] = []
    supersedes: list[dict[str, str]] = []
    amends: list[dict[str, str]] = []
    for o in outcomes:
        amends.extend(o.amends)
        created.update(o.created)
        memory_ids.extend(o.memory_ids)
        if o.trace_id is not None and o.trace_id not in trace_ids:  # equal units: one trace
            trace_ids.append(o.trace_id)
        if o.quality is not None:
            quality.append(quality_entry(o.key, o.trace_id, o.quality))
        supersedes.extend(o.supersedes)
    statuses = Counter(o.status for o in outcomes)
    unit_lines = [o.public(by_key.get(o.key)) for o in outcomes]
    warnings = [report_warning(w, None) for w in parsed.warnings]
    warnings += [report_warning(w, line["key"]) for line in unit_lines for w in line["warnings"]]
    return {
        "source_id": source["uid"],
        "source_name": source.get("name") or source_name,
        "format": parsed.format,
        "detection": {"format": parsed.format, "signals": list(parsed.signals)},
        "redacted": dict(sorted(parsed.redacted.items())),
        "redacted_total": sum(parsed.redacted.values()),
        "sha256": sha256,
        "size_bytes": size_bytes,
        "new": new,
        "status": status,
        "created": {str(k): v for k, v in sorted(created.items())},
        "memory_ids": list(dict.fromkeys(memory_ids)),
        "trace_ids": trace_ids,
        "quality": quality,
        "chunks": {
            "ok": statuses["ok"],
            "failed": statuses["failed"],
            "refused": statuses["refused"],
        },
        "units": unit_lines,
        "trimmed_total": sum(line["trimmed"] for line in unit_lines),
        "warnings": warnings,
        "supersedes": supersedes,
        "amends": amends,
        "elapsed_s": round(time.monotonic() - started, 3),
    }
