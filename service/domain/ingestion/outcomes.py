"""Outcomes the handed-in material states: a deprecated or superseded ADR, a failed last test run.

Rules (checked on each unit that produced a decision; nothing is guessed beyond them):

- ADR (`extra["format"] == "adr"`): a status naming `deprecated` records a `failure` outcome
  (which challenges the decision), one naming `superseded` (e.g. "superseded by ADR-0057") a
  `mixed` one without challenging it: the decision served until it was replaced, and the
  supersession closes it. "supersedes ADR-0045" is not an outcome of this ADR.
- Trajectory (swe-agent, OpenHands, ReAct): when its last observation reports a failed test run
  (`FAILED_RUN`: pytest's "N failed" / "FAILED path::test", unittest's "FAILED (failures=N)" or
  "FAIL:", "Tests failed", a non-zero exit of a test command), a `failure` outcome citing that
  observation.

The outcome's observation is written in the unit's transaction (origin `ingestion`), observed at
the unit's time when the material gives one, else at the write's time. An outcome dated later than
the server's clock allows (`check_observed_at`, as `POST .../outcomes` checks it) is not recorded:
the unit's warning `ingest.outcome_in_future: <why>` says so, and the rest of the unit is written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from service.domain.models import IngestUnit
from service.domain.outcomes import OutcomeResult
from service.domain.outcomes.store import check_observed_at
from service.errors import InvalidInputError
from service.graph.records import MemoryRecord

TRAJECTORY_FORMATS = frozenset({"swe-agent", "openhands", "react"})
FAILED_RUN = re.compile(
    r"(\b\d+ failed\b|^FAILED \S+::|\bFAILED \(failures=\d+|^FAIL: |\btests? failed\b"
    r"|\bexit(?:ed with)? code [1-9]\d*\b.*\b(?:pytest|test)s?\b)",
    re.IGNORECASE | re.MULTILINE,
)
_DEPRECATED = re.compile(r"\bdeprecated\b", re.IGNORECASE)
_SUPERSEDED = re.compile(r"\bsuperseded\b", re.IGNORECASE)
#: Longest excerpt of the material quoted in an ingested outcome, in characters.
EXCERPT_CHARS = 300
#: The unit warning's code for a stated outcome dated in the future, which is not recorded.
OUTCOME_IN_FUTURE = "ingest.outcome_in_future"


@dataclass(frozen=True)
class MaterialOutcome:
    """An outcome the material states: result, the observation's text, local cites (`obs:<i>`).

    `challenges` is False for a superseded ADR: its supersession closes the decision, so the
    outcome is recorded without a `challenged` version.
    """

    result: str
    content: str
    cites: tuple[str, ...] = ()
    challenges: bool = True


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT_CHARS else text[: EXCERPT_CHARS - 1] + "…"


def material_outcomes(unit: IngestUnit, observations: list[str]) -> list[MaterialOutcome]:
    """Return the outcomes a unit's material states about the decision it produced (see module).

    Args:
        unit: the parsed unit (its `extra["format"]`, `extra["status"]`, title).
        observations: the unit's cleaned observation texts, in order.

    Returns:
        Zero or one outcome.
    """
    fmt = unit.extra.get("format")
    if fmt == "adr":
        status = str(unit.extra.get("status") or "")
        if _DEPRECATED.search(status):
            return [
                MaterialOutcome(
                    OutcomeResult.FAILURE,
                    f"ADR '{unit.title}' is marked deprecated (status: {_excerpt(status)}).",
                )
            ]
        if _SUPERSEDED.search(status):
            return [
                MaterialOutcome(
                    OutcomeResult.MIXED,
                    f"ADR '{unit.title}' was superseded (status: {_excerpt(status)}).",
                    challenges=False,
                )
            ]
        return []
    if fmt in TRAJECTORY_FORMATS and observations and FAILED_RUN.search(observations[-1]):
        last = len(observations) - 1
        return [
            MaterialOutcome(
                OutcomeResult.FAILURE,
                f"The trajectory '{unit.title}' ended in a failed test run: "
                f"{_excerpt(observations[-1])}",
                (f"obs:{last}",),
            )
        ]
    return []


def unrecordable(
    said: MaterialOutcome, observed: datetime, decision: MemoryRecord, now: datetime
) -> str | None:
    """Return the unit warning for a stated outcome REST would refuse, or None to record it.

    The check is `POST .../outcomes`'s (`check_observed_at`): an outcome observed in the future
    would take effect at once (a failure challenges its decision now). Material cannot be asked
    for another date, so the outcome is skipped and reported, as
    `"ingest.outcome_in_future: <why>"`. (Only a future date fails the check here: the decision
    a unit produced begins at the unit's time or earlier.)

    Args:
        said: the outcome the material states.
        observed: when it was observed: the unit's time, else `now`.
        decision: the decision's current version, as the unit's transaction wrote or found it.
        now: the unit's write time (timezone-aware UTC datetime).
    """
    try:
        check_observed_at(observed, decision, now)
    except InvalidInputError as exc:
        return (
            f"{OUTCOME_IN_FUTURE}: the {said.result} outcome the material states was not "
            f"recorded: {exc.message}"
        )
    return None
