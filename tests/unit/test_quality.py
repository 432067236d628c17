"""Unit tests of the deterministic quality gate (service/domain/quality/)."""

from __future__ import annotations

import pytest

from service.domain.models import (
    ProducedDraft,
    StepDraft,
    StepKind,
    StepStatus,
    TraceDraft,
    Verdict,
)
from service.domain.quality import QualityThresholds, assess
from service.domain.text import containment, similarity, terms
from service.tools.gate_variants import make_concludes_rejected, make_loop, make_no_evidence

T, A, OBS, C, D = (
    StepKind.THOUGHT,
    StepKind.ACTION,
    StepKind.OBSERVATION,
    StepKind.CONCLUSION,
    StepKind.DECISION,
)


def s(kind: str, content: str, **kw: object) -> StepDraft:
    return StepDraft(kind=kind, content=content, **kw)  # type: ignore[arg-type]


def codes(draft: TraceDraft, **kw: object) -> list[str]:
    return [i.code for i in assess(draft, **kw).issues]  # type: ignore[arg-type]


TASK = "Find out why the nightly build fails."
GOOD = TraceDraft(
    task=TASK,
    steps=(
        s(T, "The nightly build may fail because the cache volume is full."),
        s(A, "df -h /var/cache on the build host"),
        s(OBS, "The cache volume /var/cache is 100% full on the build host.", cites=("obs:0",)),
        s(C, "The nightly build fails because the cache volume on the build host is full."),
    ),
    produced=ProducedDraft(
        kind="decision", content="Clean the build cache volume before each nightly build."
    ),
)


# --- the good trace --------------------------------------------------------------------------


def test_good_trace_is_accepted_without_issues() -> None:
    result = assess(GOOD)
    assert result.verdict == Verdict.ACCEPTED
    assert result.issues == ()
    assert 0.5 < result.score <= 1.0


def test_assessment_is_deterministic() -> None:
    first = assess(GOOD).as_dict()
    for _ in range(5):
        assert assess(GOOD).as_dict() == first
    broken = make_loop(GOOD)
    assert assess(broken).as_dict() == assess(broken).as_dict()


# --- missing_conclusion ----------------------------------------------------------------------


def test_missing_conclusion_when_no_conclusion_and_nothing_produced() -> None:
    draft = TraceDraft(task=TASK, steps=GOOD.steps[:3])
    result = assess(draft)
    assert "missing_conclusion" in [i.code for i in result.issues]
    assert result.verdict == Verdict.REJECTED
    issue = next(i for i in result.issues if i.code == "missing_conclusion")
    assert issue.severity == "serious"
    assert issue.step is None


@pytest.mark.parametrize(
    "draft",
    [
        TraceDraft(task=TASK, steps=GOOD.steps[:3], produced=GOOD.produced),
        TraceDraft(task=TASK, steps=GOOD.steps[:3], produced_memory_id="m-1"),
        TraceDraft(task=TASK, steps=(*GOOD.steps[:3], s(D, "Clean the cache volume nightly."))),
    ],
    ids=["produced", "produced_memory_id", "decision_step"],
)
def test_no_missing_conclusion_when_something_concludes(draft: TraceDraft) -> None:
    assert "missing_conclusion" not in codes(draft)


# --- circular ----------------------------------------------------------------------------------


def test_loop_without_new_observation_is_circular() -> None:
    draft = TraceDraft(
        task=TASK,
        steps=(
            GOOD.steps[0],
            s(A, "df -h /var/cache on the build host"),
            s(T, "the nightly build may fail, because the cache volume is FULL"),
            *GOOD.steps[2:],
        ),
        produced=GOOD.produced,
    )
    result = assess(draft)
    circular = [i for i in result.issues if i.code == "circular"]
    assert circular
    assert circular[0].step == 2
    assert result.verdict == Verdict.REJECTED


def test_repeated_thought_after_new_observation_is_not_circular() -> None:
    draft = TraceDraft(
        task=TASK,
        steps=(*GOOD.steps[:3], GOOD.steps[0], GOOD.steps[3]),
        produced=GOOD.produced,
    )
    assert "circular" not in codes(draft)


def test_different_thought_is_not_circular() -> None:
    draft = TraceDraft(
        task=TASK,
        steps=(
            GOOD.steps[0],
            s(T, "Maybe the compiler version changed last week."),
            *GOOD.steps[1:],
        ),
        produced=GOOD.produced,
    )
    assert "circular" not in codes(draft)


def test_conclusion_restating_the_task_without_support_is_circular() -> None:
    draft = TraceDraft(
        task="The cache volume is full and that breaks the nightly build.",
        steps=(s(T, "Let me think about it."), s(C, "The cache volume is full.")),
    )
    result = assess(draft)
    assert "circular" in [i.code for i in result.issues]
    assert result.verdict == Verdict.REJECTED


