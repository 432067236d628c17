"""Outcomes: what happened when a decision was acted on, and a decision's outcome record."""

from service.domain.outcomes.models import (
    CHALLENGING,
    NewOutcome,
    Outcome,
    OutcomeRecord,
    OutcomeResult,
    outcome_record,
)
from service.domain.outcomes.store import (
    MAX_OUTCOME_CITES,
    OutcomeService,
    RecordedOutcome,
    list_outcomes_in,
)

__all__ = [
    "CHALLENGING",
    "MAX_OUTCOME_CITES",
    "NewOutcome",
    "Outcome",
    "OutcomeRecord",
    "OutcomeResult",
    "OutcomeService",
    "RecordedOutcome",
    "list_outcomes_in",
    "outcome_record",
]
