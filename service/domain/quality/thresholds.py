"""The quality gate's tunable numbers (`QualityThresholds`) and their defaults."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class QualityThresholds:
    """Tunable numbers of the quality gate (exposed as settings by the service).

    Attributes:
        min_score: score in [0, 1] under which a trace is rejected.
        same_thought_similarity: Jaccard similarity in [0, 1] of unigram+bigram term sets from
            which two steps count as the same thought.
        restate_containment: containment in [0, 1] from which a conclusion counts as restating
            a hypothesis, the task or the first thought.
        repetition_share: share in [0, 1] of repeated steps from which a trace is repetitive.
        min_repetition_steps: fewest steps (count) for the repetition rule to apply.
        min_shared_terms: fewest shared terms (count) for two texts to be related.
        min_steps: fewest steps (count) for a trace not to be too short.
        serious_penalty: score subtracted once per distinct serious issue code.
        poor_penalty: score subtracted once per distinct poor issue code.
        grounding_weight: weight of the ungrounded share of the conclusion's terms.
        repetition_weight: weight of the share of repeated steps.
    """

    min_score: float = 0.5
    same_thought_similarity: float = 0.85
    restate_containment: float = 0.8
    repetition_share: float = 0.3
    min_repetition_steps: int = 4
    min_shared_terms: int = 1
    min_steps: int = 2
    serious_penalty: float = 0.5
    poor_penalty: float = 0.15
    grounding_weight: float = 0.1
    repetition_weight: float = 0.1

    def __post_init__(self) -> None:
        """Check that every share, weight and threshold is in its range.

        Raises:
            ValueError: a float field is outside [0, 1] or a count field is negative.
        """
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, float) and not 0.0 <= value <= 1.0:
                raise ValueError(f"quality threshold {f.name}={value} is outside [0, 1]")
            if isinstance(value, int) and value < 0:
                raise ValueError(f"quality threshold {f.name}={value} is negative")


DEFAULT_THRESHOLDS = QualityThresholds()
