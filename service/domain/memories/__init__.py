"""The bi-temporal memory store: the row builder, writes, reads and the public memory shape."""

from service.domain.memories.public import Memory, memory_public
from service.domain.memories.reads import MemoryReader
from service.domain.memories.rows import (
    MAX_METADATA_BYTES,
    VERSIONED_FIELDS,
    build_memory_row,
    encode_metadata,
    iso_utc,
    shifted,
    utcnow,
)
from service.domain.memories.store import MemoryService
from service.domain.models import NewMemory, Writer

__all__ = [
    "MAX_METADATA_BYTES",
    "VERSIONED_FIELDS",
    "Memory",
    "MemoryReader",
    "MemoryService",
    "NewMemory",
    "Writer",
    "build_memory_row",
    "encode_metadata",
    "iso_utc",
    "memory_public",
    "shifted",
    "utcnow",
]
