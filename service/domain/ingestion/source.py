"""The `:Source` of an ingested document: created on first sight, read back, updated per attempt."""

from __future__ import annotations

import hashlib
import json
import logging
import re
import uuid
from collections.abc import Sequence

from service.domain.ingestion.report import UnitOutcome, printable
from service.domain.memories import Writer, utcnow
from service.domain.models import IngestUnit, Kind
from service.errors import RationaleError
from service.graph.query_names import QueryName
from service.graph.repository import Graph, Row

log = logging.getLogger(__name__)

#: White space a line may end with that no reader sees (editors and transfers add or drop it).
_LINE_END_SPACE = re.compile(r"[ \t]+$", re.MULTILINE)

SOURCE_COMPLETE = "complete"
SOURCE_PARTIAL = "partial"
SOURCE_IN_PROGRESS = "in_progress"


def text_sha256(content: str) -> str:
    r"""Return the hex SHA-256 of a document's text form: what survives a copy between systems.

    Line endings as ``\n`` (CRLF and CR converted), no byte-order mark, no spaces or tabs at
    line ends, no white space at the start or the end: a document re-saved on another system, or sent
    through a transfer that adds a final newline, has the content hash of new bytes and this
    one of the old. A second key of a `:Source` (`ingest/get_source`), so such a copy under
    another name is the source it was (trial 13: it was a new one, its units written again).
    """
    text = content.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    text = _LINE_END_SPACE.sub("", text).strip()
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def create_source(
    graph: Graph,
    writer: Writer,
    name: str,
    fmt: str,
    sha256: str,
    size_bytes: int,
    unit_count: int,
    text_sha: str | None = None,
) -> Row | None:
    """Create the `:Source` of a document seen for the first time (`status = in_progress`).

    The `(namespace, sha256)` constraint makes concurrent first ingests of one document meet on
    one node: only one of them creates it.

    Args:
        graph: the query runner.
        writer: namespace, origin `ingestion` and actor.
        name: the source name (clean text, 1..500 characters).
        fmt: the resolved format (never `auto`).
        sha256: hex SHA-256 of the content's UTF-8 bytes (the source's identity in the namespace).
        size_bytes: the content's size in UTF-8 bytes.
        unit_count: how many units the parser gave.
        text_sha: `text_sha256` of the content (a second key: the same text in other bytes).

    Returns:
        The source's properties with its `uid`, or None when a concurrent ingest created the
        source first (read it back with `ingest/get_source`).
    """
    now = utcnow()
    props: dict[str, object] = {
        "uid": str(uuid.uuid4()),
        "namespace": writer.namespace,
        "name": name,
        "format": fmt,
        "sha256": sha256,
        "text_sha256": text_sha,
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
    row = graph.one(QueryName.INGEST_CREATE_SOURCE, {"props": props})
    assert row is not None
    return props if row["created"] else None


def recorded_units(graph: Graph, namespace: str, source_uid: str) -> dict[str, UnitOutcome]:
    """Read back the units already recorded from a source (memories `EXTRACTED_FROM` it).

    Args:
        graph: the query runner.
        namespace: the tenant.
        source_uid: the source's `uid`.

    Returns:
        `{unit key: outcome}` with status `ok`, the trace id and quality, and the memory ids.
    """
    rows = graph.run(
        QueryName.INGEST_LIST_SOURCE_MEMORIES, {"namespace": namespace, "source_uid": source_uid}
    )
    return outcomes_from_rows(rows)


def outcomes_from_rows(rows: Sequence[Row]) -> dict[str, UnitOutcome]:
    """Group rows `{unit, memory_id, kind, quality_verdict, quality_score, quality_issues}`.

    Args:
        rows: one row per (unit, memory) recorded from a source, oldest memory first.

    Returns:
        `{unit key: outcome}` with status `ok`, the trace id and quality, and the memory ids.
    """
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


def refused_units(source: Row) -> dict[str, UnitOutcome]:
    """Return the units refused earlier, as kept on the source (`units_refused_json`).

    Args:
        source: the `:Source` row.

    Returns:
        `{unit key: outcome}` with status `refused`, the error and the assessment.
    """
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


def finish_source(
    graph: Graph,
    source: Row,
    namespace: str,
    outcomes: Sequence[UnitOutcome],
    total: int,
    processed: int,
) -> str:
    """Record an attempt on the source: its status, failed and refused units, attempt time.

    Nothing is written when no unit was processed and the status is unchanged.

    Args:
        graph: the query runner.
        source: the `:Source` row (``uid``, ``status``).
        namespace: the tenant.
        outcomes: one outcome per unit, in unit order.
        total: how many units the document has.
        processed: how many units this attempt wrote (or tried to).

    Returns:
        The status: `complete` (every unit ok or refused) or `partial`.
    """
    source_uid: str = source["uid"]
    failed = [o.key for o in outcomes if o.status == "failed"]
    status = SOURCE_PARTIAL if failed else SOURCE_COMPLETE
    if processed or source.get("status") != status:
        refused_json = [
            json.dumps({"key": o.key, "title": o.title, "error": o.error, "quality": o.quality})
            for o in outcomes
            if o.status == "refused"
        ]
        graph.run(
            QueryName.INGEST_UPDATE_SOURCE,
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
    return status


def finish_stopped(
    graph: Graph,
    source: Row,
    namespace: str,
    units: Sequence[IngestUnit],
    slots: Sequence[UnitOutcome | None],
    exc: BaseException,
) -> None:
    """Record an attempt that an unexpected failure stopped, so the source is not left behind.

    Each unit's own transaction was committed whole or rolled back, but the source was created
    (`in_progress`) or updated before the units: recorded like any attempt (`finish_source`),
    with every unit the attempt did not finish `failed`, the source is `partial` and a retry
    (the same content again) writes exactly those units. Whoever called still gets `exc`;
    a failure to record the attempt (Neo4j gone) is logged, never raised in its place.

    Args:
        graph: the query runner.
        source: the `:Source` row (``uid``, ``status``).
        namespace: the tenant.
        units: the document's units, in order.
        slots: the outcome of each unit so far, None for those not finished.
        exc: what stopped the attempt.
    """
    error = printable(
        f"internal: the ingest stopped before this unit was written ({type(exc).__name__}); "
        "nothing of it was kept, send the document again to retry it"
    )
    outcomes = [
        done or UnitOutcome(key=u.key, title=printable(u.title), status="failed", error=error)
        for u, done in zip(units, slots, strict=True)
    ]
    try:
        finish_source(graph, source, namespace, outcomes, len(units), len(units))
    except RationaleError as failure:
        log.warning(
            "ingest: source %s: the stopped attempt was not recorded (%s): %s",
            source["uid"],
            failure.code,
            failure.message,
        )
