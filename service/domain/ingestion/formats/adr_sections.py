"""Reading an ADR of any template: sections by role, metadata, status history, relation clauses."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml

from service.domain.ingestion.formats.adr_roles import role_of
from service.domain.ingestion.formats.adr_tables import is_meta_key, table_pairs, table_rows
from service.domain.ingestion.formats.adr_title import record_heading
from service.domain.ingestion.formats.asciidoc import as_markdown, is_asciidoc
from service.domain.ingestion.formats.common import FormatError, as_text
from service.domain.ingestion.formats.markdown import Block, parse_blocks

#: Relation clauses: (kind, pattern); the ADR references follow the phrase. Any run of white
#: space may part a phrase's words (``superseded  by``, ``superseded\tby``); case is ignored.
RELATIONS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("superseded_by", re.compile(r"(?i)\b(?:superseded|replaced|obsoleted)\s+by\b")),
    (
        "supersedes",
        re.compile(
            r"(?i)\b(?:supersedes|replaces|obsoletes|(?:partly\s+|partially\s+)?undo(?:es)?)\b"
        ),
    ),
    ("amended_by", re.compile(r"(?i)\b(?:amended|extended|refined)\s+by\b")),
    ("amends", re.compile(r"(?i)\b(?:amends|builds\s+on|building\s+on|extends|refines)\b")),
)
#: A reStructuredText field or AsciiDoc attribute line: ``:Status: Accepted``.
_FIELD_LINE = re.compile(r"^\s*:([A-Za-z][\w -]{0,29}):(?:\s+(.*))?$")
#: What shows that a relation line names a record: a number, a Markdown link, a `.md` file.
_NAMES_RECORD = re.compile(r"\d|\]\(|\.md\b")
#: What may open a line before its relation phrase: list marks, emphasis, white space.
_LINE_MARKS = re.compile(r"^[\s*_>+-]*")
#: ``Following [ADR 013]`` and the like in the body: a builds-on link only with an ADR right after.
BODY_AMENDS = re.compile(
    r"(?i)\b(?:following|builds? on|building on|extends|amends|refines|based on)\s+\[?(ADR[- _]?\d+)"
)


@dataclass
class Section:
    """One heading and the blocks up to the next heading; ``role`` inherited when unnamed."""

    title: str
    level: int
    role: str | None
    own_role: bool
    parent: int | None
    blocks: list[Block] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The section's own text (its blocks, comments and rules left out)."""
        return "\n".join(b.text for b in self.blocks if b.kind not in ("html", "hr") and b.text)


@dataclass
class Document:
    """An ADR as read: front matter, title, preamble blocks and sections in order."""

    meta: dict[str, Any]
    title: str
    preamble: list[Block]
    sections: list[Section]

    def of(self, *roles: str) -> list[Section]:
        """The sections with one of `roles`, in order."""
        return [s for s in self.sections if s.role in roles]


class _TextTimestamps(yaml.SafeLoader):
    """PyYAML's safe loader with timestamps left as text (`split_front_matter`'s fallback)."""


def _timestamp_as_text(loader: _TextTimestamps, node: yaml.Node) -> str:
    assert isinstance(node, yaml.ScalarNode)
    return str(loader.construct_scalar(node))


_TextTimestamps.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_as_text)


def _load_yaml(text: str, loader: type[yaml.SafeLoader] = yaml.SafeLoader) -> Any:
    """Parse front matter with `loader`, reading refused tabs as two spaces each.

    YAML refuses tabs as indentation or separators; an editor's tab after `status:` made a
    whole ADR plain text.
    """
    try:
        return yaml.load(text, Loader=loader)  # a SafeLoader: no object tags
    except yaml.YAMLError:
        if "\t" not in text:
            raise
        return yaml.load(text.replace("\t", "  "), Loader=loader)


