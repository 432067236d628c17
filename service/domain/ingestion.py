"""Ingestion of handed-in material: units drawn out of a document, one transaction each (DESIGN §2, §5, §6).

How a document becomes memories
    1. Refused up front: content over `settings.max_ingest_bytes` UTF-8 bytes (`TooLargeError`,
       413) — checked before anything is parsed.
    2. The document is identified by the SHA-256 of its UTF-8 bytes within the namespace. A
       `:Source {uid, namespace, name, format, sha256, size_bytes, status, ...}` is created on
       first sight with `status = in_progress`.
    3. The parsers (`service.ingest.parsers`) cut it into units (a trajectory, an episode, an
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
    (`units_failed` lists the keys), `attempts`, `last_attempt_at` and `completed_at`.
    Two *concurrent* first ingests of the same content may both create a source (there is no
    uniqueness constraint on `(namespace, sha256)`); reads then use the oldest.

ADR supersession
    An ADR's decision carries its normalised name (`adr_name`, see `adr_key`), the names it
    supersedes and is superseded by (`adr_supersedes`, `adr_superseded_by`), also in its
    metadata. In the unit's transaction every current ADR decision of the namespace related
    by either side's links is resolved: the older one is closed — a new version written by
    origin ingestion (`created_by` copied) with `valid_to` = the newer one's `valid_from`, or
    the write's time when that would not be after the older one's `valid_from` — and the
    newer one's current version `SUPERSEDES` that closed version. Pairs already linked are
    skipped, so the order of ingestion does not matter and repeating it changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any, Literal, Protocol

from service.domain.memories import MemoryService, Writer, encode_metadata, utcnow
from service.domain.models import IngestUnit, Kind, Origin, TraceDraft
from service.domain.reasoning import ReasoningService
from service.domain.text import clean_text
from service.errors import RationaleError, ReasoningRejected, TooLargeError, UnsupportedFormat
from service.graph.repository import Graph, Row, Tx
from service.ingest.parsers import FormatError, adr_key, detect_format, parse

log = logging.getLogger(__name__)

UnitStatus = Literal["ok", "failed", "refused"]
#: Called after parsing with `(0, units)` and after each unit with `(units done, units)`.
Progress = Callable[[int, int], None]

#: Texts embedded per model call: units are embedded in windows of about this many texts
#: (deduplicated, so padding and repeated observations cost less), each unit still written in
#: its own transaction after its window was embedded.
EMBED_WINDOW_TEXTS = 512

SOURCE_COMPLETE = "complete"
SOURCE_PARTIAL = "partial"
SOURCE_IN_PROGRESS = "in_progress"


class IngestSettings(Protocol):
    """The settings ingestion reads at call time (a `Settings` satisfies it)."""

    max_ingest_bytes: int
    ingestion_quality_policy: Literal["annotate", "refuse"]


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

    def public(self) -> dict[str, Any]:
        """Return the report's unit shape `{key, title, status, error, trace_id, memory_ids}`."""
        return {
            "key": self.key,
            "title": self.title,
            "status": self.status,
            "error": self.error,
            "trace_id": self.trace_id,
            "memory_ids": self.memory_ids,
        }


@dataclass(frozen=True)
class _Cleaned:
    """A unit's validated texts: observations, trace draft, texts to embed (in order), ADR names."""

    observations: list[str]
    draft: TraceDraft | None
    texts: list[str]
    adr: dict[str, Any] | None


@dataclass(frozen=True)
class _Staged:
    """A window of units: those that failed validation, the cleaned ones, and their embeddings to come."""

    failed: list[tuple[int, UnitOutcome]]
    cleaned: list[tuple[int, IngestUnit, _Cleaned]]
    texts: list[str]
    vectors: Future[list[list[float]]]


@dataclass(frozen=True)
class _Prepared:
    """A unit validated and embedded, ready for its transaction."""

    observations: list[dict[str, Any]]
    draft: TraceDraft | None
    trace_vectors: list[list[float]]
    adr: dict[str, Any] | None


