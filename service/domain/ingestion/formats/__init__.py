"""The format parsers: one module per format, detection apart, and the `parse` entry points."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from service.domain.ingestion.formats import (
    adr,
    aider,
    claude_code,
    codex,
    openhands,
    react,
    swe_agent,
    terminal,
    text,
)
from service.domain.ingestion.formats.adr import adr_key
from service.domain.ingestion.formats.common import FormatError, check_text
from service.domain.ingestion.formats.console import console_text
from service.domain.ingestion.formats.detect import Detection, detect, detect_format
from service.domain.ingestion.formats.jsonl import read_jsonl
from service.domain.ingestion.formats.redact import redact
from service.domain.models import IngestUnit

#: Formats `parse` accepts besides ``auto``.
FORMATS: tuple[str, ...] = (
    "swe-agent",
    "react",
    "openhands",
    "claude-code",
    "codex",
    "aider",
    "terminal",
    "adr",
    "text",
)

__all__ = [
    "FORMATS",
    "PARSERS",
    "Detection",
    "FormatError",
    "ParsedDocument",
    "adr_key",
    "detect",
    "detect_format",
    "parse",
    "parse_document",
]

#: The parser of each format, by name.
PARSERS: dict[str, Callable[[str, str], list[IngestUnit]]] = {
    "swe-agent": swe_agent.parse,
    "react": react.parse,
    "openhands": openhands.parse,
    "claude-code": claude_code.parse,
    "codex": codex.parse,
    "aider": aider.parse,
    "terminal": terminal.parse,
    "adr": adr.parse,
    "text": text.parse,
}
#: The JSON Lines formats' parsers of decoded lines (`parse_document` reports skipped lines).
JSONL_PARSERS: dict[str, Callable[[list[dict[str, Any]], str], list[IngestUnit]]] = {
    "claude-code": claude_code.parse_records,
    "codex": codex.parse_records,
}


@dataclass(frozen=True)
class ParsedDocument:
    """A document cut into units, with how its format was decided and what was redacted.

    Attributes:
        format: the format parsed with (never ``auto``).
        signals: why: the structural signals `detect` saw, ``("declared",)``, or
            ``("recorded",)`` for content ingested before (its stored format).
        units: the units in source order.
        redacted: secrets replaced before parsing, by kind (`redact`).
        warnings: document-level warnings: a code (e.g. ``ingest.fallback_to_text``), or
            ``"<code>: <detail>"`` when the warning names lines (``jsonl.lines_skipped``,
            ``jsonl.truncated_last_line``).
    """

    format: str
    signals: tuple[str, ...]
    units: list[IngestUnit]
    redacted: Counter[str] = field(default_factory=Counter)
    warnings: tuple[str, ...] = ()


def parse_document(content: str, fmt: str, source_name: str) -> ParsedDocument:
    """Redact secrets, recognise the format if asked (``auto``) and parse into units.

    Terminal recordings are read as the text they show first (`console_text`: an asciinema cast's
    output, ANSI escape sequences removed). Invisible characters the content starts with (a UTF-8
    byte-order mark, zero-width spaces) are dropped (`check_text`), for every format.
    Secrets-looking strings (`redact`) are replaced *before* parsing, so no unit, step or
    observation can hold one. With ``auto`` the format is `detect`ed from the structure; a document
    whose structure is not recognised is parsed as ``text`` with the warning
    ``ingest.fallback_to_text``. JSON Lines sessions report the lines they could not read
    (`read_jsonl`): skipped corrupt lines and a cut-off last line.

    Args:
        content: the material, as text (decoded by the caller).
        fmt: ``auto`` or one of `FORMATS`.
        source_name: the file name the material came from; names units and ADRs.

    Returns:
        The parsed document.

    Raises:
        FormatError: unknown format, empty or binary content, content that is malformed
            for its format, or content in which the format finds nothing to ingest (the
            message names the format and the problem).
    """
    content, redacted = redact(check_text(console_text(content), fmt))
    warnings: list[str] = []
    if fmt == "auto":
        found = detect(content, source_name)
        fmt, signals = found.format, found.signals
        if fmt == "text":
            warnings.append("ingest.fallback_to_text")
    else:
        signals = ("declared",)
    parser = PARSERS.get(fmt)
    if parser is None:
        raise FormatError(f"unknown format {fmt!r}; expected auto or one of {', '.join(FORMATS)}")
    records = codex.json_records(content) if fmt == "codex" else None
    if records is not None:  # a TypeScript Codex CLI rollout: one JSON object
        units = codex.parse_records(records, source_name)
    elif fmt in JSONL_PARSERS:
        lines = read_jsonl(content, fmt)
        units = JSONL_PARSERS[fmt](lines.records, source_name)
        warnings += lines.warnings
    else:
        units = parser(content, source_name)
    if not units:
        raise FormatError(
            f"{fmt}: no {fmt} structure found in the content (nothing to ingest); "
            "check the format, or send it as 'auto' or 'text'"
        )
    return ParsedDocument(fmt, signals, units, redacted, tuple(warnings))


def parse(content: str, fmt: str, source_name: str) -> list[IngestUnit]:
    """Parse handed-in material into ingest units (`parse_document` without its report).

    Each format's mapping is documented on its module's ``parse`` (steps are `StepDraft`s;
    ``obs:<i>`` cites the i-th observation of the same unit; every count there is exact, tests
    check it against the source). Secrets are redacted first (`redact`).

    Args:
        content: the material, as text (decoded by the caller).
        fmt: ``auto`` or one of `FORMATS`.
        source_name: the file name the material came from; names units and ADRs.

    Returns:
        The units in source order: one per file for ``swe-agent``, ``openhands`` and ``adr``,
        one per episode for ``react``, one per user request for the session formats
        (``claude-code``, ``codex``, ``aider``, ``terminal``), one per chunk for ``text``.

    Raises:
        FormatError: unknown format, empty or binary content, or content that is malformed
            for its format (the message names the format and the problem).
    """
    return parse_document(content, fmt, source_name).units
