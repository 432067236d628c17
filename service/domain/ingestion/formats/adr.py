"""The ``adr`` format: a Markdown architecture decision record (MADR, Nygard, log4brains), one unit."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

import yaml

from service.domain.ingestion.formats.common import (
    MAX_OBSERVATION_CHARS,
    MAX_STEP_CHARS,
    FormatError,
    as_text,
    obs,
    parse_time,
    source_stem,
    truncate,
)
from service.domain.ingestion.formats.markdown import Block, parse_blocks
from service.domain.models import (
    IngestUnit,
    Kind,
    ProducedDraft,
    StepDraft,
    StepKind,
    StepStatus,
    TraceDraft,
)
from service.domain.text import containment, similarity

_CONTEXT = {"context and problem statement", "context", "problem statement", "context and problem"}
_DRIVERS = {"decision drivers"}
_OPTIONS = {"considered options", "options"}
_OUTCOME = {"decision outcome", "decision"}
_PROS_CONS = {"pros and cons of the options", "pros and cons"}
_STATUS = {"status"}
_LINKS = {"links"}
_ADR_HEADINGS = _CONTEXT | _DRIVERS | _OPTIONS | _OUTCOME | _PROS_CONS | _STATUS | {"consequences"}
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”")
_REF_TOKEN = re.compile(r"[A-Za-z0-9][\w.\-]*")
_ADR_NUMBER = re.compile(r"(?:adr[-_ ]?)?0*(\d+)")


def adr_key(reference: str) -> str:
    """Return the normalised key of an ADR reference, for supersession matching.

    ``"ADR-0057"``, ``"0057"``, ``"0057-allow-positional-input-file-argument"`` and
    ``"docs/decisions/0057-allow-positional-input-file-argument.md"`` all give ``"57"``;
    ``"20201016-use-the-adr-slug-as-its-unique-id"`` gives ``"20201016"``. A reference without
    a leading number gives its lower-cased file stem (slug).

    Args:
        reference: an ADR number, name, file stem or path, as written in a record.

    Returns:
        The leading number without leading zeros, or the lower-cased slug.
    """
    name = PurePosixPath(reference.strip().replace("\\", "/")).name.lower()
    if name.endswith(".md"):
        name = name[:-3]
    match = _ADR_NUMBER.match(name)
    return match.group(1) if match else name


def _heading_name(text: str) -> str:
    return " ".join(text.lower().strip().rstrip(":").split())


@dataclass
class _Section:
    name: str
    title: str
    blocks: list[Block] = field(default_factory=list)
    subsections: list[tuple[str, list[Block]]] = field(default_factory=list)


@dataclass
class _Adr:
    title: str
    preamble: list[Block]
    sections: list[_Section]

    def section(self, names: set[str]) -> _Section | None:
        return next((s for s in self.sections if s.name in names), None)


def _split_front_matter(content: str) -> tuple[dict[str, Any], str]:
    lines = content.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return {}, content
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            try:
                meta = yaml.safe_load("".join(lines[1:i]))
            except yaml.YAMLError as exc:
                raise FormatError(f"adr: front matter is not valid YAML ({exc})") from exc
            return (meta if isinstance(meta, dict) else {}), "".join(lines[i + 1 :])
    return {}, content


def _read_adr(body: str) -> _Adr:
    title = ""
    preamble: list[Block] = []
    sections: list[_Section] = []
    for block in parse_blocks(body):
        if block.kind == "heading" and block.level == 1 and not title:
            title = block.text
        elif block.kind == "heading" and block.level == 2:
            sections.append(_Section(_heading_name(block.text), block.text))
        elif block.kind == "heading" and block.level == 3 and sections:
            sections[-1].subsections.append((block.text, []))
        elif sections and sections[-1].subsections:
            sections[-1].subsections[-1][1].append(block)
        elif sections:
            sections[-1].blocks.append(block)
        else:
            preamble.append(block)
    return _Adr(title, preamble, sections)


def _key_values(blocks: Iterable[Block]) -> dict[str, str]:
    found: dict[str, str] = {}
    for block in blocks:
        lines = block.items if block.kind == "list" else tuple(block.text.splitlines())
        for line in lines:
            key, sep, value = line.partition(":")
            if sep and key.strip().lower() in ("status", "date") and value.strip():
                found.setdefault(key.strip().lower(), value.strip())
    return found


def _refs(text: str) -> list[str]:
    tokens = [t.strip(".-") for t in _REF_TOKEN.findall(text)]
    tokens = [t for t in tokens if t and t.lower() not in ("adr", "by", "the", "and", "see")]
    numbered = [t for t in tokens if any(ch.isdigit() for ch in t)]
    chosen = numbered or tokens[:1]
    return [adr_key(t) for t in chosen]


def _supersession(clauses: Iterable[str]) -> tuple[list[str], list[str]]:
    supersedes: list[str] = []
    superseded_by: list[str] = []
    for clause in clauses:
        lower = clause.lower()
        if "superseded by" in lower:
            superseded_by += _refs(clause[lower.index("superseded by") + len("superseded by") :])
        elif "supersedes" in lower:
            supersedes += _refs(clause[lower.index("supersedes") + len("supersedes") :])
    return list(dict.fromkeys(supersedes)), list(dict.fromkeys(superseded_by))


def _match_score(a: str, b: str) -> float:
    return max(similarity(a, b), containment(a, b), containment(b, a))


def _chosen_options(options: Sequence[str], outcome_first: str) -> list[int]:
    chosen: list[int] = []
    quoted = [a or b for a, b in _QUOTED.findall(outcome_first)]
    for name in quoted:
        scores = [
            (containment(name, opt), similarity(name, opt), -i) for i, opt in enumerate(options)
        ]
        best = max(scores, default=None)
        if best is not None and best[0] >= 0.5:
            index = -best[2]
            if index not in chosen:
                chosen.append(index)
    if not chosen:
        lower = " ".join(outcome_first.lower().split())
        chosen = [i for i, opt in enumerate(options) if " ".join(opt.lower().split()) in lower]
    return sorted(chosen)


def _assign_pros_cons(
    options: Sequence[str], subsections: Sequence[tuple[str, list[Block]]]
) -> dict[int, list[Block]]:
    pairs = sorted(
        (
            (_match_score(opt, title), -oi, -si)
            for oi, opt in enumerate(options)
            for si, (title, _) in enumerate(subsections)
        ),
        reverse=True,
    )
    assigned: dict[int, list[Block]] = {}
    used: set[int] = set()
    for score, neg_oi, neg_si in pairs:
        oi, si = -neg_oi, -neg_si
        if score < 0.5 or oi in assigned or si in used:
            continue
        assigned[oi] = subsections[si][1]
        used.add(si)
    return assigned


def _arguments(blocks: Iterable[Block], prefix: str) -> list[str]:
    out: list[str] = []
    for block in blocks:
        for item in block.items:
            if item.lower().startswith(prefix):
                out.append(item)
    return out


def _because(text: str) -> str:
    lower = text.lower()
    if "because" not in lower:
        return ""
    return text[lower.index("because") + len("because") :].strip(" ,:\n")


def parse(content: str, source_name: str) -> list[IngestUnit]:
    """Parse an architecture decision record into one unit.

    Input: ``adr`` (Markdown architecture decision records: MADR, Nygard, log4brains)

    One unit per file, ``name`` = file stem, ``title`` = the first ``#`` heading. Steps in
    order: one ``observation`` step per block (paragraph, list, code, quote, table) of the
    context section (``Context and Problem Statement`` / ``Context``), one ``observation``
    step for the ``Decision Drivers`` (if any), one ``thought`` step with status
    ``hypothesis`` per considered option (its text), then -- when the outcome names a chosen
    option -- the evaluations, in option order: a ``thought`` confirming each chosen option
    that has ``Good, because`` arguments (they are its content), a ``thought`` rejecting each
    other option that has ``Bad, because`` arguments (``rejects=(option step,)``, the cons
    are the reason), and one last ``thought`` rejecting together the other options without
    cons (``rejects`` lists them all; the reason is the outcome's ``because`` clause); last,
    one ``conclusion`` step with the outcome text (``Decision Outcome`` / ``Decision``,
    subsections excluded), which also confirms the chosen options. So ``len(steps) ==
    context blocks + (1 if drivers) + options + (chosen options with pros + other options
    with cons + (1 if some other option has no cons), when a choice was identified) + 1``.
    The produced ``decision`` is ``"<title>: <outcome>"`` with status ``active``. The chosen options are the quoted names of the outcome's first
    paragraph matched to the considered options. Status comes from YAML front matter
    ``status``, a ``Status:`` line before the first ``##`` section, or a ``Status`` section;
    ``superseded by X`` / ``supersedes X`` clauses there and ``Supersedes X`` /
    ``Superseded by X`` items of a ``Links`` section fill ``superseded_by`` / ``supersedes``
    with `adr_key` values. ``Date`` (front matter or status line) sets ``valid_from`` (UTC
    midnight). Other sections (consequences, more information, ...) are listed in
    ``unit.extra["ignored_sections"]``.

    Args:
        content: the record's Markdown (optionally with YAML front matter).
        source_name: its file name; the stem keys the unit and is its `adr_key`.

    Returns:
        One unit: the decision as a trace, with status, options and chosen ones in ``extra``.

    Raises:
        FormatError: no decision section, an empty one, or front matter that is not YAML.
    """
    meta, body = _split_front_matter(content)
    adr = _read_adr(body)
    stem = source_stem(source_name)
    title = adr.title or as_text(meta.get("title")).strip() or stem
    outcome = adr.section(_OUTCOME)
    if outcome is None:
        raise FormatError(f"adr: {source_name}: no 'Decision Outcome' or 'Decision' section")
    outcome_blocks = [b for b in outcome.blocks if b.kind not in ("html", "hr", "heading")]
    outcome_text = "\n".join(b.text for b in outcome_blocks if b.text).strip()
    if not outcome_text:
        raise FormatError(f"adr: {source_name}: the decision section is empty")

    # status, date and supersession
    key_values = _key_values(adr.preamble)
    status_section = adr.section(_STATUS)
    status = (
        as_text(meta.get("status")).strip()
        or key_values.get("status", "")
        or ("\n".join(b.text for b in status_section.blocks).strip() if status_section else "")
    )
    clauses = re.split(r"[;,\n]", status)
    links = adr.section(_LINKS)
    if links is not None:
        clauses += [item for b in links.blocks for item in b.items]
    supersedes, superseded_by = _supersession(clauses)
    valid_from = parse_time(meta.get("date")) or parse_time(key_values.get("date"))

    # steps
    steps: list[StepDraft] = []
    observations: list[str] = []

    def observe(text: str) -> None:
        steps.append(
            StepDraft(kind=StepKind.OBSERVATION, content=text, cites=(obs(len(observations)),))
        )
        observations.append(text)

    context = adr.section(_CONTEXT)
    if context is not None:
        blocks = list(context.blocks) + [b for _, bs in context.subsections for b in bs]
        for block in blocks:
            if block.kind not in ("html", "hr", "heading") and block.text:
                observe(truncate(block.text, MAX_OBSERVATION_CHARS))
    drivers = adr.section(_DRIVERS)
    if drivers is not None:
        items = [item for b in drivers.blocks for item in (b.items or (b.text,)) if item]
        if items:
            observe(truncate("Decision drivers: " + "; ".join(items), MAX_OBSERVATION_CHARS))

    options_section = adr.section(_OPTIONS)
    options = [item for b in options_section.blocks for item in b.items] if options_section else []
    first_paragraph = outcome_blocks[0].text if outcome_blocks else ""
    chosen = _chosen_options(options, first_paragraph)
    pros_cons_section = adr.section(_PROS_CONS)
    pros_cons = _assign_pros_cons(
        options, pros_cons_section.subsections if pros_cons_section else []
    )
    option_steps: list[int] = []
    for option in options:
        option_steps.append(len(steps))
        steps.append(StepDraft(kind=StepKind.THOUGHT, content=option, status=StepStatus.HYPOTHESIS))
    if chosen:
        chosen_names = " and ".join(f"'{options[i]}'" for i in chosen)
        unexplained: list[int] = []
        for oi, option in enumerate(options):
            blocks = pros_cons.get(oi, [])
            if oi in chosen:
                pros = _arguments(blocks, "good")
                if pros:
                    content = f"Chosen option '{option}': {'; '.join(pros)}"
                    steps.append(
                        StepDraft(kind=StepKind.THOUGHT, content=truncate(content, MAX_STEP_CHARS))
                    )
                continue
            cons = _arguments(blocks, "bad")
            if not cons:
                unexplained.append(oi)
                continue
            steps.append(
                StepDraft(
                    kind=StepKind.THOUGHT,
                    content=truncate(
                        f"Rejected option '{option}': {'; '.join(cons)}", MAX_STEP_CHARS
                    ),
                    rejects=(option_steps[oi],),
                )
            )
        if unexplained:
            names = ", ".join(f"'{options[i]}'" for i in unexplained)
            justification = _because(outcome_text) or outcome_text
            content = f"Rejected {names}: the outcome chose {chosen_names} because {justification}"
            steps.append(
                StepDraft(
                    kind=StepKind.THOUGHT,
                    content=truncate(content, MAX_STEP_CHARS),
                    rejects=tuple(option_steps[i] for i in unexplained),
                )
            )
    steps.append(
        StepDraft(kind=StepKind.CONCLUSION, content=truncate(outcome_text, MAX_STEP_CHARS))
    )
    produced = ProducedDraft(
        kind=Kind.DECISION,
        content=truncate(f"{title}: {outcome_text}", MAX_STEP_CHARS),
        status="active",
    )
    known = _CONTEXT | _DRIVERS | _OPTIONS | _OUTCOME | _PROS_CONS | _STATUS | _LINKS
    ignored = [s.title for s in adr.sections if s.name not in known]
    ignored += [f"{outcome.title} / {t}" for t, _ in outcome.subsections]
    return [
        IngestUnit(
            key=stem,
            title=title,
            observations=tuple(observations),
            trace=TraceDraft(task=title, steps=tuple(steps), produced=produced),
            valid_from=valid_from,
            supersedes=tuple(supersedes),
            superseded_by=tuple(superseded_by),
            name=stem,
            extra={
                "format": "adr",
                "adr_key": adr_key(stem),
                "status": status,
                "options": options,
                "chosen": [options[i] for i in chosen],
                "ignored_sections": ignored,
            },
        )
    ]


def looks_like_adr(content: str) -> bool:
    """Return True for Markdown with a decision heading and another ADR heading (or ``status``).

    Raises:
        FormatError: front matter that is not valid YAML.
    """
    meta, body = _split_front_matter(content)
    names = {_heading_name(b.text) for b in parse_blocks(body) if b.kind == "heading"}
    has_decision = bool(names & _OUTCOME)
    return has_decision and (len(names & _ADR_HEADINGS) >= 2 or "status" in meta)