def split_front_matter(content: str) -> tuple[dict[str, Any], str]:
    """Return a document's YAML front matter (``{}`` when none) and its body.

    Raises:
        FormatError: front matter that is not valid YAML.
    """
    lines = content.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return {}, content
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            text = "".join(lines[1:i])
            try:
                meta = _load_yaml(text)
            except yaml.YAMLError as exc:
                raise FormatError(f"adr: front matter is not valid YAML ({exc})") from exc
            except (ValueError, OverflowError):
                # A timestamp no calendar has (`date: 2023-02-30`): PyYAML raises while building
                # it. Read as text, it is an unreadable date, as the same `Date:` line would be.
                meta = _load_yaml(text, _TextTimestamps)
            return (meta if isinstance(meta, dict) else {}), "".join(lines[i + 1 :])
    return {}, content


def read_document(content: str) -> Document:
    """Read an ADR: the first level-1 heading is its title (else front matter ``title``).

    A title naming no ``ADR n`` gives way to the one heading that opens with one
    (`record_heading`: an arc42 chapter ``# 9. Architecture Decisions`` holding ``## 9.4 ADR-4:
    ...``); that section's blocks join the preamble.

    An AsciiDoc record (`is_asciidoc`: ``= Title``, ``== Context``) is read as the Markdown it
    corresponds to (`as_markdown`): ``=`` titles are headings of the same level.

    Raises:
        FormatError: front matter that is not valid YAML.
    """
    meta, body = split_front_matter(content)
    title = ""
    preamble: list[Block] = []
    sections: list[Section] = []
    # The sections still open (levels rising): a heading's parent is the latest one of a lower
    # level. A stack, not a search back through every section: 200 kB of same-level headings
    # took 46 s that way.
    open_sections: list[int] = []
    for block in parse_blocks(as_markdown(body) if is_asciidoc(body) else body):
        if block.kind == "heading" and block.level == 1 and not title and not sections:
            title = block.text
        elif block.kind == "heading":
            while open_sections and sections[open_sections[-1]].level >= block.level:
                open_sections.pop()
            parent = open_sections[-1] if open_sections else None
            open_sections.append(len(sections))
            own = role_of(block.text)
            inherited = sections[parent].role if parent is not None else None
            sections.append(
                Section(block.text, block.level, own or inherited, own is not None, parent)
            )
        elif sections:
            sections[-1].blocks.append(block)
        else:
            preamble.append(block)
    title = title or as_text(meta.get("title")).strip()
    record = record_heading(title, [(s.title, s.own_role) for s in sections])
    if record is not None:  # an arc42 chapter: its "ADR n" heading titles it, its text leads
        title, index = record
        preamble += sections[index].blocks
        sections[index].blocks = []
    return Document(meta, title, preamble, sections)


def key_line(line: str) -> tuple[str, str] | None:
    """Return ``(key, value)`` of a metadata line: a ``Key: value`` or a relation line, else None.

    The key is the text before the first ``:``, without emphasis marks, lower-cased with single
    spaces, 1 to 30 characters and no URL (``https://...`` is no key). A relation line
    (`relation_line`) is keyed by its phrase, wherever a ``:`` comes later: ``Supersedes ADR-59
    (see: x)`` gives ``("supersedes", "ADR-59 (see: x)")``; ``Supersedes: ADR-59`` is a ``Key:
    value`` line, and so is a reStructuredText field or AsciiDoc attribute line (``:Status:
    Accepted`` gives ``("status", "Accepted")``) whose name is a metadata key (`is_meta_key`;
    ``:warning:`` opens prose). Only a relation that names a record (a number, a link, a ``.md``
    file) is metadata: ``Replaces the nightly cron job with a queue`` is prose.
    """
    field = _FIELD_LINE.match(line)
    # Only a metadata name: ":warning: Read this first" is an emoji shortcode opening prose.
    if field is not None and is_meta_key(field.group(1)):
        return " ".join(field.group(1).lower().split()), (field.group(2) or "").strip()
    relation = relation_line(line)
    if (
        relation is not None
        and not relation[1].startswith(":")
        and _NAMES_RECORD.search(relation[1])
    ):
        return relation
    key, sep, value = line.partition(":")
    key = " ".join(key.strip("*_ ").lower().split())
    if sep and 0 < len(key) <= 30 and "http" not in key:
        return key, value.strip()
    return None