def test_conclusion_restating_the_task_with_related_evidence_is_not_circular() -> None:
    draft = TraceDraft(
        task="The cache volume is full and that breaks the nightly build.",
        steps=(
            s(T, "Let me check the disk."),
            s(OBS, "df reports the cache volume at 100% use.", cites=("obs:0",)),
            s(C, "The cache volume is full."),
        ),
    )
    assert codes(draft) == []


# --- unsupported_conclusion --------------------------------------------------------------------


def test_conclusion_without_any_evidence_is_unsupported() -> None:
    draft = TraceDraft(
        task=TASK,
        steps=(GOOD.steps[0], GOOD.steps[3]),
        produced=GOOD.produced,
    )
    result = assess(draft)
    issue = next(i for i in result.issues if i.code == "unsupported_conclusion")
    assert issue.step == 1
    assert result.verdict == Verdict.REJECTED


def test_conclusion_unrelated_to_the_evidence_is_unsupported() -> None:
    draft = TraceDraft(
        task=TASK,
        steps=(
            GOOD.steps[0],
            s(OBS, "The weather in Lisbon is sunny today.", cites=("obs:0",)),
            GOOD.steps[3],
        ),
        produced=GOOD.produced,
    )
    assert "unsupported_conclusion" in codes(draft)


def test_a_thought_linking_evidence_to_the_conclusion_supports_it() -> None:
    """Trial 15: a sensible RabbitMQ -> Kafka trace was refused, its conclusion naming only
    what its reasoning step had brought in."""
    observed = s(OBS, "RabbitMQ queues back up during peak traffic.")
    bridge = s(T, "Kafka absorbs peak traffic with partitioned logs.")
    conclude = s(C, "Switch to Kafka.")
    linked = TraceDraft(task="Pick a message broker.", steps=(observed, bridge, conclude))
    assert assess(linked).verdict == Verdict.ACCEPTED
    # Not through a thought tied to nothing observed, nor through a rejected hypothesis.
    loose = s(T, "Kafka is popular.")
    unlinked = TraceDraft(task="Pick a message broker.", steps=(observed, loose, conclude))
    assert "unsupported_conclusion" in codes(unlinked)
    ruled_out = s(OBS, "Partitioned logs are not allowed by the platform team.", rejects=(1,))
    rejected = TraceDraft(
        task="Pick a message broker.",
        steps=(observed, s(T, bridge.content, status=StepStatus.REJECTED), ruled_out, conclude),
    )
    assert "unsupported_conclusion" in codes(rejected)
    # Inflections meet (trial 18: "caching" was "cach", "cache" stayed "cache").
    cached = TraceDraft(
        task="Why is the dashboard slow?",
        steps=(
            s(OBS, "Every dashboard query hits the database."),
            s(T, "Caching would take that load off the database."),
            s(C, "Add a cache."),
        ),
    )
    assert assess(cached).verdict == Verdict.ACCEPTED


def test_actions_count_as_related_evidence() -> None:
    draft = TraceDraft(
        task=TASK,
        steps=(
            s(A, "inspect the cache volume"),
            s(OBS, "exit code 0", cites=("obs:0",)),
            s(C, "The cache volume is full."),
        ),
    )
    assert "unsupported_conclusion" not in codes(draft)


def test_cited_evidence_text_decides_relatedness() -> None:
    draft = TraceDraft(
        task=TASK,
        steps=(GOOD.steps[0], s(C, "The cache volume is full.", cites=("mem-1",))),
    )
    related = {"mem-1": "Disk report: cache volume 100% used."}
    unrelated = {"mem-1": "Lunch menu: soup and bread."}
    assert "unsupported_conclusion" not in codes(draft, evidence=related)
    assert "unsupported_conclusion" in codes(draft, evidence=unrelated)
    # a cite whose text is unknown counts as evidence but cannot be checked
    assert "unsupported_conclusion" not in codes(draft)


def test_observation_after_the_conclusion_does_not_support_it() -> None:
    draft = TraceDraft(
        task=TASK,
        steps=(GOOD.steps[0], GOOD.steps[3], s(OBS, "The cache volume is full.")),
    )
    assert "unsupported_conclusion" in codes(draft)


