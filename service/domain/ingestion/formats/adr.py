"""The ``adr`` format: an architecture decision record in any common template, one unit."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import PurePosixPath

from service.domain.ingestion.formats.adr_meta import (
    adr_date,
    adr_status,
    numbered_title,
    title_number,
)
from service.domain.ingestion.formats.adr_options import (
    arguments_by_option,
    because,
    chosen_options,
    option_items,
    option_name,
    prefixed,
)
from service.domain.ingestion.formats.adr_sections import (
    BODY_AMENDS,
    Document,
    key_values,
    read_document,
    relation_clauses,
)
from service.domain.ingestion.formats.adr_status_dates import ISO_DATE
from service.domain.ingestion.formats.common import (
    MAX_OBSERVATION_CHARS,
    MAX_STEP_CHARS,
    FormatError,
    obs,
    source_stem,
    truncate,
)
from service.domain.ingestion.formats.markdown import lead_ins_joined
from service.domain.models import (
    IngestUnit,
    Kind,
    ProducedDraft,
    StepDraft,
    StepKind,
    StepStatus,
    TraceDraft,
)

_REF_TOKEN = re.compile(r"[A-Za-z0-9][\w.\-]*")
_ISO_DATE = re.compile(rf"\b{ISO_DATE}")
_ADR_NUMBER = re.compile(r"(?:(?:adr|rfc|dr|add|decision)[-_ ]?)?0*(\d+)")
#: A decision stated in prose: a Y-statement's "we decided for/to", "we will", "we chose".
_DECIDED = re.compile(
    r"(?is)\b(?:we|i) (?:decided|have decided|decide|chose|choose|will|propose|opted) (?:for |to |on )?(.+?)(?:\.\s|\n\n|$)"
)
#: A Y-statement ("In the context of ..., facing ..., we decided for ..."): a record by itself
#: even before any section.
_Y_CONTEXT = re.compile(r"(?i)\bin the context of\b")
_Y_DECIDED = re.compile(r"(?i)\bwe (?:have )?(?:decided|chose)\b")
#: Preamble paragraphs that are navigation or admonition fences, not content.
_PREAMBLE_NOISE = re.compile(r"(?i)^\s*(?::::.*|(?:table of )?contents:?|\[toc\])\s*$")
#: The warning for a section with no role (`ROLES`), naming it.
_UNPLACED = (
    "adr.unplaced_section: section '{}' has no known role: kept as an observation, not a step"
)
#: The last time a `datetime` holds: a record dated then that says it ended cannot end after it.
_LAST_INSTANT = datetime.max.replace(tzinfo=UTC)
#: What a record's own status (or a ``[superseded]`` mark in its title) says when its decision no
#: longer holds, in the order they are looked for.
_ENDED = (
    ("superseded", r"superseded"),
    ("deprecated", r"deprecated|obsolete|retired"),
    ("rejected", r"rejected|declined|withdrawn|abandoned"),
)


def lifecycle(status: str, title: str, superseded_by: list[str]) -> str | None:
    """Return how an ADR says its decision ended: superseded, deprecated or rejected, else None.

    Read in the record's current status (``superseded by ADR-0057``, ``Deprecated``,
    ``rejected``), a bracketed or parenthesised mark in its title (``ADR013: [superseded] ...``)
    and its own "superseded by X" links (a ``:::note Superseded`` admonition).

    Args:
        status: the record's current status text (may be empty).
        title: its title.
        superseded_by: the ADRs it says supersede it (`adr_key` values).

    Returns:
        ``"superseded"``, ``"deprecated"``, ``"rejected"``, or None for a decision in force.
    """
    for ended, words in _ENDED:
        if re.search(rf"(?i)\b(?:{words})\b", status) or re.search(
            rf"(?i)[\[(]\s*(?:{words})\s*[\])]", title
        ):
            return ended
    return "superseded" if superseded_by else None


def adr_key(reference: str) -> str:
    """Return the normalised key of an ADR reference, for supersession matching.

    ``"ADR-0057"``, ``"0057"``, ``"0057-allow-positional-input-file-argument"`` and
    ``"docs/decisions/0057-allow-positional-input-file-argument.md"`` all give ``"57"``;
    ``"20201016-use-the-adr-slug-as-its-unique-id"`` gives ``"20201016"``; ``"adr014-use-fetch"``
    and ``"ADR014"`` give ``"14"``, ``"RFC-3"`` gives ``"3"``. A reference without a leading number gives its lower-cased
    file stem (slug).

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


