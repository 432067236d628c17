"""The maintenance jobs' pure rules (text comparison, key spelling, polarity) and the scheduler (no Neo4j)."""

from __future__ import annotations

import threading
import time

import pytest

from service.domain.maintenance import JOB_NAMES, JobReport, MaintenanceScheduler
from service.domain.text import (
    analyse_polarity,
    edit_distance,
    key_part,
    loose_text,
    opposed,
    spelling_variant,
)
from service.errors import GraphUnavailableError


def test_job_names() -> None:
    assert JOB_NAMES == (
        "evidence-drift",
        "duplicate-candidates",
        "contradiction-candidates",
        "outcome-confidence",
    )


def test_loose_text_ignores_case_punctuation_and_spacing() -> None:
    assert (
        loose_text("Alice lives in Paris")
        == loose_text("alice  lives in paris.")
        == "alice lives in paris"
    )
    assert loose_text("Bob's   CI—job") == "bob's ci job"
    assert loose_text("Alice lives in Paris") != loose_text("Alice lives in Lyon")


@pytest.mark.parametrize(
    ("a", "b", "variant"),
    [
        ("home_city", "home-city", True),  # equal once normalised
        ("Home City", "homecity", True),
        ("alice", "Alice ", True),
        ("lives_in", "lived_in", True),  # 1 edit, both >= 6 chars
        ("home_city", "home_town", False),  # 4 edits
        ("role", "rule", False),  # 1 edit but too short for edits
        ("state", "status", False),  # 2 edits, but "state" is under 6 chars
        ("employer", "home_city", False),
        ("__", "--", False),  # nothing left once normalised
    ],
)
def test_spelling_variant(a: str, b: str, variant: bool) -> None:
    assert spelling_variant(a, b) is variant


def test_key_part_and_edit_distance() -> None:
    assert key_part("Home-City_2 ") == "homecity2"
    assert edit_distance("kitten", "sitting", 5) == 3
    assert edit_distance("kitten", "sitting", 2) == 3  # limit + 1 means "more than limit"
    assert edit_distance("abc", "abc", 0) == 0
    assert edit_distance("", "abcd", 2) == 3


@pytest.mark.parametrize(
    ("a", "b", "cues"),
    [
        ("The feature flag is enabled", "The feature flag is not enabled", ("not",)),
        ("The feature flag is enabled", "The feature flag is disabled", ("disabled",)),
        ("Alice loves cats", "Alice hates cats", ("hates",)),
        ("Alice is the team lead", "Alice is no longer the team lead", ("no longer",)),
        ("Deploys happen on Tuesdays", "Deploys never happen on Tuesdays", ("never",)),
        ("The check is true", "The check isn\u2019t true", ("isn't",)),
    ],
)
def test_opposed_pairs(a: str, b: str, cues: tuple[str, ...]) -> None:
    assert opposed(a, b) == (True, cues)
    assert opposed(b, a)[0]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        (
            "The feature flag is enabled",
            "The feature flag is enabled for beta users only",
        ),  # no cue
        ("The feature flag is not enabled", "The feature flag is not on"),  # both negative
        ("Alice loves cats", "Alice hates dogs"),  # opposite, but not about the same thing
        ("The feature flag is not enabled", "The feature flag was added in March"),
        ("The build is not failing", "The build is passing"),  # a double negative agrees
    ],
)
def test_not_opposed(a: str, b: str) -> None:
    assert opposed(a, b)[0] is False


def test_double_negation_is_positive() -> None:
    p = analyse_polarity("It is not disabled")
    assert p.negative is False
    assert p.cues == ("not", "disabled")
    assert "enabled" in p.terms


class StubService:
    def __init__(self, fail: bool = False) -> None:
        self.calls = 0
        self.fail = fail
        self.ran = threading.Event()

    def run_everywhere(
        self, stop: threading.Event | None = None, namespaces: object = None, between: object = None
    ) -> list[JobReport]:
        self.calls += 1
        self.ran.set()
        if self.fail:
            raise GraphUnavailableError("down")
        return [JobReport("evidence-drift", "ns", 0, 0)]


def test_scheduler_runs_rounds_and_stops_cleanly() -> None:
    service = StubService()
    scheduler = MaintenanceScheduler(service, 0.01)  # type: ignore[arg-type]
    scheduler.start()
    assert service.ran.wait(5)
    assert scheduler.running
    scheduler.stop(timeout_s=5)
    assert not scheduler.running
    calls = service.calls  # type: ignore[unreachable]  # mypy keeps `running` narrowed across stop()
    time.sleep(0.05)
    assert service.calls == calls
    assert scheduler.rounds >= 1


def test_scheduler_survives_a_failing_round() -> None:
    service = StubService(fail=True)
    scheduler = MaintenanceScheduler(service, 0.01)  # type: ignore[arg-type]
    scheduler.start()
    deadline = time.monotonic() + 5
    while service.calls < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert service.calls >= 3
    assert scheduler.running
    scheduler.stop(timeout_s=5)
    assert scheduler.rounds == 0


def test_scheduler_off_when_interval_is_zero() -> None:
    scheduler = MaintenanceScheduler(StubService(), 0)  # type: ignore[arg-type]
    scheduler.start()
    assert not scheduler.running
    scheduler.stop()


def test_similar_pairs_is_exact_and_ordered() -> None:
    from service.domain.maintenance.proposals import Fact
    from service.domain.maintenance.similarity import similar_pairs

    facts = [
        Fact("c", 1, "x", embedding=[1.0, 0.0, 0.0]),
        Fact("a", 1, "x", embedding=[0.99, 0.141, 0.0]),
        Fact("b", 1, "x", embedding=[0.0, 1.0, 0.0]),
        Fact("d", 1, "x", embedding=None),
    ]
    pairs = similar_pairs(facts, 0.9, block=1)  # one row per block: block edges are exercised
    assert list(pairs) == [("a", "c")]
    assert pairs[("a", "c")] == pytest.approx(0.99, abs=1e-3)
    assert similar_pairs(facts, -1.0).keys() == {("a", "b"), ("a", "c"), ("b", "c")}
    assert similar_pairs(facts[:1], 0.0) == {}