def relation_line(line: str) -> tuple[str, str] | None:
    """Return ``(phrase, rest)`` of a line that starts with a relation phrase (`RELATIONS`).

    List marks and emphasis before the phrase are skipped; the phrase is lower-cased with single
    spaces; emphasis marks after it are left out of the rest.

    Args:
        line: one line of text, e.g. ``"**Superseded by** [ADR-61](0061-y.md)"``.

    Returns:
        ``("superseded by", "[ADR-61](0061-y.md)")`` for that; None for a line that starts
        otherwise (``"Accepted, supersedes ADR-59"``) or names nothing after its phrase.
    """
    text = _LINE_MARKS.sub("", line)
    for _kind, pattern in RELATIONS:
        match = pattern.match(text)
        if match:
            rest = text[match.end() :].strip("*_ \t")
            return (" ".join(match.group(0).lower().split()), rest) if rest else None
    return None


def _paragraph_pairs(lines: Iterable[str]) -> list[tuple[str, str]]:
    """Return the ``key: value`` pairs of a paragraph whose first line is a metadata line.

    Each metadata line (`key_line`) is its own key: a ``Key: value`` line (``Date: 2023-05-01``
    then ``Status: rejected`` on the next line are two keys) or a relation line (``Supersedes
    ADR-59`` gives ``("supersedes", "ADR-59")``), also as the paragraph's first line; a line that
    is neither continues the value above it, as the source only wrapped it. A paragraph that
    begins otherwise is prose: none.
    """
    pairs: list[tuple[str, str]] = []
    for line in lines:
        pair = key_line(line)
        if pair is not None:
            pairs.append(pair)
        elif not pairs:
            return []
        else:
            key, value = pairs[-1]
            pairs[-1] = (key, f"{value} {line}".strip())
    return pairs


def key_values(blocks: Iterable[Block]) -> dict[str, str]:
    """Return ``key: value`` metadata of list items, lines and metadata tables.

    Tables (also ``| a | b |`` rows without their ``|---|`` line, `table_rows`) give the pairs
    of `table_pairs`: a header of keys over a row of values, or one ``key | value`` pair per row
    of a two-column table. A list item is one metadata line (`key_line`: a ``Key: value`` or a
    relation line such as ``Supersedes ADR-59``, keyed by its phrase); a paragraph whose first
    line is a metadata line has one pair per such line, each other line continuing the value
    above it (`_paragraph_pairs`). Keys are lower-cased; the first value of a key wins; empty
    values are left out.
    """
    found: dict[str, str] = {}
    for block in blocks:
        pairs: list[tuple[str, str]] = []
        rows = table_rows(block)
        if rows:
            pairs = [(k.strip("*_: ").lower(), v.strip()) for k, v in table_pairs(rows) if k and v]
        elif block.kind == "paragraph" and block.lines:
            pairs = _paragraph_pairs(block.lines)
        elif block.kind != "table":
            lines = block.items if block.kind == "list" else tuple(block.text.splitlines())
            pairs = [p for p in (key_line(line) for line in lines) if p is not None]
        for key, value in pairs:
            if key and value:
                found.setdefault(key, value)
    return found


def relation_clauses(texts: Iterable[str]) -> list[tuple[str, str]]:
    """Return `(kind, the text after the phrase)` for each relation phrase in `texts`."""
    out: list[tuple[str, str]] = []
    for text in texts:
        for clause in re.split(r"[;\n]|, (?=[a-z])", text):
            for kind, pattern in RELATIONS:
                match = pattern.search(clause)
                if match:
                    out.append((kind, clause[match.end() :]))
                    break
    return out
