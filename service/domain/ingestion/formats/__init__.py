"""The format parsers: one module per format, detection apart, and the `parse` entry point."""

from __future__ import annotations

from collections.abc import Callable

from service.domain.ingestion.formats import adr, openhands, react, swe_agent, text
from service.domain.ingestion.formats.adr import adr_key
from service.domain.ingestion.formats.common import FormatError, check_text
from service.domain.ingestion.formats.detect import detect_format
from service.domain.models import IngestUnit

#: Formats `parse` accepts besides ``auto``.
FORMATS: tuple[str, ...] = ("swe-agent", "react", "openhands", "adr", "text")

__all__ = ["FORMATS", "PARSERS", "FormatError", "adr_key", "detect_format", "parse"]

#: The parser of each format, by name.
PARSERS: dict[str, Callable[[str, str], list[IngestUnit]]] = {
    "swe-agent": swe_agent.parse,
    "react": react.parse,
    "openhands": openhands.parse,
    "adr": adr.parse,
    "text": text.parse,
}


def parse(content: str, fmt: str, source_name: str) -> list[IngestUnit]:
    """Parse handed-in material into ingest units.

    Each format's mapping is documented on its module's ``parse`` (steps are `StepDraft`s;
    ``obs:<i>`` cites the i-th observation of the same unit; every count there is exact, tests
    check it against the source). Every problem with the input raises `FormatError` (``code =
    "input.invalid_format"``) whose message names the format and the problem.

    Args:
        content: the material, as text (decoded by the caller).
        fmt: ``auto`` or one of `FORMATS`.
        source_name: the file name the material came from; names units and ADRs.

    Returns:
        The units in source order: one per file for ``swe-agent``, ``openhands`` and ``adr``,
        one per episode for ``react``, one per chunk for ``text``.

    Raises:
        FormatError: unknown format, empty or binary content, or content that is malformed
            for its format (the message names the format and the problem).
    """
    if fmt == "auto":
        fmt = detect_format(content, source_name)
    parser = PARSERS.get(fmt)
    if parser is None:
        raise FormatError(f"unknown format {fmt!r}; expected auto or one of {', '.join(FORMATS)}")
    check_text(content, fmt)
    return parser(content, source_name)