def test_a_rejected_observation_does_not_support_the_conclusion() -> None:
    """Fresh-user trial 11: the conclusion rested only on the observation step 1 rejected."""
    steps = (
        s(OBS, "p99 latency rose to 900 ms after deploy 88"),
        s(OBS, "GC pauses are 20 ms", rejects=(0,)),
        s(C, "deploy 88 raised the p99 latency through the new serializer"),
    )
    result = assess(TraceDraft(task="Why is the API latency high?", steps=steps))
    issue = next(i for i in result.issues if i.code == "unsupported_conclusion")
    assert issue.step == 2 and "no step rejected" in issue.message
    assert result.verdict == Verdict.REJECTED
    # The same observation, not rejected, supports it.
    kept = (steps[0], s(OBS, "GC pauses are 20 ms"), steps[2])
    assert "unsupported_conclusion" not in codes(
        TraceDraft(task="Why is the API latency high?", steps=kept)
    )
    # A rejected observation alone is no observation at all.
    alone = (s(OBS, "p99 latency rose after deploy 88", status=StepStatus.REJECTED), steps[2])
    assert "unsupported_conclusion" in codes(
        TraceDraft(task="Why is the API latency high?", steps=alone)
    )


# --- concludes_rejected ------------------------------------------------------------------------

HYPOTHESES = (
    s(T, "The cache volume is full.", status=StepStatus.HYPOTHESIS),
    s(T, "The compiler was upgraded and breaks the build.", status=StepStatus.HYPOTHESIS),
    s(OBS, "df shows the cache volume at 20% use; the compiler changelog lists an upgrade."),
    s(T, "Ruled out: the cache volume has room.", rejects=(0,)),
)


def test_concluding_a_rejected_hypothesis_is_flagged() -> None:
    draft = TraceDraft(task=TASK, steps=(*HYPOTHESES, s(C, "The cache volume is full.")))
    result = assess(draft)
    issue = next(i for i in result.issues if i.code == "concludes_rejected")
    assert issue.step == 4
    assert "step 0" in issue.message
    assert result.verdict == Verdict.REJECTED


def test_concluding_the_surviving_hypothesis_is_fine() -> None:
    draft = TraceDraft(
        task=TASK,
        steps=(*HYPOTHESES, s(C, "The compiler upgrade breaks the build.")),
    )
    assert "concludes_rejected" not in codes(draft)


def test_status_rejected_counts_as_rejected() -> None:
    steps = (
        s(T, "The cache volume is full.", status=StepStatus.REJECTED),
        s(OBS, "df shows the cache volume at 20% use."),
        s(C, "The cache volume is full."),
    )
    assert "concludes_rejected" in codes(TraceDraft(task=TASK, steps=steps))


def test_produced_content_restating_a_rejected_hypothesis_is_flagged() -> None:
    draft = TraceDraft(
        task=TASK,
        steps=(*HYPOTHESES, s(C, "Done.")),
        produced=ProducedDraft(kind="decision", content="The cache volume is full."),
    )
    assert "concludes_rejected" in codes(draft)


def test_negation_keeps_a_rejected_opposite_apart() -> None:
    steps = (
        s(T, "Do not add a status field.", status=StepStatus.HYPOTHESIS),
        s(OBS, "Users ask for a status field in every record."),
        s(T, "Rejected: users demand a status field.", rejects=(0,)),
        s(C, "Add a status field."),
    )
    assert "concludes_rejected" not in codes(TraceDraft(task=TASK, steps=steps))
    restated = (*steps[:3], s(C, "We will not add any status field."))
    assert "concludes_rejected" in codes(TraceDraft(task=TASK, steps=restated))


def test_naming_a_rejected_alternative_next_to_the_chosen_one_is_fine() -> None:
    steps = (
        s(T, "JSON", status=StepStatus.HYPOTHESIS),
        s(T, "JSON5", status=StepStatus.HYPOTHESIS),
        s(OBS, "JSON5 allows comments; JSON does not."),
        s(T, "Rejected JSON: no comments.", rejects=(0,)),
        s(C, "Use JSON5 rather than plain JSON, because config files need comments."),
    )
    assert "concludes_rejected" not in codes(TraceDraft(task=TASK, steps=steps))


# --- repetitive --------------------------------------------------------------------------------


def test_repeating_steps_make_a_poor_trace() -> None:
    steps = (
        s(T, "Search the build log for the error."),
        s(A, "grep ERROR build.log"),
        s(OBS, "No more results.", cites=("obs:0",)),
        s(T, "Search the build log for failures instead."),
        s(A, "grep ERROR build.log"),
        s(OBS, "No more results.", cites=("obs:1",)),
        s(T, "Try the nightly log for the error."),
        s(A, "grep ERROR build.log"),
        s(OBS, "No more results.", cites=("obs:2",)),
        s(C, "The build log has no ERROR lines."),
    )
    result = assess(TraceDraft(task=TASK, steps=steps))
    assert [i.code for i in result.issues] == ["repetitive"]
    issue = result.issues[0]
    assert issue.severity == "poor"
    assert issue.step == 4
    assert result.verdict == Verdict.POOR


