"""AsciiDoc documents read as Markdown: headings, header, lists and delimited blocks."""

from __future__ import annotations

import re

from service.domain.ingestion.formats.adr_tables import is_meta_key

#: A section title: ``= Document title``, ``== Section`` ... ``====== Level 5``.
_HEADING = re.compile(r"^(={1,6})[ \t]+(\S.*)$")
#: An attribute entry: ``:status: accepted``, ``:toc:``, ``:sectnums!:``.
_ATTRIBUTE = re.compile(r"^:(!?[A-Za-z0-9_][\w -]*!?):(?:[ \t]+(.*))?$")
#: Delimiters of blocks whose lines are not AsciiDoc: listing ``----``, literal ``....``,
#: comment ``////``, passthrough ``++++`` (4 or more of the character).
_VERBATIM = re.compile(r"^(?:-{4,}|\.{4,}|/{4,}|\+{4,})$")
#: Delimiters of blocks whose lines are read as they are: example ``====``, sidebar ``****``,
#: quote ``____``, open ``--`` (Markdown would read ``====`` and ``--`` as setext underlines).
_CONTAINER = re.compile(r"^(?:={4,}|\*{4,}|_{4,}|--)$")
#: A block attribute line or anchor: ``[source,java]``, ``[NOTE]``, ``[[adr-7]]``, ``[#id]``.
_BLOCK_ATTRIBUTES = re.compile(r"^\[[^\]]*\]\]?$")
#: A list item: ``* a``, ``** nested``, ``. first``, ``.. nested``.
_LIST_ITEM = re.compile(r"^[ \t]*(\*{1,5}|\.{1,5})[ \t]+(?=\S)")


def is_asciidoc(text: str) -> bool:
    """True when a text reads as AsciiDoc: its first line is an ``=`` title (``= Title``).

    Blank lines, ``//`` comments and attribute entries (``:toc:``) may come before it; a first
    ``== Section`` title counts too. In Markdown such a line is prose (a setext underline is ``=``
    characters only), so no Markdown document with a heading or paragraph first is taken for
    AsciiDoc.
    """
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("//") or _ATTRIBUTE.match(stripped):
            continue
        return _HEADING.match(stripped) is not None
    return False


def _title(marks: str, text: str) -> str:
    """A Markdown heading of an AsciiDoc title; the closing ``==`` of ``== Title ==`` dropped."""
    text = text.rstrip()
    bare = text.rstrip("=")
    if bare != text and bare[-1:] in (" ", "\t"):
        text = bare.rstrip()
    return f"{'#' * len(marks)} {text}"


def _header_line(line: str, plain: int) -> list[str]:
    """A document header line (after ``= Title``) as metadata lines.

    The header's first line that is no attribute entry is the author line (``Author: ...``),
    the next the revision line (``v1.2, 2024-03-01: remark`` gives ``Version: v1.2`` and
    ``Date: 2024-03-01``; a line that is only a date gives ``Date:``).

    Args:
        line: the header line, stripped.
        plain: how many author/revision lines came before it.
    """
    if plain == 0:
        return [f"Author: {line}"]
    if plain > 1:
        return [line]
    version, comma, rest = line.partition(",")
    date = rest.partition(":")[0].strip() if comma else ""
    if not comma and not re.match(r"v?\d+(?:\.\d+)*$", version):
        version, date = "", version
    return [*([f"Version: {version}"] if version else []), *([f"Date: {date}"] if date else [])]


def _fence(lines: list[str]) -> list[str]:
    """A listing block's lines as a Markdown fence longer than any backtick run they start."""
    runs = [len(s) - len(s.lstrip("`")) for s in (ln.lstrip() for ln in lines)]
    fence = "`" * max([3, *(n + 1 for n in runs)])
    return [fence, *lines, fence]


def _closed(block: str, held: list[str]) -> list[str]:
    """The Markdown lines of a verbatim block: a fence, passthrough lines, or none (comment)."""
    if block[0] in "-.":
        return _fence(held)
    return held if block[0] == "+" else []


def as_markdown(text: str) -> str:
    """Return an AsciiDoc text (`is_asciidoc`) as the Markdown `parse_blocks` reads.

    ``=`` titles become ``#`` headings of the same level (``= Title`` a level-1 heading,
    ``== Context`` level 2); the header lines right after the document title give metadata
    lines (`_header_line`); attribute entries stay (``:status: accepted`` is a field line) when
    their name is a metadata key (`is_meta_key`), other entries (``:toc:``, ``:icons: font``)
    are settings, left out. Listing and literal blocks (``----``, ``....``) become code fences,
    comment blocks and ``//`` comment lines are left out, passthrough lines are kept; the
    delimiters of example, sidebar, quote and open blocks, block attribute lines
    (``[source,java]``) and anchors are left out; nested list items (``**``, ``..``) are
    indented; a list continuation ``+`` is a blank line; a description-list line
    ``Status:: accepted`` is ``Status: accepted``. ``*bold*``, ``_italic_`` and ```mono```
    read alike in Markdown.

    Args:
        text: the AsciiDoc text.

    Returns:
        The Markdown text (one pass over the lines; an unclosed block runs to the end).
    """
    out: list[str] = []
    block: str | None = None
    held: list[str] = []
    header = -1  # author/revision lines read in the document header; -1 outside it
    titled = False  # a title was read: only the first one heads a document header
    for line in text.splitlines():
        stripped = line.strip()
        if block is not None:
            if stripped == block:
                out += _closed(block, held)
                block, held = None, []
            else:
                held.append(line)
            continue
        attribute = _ATTRIBUTE.match(stripped)
        if attribute is not None:
            out += [stripped] if is_meta_key(attribute.group(1)) else []
        elif header >= 0 and stripped and not stripped.startswith("//"):
            out += _header_line(stripped, header)
            header += 1
        elif _VERBATIM.match(stripped):
            block = stripped
        elif heading := _HEADING.match(line):
            header = 0 if heading.group(1) == "=" and not titled else -1
            titled = True
            out.append(_title(heading.group(1), heading.group(2)))
        elif item := _LIST_ITEM.match(line):
            marks = item.group(1)
            mark = "-" if marks[0] == "*" else "1."
            out.append(f"{'    ' * (len(marks) - 1)}{mark} {line[item.end() :]}")
        elif stripped == "+":
            out.append("")
        elif not (
            _CONTAINER.match(stripped)
            or _BLOCK_ATTRIBUTES.match(stripped)
            or (stripped.startswith("//") and not stripped.startswith("///"))
        ):
            term, sep, value = line.partition(":: ")
            described = bool(sep and term.strip()) and ":" not in term and not term[:1].isspace()
            out.append(f"{term.strip()}: {value}" if described else line)
            header = -1 if not stripped else header
    if block is not None:
        out += _closed(block, held)
    return "\n".join(out) + "\n"
