"""Precedents: past decisions resembling a situation, with their reasoning and outcome record."""

from service.domain.precedents.models import (
    Hypothesis,
    Match,
    Precedent,
    PrecedentRequest,
    PrecedentResult,
    ReasoningBrief,
)
from service.domain.precedents.service import PRECEDENT_KINDS, PrecedentService

__all__ = [
    "PRECEDENT_KINDS",
    "Hypothesis",
    "Match",
    "Precedent",
    "PrecedentRequest",
    "PrecedentResult",
    "PrecedentService",
    "ReasoningBrief",
]
