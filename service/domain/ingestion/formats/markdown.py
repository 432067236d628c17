"""Markdown reading shared by the ADR and text formats: blocks, block ranges, chunks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

from service.domain.ingestion.formats.common import (
    MAX_TEXT_CHUNK_CHARS,
)

_MD = MarkdownIt("commonmark").enable("table")


@dataclass
class Block:
    """One top-level Markdown block.

    Attributes:
        kind: ``heading``, ``paragraph``, ``list``, ``table``, ``code``, ``html``, ``blockquote``...
        text: its plain text (list items as ``- item`` lines, an ordered list's numbered as
            written, ``1. item``; table rows as ``a | b``); a
            paragraph's lines are joined by spaces where the source only wrapped them (soft
            line breaks), as Markdown renders them.
        items: a list's items (empty for other kinds).
        level: a heading's level (0 for other kinds).
        lines: a paragraph's lines as written (soft line breaks kept), e.g. consecutive
            ``Key: value`` lines (empty for other kinds).
    """

    kind: str
    text: str
    items: tuple[str, ...] = ()
    level: int = 0
    lines: tuple[str, ...] = ()


def _inline_text(token: Token, softbreak: str = " ") -> str:
    parts: list[str] = []
    for child in token.children or []:
        if child.type == "text":
            parts.append(child.content)
        elif child.type == "code_inline":
            parts.append(f"`{child.content}`")
        elif child.type == "softbreak":
            parts.append(softbreak)
        elif child.type == "hardbreak":
            parts.append("\n")
        elif child.type == "image":
            parts.append(child.content)
    return "".join(parts).strip()


def _inner_text(tokens: Sequence[Token], softbreak: str = " ") -> str:
    parts = [_inline_text(t, softbreak) for t in tokens if t.type == "inline"]
    parts += [t.content.strip() for t in tokens if t.type in ("fence", "code_block")]
    return "\n".join(p for p in parts if p)


def _list_items(tokens: Sequence[Token], level: int) -> tuple[str, ...]:
    items: list[str] = []
    start = None
    for i, token in enumerate(tokens):
        if token.type == "list_item_open" and token.level == level:
            start = i
        elif token.type == "list_item_close" and token.level == level and start is not None:
            items.append(" ".join(_inner_text(tokens[start + 1 : i]).split("\n")))
            start = None
    return tuple(item for item in items if item)


def _list_text(token: Token, items: Sequence[str]) -> str:
    """Return a list's text: ``- item`` lines, or numbered from its start (``3. item``).

    An ordered list keeps its numbers: a decision's steps 1-3 stay steps, not bullets.
    """
    if token.type != "ordered_list_open":
        return "\n".join(f"- {x}" for x in items)
    start = token.attrGet("start")
    first = start if isinstance(start, int) else 1
    return "\n".join(f"{first + i}{token.markup or '.'} {x}" for i, x in enumerate(items))


def parse_blocks(markdown: str) -> list[Block]:
    """Return the top-level blocks of a Markdown text, in order.

    Args:
        markdown: CommonMark text (tables enabled).

    Returns:
        One `Block` per heading, paragraph, list, table, quote, code or HTML block.
    """
    tokens = _MD.parse(markdown)
    blocks: list[Block] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type.endswith("_open"):
            close = token.type[: -len("_open")] + "_close"
            j = i + 1
            while j < len(tokens) and not (
                tokens[j].type == close and tokens[j].level == token.level
            ):
                j += 1
            inner = tokens[i + 1 : j]
            if token.type == "heading_open":
                blocks.append(Block("heading", _inner_text(inner), level=int(token.tag[1:])))
            elif token.type in ("bullet_list_open", "ordered_list_open"):
                items = _list_items(inner, token.level + 1)
                blocks.append(Block("list", _list_text(token, items), items))
            elif token.type == "table_open":
                rows: list[str] = []
                cells: list[str] = []
                for t in inner:
                    if t.type == "inline":
                        cells.append(_inline_text(t))
                    elif t.type == "tr_close":
                        rows.append(" | ".join(cells))
                        cells = []
                blocks.append(Block("table", "\n".join(rows)))
            elif token.type == "paragraph_open":
                lines = _inner_text(inner, softbreak="\n").splitlines()
                blocks.append(
                    Block(
                        "paragraph",
                        _inner_text(inner),
                        lines=tuple(ln.strip() for ln in lines if ln.strip()),
                    )
                )
            else:
                kind = token.type[: -len("_open")]
                blocks.append(Block(kind, _inner_text(inner)))
            i = j + 1
            continue
        if token.type in ("fence", "code_block"):
            blocks.append(Block("code", token.content.strip()))
        elif token.type == "html_block":
            blocks.append(Block("html", token.content.strip()))
        i += 1
    return blocks


def _block_ranges(markdown: str) -> list[tuple[int, int]]:
    ranges: list[tuple[int, int]] = []
    for token in _MD.parse(markdown):
        if token.level == 0 and token.map is not None and not token.type.endswith("_close"):
            start, end = token.map
            if not ranges or start >= ranges[-1][1]:
                ranges.append((start, end))
    return ranges


def _split_long(text: str, limit: int) -> list[str]:
    pieces: list[str] = []
    current = ""
    for line in text.split("\n"):
        while len(line) > limit:
            if current:
                pieces.append(current)
                current = ""
            pieces.append(line[:limit])
            line = line[limit:]
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) > limit:
            pieces.append(current)
            current = line
        else:
            current = candidate
    if current.strip():
        pieces.append(current)
    return [p for p in pieces if p.strip()]


def chunk_text(text: str, limit: int = MAX_TEXT_CHUNK_CHARS) -> list[str]:
    """Pack a text's top-level blocks, in order, into chunks of at most `limit` characters.

    A block longer than `limit` is split on line boundaries, a longer line hard-split.

    Args:
        text: plain text or Markdown.
        limit: largest chunk, in characters.

    Returns:
        The chunks (none for blank text).
    """
    lines = text.splitlines()
    blocks = ["\n".join(lines[a:b]).strip() for a, b in _block_ranges(text)]
    blocks = [b for b in blocks if b]
    if not blocks and text.strip():
        blocks = [text.strip()]
    chunks: list[str] = []
    current = ""
    for block in blocks:
        parts = _split_long(block, limit) if len(block) > limit else [block]
        for part in parts:
            candidate = f"{current}\n\n{part}" if current else part
            if len(candidate) > limit:
                chunks.append(current)
                current = part
            else:
                current = candidate
    if current:
        chunks.append(current)
    return chunks


def lead_ins_joined(blocks: Sequence[Block]) -> list[str]:
    """Return the texts of a section's blocks, lead-ins joined to the block they introduce.

    A paragraph ending with ":" ("RAG architecture consists of these steps:") says nothing
    alone: it is one text with the list, code or table after it, and so are lead-ins in a row
    before one ("... these steps:", "How source data is processed:", the list; trials 19 and
    20: the bare lead-in outranked the record for "which option did we choose for the RAG
    architecture"). Lead-ins before anything else stay texts of their own. HTML and rules are
    left out.

    Args:
        blocks: the section's blocks, in order.

    Returns:
        One text per observation.
    """
    texts: list[str] = []
    pending: list[str] = []
    for block in blocks:
        if block.kind in ("html", "hr") or not block.text:
            continue
        if block.kind == "paragraph" and block.text.rstrip().endswith(":"):
            pending.append(block.text)
        elif pending and block.kind in ("list", "code", "table"):
            texts.append("\n".join([*pending, block.text]))
            pending = []
        else:
            texts.extend(pending)
            texts.append(block.text)
            pending = []
    return texts + pending