def _refs(text: str, own: str) -> list[str]:
    # A date names no record ("Superseded by ADR-12 on 2023-01-05" is not ADR 2023).
    tokens = [t.strip(".-") for t in _REF_TOKEN.findall(_ISO_DATE.sub(" ", text))]
    tokens = [t for t in tokens if t and t.lower() not in ("adr", "by", "the", "and", "see")]
    numbered = [t for t in tokens if any(ch.isdigit() for ch in t)][:3]
    # Without a number, only a slug names a record (`use-postgres`, `use_postgres.md`): the
    # first word of prose ("replaces the nightly cron job") does not.
    slugs = [t for t in tokens if "-" in t or "_" in t or t.lower().endswith(".md")][:1]
    chosen = numbered or slugs
    return [k for k in (adr_key(t) for t in chosen) if k != own]


def _y_statement(text: str) -> bool:
    """True when `text` is a Y-statement: "In the context of ...", then "we decided / chose".

    Two searches, not one pattern spanning them, so the time stays linear in the text.
    """
    context = _Y_CONTEXT.search(text)
    return context is not None and _Y_DECIDED.search(text, context.end()) is not None


def _statement(doc: Document) -> str:
    """Return the sentence that states the decision ("we decided for / we will ...").

    Looked for in the summary and context sections, else in a Y-statement paragraph before the
    first section; empty when there is none.
    """
    prose = "\n\n".join(s.text for s in doc.of("summary", "context"))
    stated = _DECIDED.search(prose)
    if stated is None:
        ys = [b.text for b in doc.preamble if b.kind == "paragraph" and _y_statement(b.text)]
        stated = _DECIDED.search("\n\n".join(ys))
    return stated.group(0).strip() if stated else ""


