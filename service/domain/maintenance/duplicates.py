"""The duplicate-candidates job: propose merging current facts that look like the same fact."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from service.domain.maintenance.base import excerpt
from service.domain.maintenance.contradictions import spelled_key_reasons
from service.domain.maintenance.proposals import Fact, Proposal, ProposalJob, ordered
from service.domain.maintenance.similarity import similar_pairs
from service.domain.text import loose_text, opposed


class DuplicateCandidates(ProposalJob):
    """Propose merging near-duplicate current facts.

    Two current facts are duplicate candidates when their loose texts are equal (`loose_text`:
    NFKC, case-folded, punctuation dropped, white space collapsed; "Alice lives in Paris" ==
    "alice lives in paris.") or when the cosine similarity of their stored embeddings is at
    least `settings.duplicate_similarity` (raw cosine of the L2-normalised embeddings, in
    [-1, 1], not Neo4j's `vector.similarity.cosine`, which is (1 + cos) / 2). Left out, as
    contradictions rather than duplicates: pairs that are `opposed` (the same words with
    opposite polarity), and every pair `ContradictionCandidates` proposes
    (`contradiction_reasons`: keys that differ only in spelling while the loose texts differ,
    `spelled_key_reasons`; or opposed texts about one subject, within `opposed`). That job in
    turn never proposes a pair with equal loose texts, so no pair gets both proposals. Each new pair
    gets one proposal trace citing both facts and proposing the merge; nothing is merged,
    invalidated or deleted.
    """

    name = "duplicate-candidates"
    summary = "propose merging current facts with the same loose text or very close embeddings"

    def find(self, facts: Sequence[Fact]) -> list[Proposal]:
        """Return pairs with equal loose text or cosine >= duplicate_similarity, minus contradictions."""
        by_id = {f.memory_id: f for f in facts}
        reasons: dict[tuple[str, str], list[str]] = {}
        groups: dict[str, list[Fact]] = {}
        for f in facts:
            groups.setdefault(loose_text(f.content), []).append(f)
        for text, group in groups.items():
            for x, y in combinations(group, 2):
                a, b = ordered(x, y)
                reasons.setdefault((a.memory_id, b.memory_id), []).append(
                    f"their texts are the same once case, punctuation and spacing are ignored ('{excerpt(text)}')"
                )
        threshold = self.config.duplicate_similarity
        for pair, cosine in similar_pairs(facts, threshold, self.config.pair_block).items():
            reasons.setdefault(pair, []).append(
                f"their embeddings have cosine similarity {cosine:.3f} (duplicate threshold {threshold})"
            )
        # The contradiction job's other reason (opposed texts) is `opposed` below: its
        # similarity scan is not run a second time here.
        contradictory, _ = spelled_key_reasons(facts, self.config)
        out = []
        for (ida, idb), why in sorted(reasons.items()):
            a, b = by_id[ida], by_id[idb]
            if (ida, idb) in contradictory or opposed(a.content, b.content)[0]:
                continue  # a contradiction (opposite polarity, or distinct keys' values), not a duplicate
            out.append(Proposal(a, b, tuple(why)))
        return out

    def texts(self, proposal: Proposal) -> tuple[str, str, str]:
        """Return the task, thought and conclusion of a duplicate proposal."""
        a, b = proposal.a, proposal.b
        return (
            f"Are facts {a.memory_id} and {b.memory_id} duplicates?",
            "The two facts look like the same fact: " + "; ".join(proposal.reasons) + ".",
            (
                f"Propose merging fact {b.memory_id} ('{excerpt(b.content)}') into fact {a.memory_id} "
                f"('{excerpt(a.content)}'): they look like duplicates. This is a proposal only: "
                "nothing was merged, invalidated or deleted."
            ),
        )
