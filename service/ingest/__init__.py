"""Ingestion of handed-in material: format detection and parsers into `IngestUnit`s."""

from service.ingest.parsers import FORMATS, FormatError, adr_key, detect_format, parse

__all__ = ["FORMATS", "FormatError", "adr_key", "detect_format", "parse"]