def parse(content: str, source_name: str) -> list[IngestUnit]:
    """Parse an architecture decision record of any common template into one unit.

    Input: ``adr`` (Markdown ADRs: MADR, Nygard, log4brains, Alexandrian/Y-statement, Tyree &
    Akerman, Tendermint-style changelog templates, YAML front matter, metadata tables)

    Sections are placed by the role of their heading at any level (`ROLES`: status, changelog,
    summary, context, drivers, options, arguments, decision, design, consequences, rejection, links;
    an unnamed subsection takes its parent's role). One unit per file, ``name`` = file stem,
    ``title`` = the first ``#`` heading (in an arc42 chapter its ``ADR n`` heading:
    `read_document`), else front matter ``title``, else the stem, written ``ADR n: ...`` when
    numbered (`numbered_title`). The record's own ADR key (``extra["adr_key"]``, the decision's
    ``adr_name``) is the stem's `adr_key`; a stem without a number (``use-postgres``) takes the
    number its title starts with (``ADR 7: ...``, ``7. ...``: `title_number`), if any. Steps in
    order: one ``observation`` per preamble paragraph that is not metadata or navigation (e.g. a
    ``:::note Superseded`` admonition's text), per block of the summary and context sections; one
    ``observation`` per drivers section (``"<heading>: item; item"``); one ``thought`` (status
    ``hypothesis``) per option (list items of the options sections that are not bare links, or ``(1)
    ...`` paragraphs), or one ``thought`` with the options text when it lists none; then, when the
    decision names options (quoted names, or an option's name contained in it, its first and last
    words present): a ``thought`` confirming each chosen option with ``Good``/``Pro`` arguments, a
    ``thought`` rejecting each other option with ``Bad``/``Con`` arguments (``rejects``), and one
    ``thought`` rejecting together the others (the decision's ``because`` clause, else the
    decision); when no option was named but the section is an *alternatives* one, that last
    ``thought`` rejects all of them. Then one ``thought`` per arguments section not matched to an
    option, per design section, per consequences section and per rejection section (``Rationale for
    rejection``: the last thought) (``"<heading>: text"``, trimmed to `MAX_STEP_CHARS`), and last
    the ``conclusion``: the decision sections' own text -- or, with no decision section, the
    sentence where the summary or context says "we decided for / we will ..." (a Y-statement; also a
    Y-statement paragraph, "In the context of ... we decided for ...", before the first section).
    The produced ``decision`` is ``"<title>: <decision>"`` with status ``active``.

    Metadata comes from front matter, ``Key: value`` lines or list items before the first section
    (each line its own key, also on consecutive lines, and so is a relation line such as
    ``Supersedes ADR-59``, keyed by its phrase, also first in its paragraph; a line that is neither
    continues the value above it), and metadata tables (`table_pairs`: one ``key | value`` pair per
    row of two columns, or a header row of keys and a value row; ``| a | b |`` rows without their
    ``|---|`` line too); status from front matter, metadata or the first status line of a Status
    section that is no link to other records (``Supersedes ADR-59`` is not; ``Superseded by ADR-61``
    gives ``Superseded``, the line kept in the history), whose ``Date:`` and other metadata lines
    (and a line that is only a date) add to the metadata (`adr_status`); its history from the
    Changelog and the other status lines. Relations are read in the title, status, metadata,
    preamble (admonitions such as ``:::note Superseded``) and links sections: "superseded by X" /
    "supersedes X", "replaces X", "(partly) undo X" fill ``superseded_by`` / ``supersedes`` (a
    `SUPERSEDES` link); "amends/builds on/extends/refines X" and, anywhere in the body, "Following
    [ADR n]" fill ``amends`` (the weaker `AMENDS` link). References are `adr_key` values. ``Date``
    (or ``last revised``, ``created``...) sets ``valid_from`` (UTC midnight); a date given but not
    readable leaves it None (the ingestion's time) with the warning
    ``ingest.adr_date_unreadable: <file>: date '<text>' ...``; a date later than now is kept with
    the warning ``ingest.adr_date_in_future: <file>: dated <date>, ...`` (`adr_date`). A record
    whose own status or title says it is superseded, deprecated or rejected (`lifecycle`) has that
    word in ``extra["lifecycle"]`` (None while in force): its decision is written closed in valid
    time (`service.domain.ingestion.supersession`). Sections with no role and some text are
    *unplaced*: kept as observations (not steps), listed in ``extra["unplaced_sections"]`` and
    each named by a warning ``adr.unplaced_section: section '<heading>' has no known role ...``;
    tables of contents are listed in ``extra["skipped_sections"]``.

    Args:
        content: the record's Markdown (optionally with YAML front matter).
        source_name: its file name; the stem keys and names the unit.

    Returns:
        One unit: the decision as a trace, with its ADR key, status (and history), options,
        chosen ones, amends links, unplaced sections and warnings in ``extra``.

    Raises:
        FormatError: no decision section or decision statement, front matter that is not
            YAML, or a record that says it ended dated 9999-12-31T23:59:59.999999Z (the last
            instant a time can hold: its end cannot come after it).
    """
    doc = read_document(content)
    stem = source_stem(source_name)
    title = doc.title or stem
    own = adr_key(stem)
    if not own.isdigit():  # a file named by its slug: the title may carry the number
        own = title_number(title) or own
    title = numbered_title(title, stem, own)
    meta_kv = key_values(doc.preamble)
    for key, value in doc.meta.items():
        if isinstance(value, (str, int, float)) or hasattr(value, "isoformat"):
            meta_kv.setdefault(str(key).lower(), str(value))
    status, history = adr_status(doc, meta_kv)

    decision_sections = doc.of("decision")
    decision_text = "\n".join(s.text for s in decision_sections if s.text).strip()
    decision_text = decision_text or _statement(doc)
    if not decision_text:
        raise FormatError(f"adr: {source_name}: no decision section or decision statement found")

    # relations
    texts = [title, status, *history]
    texts += [f"{k} {v}" for k, v in meta_kv.items() if k != "title"]
    # A metadata paragraph line by line (a "superseded by X" status is not followed by its date).
    texts += [
        line
        for b in doc.preamble
        if b.kind != "table"
        for line in (b.lines if key_values([b]) else (b.text,))
    ]
    texts += [i for s in doc.of("links") for b in s.blocks for i in (b.items or (b.text,))]
    relations: dict[str, list[str]] = {
        "supersedes": [],
        "superseded_by": [],
        "amends": [],
        "amended_by": [],
    }
    for kind, rest in relation_clauses(texts):
        relations[kind] += _refs(rest, own)
    body = "\n".join(s.text for s in doc.sections)
    relations["amends"] += [k for k in (adr_key(m) for m in BODY_AMENDS.findall(body)) if k != own]
    relations = {k: list(dict.fromkeys(v)) for k, v in relations.items()}
    relations["amends"] = [k for k in relations["amends"] if k not in relations["supersedes"]]
    valid_from, date_warning = adr_date(doc.meta, meta_kv, source_name)
    ended = lifecycle(status, title, relations["superseded_by"])
    if ended and valid_from == _LAST_INSTANT:
        raise FormatError(
            f"adr: {source_name}: dated {valid_from.isoformat().replace('+00:00', 'Z')}, the "
            f"last instant a time can hold, yet {ended}: its end cannot come after its date; "
            "give the record's real date"
        )

    steps: list[StepDraft] = []
    observations: list[str] = []
    trimmed = 0

    def observe(text: str) -> None:
        nonlocal trimmed
        trimmed += len(text) > MAX_OBSERVATION_CHARS
        steps.append(
            StepDraft(
                kind=StepKind.OBSERVATION,
                content=truncate(text, MAX_OBSERVATION_CHARS),
                cites=(obs(len(observations)),),
            )
        )
        observations.append(truncate(text, MAX_OBSERVATION_CHARS))

    def think(text: str, rejects: tuple[int, ...] = (), status: str = StepStatus.ASSERTED) -> int:
        nonlocal trimmed
        trimmed += len(text) > MAX_STEP_CHARS
        steps.append(
            StepDraft(
                kind=StepKind.THOUGHT,
                content=truncate(text, MAX_STEP_CHARS),
                rejects=rejects,
                status=status,
            )
        )
        return len(steps) - 1

    for block in doc.preamble:
        noise = _PREAMBLE_NOISE.match(block.text) or key_values([block])
        if block.kind == "paragraph" and not noise:
            observe(block.text)
    for section in doc.of("summary", "context"):
        for text in lead_ins_joined(section.blocks):
            observe(text)
    for section in doc.of("drivers"):
        items = [i for b in section.blocks for i in (b.items or (b.text,)) if i]
        if items:
            observe(f"{section.title}: " + "; ".join(items))

    options_sections = doc.of("options")
    options = [o for s in options_sections for o in option_items(s)]
    option_steps = [think(o, status=StepStatus.HYPOTHESIS) for o in options]
    if not options:
        for s in options_sections:
            if s.text:
                think(f"{s.title}: {s.text}")
    first = decision_sections[0].text.split("\n")[0] if decision_sections else decision_text
    chosen = chosen_options(options, first) or chosen_options(options, decision_text)
    by_option, other_arguments = arguments_by_option(options, doc.of("arguments"))
    alternatives = any("alternative" in s.title.lower() for s in options_sections)
    if options and (chosen or alternatives):
        unexplained: list[int] = []
        for oi, option in enumerate(options):
            blocks = by_option.get(oi, [])
            if oi in chosen:
                pros = prefixed(blocks, ("good", "pro"))
                if pros:
                    think(f"Chosen option '{option_name(option)}': {'; '.join(pros)}")
                continue
            cons = prefixed(blocks, ("bad", "con"))
            if cons:
                think(
                    f"Rejected option '{option_name(option)}': {'; '.join(cons)}",
                    (option_steps[oi],),
                )
            else:
                unexplained.append(oi)
        if unexplained:
            names = ", ".join(f"'{option_name(options[i])}'" for i in unexplained)
            why = because(decision_text) or decision_text
            picked = " and ".join(f"'{option_name(options[i])}'" for i in chosen) or "another way"
            think(
                f"Rejected {names}: the decision chose {picked} because {why}",
                tuple(option_steps[i] for i in unexplained),
            )
    # Why a record was rejected comes last: the reason its conclusion never held.
    ended_by = doc.of("rejection")
    for section in [*other_arguments, *doc.of("design"), *doc.of("consequences"), *ended_by]:
        if section.text:
            think(f"{section.title}: {section.text}")
    trimmed += len(decision_text) > MAX_STEP_CHARS
    steps.append(
        StepDraft(kind=StepKind.CONCLUSION, content=truncate(decision_text, MAX_STEP_CHARS))
    )
    produced = ProducedDraft(
        kind=Kind.DECISION,
        content=truncate(f"{title}: {decision_text}", MAX_STEP_CHARS),
        status="active",
    )

    unplaced = [s for s in doc.sections if s.role is None and s.text]
    for section in unplaced:
        observations.append(truncate(f"{section.title}: {section.text}", MAX_OBSERVATION_CHARS))
    return [
        IngestUnit(
            key=stem,
            title=title,
            observations=tuple(observations),
            trace=TraceDraft(task=title, steps=tuple(steps), produced=produced),
            valid_from=valid_from,
            supersedes=tuple(relations["supersedes"]),
            superseded_by=tuple(relations["superseded_by"]),
            name=stem,
            extra={
                "format": "adr",
                "adr_key": own,
                "status": status,
                "status_history": history,
                "lifecycle": ended,
                "options": options,
                "chosen": [options[i] for i in chosen],
                "amends": relations["amends"],
                "amended_by": relations["amended_by"],
                "unplaced_sections": [s.title for s in unplaced],
                "skipped_sections": [s.title for s in doc.of("skip")],
                "trimmed": trimmed,
                "warnings": [
                    *(_UNPLACED.format(s.title) for s in unplaced),
                    *([date_warning] if date_warning else []),
                ],
            },
        )
    ]


