"""Ingestion of handed-in material: format parsers, units, sources, writing and the report."""

from service.domain.ingestion.service import IngestionService, IngestSettings, Progress

__all__ = ["IngestSettings", "IngestionService", "Progress"]
