"""`IngestionService`: one document in, its units written one transaction each, a report out."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any, Literal, Protocol

from service.domain.ingestion.formats import FormatError, ParsedDocument, parse_document
from service.domain.ingestion.formats.redact import redact
from service.domain.ingestion.report import UnitOutcome, build_report, failed_outcome, printable
from service.domain.ingestion.source import (
    create_source,
    finish_source,
    finish_stopped,
    recorded_units,
    refused_units,
    text_sha256,
)
from service.domain.ingestion.units import (
    CleanedUnit,
    StagedWindow,
    clean_unit,
    unique_keys,
)
from service.domain.ingestion.units import windows as unit_windows
from service.domain.ingestion.writing import UnitWriter
from service.domain.memories import MemoryService, Writer
from service.domain.models import IngestUnit
from service.domain.reasoning import ReasoningService
from service.domain.text import clean_text
from service.errors import GraphUnavailableError, RationaleError, TooLargeError, UnsupportedFormat
from service.graph.query_names import QueryName
from service.graph.repository import Graph, Row
from service.origins import Origin

#: Called after parsing with `(0, units)` and after each unit with `(units done, units)`.
Progress = Callable[[int, int], None]

log = logging.getLogger(__name__)


class IngestSettings(Protocol):
    """The settings ingestion reads at call time (a `Settings` satisfies it)."""

    max_ingest_bytes: int
    ingestion_quality_policy: Literal["annotate", "refuse"]


class IngestionService:
    """Draws memories and reasoning out of handed-in material (`POST /v1/ingest`, CLI ingest).

    How a document becomes memories
        1. Refused up front: content over `settings.max_ingest_bytes` UTF-8 bytes (`TooLargeError`,
           413) — checked before anything is parsed.
        2. The document is identified by the SHA-256 of its UTF-8 bytes within the namespace (the
           bytes as handed in, a leading byte-order mark included: the parsers drop it), or by
           the SHA-256 of its text form (`text_sha256`: line endings, a byte-order mark and
           trailing white space aside), so a copy re-saved on another system under another
           name is the source it was. A `:Source {uid, namespace, name, format, sha256,
           text_sha256, size_bytes, status, ...}` is created on first sight with
           `status = in_progress`.
        3. The parsers (`service.domain.ingestion.formats`) cut it into units (a trajectory, an episode, an
           ADR, a text chunk); malformed or unknown material is refused with `UnsupportedFormat`
           (422 `input.invalid_format`) naming the problem, and nothing is written.
        4. Each unit is **one write transaction**: its observations (`kind observation`,
           `valid_from` = the unit's time if the material gives one), then its trace via
           `ReasoningService.record_in` (steps citing ``obs:<i>`` resolved to those observations,
           the produced memory, `PRODUCED`), then `EXTRACTED_FROM` from every memory drawn from
           the unit to the source (one edge per memory and source; `r.units` lists the unit keys).
           Embeddings are computed before the transaction opens, in one model call per window of
           units (`EMBED_WINDOW_TEXTS` texts, deduplicated) — per-unit calls were 2-3x slower on
           CPU because of padding and repeated observations — and the next window is embedded in
           a worker thread while the current one is written.
        5. Every write has origin `ingestion` — set here, by the door, never by the payload.
        6. Secrets-looking strings (API keys, tokens, private key blocks, ``password=...``) are
           redacted from the content and the source name before parsing (`parse_document`), so
           none is ever stored; the report counts them (`redacted`).

    Quality
        Ingested traces are assessed like any other and stored with their assessment. With
        `ingestion_quality_policy = annotate` (default) nothing is refused: poor or rejected
        traces are kept and flagged by their stored `quality_verdict`. With `refuse`, a trace the
        gate rejects refuses its whole unit (status `refused`, nothing of the unit is written) and
        the report carries the assessment.

    Nothing is silently dropped
        The answer lists every unit with its status: `ok`, `failed` (a domain error: invalid
        text, too many steps, Neo4j unavailable, ...; the reason is given and logged) or
        `refused`. A failed unit rolls back alone; the units before and after it are kept.
        When Neo4j becomes unavailable the attempt stops there: the units after it fail
        untried (`graph.unavailable: not attempted: ...`, one log line for all), and a retry
        of the source writes them.

    Re-ingesting and retries
        The same content (same sha256) in the same namespace is the same source; it is parsed
        with the format stored on the source (so a different declared format cannot split it).
        Units already recorded (found by reading back the memories `EXTRACTED_FROM` the source,
        grouped by unit key) and units refused earlier (kept on the source as
        `units_refused_json`, skipped only while the policy is still `refuse`) are not written again: their ids and quality are read back and
        returned, `new: false`. Only the remaining units — those that failed, or that an
        interrupted attempt never reached — are processed. So re-ingesting a complete source
        creates nothing; re-ingesting a partial one retries exactly its failed units. After each
        attempt the source gets `status` `complete` (every unit ok or refused) or `partial`
        (`units_failed` lists the keys), `attempts`, `last_attempt_at` and `completed_at` --
        also an attempt an unexpected failure stopped (a 500): the units it did not finish are
        failed (`finish_stopped`), so no source is left `in_progress` and a retry writes them.
        Concurrent ingests of the same content meet on one source (a uniqueness constraint on
        `(namespace, sha256)`; only one reports `new: true`), and each unit's transaction first
        locks the source and reads what is recorded from that unit: a unit another ingest wrote
        meanwhile is read back, not written again.

    Args:
        graph: the query runner.
        memories: the memory store (observations, ADR decision versions).
        reasoning: the trace store (`record_in`).
        settings: read at call time: `max_ingest_bytes`, `ingestion_quality_policy`.
    """

    def __init__(
        self,
        graph: Graph,
        memories: MemoryService,
        reasoning: ReasoningService,
        settings: IngestSettings,
    ) -> None:
        self.graph = graph
        self.memories = memories
        self.reasoning = reasoning
        self.settings = settings
        self.writer = UnitWriter(graph, memories, reasoning)

    def ingest(
        self,
        namespace: str,
        actor: str,
        content: str,
        fmt: str,
        source_name: str,
        *,
        progress: Progress | None = None,
    ) -> dict[str, Any]:
        """Ingest one document; every write has origin `ingestion`.

        Args:
            namespace: the tenant written to.
            actor: who hands the material in (free-form name).
            content: the material as text (JSON as text for the JSON formats).
            fmt: `auto` or one of `service.domain.ingestion.formats.FORMATS`.
            source_name: the file name or URL (names units and ADRs; 1..500 characters).
            progress: optional callback `(units done, units total)`.

        Returns:
            `{source_id, source_name, format, sha256, size_bytes, new, status, created {kind:
            count}, memory_ids[], trace_ids[], quality[{unit, trace_id, verdict, score,
            issues[code]}], chunks {ok, failed, refused}, units[{key, title, status, error,
            trace_id, memory_ids}], supersedes[{memory_id, supersedes_memory_id, unit}],
            elapsed_s}`. `memory_ids` are the non-trace memories drawn (observations, produced
            memories), each once, in unit order; `created` counts only memories this call
            created.

        Raises:
            TooLargeError: content over `max_ingest_bytes` UTF-8 bytes (nothing parsed).
            UnsupportedFormat: unknown format, or material malformed for its format.
            InvalidInputError: a `source_name` that is not valid text.
            GraphUnavailableError: Neo4j unreachable when creating or updating the source.
        """
        started = time.monotonic()
        raw = content.encode("utf-8", "surrogatepass")
        limit = self.settings.max_ingest_bytes
        if len(raw) > limit:
            raise TooLargeError(
                f"content: {len(raw)} bytes, the ingest limit is {limit} bytes (RATIONALE_MAX_INGEST_BYTES)",
                extra={"size_bytes": len(raw), "limit_bytes": limit},
            )
        source_name = redact(clean_text(source_name, field="source_name", max_chars=500))[0]
        writer = Writer(namespace=namespace, origin=Origin.INGESTION, actor=actor)
        sha256 = hashlib.sha256(raw).hexdigest()
        text_sha = text_sha256(content)
        key = {"namespace": namespace, "sha256": sha256, "text_sha256": text_sha}
        source = self.graph.one(QueryName.INGEST_GET_SOURCE, key)
        parsed = _parsed(content, fmt, source_name, source)
        resolved, units = parsed.format, unique_keys(parsed.units)
        if source is not None:
            new = False
        else:
            created = create_source(
                self.graph, writer, source_name, resolved, sha256, len(raw), len(units), text_sha
            )
            new = created is not None
            if created is None:
                # A concurrent first ingest created it: a re-ingest of its source, by its name.
                source = self.graph.one(QueryName.INGEST_GET_SOURCE, key)
                assert source is not None
                parsed = _parsed(content, fmt, source_name, source)
                resolved, units = parsed.format, unique_keys(parsed.units)
            else:
                source = created
        slots: list[UnitOutcome | None] = [None] * len(units)
        try:
            processed = self._process(writer, source, new, units, slots, progress)
        except BaseException as exc:
            # Not a unit's domain error (those fail the unit alone): a bug, an interrupt. The
            # source must not stay `in_progress` with nothing to say what happened.
            finish_stopped(self.graph, source, namespace, units, slots, exc)
            raise
        outcomes = [o for o in slots if o is not None]
        status = finish_source(self.graph, source, namespace, outcomes, len(units), processed)
        return build_report(
            source, parsed, units, sha256, len(raw), source_name, new, status, outcomes, started
        )

    def _process(
        self,
        writer: Writer,
        source: Row,
        new: bool,
        units: Sequence[IngestUnit],
        slots: list[UnitOutcome | None],
        progress: Progress | None,
    ) -> int:
        """Fill `slots` with each unit's outcome: read back, refused earlier, or written now.

        Returns:
            How many units this attempt wrote (or tried to).
        """
        source_uid: str = source["uid"]
        # The document a unit's memories sit in (their episode's root): the source's name, so
        # that an edited copy of it ingested again (another source) finds its unchanged units.
        document = str(source.get("name") or source_uid)
        done = {} if new else recorded_units(self.graph, writer.namespace, source_uid)
        gate = self.settings.ingestion_quality_policy == "refuse"
        # Units refused earlier stay refused while the policy is `refuse`; under `annotate` they
        # are processed (and stored with their assessment) like failed ones.
        refused = refused_units(source) if gate and not new else {}
        total = len(units)
        pending: list[tuple[int, IngestUnit]] = []
        for i, unit in enumerate(units):
            if unit.key in done:
                slots[i] = done[unit.key]
                done[unit.key].title = printable(unit.title)
            elif unit.key in refused:
                slots[i] = refused[unit.key]
            else:
                pending.append((i, unit))
        finished = total - len(pending)
        if progress is not None:
            progress(finished, total)
        windows = unit_windows(pending)
        # The next window is embedded (torch releases the GIL) while this one is written.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ingest-embed") as pool:
            staged = self._stage(windows[0], pool) if windows else None
            for k in range(len(windows)):
                current, staged = (
                    staged,
                    (self._stage(windows[k + 1], pool) if k + 1 < len(windows) else None),
                )
                assert current is not None
                for i, outcome in self._write_window(writer, source_uid, document, current, gate):
                    slots[i] = outcome
                    finished += 1
                    if progress is not None:
                        progress(finished, total)
                    if outcome.code == GraphUnavailableError.code:
                        # Neo4j went away: every later unit would fail the same way (one log
                        # line each, hundreds for a long run). They fail untried; a retry of
                        # the source writes them.
                        _not_attempted(units, slots, outcome)
                        return len(pending)
        return len(pending)

    def _stage(
        self, window: Sequence[tuple[int, IngestUnit]], pool: ThreadPoolExecutor
    ) -> StagedWindow:
        """Validate a window of units and start embedding all their texts in one model call."""
        failed: list[tuple[int, UnitOutcome]] = []
        cleaned: list[tuple[int, IngestUnit, CleanedUnit]] = []
        for i, unit in window:
            try:
                cleaned.append(
                    (i, unit, clean_unit(unit, self.reasoning, self.memories.max_content_chars))
                )
            except RationaleError as exc:
                failed.append((i, failed_outcome(unit, exc)))
        texts = list(dict.fromkeys(t for _, _, c in cleaned for t in c.texts))
        return StagedWindow(
            failed, cleaned, texts, pool.submit(self.memories.embedder.encode, texts)
        )

    def _write_window(
        self, writer: Writer, source_uid: str, document: str, staged: StagedWindow, gate: bool
    ) -> Iterator[tuple[int, UnitOutcome]]:
        """Wait for a window's embeddings, then write each unit in its own transaction (yielded as done)."""
        yield from staged.failed
        try:
            vectors = dict(zip(staged.texts, staged.vectors.result(), strict=True))
        except RationaleError as exc:
            for i, unit, _ in staged.cleaned:
                yield i, failed_outcome(unit, exc)
            return
        for i, unit, c in staged.cleaned:
            yield (
                i,
                self.writer.process(
                    writer, source_uid, document, unit, c, [vectors[t] for t in c.texts], gate
                ),
            )


def _not_attempted(
    units: Sequence[IngestUnit], slots: list[UnitOutcome | None], cause: UnitOutcome
) -> None:
    """Fail every unit without an outcome yet, untried, with the error that stopped the attempt."""
    left = [i for i, slot in enumerate(slots) if slot is None]
    if left:
        log.warning(
            "ingest: Neo4j unavailable after unit %s: %d units not attempted", cause.key, len(left)
        )
    error = GraphUnavailableError("Neo4j is unavailable; retry the ingest to write this unit")
    for i in left:
        slots[i] = failed_outcome(units[i], error, tried=False)


def _parsed(
    content: str, fmt: str, source_name: str, source: Mapping[str, Any] | None
) -> ParsedDocument:
    """Parse the material; a known source's with the format and the name stored on it.

    A known source's `signals` are ``("recorded",)``: whatever the caller declared, the format
    is the one its content was recorded with.

    Units are keyed and named from the source name (an ADR's or a trajectory's file stem), so
    the same content handed in again under another name is parsed as it was the first time:
    its units are the recorded ones, and nothing is written again (as the stored format keeps
    a different declared format from splitting it).

    Raises:
        UnsupportedFormat: the material is malformed for its format (`parse_document`).
    """
    if source is not None:
        fmt, source_name = source["format"], source.get("name") or source_name
    try:
        parsed = parse_document(content, fmt, source_name)
    except FormatError as exc:
        raise UnsupportedFormat(
            exc.message, extra={"format": fmt, "source_name": source_name}
        ) from exc
    # The format came from the source, not from the caller or the structure.
    return replace(parsed, signals=("recorded",)) if source is not None else parsed
