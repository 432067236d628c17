"""The ``text`` format: plain text or Markdown cut into chunks, one unit per chunk."""

from __future__ import annotations

from service.domain.ingestion.formats.common import (
    source_stem,
)
from service.domain.ingestion.formats.markdown import chunk_text
from service.domain.models import (
    IngestUnit,
)


def parse(content: str, source_name: str) -> list[IngestUnit]:
    """Parse plain text or Markdown into one unit per chunk.

    Input: ``text`` (plain text or Markdown)

    No trace. Top-level blocks (Markdown-it block boundaries, i.e. paragraphs for plain text)
    are packed, in order, into chunks of at most `MAX_TEXT_CHUNK_CHARS` characters; a longer
    block is split on line boundaries, and a longer line hard-split. One unit per chunk, keyed
    ``chunk-<i>`` (0-based), with the chunk as its single observation.

    Args:
        content: plain text or Markdown.
        source_name: its file name (in the units' titles).

    Returns:
        One unit per chunk, in order.
    """
    chunks = chunk_text(content)
    stem = source_stem(source_name)
    return [
        IngestUnit(
            key=f"chunk-{i}",
            title=f"{stem} [{i + 1}/{len(chunks)}]",
            observations=(chunk,),
            extra={"format": "text"},
        )
        for i, chunk in enumerate(chunks)
    ]
