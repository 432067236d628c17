"""Calibration of the quality gate on the real corpus and on broken variants of it.

For every reasoning unit parsed from the corpus (SWE-agent, ReAct -- every FEVER episode and
every HotpotQA prompt episode --, OpenHands, ADRs) the report assesses the original trace and
three broken variants built deterministically from it:

- ``loop``: the first plain ``thought`` step is repeated right after itself, so the trace
  returns to it with no observation in between (traces without such a thought get two identical
  thoughts restating the task just before the conclusion).
- ``no_evidence``: every ``observation`` and ``action`` step is removed and every cite dropped.
- ``concludes_rejected``: the conclusion is replaced by a hypothesis that a step rejected (the
  conclusion step's content and the produced content become that hypothesis' text). A trace
  without a rejected hypothesis first gets one: a ``hypothesis`` step stating its own
  conclusion and a step rejecting it are inserted just before the conclusion.

Originals are the negatives (not broken) and variants the positives (broken); a trace is
*flagged* when the verdict is ``rejected``. Precision = flagged broken / flagged, recall =
flagged broken / broken.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from service.domain.models import (
    IngestUnit,
    StepDraft,
    StepKind,
    StepStatus,
    TraceDraft,
    Verdict,
)
from service.domain.quality import QualityThresholds, assess
from service.ingest.parsers import detect_format, parse

#: Variant names in report order; ``original`` is the unbroken trace.
VARIANTS: tuple[str, ...] = ("original", "loop", "no_evidence", "concludes_rejected")
_CONCLUDING = (StepKind.CONCLUSION, StepKind.DECISION)
_SKIPPED_NAMES = frozenset({"SOURCE.md", "README.md"})


def _rebuild(entries: Sequence[tuple[int | None, StepDraft]]) -> tuple[StepDraft, ...]:
    """Return the steps of `entries`, remapping `rejects` of kept steps to their new indexes.

    Entries with an old index None are new steps whose `rejects` are already new indexes.
    """
    new_index = {old: new for new, (old, _) in enumerate(entries) if old is not None}
    out: list[StepDraft] = []
    for old, step in entries:
        if old is None:
            out.append(step)
        else:
            out.append(
                replace(step, rejects=tuple(new_index[r] for r in step.rejects if r in new_index))
            )
    return tuple(out)


def _conclusion_index(steps: Sequence[StepDraft]) -> int | None:
    index = None
    for i, step in enumerate(steps):
        if step.kind in _CONCLUDING:
            index = i
    return index


def make_loop(draft: TraceDraft) -> TraceDraft:
    """Return a copy of the trace that returns to a thought with no observation in between.

    Args:
        draft: the original trace.

    Returns:
        The trace with its first asserted ``thought`` step duplicated right after itself, or,
        without such a step, with two identical thoughts restating the task inserted before the
        conclusion (or at the end).
    """
    entries: list[tuple[int | None, StepDraft]] = list(enumerate(draft.steps))
    first = next(
        (
            i
            for i, s in enumerate(draft.steps)
            if s.kind == StepKind.THOUGHT and s.status == StepStatus.ASSERTED and s.content.strip()
        ),
        None,
    )
    if first is not None:
        copy = StepDraft(kind=StepKind.THOUGHT, content=draft.steps[first].content)
        entries.insert(first + 1, (None, copy))
    else:
        at = _conclusion_index(draft.steps)
        at = len(entries) if at is None else at
        thought = StepDraft(kind=StepKind.THOUGHT, content=f"Consider the task: {draft.task}")
        entries[at:at] = [(None, thought), (None, thought)]
    return replace(draft, steps=_rebuild(entries))


def make_no_evidence(draft: TraceDraft) -> TraceDraft:
    """Return a copy of the trace without its evidence.

    Args:
        draft: the original trace.

    Returns:
        The trace with every ``observation`` and ``action`` step removed and every cite dropped.
    """
    entries = [
        (i, replace(s, cites=()))
        for i, s in enumerate(draft.steps)
        if s.kind not in (StepKind.OBSERVATION, StepKind.ACTION)
    ]
    return replace(draft, steps=_rebuild(entries))


def make_concludes_rejected(draft: TraceDraft) -> TraceDraft:
    """Return a copy of the trace whose conclusion restates a rejected hypothesis.

    Args:
        draft: the original trace.

    Returns:
        With a rejected hypothesis in the trace (status ``rejected`` or listed in a step's
        ``rejects``; the first one with text), the conclusion step and the produced content
        replaced by that hypothesis' text. Otherwise the trace with a ``hypothesis`` step
        stating its conclusion (or produced content) and a step rejecting it inserted before the
        conclusion, which then restates it.
    """
    steps = draft.steps
    conclusion = _conclusion_index(steps)
    rejected = sorted(
        {i for i, s in enumerate(steps) if s.status == StepStatus.REJECTED}
        | {r for s in steps for r in s.rejects if 0 <= r < len(steps)}
    )
    rejected = [i for i in rejected if steps[i].content.strip()]
    produced = draft.produced
    if rejected:
        text = steps[rejected[0]].content
        entries: list[tuple[int | None, StepDraft]] = list(enumerate(steps))
        if conclusion is None:
            entries.append((None, StepDraft(kind=StepKind.CONCLUSION, content=text)))
        else:
            entries[conclusion] = (
                conclusion,
                replace(steps[conclusion], content=text, cites=(), rejects=()),
            )
        if produced is not None:
            produced = replace(produced, content=text)
        return replace(draft, steps=_rebuild(entries), produced=produced)

    if conclusion is not None and steps[conclusion].content.strip():
        text = steps[conclusion].content
    elif produced is not None and produced.content.strip():
        text = produced.content
    else:
        text = draft.task
    at = len(steps) if conclusion is None else conclusion
    entries = list(enumerate(steps))
    hypothesis = StepDraft(kind=StepKind.THOUGHT, content=text, status=StepStatus.HYPOTHESIS)
    rejection = StepDraft(
        kind=StepKind.THOUGHT,
        content="Ruled out: the observations so far contradict this hypothesis.",
        rejects=(at,),
    )
    entries[at:at] = [(None, hypothesis), (None, rejection)]
    if conclusion is None:
        entries.append((None, StepDraft(kind=StepKind.CONCLUSION, content=text)))
    return replace(draft, steps=_rebuild(entries))


#: Variant builders by name (the original is the identity).
BUILDERS: dict[str, Callable[[TraceDraft], TraceDraft]] = {
    "original": lambda d: d,
    "loop": make_loop,
    "no_evidence": make_no_evidence,
    "concludes_rejected": make_concludes_rejected,
}


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
        corpus: the corpus root (holding ``trajectories/`` and ``adrs/``).

    Returns:
        Sorted paths: every file under ``trajectories/`` and every ``.md`` under ``adrs/``,
        except ``SOURCE.md``/``README.md`` descriptions.
    """
    found = [p for p in (corpus / "trajectories").rglob("*") if p.is_file()]
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