def _windows(pending: Sequence[tuple[int, IngestUnit]]) -> list[list[tuple[int, IngestUnit]]]:
    """Group pending units so that each group has about `EMBED_WINDOW_TEXTS` texts to embed."""
    windows: list[list[tuple[int, IngestUnit]]] = []
    current: list[tuple[int, IngestUnit]] = []
    size = 0
    for item in pending:
        current.append(item)
        size += len(item[1].observations) + (2 if item[1].trace is not None else 0)
        if size >= EMBED_WINDOW_TEXTS:
            windows.append(current)
            current, size = [], 0
    if current:
        windows.append(current)
    return windows


def _printable(text: str) -> str:
    """Return `text` safe to serialise (lone surrogates replaced)."""
    return text.encode("utf-8", "replace").decode("utf-8")


def _quality_entry(unit: str, trace_id: str | None, quality: Mapping[str, Any]) -> dict[str, Any]:
    issues = quality.get("issues") or []
    return {
        "unit": unit,
        "trace_id": trace_id,
        "verdict": quality.get("verdict"),
        "score": quality.get("score"),
        "issues": [i["code"] if isinstance(i, Mapping) else str(i) for i in issues],
    }


class IngestionService:
    """Draws memories and reasoning out of handed-in material (`POST /v1/ingest`, CLI ingest).

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
            fmt: `auto` or one of `service.ingest.parsers.FORMATS`.
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
        source_name = clean_text(source_name, field="source_name", max_chars=500)
        writer = Writer(namespace=namespace, origin=Origin.INGESTION, actor=actor)
        sha256 = hashlib.sha256(raw).hexdigest()
        source = self.graph.one("ingest/get_source", {"namespace": namespace, "sha256": sha256})
        resolved = source["format"] if source is not None else fmt
        try:
            if resolved == "auto":
                resolved = detect_format(content, source_name)
            units = self._unique_keys(parse(content, resolved, source_name))
        except FormatError as exc:
            raise UnsupportedFormat(
                exc.message, extra={"format": fmt, "source_name": source_name}
            ) from exc

        new = source is None
        if source is None:
            source = self._create_source(
                writer, source_name, resolved, sha256, len(raw), len(units)
            )
        source_uid: str = source["uid"]
        done = {} if new else self._recorded_units(namespace, source_uid)
        gate = self.settings.ingestion_quality_policy == "refuse"
        # Units refused earlier stay refused while the policy is `refuse`; under `annotate` they
        # are processed (and stored with their assessment) like failed ones.
        refused = self._refused_units(source) if gate and not new else {}
        total = len(units)
        slots: list[UnitOutcome | None] = []
        pending: list[tuple[int, IngestUnit]] = []
        for i, unit in enumerate(units):
            outcome: UnitOutcome | None = None
            if unit.key in done:
                outcome = done[unit.key]
                outcome.title = _printable(unit.title)
            elif unit.key in refused:
                outcome = refused[unit.key]
            else:
                pending.append((i, unit))
            slots.append(outcome)
        finished = total - len(pending)
        if progress is not None:
            progress(finished, total)
        windows = _windows(pending)
        # The next window is embedded (torch releases the GIL) while this one is written.
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="ingest-embed") as pool:
            staged = self._stage(windows[0], pool) if windows else None
            for k in range(len(windows)):
                current, staged = (
                    staged,
                    (self._stage(windows[k + 1], pool) if k + 1 < len(windows) else None),
                )
                assert current is not None
                for i, outcome in self._write_window(writer, source_uid, current, gate):
                    slots[i] = outcome
                    finished += 1
                    if progress is not None:
                        progress(finished, total)
        outcomes = [o for o in slots if o is not None]
        processed = len(pending)

        failed = [o.key for o in outcomes if o.status == "failed"]
        status = SOURCE_PARTIAL if failed else SOURCE_COMPLETE
        if processed or source.get("status") != status:
            refused_json = [
                json.dumps({"key": o.key, "title": o.title, "error": o.error, "quality": o.quality})
                for o in outcomes
                if o.status == "refused"
            ]
            self.graph.run(
                "ingest/update_source",
                {
                    "namespace": namespace,
                    "source_uid": source_uid,
                    "status": status,
                    "unit_count": total,
                    "units_failed": failed,
                    "units_refused_json": refused_json,
                    "now": utcnow(),
                },
            )
        return self._report(
            source, resolved, sha256, len(raw), source_name, new, status, outcomes, started
        )

    # -- source --------------------------------------------------------------------------------

    def _create_source(
        self, writer: Writer, name: str, fmt: str, sha256: str, size_bytes: int, unit_count: int
    ) -> Row:
        now = utcnow()
        props = {
            "uid": str(uuid.uuid4()),
            "namespace": writer.namespace,
            "name": name,
            "format": fmt,
            "sha256": sha256,
            "size_bytes": size_bytes,
            "status": SOURCE_IN_PROGRESS,
            "unit_count": unit_count,
            "attempts": 0,
            "units_failed": [],
            "units_refused_json": [],
            "created_by_origin": writer.origin,
            "created_by_actor": writer.actor,
            "valid_from": now,
            "valid_to": None,
            "system_from": now,
            "system_to": None,
        }
        row = self.graph.one("ingest/create_source", {"props": props})
        assert row is not None
        return {**props, "uid": row["uid"]}

    def _recorded_units(self, namespace: str, source_uid: str) -> dict[str, UnitOutcome]:
        rows = self.graph.run(
            "ingest/list_source_memories", {"namespace": namespace, "source_uid": source_uid}
        )
        units: dict[str, UnitOutcome] = {}
        for r in rows:
            outcome = units.setdefault(
                r["unit"], UnitOutcome(key=r["unit"], title=r["unit"], status="ok")
            )
            if r["kind"] == Kind.REASONING:
                outcome.trace_id = r["memory_id"]
                outcome.quality = {
                    "verdict": r["quality_verdict"],
                    "score": r["quality_score"],
                    "issues": list(r["quality_issues"]),
                }
            elif r["memory_id"] not in outcome.memory_ids:
                outcome.memory_ids.append(r["memory_id"])
        return units

    @staticmethod
    def _refused_units(source: Row) -> dict[str, UnitOutcome]:
        units: dict[str, UnitOutcome] = {}
        for text in source.get("units_refused_json") or []:
            item = json.loads(text)
            units[item["key"]] = UnitOutcome(
                key=item["key"],
                title=item["title"],
                status="refused",
                error=item["error"],
                quality=item["quality"],
            )
        return units

    @staticmethod
    def _unique_keys(units: Sequence[IngestUnit]) -> list[IngestUnit]:
        """Return the units with unique keys (a repeated key gets `~<n>`; units are tracked by key)."""
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

    # -- one unit ------------------------------------------------------------------------------

    def _stage(self, window: Sequence[tuple[int, IngestUnit]], pool: ThreadPoolExecutor) -> _Staged:
        """Validate a window of units and start embedding all their texts in one model call."""
        failed: list[tuple[int, UnitOutcome]] = []
        cleaned: list[tuple[int, IngestUnit, _Cleaned]] = []
        for i, unit in window:
            try:
                cleaned.append((i, unit, self._clean(unit)))
            except RationaleError as exc:
                failed.append((i, self._failed(unit, exc)))
        texts = list(dict.fromkeys(t for _, _, c in cleaned for t in c.texts))
        return _Staged(failed, cleaned, texts, pool.submit(self.memories.embedder.encode, texts))

    def _write_window(
        self, writer: Writer, source_uid: str, staged: _Staged, gate: bool
    ) -> Iterator[tuple[int, UnitOutcome]]:
        """Wait for a window's embeddings, then write each unit in its own transaction (yielded as done)."""
        yield from staged.failed
        try:
            vectors = dict(zip(staged.texts, staged.vectors.result(), strict=True))
        except RationaleError as exc:
            for i, unit, _ in staged.cleaned:
                yield i, self._failed(unit, exc)
            return
        for i, unit, c in staged.cleaned:
            yield i, self._process(writer, source_uid, unit, c, [vectors[t] for t in c.texts], gate)

    @staticmethod
    def _failed(unit: IngestUnit, exc: RationaleError) -> UnitOutcome:
        log.warning("ingest: unit %s failed (%s): %s", unit.key, exc.code, exc.message)
        return UnitOutcome(
            key=unit.key,
            title=_printable(unit.title),
            status="failed",
            error=_printable(f"{exc.code}: {exc.message}"),
        )

    def _clean(self, unit: IngestUnit) -> _Cleaned:
        """Validate a unit's texts and list those to embed: observations, then the trace's.

        Raises:
            InvalidInputError, TooLargeError: invalid text, too many steps, bad step shape.
        """
        limit = self.memories.max_content_chars
        observations = [
            clean_text(text, field=f"{unit.key}: observations[{i}]", max_chars=limit)
            for i, text in enumerate(unit.observations)
        ]
        draft = self.reasoning.clean_draft(unit.trace) if unit.trace is not None else None
        texts = observations + (self.reasoning.embedding_texts(draft) if draft else [])
        adr = None
        if (
            draft is not None
            and draft.produced is not None
            and draft.produced.kind == Kind.DECISION
        ):
            is_adr = unit.extra.get("format") == "adr" or unit.supersedes or unit.superseded_by
            if is_adr and unit.name:
                adr = {
                    "name": adr_key(unit.name),
                    "supersedes": list(dict.fromkeys(unit.supersedes)),
                    "superseded_by": list(dict.fromkeys(unit.superseded_by)),
                }
        return _Cleaned(observations, draft, texts, adr)

    def _process(
        self,
        writer: Writer,
        source_uid: str,
        unit: IngestUnit,
        cleaned: _Cleaned,
        vectors: Sequence[list[float]],
        gate: bool,
    ) -> UnitOutcome:
        """Write one unit in its own transaction; a domain error fails (or refuses) it alone."""
        title = _printable(unit.title)
        now = utcnow()
        try:
            n = len(cleaned.observations)
            observations = [
                self.memories.new_props(
                    writer,
                    Kind.OBSERVATION,
                    text,
                    now=now,
                    embedding=vector,
                    valid_from=unit.valid_from,
                )
                for text, vector in zip(cleaned.observations, vectors[:n], strict=True)
            ]
            prepared = _Prepared(observations, cleaned.draft, list(vectors[n:]), cleaned.adr)

            def work(tx: Tx) -> UnitOutcome:
                return self._write_unit(tx, writer, source_uid, unit, prepared, gate, now)

            outcome = self.graph.write(work)
        except ReasoningRejected as exc:
            quality = exc.extra.get("quality") or {}
            log.info("ingest: unit %s refused by the quality gate: %s", unit.key, exc.message)
            return UnitOutcome(
                key=unit.key,
                title=title,
                status="refused",
                error=_printable(exc.message),
                quality=quality,
            )
        except RationaleError as exc:
            return self._failed(unit, exc)
        outcome.title = title
        return outcome

    def _write_unit(
        self,
        tx: Tx,
        writer: Writer,
        source_uid: str,
        unit: IngestUnit,
        prepared: _Prepared,
        gate: bool,
        now: datetime,
    ) -> UnitOutcome:
        outcome = UnitOutcome(key=unit.key, title=unit.title, status="ok")
        uids: list[str] = []
        resolve: dict[str, str] = {}
        for i, props in enumerate(prepared.observations):
            row, created = self.memories.create_in(tx, props, now, writer)
            resolve[f"obs:{i}"] = row["memory_id"]
            uids.append(row["uid"])
            if row["memory_id"] not in outcome.memory_ids:
                outcome.memory_ids.append(row["memory_id"])
            if created:
                outcome.created[Kind.OBSERVATION] += 1
        if prepared.draft is not None:
            adr = prepared.adr
            extra = None
            if adr is not None:
                extra = {
                    "adr_name": adr["name"],
                    "adr_supersedes": adr["supersedes"],
                    "adr_superseded_by": adr["superseded_by"],
                    "metadata_json": encode_metadata(
                        {
                            "adr_name": adr["name"],
                            "adr_file": unit.name,
                            "adr_supersedes": adr["supersedes"],
                            "adr_superseded_by": adr["superseded_by"],
                        }
                    ),
                }
            recorded = self.reasoning.record_in(
                tx,
                writer,
                prepared.draft,
                prepared.trace_vectors,
                now=now,
                gate=gate,
                source_id=source_uid,
                valid_from=unit.valid_from,
                resolve=resolve,
                produced_extra=extra,
            )
            outcome.trace_id = recorded.trace_id
            outcome.quality = recorded.assessment.as_dict()
            outcome.created[Kind.REASONING] += 1
            uids.append(recorded.trace_uid)
            produced = recorded.produced
            if produced is not None:
                uids.append(produced["uid"])
                if produced["memory_id"] not in outcome.memory_ids:
                    outcome.memory_ids.append(produced["memory_id"])
                if recorded.produced_created:
                    outcome.created[produced["kind"]] += 1
                if adr is not None and produced["kind"] == Kind.DECISION:
                    outcome.supersedes = self._supersede(tx, writer, produced, adr, now, unit.key)
        wanted = list(dict.fromkeys(uids))
        if wanted:
            link = tx.one(
                "ingest/link_extracted",
                {
                    "namespace": writer.namespace,
                    "source_uid": source_uid,
                    "memory_uids": wanted,
                    "unit": unit.key,
                    "now": now,
                },
            )
            linked = link["linked"] if link else 0
            if linked != len(wanted):
                raise RationaleError(
                    f"ingest: unit {unit.key}: linked {linked} of {len(wanted)} memories to the source"
                )
        return outcome

    # -- ADR supersession ---------------------------------------------------------------------

    def _supersede(
        self,
        tx: Tx,
        writer: Writer,
        decision: Row,
        adr: Mapping[str, Any],
        now: datetime,
        unit: str,
    ) -> list[dict[str, str]]:
        """Close and link the ADR decisions related to `decision`; return the new links."""
        rows = tx.run(
            "ingest/list_adr_related",
            {
                "namespace": writer.namespace,
                "memory_id": decision["memory_id"],
                "name": adr["name"],
                "supersedes": adr["supersedes"],
                "superseded_by": adr["superseded_by"],
            },
        )
        links: list[dict[str, str]] = []
        me = decision
        for r in rows:
            if r["linked"]:
                continue
            other: Row = r["memory"]
            newer, older = (me, other) if r["role"] == "older" else (other, me)
            closed = self._close(tx, writer, older, newer, now)
            if older is me:
                me = closed
            tx.run(
                "memory/link_supersedes",
                {
                    "namespace": writer.namespace,
                    "new_uid": newer["uid"],
                    "old_uid": closed["uid"],
                    "reason": f"ADR {newer.get('adr_name')} supersedes ADR {older.get('adr_name')}",
                    "origin": writer.origin,
                    "actor": writer.actor,
                    "now": now,
                },
            )
            links.append(
                {
                    "memory_id": newer["memory_id"],
                    "supersedes_memory_id": older["memory_id"],
                    "unit": unit,
                }
            )
        return links

    def _close(self, tx: Tx, writer: Writer, older: Row, newer: Row, now: datetime) -> Row:
        """Return the older decision closed in valid time (a new version), or as is if already closed."""
        if older.get("valid_to") is not None:
            return older
        at = max(utcnow(), now + timedelta(microseconds=1))
        end = newer["valid_from"] if newer["valid_from"] > older["valid_from"] else at
        changes = {
            "valid_to": end,
            "adr_name": older.get("adr_name"),
            "adr_supersedes": older.get("adr_supersedes"),
            "adr_superseded_by": older.get("adr_superseded_by"),
        }
        return self.memories.version_in(
            tx, older, changes, writer, at, reason=f"superseded by ADR {newer.get('adr_name')}"
        )

    # -- report --------------------------------------------------------------------------------

    @staticmethod
    def _report(
        source: Row,
        fmt: str,
        sha256: str,
        size_bytes: int,
        source_name: str,
        new: bool,
        status: str,
        outcomes: Sequence[UnitOutcome],
        started: float,
    ) -> dict[str, Any]:
        created: Counter[str] = Counter()
        memory_ids: list[str] = []
        trace_ids: list[str] = []
        quality: list[dict[str, Any]] = []
        supersedes: list[dict[str, str]] = []
        for o in outcomes:
            created.update(o.created)
            memory_ids.extend(o.memory_ids)
            if o.trace_id is not None:
                trace_ids.append(o.trace_id)
            if o.quality is not None:
                quality.append(_quality_entry(o.key, o.trace_id, o.quality))
            supersedes.extend(o.supersedes)
        statuses = Counter(o.status for o in outcomes)
        return {
            "source_id": source["uid"],
            "source_name": source.get("name") or source_name,
            "format": fmt,
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
            "units": [o.public() for o in outcomes],
            "supersedes": supersedes,
            "elapsed_s": round(time.monotonic() - started, 3),
        }
