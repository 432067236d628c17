"""The deterministic quality gate for reasoning traces (DESIGN §6): `assess` and its rules."""

from service.domain.quality.conclusion import CONCLUDING, conclusion_index, conclusion_of
from service.domain.quality.gate import assess
from service.domain.quality.thresholds import DEFAULT_THRESHOLDS, QualityThresholds

__all__ = [
    "CONCLUDING",
    "DEFAULT_THRESHOLDS",
    "QualityThresholds",
    "assess",
    "conclusion_index",
    "conclusion_of",
]