def adr_signals(content: str) -> list[str]:
    """Return why Markdown reads as an ADR (empty when it does not).

    An ADR states a decision -- a decision-role heading (`ROLES`) or, in a summary or context
    (or a Y-statement before the first section), "we decided for / we will ..." -- and shows one
    more ADR trait: a status (front matter, metadata line or table, Status section), a context,
    options, consequences or changelog section, or an ``ADR n`` title.

    Args:
        content: the material, as text.

    Returns:
        The signals seen, e.g. ``["decision section 'Decision Outcome'", "status 'accepted'"]``.
    """
    try:
        doc = read_document(content)
    except FormatError:
        return []
    decision = doc.of("decision")
    signals: list[str] = []
    if decision:
        signals.append(f"decision section '{decision[0].title}'")
    elif _statement(doc):
        signals.append("a decision statement ('we decided / we will ...') in the summary")
    else:
        return []
    meta_kv = key_values(doc.preamble)
    if doc.meta.get("status") or meta_kv.get("status") or doc.of("status"):
        signals.append("a status (front matter, metadata or section)")
    for role in ("context", "options", "consequences", "changelog", "drivers"):
        found = doc.of(role)
        if found:
            signals.append(f"{role} section '{found[0].title}'")
    if re.search(r"(?i)\badr[- _]?\d+", doc.title):
        signals.append("an 'ADR n' title")
    return signals if len(signals) >= 2 else []


def looks_like_adr(content: str) -> bool:
    """Return True when Markdown reads as an ADR (`adr_signals` is not empty)."""
    return bool(adr_signals(content))
