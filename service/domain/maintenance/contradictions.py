"""The contradiction-candidates job: propose reviewing facts that may contradict each other."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations

from service.domain.maintenance.base import MaintenanceConfig, excerpt
from service.domain.maintenance.proposals import Fact, Proposal, ProposalJob, ordered
from service.domain.maintenance.similarity import similar_pairs
from service.domain.text import key_part, loose_text, opposed, spelling_variant


def _spelled_alike(a: str, b: str, config: MaintenanceConfig) -> bool:
    return spelling_variant(a, b, max_edits=config.max_edits, min_edit_chars=config.min_edit_chars)


def spelled_key_reasons(
    facts: Sequence[Fact], config: MaintenanceConfig
) -> tuple[dict[tuple[str, str], list[str]], set[tuple[str, str]]]:
    """Return the pairs whose keys differ only in spelling, and every pair of one subject.

    Pairs whose loose texts are equal say the same thing (a duplicate) and are in neither.

    Args:
        facts: the current facts (keyless ones are ignored).
        config: `max_edits`, `min_edit_chars`.

    Returns:
        `({(memory_id a, memory_id b): [reason]}, {pairs of one subject})`, ids ordered as by
        `ordered`.
    """
    keyed = [f for f in facts if f.keyed]
    loose = {f.memory_id: loose_text(f.content) for f in keyed}
    by_subject: dict[str, list[Fact]] = {}
    for f in keyed:
        assert f.subject is not None
        by_subject.setdefault(key_part(f.subject), []).append(f)
    subjects = sorted(by_subject)
    linked = [(s, s) for s in subjects] + [
        (s, t) for s, t in combinations(subjects, 2) if _spelled_alike(s, t, config)
    ]
    same_subject: set[tuple[str, str]] = set()
    reasons: dict[tuple[str, str], list[str]] = {}
    for s, t in linked:
        pairs: Iterable[tuple[Fact, Fact]] = (
            combinations(by_subject[s], 2)
            if s == t
            else ((x, y) for x in by_subject[s] for y in by_subject[t])
        )
        for x, y in pairs:
            a, b = ordered(x, y)
            if loose[a.memory_id] == loose[b.memory_id]:
                continue  # they say the same thing: a duplicate, not a contradiction
            same_subject.add((a.memory_id, b.memory_id))
            if (a.subject, a.attribute) == (b.subject, b.attribute):
                continue  # the very same key: the keyed-fact rule already keeps one current value
            assert a.attribute is not None
            assert b.attribute is not None
            if _spelled_alike(a.attribute, b.attribute, config):
                reasons.setdefault((a.memory_id, b.memory_id), []).append(
                    f"their keys '{a.subject}' / '{a.attribute}' and '{b.subject}' / '{b.attribute}' "
                    "differ only in spelling, so neither replaced the other as the value of one key"
                )
    return reasons, same_subject


def contradiction_reasons(
    facts: Sequence[Fact], config: MaintenanceConfig
) -> dict[tuple[str, str], list[str]]:
    """Return the pairs of facts that may contradict each other, with the reasons.

    The rule is `ContradictionCandidates`': keys that differ only in spelling
    (`spelled_key_reasons`), or `opposed` texts of one subject whose embeddings are close.

    Args:
        facts: the current facts (keyless ones are ignored).
        config: `max_edits`, `min_edit_chars`, `opposition_similarity`, `pair_block`.

    Returns:
        `{(memory_id a, memory_id b): [reason sentence, ...]}`, ids ordered as by `ordered`.
    """
    keyed = [f for f in facts if f.keyed]
    by_id = {f.memory_id: f for f in keyed}
    reasons, same_subject = spelled_key_reasons(keyed, config)
    threshold = config.opposition_similarity
    for pair, cosine in similar_pairs(keyed, threshold, config.pair_block).items():
        if pair not in same_subject:
            continue
        a, b = by_id[pair[0]], by_id[pair[1]]
        is_opposed, cues = opposed(a.content, b.content)
        if is_opposed:
            reasons.setdefault(pair, []).append(
                f"they speak of the same subject '{a.subject}', their embeddings have cosine "
                f"similarity {cosine:.3f} (threshold {threshold}), yet only one of them says the "
                f"opposite (cues: {', '.join(repr(c) for c in cues)})"
            )
    return reasons


class ContradictionCandidates(ProposalJob):
    """Propose reviewing facts with spelling-variant keys or opposite claims.

    Two current facts are contradiction candidates when
      - their keys differ only in spelling: they are not the same key, but subjects and
        attributes each match after `key_part` (NFKC, case-folded, everything but letters and
        digits dropped: white space, punctuation, `_`, `-`), or within `max_edits` (2) edits
        when both normalised parts have at least `min_edit_chars` (6) characters
        ("home_city" ~ "home-city"); or
      - they are opposed about the same subject: subjects match as above, embedding cosine
        >= `opposition_similarity` (0.85), and `opposed` holds: exactly one of the two texts
        carries an odd number of negation/antonym cues (`NEGATIONS`, "no longer",
        `ANTONYMS`: hates/loves, disabled/enabled, false/true, ...) while their canonical
        terms (cues removed, antonyms mapped to one member) overlap by Jaccard >= 0.6.
    Two facts whose texts are equal once case, punctuation and spacing are ignored (`loose_text`,
    the rule `DuplicateCandidates` proposes a merge by) never are: they say the same thing, so
    the pair is a duplicate candidate only. Conversely `DuplicateCandidates` leaves out every
    pair this job proposes (`contradiction_reasons`), so no pair gets both proposals.
    Each new pair gets one proposal trace citing both and saying why; nothing is changed.
    Complexity: keys are compared per pair of facts whose subjects match (distinct subjects
    compared pairwise for edits); similarity as for duplicates, over the keyed facts only.
    """

    name = "contradiction-candidates"
    summary = "propose reviewing current facts whose keys differ only in spelling or that say opposite things"

    def find(self, facts: Sequence[Fact]) -> list[Proposal]:
        """Return keyed pairs with spelling-variant keys, or opposed texts about one subject."""
        by_id = {f.memory_id: f for f in facts}
        reasons = contradiction_reasons(facts, self.config)
        return [Proposal(by_id[a], by_id[b], tuple(why)) for (a, b), why in sorted(reasons.items())]

    def texts(self, proposal: Proposal) -> tuple[str, str, str]:
        """Return the task, thought and conclusion of a contradiction proposal."""
        a, b = proposal.a, proposal.b
        return (
            f"Do facts {a.memory_id} and {b.memory_id} contradict each other?",
            "The two facts may contradict each other: " + "; ".join(proposal.reasons) + ".",
            (
                f"Propose reviewing facts {a.memory_id} ('{excerpt(a.content)}') and {b.memory_id} "
                f"('{excerpt(b.content)}'): they may contradict each other. This is a proposal only: "
                "nothing was changed."
            ),
        )
