"""The per-file ingest table of a corpus through the real service (`scripts/ingest-report`)."""

from __future__ import annotations

import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from service.container import Services
from service.errors import RationaleError

_SKIPPED_NAMES = frozenset({"SOURCE.md", "README.md"})

#: Column titles of the table, in `IngestRow` order.
COLUMNS: tuple[str, ...] = (
    "file",
    "format",
    "units",
    "traces",
    "steps",
    "verdicts",
    "trimmed",
    "redacted",
    "warnings",
    "s",
)


@dataclass(frozen=True)
class IngestRow:
    """One corpus file as the service ingested it (or the error it was refused with)."""

    file: str
    format: str
    units: int
    traces: int
    steps: int
    verdicts: str
    trimmed: int
    redacted: int
    warnings: str
    seconds: float

    def cells(self) -> tuple[str, ...]:
        """The row as display strings in `COLUMNS` order."""
        return (
            self.file,
            self.format,
            str(self.units),
            str(self.traces),
            str(self.steps),
            self.verdicts,
            str(self.trimmed),
            str(self.redacted),
            self.warnings,
            f"{self.seconds:.2f}",
        )


def corpus_files(corpus: Path) -> list[Path]:
    """Every file under `corpus`, sorted, except ``SOURCE.md``/``README.md`` descriptions."""
    return sorted(p for p in corpus.rglob("*") if p.is_file() and p.name not in _SKIPPED_NAMES)


def ingest_file(services: Services, namespace: str, corpus: Path, path: Path) -> IngestRow:
    """Ingest one file with format ``auto`` (origin ingestion) and summarise the report.

    Args:
        services: the wired service (real Neo4j, real model).
        namespace: the throw-away namespace written to.
        corpus: the corpus root (for the file's label).
        path: the file.

    Returns:
        The row; a refused file (too large, unknown format) has format ``refused: <code>``.
    """
    label = path.relative_to(corpus).as_posix()
    started = time.monotonic()
    try:
        report = services.ingestion.ingest(
            namespace, "ingest-report", path.read_text(encoding="utf-8"), "auto", path.name
        )
    except RationaleError as exc:
        return IngestRow(
            label, f"refused: {exc.code}", 0, 0, 0, "-", 0, 0, "-", time.monotonic() - started
        )
    verdicts = Counter(str(q["verdict"]) for q in report["quality"])
    warnings = Counter(str(w["code"]) for w in report["warnings"])
    return IngestRow(
        file=label,
        format=report["format"],
        units=len(report["units"]),
        traces=len(report["trace_ids"]),
        steps=sum(int(u["steps"]) for u in report["units"]),
        verdicts=" ".join(f"{v}={n}" for v, n in sorted(verdicts.items())) or "-",
        trimmed=int(report["trimmed_total"]),
        redacted=int(report["redacted_total"]),
        warnings=" ".join(f"{c}={n}" for c, n in sorted(warnings.items())) or "-",
        seconds=time.monotonic() - started,
    )


def run(
    services: Services,
    corpus: Path,
    files: Sequence[Path] | None = None,
    on_row: Callable[[IngestRow], None] | None = None,
) -> list[IngestRow]:
    """Ingest every corpus file into a fresh namespace, then delete that namespace.

    Args:
        services: the wired service.
        corpus: the corpus root.
        files: the files to ingest (default: `corpus_files`).
        on_row: called with each row as soon as its file is done.

    Returns:
        One row per file, in order.
    """
    namespace = f"ingest_report_{uuid.uuid4().hex[:12]}"
    rows: list[IngestRow] = []
    try:
        for path in files or corpus_files(corpus):
            rows.append(ingest_file(services, namespace, corpus, path))
            if on_row is not None:
                on_row(rows[-1])
        return rows
    finally:
        # CALL ... IN TRANSACTIONS needs an implicit (auto-commit) transaction
        with services.graph.driver.session(database=services.settings.neo4j_database) as session:
            session.run(
                "MATCH (n {namespace: $ns}) CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS",
                ns=namespace,
            ).consume()


def header() -> str:
    """The Markdown table's header lines."""
    return "| " + " | ".join(COLUMNS) + " |\n|" + "---|" * len(COLUMNS) + "\n"


def render_row(row: IngestRow) -> str:
    """One Markdown table line."""
    return "| " + " | ".join(row.cells()) + " |\n"


def render_plain(rows: Sequence[IngestRow]) -> str:
    """Render the rows as a Markdown table with a totals line."""
    verdicts: Counter[str] = Counter()
    for r in rows:
        for part in r.verdicts.split():
            if "=" in part:
                name, n = part.split("=")
                verdicts[name] += int(n)
    total = IngestRow(
        "total",
        "",
        sum(r.units for r in rows),
        sum(r.traces for r in rows),
        sum(r.steps for r in rows),
        " ".join(f"{v}={n}" for v, n in sorted(verdicts.items())),
        sum(r.trimmed for r in rows),
        sum(r.redacted for r in rows),
        "",
        sum(r.seconds for r in rows),
    )
    return header() + "".join(render_row(r) for r in [*rows, total])