def test_repetition_threshold_is_respected() -> None:
    steps = (
        *GOOD.steps[:3],
        s(A, "df -h /var/cache on the build host"),
        s(OBS, "The cache volume /var/cache is 100% full on the build host."),
        GOOD.steps[3],
    )
    draft = TraceDraft(task=TASK, steps=steps, produced=GOOD.produced)
    assert "repetitive" in codes(draft, thresholds=QualityThresholds(repetition_share=0.3))
    assert "repetitive" not in codes(draft, thresholds=QualityThresholds(repetition_share=0.5))


# --- too_short ---------------------------------------------------------------------------------


def test_single_step_is_too_short_but_only_poor_when_supported() -> None:
    draft = TraceDraft(task=TASK, steps=(s(C, "The cache volume is full.", cites=("mem-1",)),))
    result = assess(draft, evidence={"mem-1": "cache volume at 100%"})
    assert [i.code for i in result.issues] == ["too_short"]
    assert result.verdict == Verdict.POOR


def test_two_steps_are_not_too_short() -> None:
    draft = TraceDraft(
        task=TASK, steps=(s(OBS, "cache volume at 100%"), s(C, "The cache volume is full."))
    )
    assert "too_short" not in codes(draft)


# --- score and verdict -------------------------------------------------------------------------


def test_score_stays_in_bounds_even_with_every_issue() -> None:
    empty = assess(TraceDraft(task="", steps=()))
    assert [i.code for i in empty.issues] == ["missing_conclusion", "too_short"]
    assert empty.score == pytest.approx(1.0 - 0.5 - 0.15 - 0.1)  # the documented formula
    worst = TraceDraft(
        task=TASK,
        steps=(
            s(T, "The cache volume is full.", status=StepStatus.REJECTED),
            s(C, "The cache volume is full."),
        ),
    )
    result = assess(worst)
    assert {"circular", "unsupported_conclusion", "concludes_rejected"} <= {
        i.code for i in result.issues
    }
    assert result.score == 0.0  # 1 - 3 * 0.5 - ... clamped
    for draft in (GOOD, make_loop(GOOD), make_no_evidence(GOOD), make_concludes_rejected(GOOD)):
        assert 0.0 <= assess(draft).score <= 1.0


def test_serious_issue_costs_more_than_a_poor_one() -> None:
    poor = TraceDraft(task=TASK, steps=(s(C, "The cache volume is full.", cites=("m",)),))
    serious = make_loop(GOOD)
    assert assess(serious).score < assess(poor, evidence={"m": "cache volume full"}).score


def test_min_score_rejects_a_trace_without_issues() -> None:
    score = assess(GOOD).score
    strict = QualityThresholds(min_score=min(1.0, score + 0.01))
    result = assess(GOOD, strict)
    assert result.issues == ()
    assert result.verdict == Verdict.REJECTED


@pytest.mark.parametrize("field", ["min_score", "same_thought_similarity", "repetition_share"])
def test_thresholds_outside_unit_interval_are_refused(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        QualityThresholds(**{field: 1.5})  # type: ignore[arg-type]


# --- broken variants of a good trace ------------------------------------------------------------


def test_variants_of_the_good_trace_are_rejected_for_their_reason() -> None:
    assert "circular" in codes(make_loop(GOOD))
    assert "unsupported_conclusion" in codes(make_no_evidence(GOOD))
    assert "concludes_rejected" in codes(make_concludes_rejected(GOOD))


def test_concludes_rejected_variant_reuses_an_existing_rejected_hypothesis() -> None:
    draft = TraceDraft(
        task=TASK, steps=(*HYPOTHESES, s(C, "The compiler upgrade breaks the build."))
    )
    broken = make_concludes_rejected(draft)
    assert len(broken.steps) == len(draft.steps)
    assert broken.steps[-1].content == HYPOTHESES[0].content
    assert "concludes_rejected" in codes(broken)


def test_no_evidence_variant_remaps_rejects() -> None:
    broken = make_no_evidence(
        TraceDraft(task=TASK, steps=(*HYPOTHESES, s(C, "The compiler upgrade breaks the build.")))
    )
    assert [st.kind for st in broken.steps] == [T, T, T, C]
    assert broken.steps[2].rejects == (0,)


# --- text helpers ------------------------------------------------------------------------------


def test_terms_drop_stopwords_stem_and_keep_negation() -> None:
    assert terms("The builds were failing, not passing!") == ("build", "fail", "not", "pass")
    assert terms("A&E isn't a brand") == ("a&e", "not", "brand")


def test_similarity_and_containment() -> None:
    assert similarity("The cache is full.", "the CACHE is full") == 1.0
    assert similarity("The cache is full.", "Lunch was soup.") == 0.0
    assert containment("cache full", "the cache volume is full today") == pytest.approx(2 / 3)
    assert containment("", "anything") == 0.0
