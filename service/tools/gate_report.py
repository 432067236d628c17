"""Calibration of the quality gate on the real corpus and its broken variants (`scripts/gate-report`)."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from service.domain.ingestion.formats import detect_format, parse
from service.domain.models import IngestUnit, Verdict
from service.domain.quality import QualityThresholds, assess
from service.tools.gate_variants import BUILDERS, VARIANTS

_SKIPPED_NAMES = frozenset({"SOURCE.md", "README.md"})


def unit_evidence(unit: IngestUnit) -> dict[str, str]:
    """Return the text of a unit's local evidence, keyed ``"obs:<i>"``.

    Args:
        unit: a parsed unit.

    Returns:
        ``{"obs:<i>": observation text}`` for each of the unit's observations.
    """
    return {f"obs:{i}": text for i, text in enumerate(unit.observations)}


@dataclass(frozen=True)
class CaseResult:
    """The gate's answer on one trace (an original or a variant).

    Attributes:
        file: corpus-relative path of the source file.
        unit: the unit's key within the file.
        variant: one of `VARIANTS`.
        broken: True for a variant (a positive), False for an original.
        verdict: the gate's verdict.
        score: the gate's score in [0, 1].
        codes: issue codes, in the gate's order.
    """

    file: str
    unit: str
    variant: str
    broken: bool
    verdict: str
    score: float
    codes: tuple[str, ...]

    @property
    def flagged(self) -> bool:
        """Return True when the gate rejected the trace."""
        return self.verdict == Verdict.REJECTED


def corpus_files(corpus: Path) -> list[Path]:
    """List the corpus files the report reads.

    Args:
        corpus: the corpus root (holding ``trajectories/``, ``sessions/`` and ``adrs/``).

    Returns:
        Sorted paths: every file under ``trajectories/`` and ``sessions/`` and every ``.md``
        under ``adrs/``, except ``SOURCE.md``/``README.md`` descriptions.
    """
    found = [p for p in (corpus / "trajectories").rglob("*") if p.is_file()]
    found += [p for p in (corpus / "sessions").rglob("*") if p.is_file()]
    found += list((corpus / "adrs").rglob("*.md"))
    return sorted(p for p in found if p.name not in _SKIPPED_NAMES)


def assess_unit(
    unit: IngestUnit, thresholds: QualityThresholds, file: str = ""
) -> list[CaseResult]:
    """Assess a unit's trace and its broken variants.

    Args:
        unit: a parsed unit with a trace.
        thresholds: the gate's numbers.
        file: label of the source file for the results.

    Returns:
        One `CaseResult` per entry of `VARIANTS`, in that order.

    Raises:
        ValueError: the unit has no trace.
    """
    if unit.trace is None:
        raise ValueError(f"unit {unit.key} has no trace")
    evidence = unit_evidence(unit)
    results: list[CaseResult] = []
    for name in VARIANTS:
        draft = BUILDERS[name](unit.trace)
        assessment = assess(draft, thresholds, evidence)
        results.append(
            CaseResult(
                file=file,
                unit=unit.key,
                variant=name,
                broken=name != "original",
                verdict=str(assessment.verdict),
                score=assessment.score,
                codes=tuple(i.code for i in assessment.issues),
            )
        )
    return results


def run(corpus: Path, thresholds: QualityThresholds | None = None) -> list[CaseResult]:
    """Parse every corpus file and assess every trace and its variants.

    Every reasoning unit parsed from the corpus (SWE-agent, ReAct -- every FEVER episode and
    every HotpotQA prompt episode --, OpenHands, every request of every coding-agent session
    -- Claude Code, Codex, Aider, terminal --, ADRs) is assessed as is and as each broken
    variant of `service.tools.gate_variants`. Originals are the negatives (not broken) and
    variants the positives (broken); a trace is *flagged* when the verdict is ``rejected``.
    Precision = flagged broken / flagged, recall = flagged broken / broken (`summarize`).

    Args:
        corpus: the corpus root (holding ``trajectories/`` and ``adrs/``).
        thresholds: the gate's numbers; defaults when None.

    Returns:
        The results, file by file, unit by unit, variant by variant.

    Raises:
        FileNotFoundError: the corpus root does not exist.
        FormatError: a corpus file cannot be parsed (a parser bug or a corrupted corpus).
    """
    if not corpus.is_dir():
        raise FileNotFoundError(f"corpus not found: {corpus}")
    th = thresholds or QualityThresholds()
    results: list[CaseResult] = []
    for path in corpus_files(corpus):
        content = path.read_text(encoding="utf-8")
        label = path.relative_to(corpus).as_posix()
        units = parse(content, detect_format(content, path.name), path.name)
        for unit in units:
            if unit.trace is not None:
                results.extend(assess_unit(unit, th, label))
    return results


@dataclass(frozen=True)
class Row:
    """One line of the report table (one file and variant, possibly aggregated).

    Attributes:
        file: corpus-relative path.
        variant: one of `VARIANTS`.
        units: number of traces aggregated in the row.
        verdict: the verdict, or verdict counts for an aggregated row.
        score: the score, or ``mean (min-max)`` for an aggregated row.
        issues: the issue codes, with counts for an aggregated row.
        expected: what the row should show (``not rejected`` or ``rejected``).
        misses: how many traces of the row the gate got wrong.
    """

    file: str
    variant: str
    units: int
    verdict: str
    score: str
    issues: str
    expected: str
    misses: int


def rows(results: Iterable[CaseResult]) -> list[Row]:
    """Group results into report rows: one per file and variant.

    A file with one trace shows that trace's verdict, score and codes; a file with several
    (FEVER, HotpotQA prompts) shows counts per verdict, the mean and range of the scores and
    the number of traces with each issue code.

    Args:
        results: results from `run` or `assess_unit`.

    Returns:
        Rows in file order, then `VARIANTS` order.
    """
    groups: dict[tuple[str, str], list[CaseResult]] = defaultdict(list)
    for result in results:
        groups[(result.file, result.variant)].append(result)
    out: list[Row] = []
    for (file, variant), group in sorted(
        groups.items(), key=lambda kv: (kv[0][0], VARIANTS.index(kv[0][1]))
    ):
        broken = group[0].broken
        misses = sum(1 for r in group if r.flagged != broken)
        expected = "rejected" if broken else "not rejected"
        if len(group) == 1:
            only = group[0]
            out.append(
                Row(
                    file,
                    variant,
                    1,
                    only.verdict,
                    f"{only.score:.3f}",
                    ", ".join(only.codes) or "-",
                    expected,
                    misses,
                )
            )
            continue
        verdicts = Counter(r.verdict for r in group)
        codes = Counter(code for r in group for code in set(r.codes))
        scores = [r.score for r in group]
        out.append(
            Row(
                file,
                variant,
                len(group),
                " ".join(f"{v}={verdicts[v]}" for v in Verdict if verdicts[v]),
                f"{statistics.fmean(scores):.3f} ({min(scores):.3f}-{max(scores):.3f})",
                ", ".join(f"{c}={n}" for c, n in sorted(codes.items())) or "-",
                expected,
                misses,
            )
        )
    return out


@dataclass(frozen=True)
class Summary:
    """Confusion counts and rates of "rejected" against "broken".

    Attributes:
        true_positives: broken traces rejected.
        false_positives: original traces rejected.
        false_negatives: broken traces not rejected.
        true_negatives: original traces not rejected.
    """

    true_positives: int
    false_positives: int
    false_negatives: int
    true_negatives: int

    @property
    def precision(self) -> float:
        """Return rejected-and-broken / rejected, in [0, 1] (1.0 when nothing was rejected)."""
        flagged = self.true_positives + self.false_positives
        return self.true_positives / flagged if flagged else 1.0

    @property
    def recall(self) -> float:
        """Return rejected-and-broken / broken, in [0, 1] (1.0 when nothing is broken)."""
        broken = self.true_positives + self.false_negatives
        return self.true_positives / broken if broken else 1.0


def summarize(results: Iterable[CaseResult]) -> Summary:
    """Count the gate's hits and misses.

    Args:
        results: results from `run` or `assess_unit`.

    Returns:
        The confusion counts; precision and recall are properties.
    """
    tp = fp = fn = tn = 0
    for r in results:
        if r.broken and r.flagged:
            tp += 1
        elif r.broken:
            fn += 1
        elif r.flagged:
            fp += 1
        else:
            tn += 1
    return Summary(tp, fp, fn, tn)


def exceptions(results: Iterable[CaseResult]) -> list[CaseResult]:
    """Return the results the gate got wrong (originals rejected, variants not rejected).

    Args:
        results: results from `run` or `assess_unit`.

    Returns:
        The wrong results, in input order.
    """
    return [r for r in results if r.flagged != r.broken]


#: Column titles of the report table, in `Row` field order.
COLUMNS: tuple[str, ...] = (
    "file",
    "variant",
    "n",
    "verdict",
    "score",
    "issues",
    "expected",
    "misses",
)


def row_cells(row: Row) -> tuple[str, ...]:
    """Return a row as display strings in `COLUMNS` order.

    Args:
        row: a report row.

    Returns:
        The cells as strings.
    """
    return (
        row.file,
        row.variant,
        str(row.units),
        row.verdict,
        row.score,
        row.issues,
        row.expected,
        str(row.misses),
    )


def summary_lines(summary: Summary, wrong: Sequence[CaseResult]) -> list[str]:
    """Return the closing lines of the report: counts, precision, recall and exceptions.

    Args:
        summary: from `summarize`.
        wrong: from `exceptions`.

    Returns:
        Plain text lines.
    """
    lines = [
        f"originals: {summary.true_negatives + summary.false_positives} "
        f"(rejected: {summary.false_positives}); broken variants: "
        f"{summary.true_positives + summary.false_negatives} "
        f"(not rejected: {summary.false_negatives})",
        f"precision of 'rejected' against 'broken': {summary.precision:.4f} "
        f"(TP={summary.true_positives}, FP={summary.false_positives})",
        f"recall of 'rejected' against 'broken':    {summary.recall:.4f} "
        f"(TP={summary.true_positives}, FN={summary.false_negatives})",
    ]
    if wrong:
        lines.append("exceptions:")
        lines += [
            f"  {r.file} {r.unit} {r.variant}: {r.verdict} {r.score:.3f} "
            f"[{', '.join(r.codes) or '-'}]"
            for r in wrong
        ]
    else:
        lines.append("exceptions: none")
    return lines


def render_plain(table: Sequence[Row], summary: Summary, wrong: Sequence[CaseResult]) -> str:
    """Render the report as fixed-width plain text.

    Args:
        table: rows from `rows`.
        summary: from `summarize`.
        wrong: from `exceptions`.

    Returns:
        The report text, ending with a newline.
    """
    cells = [COLUMNS, *(row_cells(r) for r in table)]
    widths = [max(len(c[i]) for c in cells) for i in range(len(COLUMNS))]
    lines = ["  ".join(c[i].ljust(widths[i]) for i in range(len(COLUMNS))).rstrip() for c in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join([*lines, "", *summary_lines(summary, wrong)]) + "\n"
