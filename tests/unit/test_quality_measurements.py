"""The gate compares claims that differ by a measurement, and reads synonyms and state pairs.

Trial 22's notes: "search p95 latency is 340 ms, above the 200 ms target" -> "search p95 latency
is below the 200 ms target" and "the deploy succeeded" -> "the deploy failed" were accepted.
"""

from __future__ import annotations

import pytest

from service.domain.models import StepDraft, StepKind, TraceDraft, Verdict
from service.domain.quality import QualityThresholds, assess, restating


def verdict(observed: str, concluded: str) -> str:
    draft = TraceDraft(
        task="check it",
        steps=(
            StepDraft(kind=StepKind.ACTION, content="measured it on staging"),
            StepDraft(kind=StepKind.OBSERVATION, content=observed),
            StepDraft(kind=StepKind.CONCLUSION, content=concluded),
        ),
    )
    return str(assess(draft, QualityThresholds(), {}).verdict)


@pytest.mark.parametrize(
    ("observed", "concluded"),
    [
        (
            "search p95 latency is 340 ms, above the 200 ms target",
            "search p95 latency is below the 200 ms target, so no work is needed",
        ),
        ("the deploy succeeded on staging", "the deploy failed on staging"),
        (
            "the payments host is unreachable from the VPN",
            "the payments host is reachable from the VPN",
        ),
        ("the worker is disconnected from the queue", "the worker is connected to the queue"),
        # Trial 25: a qualifier after the whole statement hid the contradiction.
        (
            "flag new_checkout is disabled in production since 2026-11-02.",
            "The flag new_checkout is enabled in production",
        ),
        (
            "flag new_checkout is disabled in production for 3 days.",
            "The flag new_checkout is enabled in production",
        ),
        (
            "flag new_checkout is disabled in production on 2 hosts.",
            "The flag new_checkout is enabled in production",
        ),
    ],
)
def test_the_opposite_of_the_evidence_is_refused(observed: str, concluded: str) -> None:
    assert verdict(observed, concluded) == Verdict.REJECTED


@pytest.mark.parametrize(
    ("observed", "concluded"),
    [
        # Another measurement is another condition: not the same statement.
        (
            "the error rate is below 1 percent at 10 rps",
            "the error rate is not below 1 percent at 1000 rps",
        ),
        ("the deploy succeeded on staging", "the deploy passed on staging"),
        (
            "search p95 latency is 340 ms, above the 200 ms target",
            "search p95 latency is above the 200 ms target",
        ),
    ],
)
def test_the_same_statement_or_another_condition_is_accepted(observed: str, concluded: str) -> None:
    assert verdict(observed, concluded) == Verdict.ACCEPTED


def test_measured_splits_numbers_and_their_units() -> None:
    core = ("search", "p95", "latency", "340", "ms", "200", "ms", "target")
    assert restating.measured(core) == (
        ("search", "p95", "latency", "target"),
        frozenset({"340 ms", "200 ms"}),
    )
    assert restating.measured(("took", "3", "second")) == (("took",), frozenset({"3 second"}))
    assert restating.measured(("5", "target")) == (
        ("target",),
        frozenset({"5"}),
    )  # "target" is no unit
