"""Maintenance jobs: background reasoning that adjusts and proposes, never taking over authorship.

Framework
    A job (`MaintenanceJob`) has a `name`, runs on one namespace and returns a `JobReport`
    `{job, examined, changed, memory_ids, trace_ids}`: `examined` counts the memories it looked
    at (decisions or facts), `changed` the writes it made (new decision versions, or new
    proposal traces), `memory_ids` the memories those writes concern and `trace_ids` the
    maintenance traces recorded. Every write goes through `Writer(namespace, "maintenance",
    "job:<name>")`: a new version of a user's decision keeps its `created_by_*` (copied by
    `MemoryService.version_in`), so the decision stays in recall; the job's own traces are
    created by `maintenance` and so are searchable, labelled in lineage and silent in recall
    (the visibility policy decides that, not this module).

    Jobs are idempotent: a second run with nothing new changes nothing. Each write (a version
    and the trace that produced it, or a proposal trace and its key) is one transaction.
    Maintenance traces are recorded with `ReasoningService.record_in(..., gate=False)`: they
    carry the gate's assessment but are never refused; they are still well-formed (observation
    steps citing the evidence, a thought giving the rule, a conclusion).

    Jobs only read memories created through the user and ingestion doors (`SUBJECT_ORIGINS`):
    maintenance never acts on maintenance output, so no job feeds on another's speculation.

evidence-drift
    For every current decision (created through `SUBJECT_ORIGINS`, still valid, status not
    `retracted`) the job reads its lineage (`ReasoningService.lineage`) and keeps the traces of
    `SUBJECT_ORIGINS` that PRODUCED any of its versions. Their cited evidence is counted by
    exact version, as the key `memory_id@version`; a cite of the decision itself is not
    evidence. A key *changed* when `get_trace`'s change logic marks it `invalidated`,
    `superseded` or `retracted` at or after the citing trace was recorded (the rule of
    challenge). Keys already accounted for are those listed in `drift_evidence` on any
    version of the decision. With `total` distinct cited keys and `k` changed keys not yet
    accounted for (k > 0)::

        new confidence = round(old * (1 - 0.5 * k / total), 3)      (old = 1.0 when absent)

    so evidence that all changed at once halves the confidence, and each cited version lowers
    it once, whatever happens to it later. The job writes a new version of the decision
    (`confidence`, `drift_evidence` = accounted + new keys; `status` and content unchanged;
    `last_modified_by` = maintenance/job:evidence-drift) and, in the same transaction, a
    maintenance trace that PRODUCED that version. The trace's steps: the decision and the
    reasoning it rests on (citing those traces), one observation per changed piece of
    evidence saying what changed and when, the rule with its numbers, the conclusion.

    Citing changed evidence: `reasoning/get_cited_memories` accepts current versions only, so
    an observation cites the evidence's *current* version through the draft (when one exists)
    and, through `maintenance/link_version_citations`, the *exact version* the reasoning
    relied on, even when it was retracted. Lineage therefore shows, on the maintenance step,
    the version that changed (`still_valid: false`, with its change) next to what it is now.
    A decision changed by someone else between the read and the write (`VersionConflict`), or
    whose evidence went away meanwhile (`MissingReference`), is skipped with a warning and
    looked at again by the next run; proposals skip the same way.

    Any new version of cited evidence counts as a change, also one written by maintenance: a
    decision cited by other reasoning, lowered by this job, lowers the decisions that rest on
    it (once per cited version, so this terminates).

duplicate-candidates
    Two current facts are duplicate candidates when their loose texts are equal (`loose_text`:
    NFKC, case-folded, punctuation dropped, white space collapsed; "Alice lives in Paris" ==
    "alice lives in paris.") or when the cosine similarity of their stored embeddings is at
    least `settings.duplicate_similarity` (raw cosine of the L2-normalised embeddings, in
    [-1, 1], not Neo4j's `vector.similarity.cosine`, which is (1 + cos) / 2). Pairs that are
    `opposed` (see below) are contradictions, not duplicates, and are left out. Each new pair
    gets one proposal trace citing both facts and proposing the merge; nothing is merged,
    invalidated or deleted.

    Complexity: exact pairwise comparison. One read fetches the n current facts of the
    namespace with their embeddings (O(n), about 0.4 ms per fact over Bolt), then
    `similar_pairs` compares them in numpy, `pair_block` rows at a time: O(n^2) dot products,
    O(pair_block x n) memory. Measured on 4,000 facts (8M pairs): 1.7 s fetch + 0.9 s compare.
    Rejected alternatives: pairwise `vector.similarity.cosine` in Cypher ran at 10k pairs/s
    with the planner's plan (a cartesian product re-scanning `:Fact`) and 157k pairs/s at best
    with embeddings materialised once (51 s for those 4,000 facts); the global vector index
    applies k before the namespace filter, so a namespace sharing texts with others can come
    back short, and it is approximate. Tens of thousands of facts per namespace stay in
    minutes; beyond that, block candidates by subject first.

contradiction-candidates
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
    Each new pair gets one proposal trace citing both and saying why; nothing is changed.
    Complexity: keys are compared per pair of facts whose subjects match (distinct subjects
    compared pairwise for edits); similarity as for duplicates, over the keyed facts only.

Proposal idempotency
    A proposal trace carries `proposal_key = "<job>:<memory_id a>|<memory_id b>"` (ids
    sorted), set in the trace's transaction and unique per namespace (schema constraint
    `reasoning_trace_proposal_key`): a pair is proposed at most once, whatever its later
    versions say, even when two runs race (the loser gets a conflict and skips).

Scheduling
    `MaintenanceScheduler` runs every job on every namespace holding memories, every
    `settings.maintenance_schedule_s` seconds (0 = off), in a daemon thread started by the
    app's lifespan and stopped through a `threading.Event` on shutdown (checked between jobs).
"""

from __future__ import annotations

import logging
import re
import threading
import unicodedata
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import combinations
from typing import Any, ClassVar

import numpy as np

from service.domain.memories import MemoryService, Writer, utcnow
from service.domain.models import Origin, StepDraft, StepKind, TraceDraft
from service.domain.quality import NEGATIONS as QUALITY_NEGATIONS
from service.domain.reasoning import ReasoningService
from service.errors import (
    ConflictError,
    InvalidInputError,
    MemoryNotFound,
    MissingReference,
    RationaleError,
    VersionConflict,
)
from service.graph.repository import Graph, Row, Tx

log = logging.getLogger(__name__)

#: The doors whose memories the jobs read and act on (never maintenance's own output).
SUBJECT_ORIGINS: tuple[str, ...] = (Origin.USER.value, Origin.INGESTION.value)

#: Share of the confidence removed when every cited piece of evidence changed.
DRIFT_WEIGHT = 0.5

_NAMESPACE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
_EXCERPT_CHARS = 200

#: Words that negate what a sentence says (a cue of opposition): the quality gate's list plus
#: negative pronouns, which negate a whole statement about a subject.
NEGATIONS: frozenset[str] = QUALITY_NEGATIONS | frozenset(
    {"ain't", "mustn't", "neither", "nobody", "nothing"}
)

#: Antonyms: the "negative" member -> the member it is mapped to when comparing texts.
ANTONYMS: dict[str, str] = {
    "hates": "loves",
    "hate": "love",
    "hated": "loved",
    "dislikes": "likes",
    "dislike": "like",
    "disliked": "liked",
    "disabled": "enabled",
    "disable": "enable",
    "disables": "enables",
    "false": "true",
    "off": "on",
    "inactive": "active",
    "unavailable": "available",
    "offline": "online",
    "closed": "open",
    "fails": "passes",
    "failed": "passed",
    "fail": "pass",
    "failing": "passing",
    "failure": "success",
    "invalid": "valid",
    "incorrect": "correct",
    "unsupported": "supported",
    "absent": "present",
    "forbidden": "allowed",
    "disallowed": "allowed",
    "denied": "allowed",
    "rejected": "accepted",
    "unhealthy": "healthy",
    "unsafe": "safe",
    "impossible": "possible",
    "excluded": "included",
    "removed": "added",
    "unstable": "stable",
    "broken": "working",
    "down": "up",
    "stopped": "running",
}

#: Jaccard overlap of canonical terms from which two texts speak of the same thing.
OPPOSITION_OVERLAP = 0.6


# -- text helpers (pure) ------------------------------------------------------------------


def _words(text: str) -> list[str]:
    text = unicodedata.normalize("NFKC", text).casefold().replace("\u2019", "'")
    return _WORD.findall(text)


def loose_text(text: str) -> str:
    """Return the comparison form for duplicates: NFKC, case-folded, words only, single spaces.

    Args:
        text: any text.

    Returns:
        E.g. `"alice lives in paris"` for `"Alice lives in Paris."`.
    """
    return " ".join(_words(text))


def key_part(text: str) -> str:
    """Return a key part (subject or attribute) with everything but letters and digits dropped.

    Args:
        text: a subject or attribute as stored.

    Returns:
        NFKC, case-folded, only letters and digits: `"homecity"` for `"Home-City"`.
    """
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in folded if ch.isalnum())


def edit_distance(a: str, b: str, limit: int) -> int:
    """Return the Levenshtein distance of `a` and `b`, or `limit + 1` once it exceeds `limit`.

    Args:
        a: first string.
        b: second string.
        limit: the largest distance of interest (>= 0).

    Returns:
        The distance in [0, limit], or limit + 1 meaning "more than limit".
    """
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if min(current) > limit:
            return limit + 1
        previous = current
    return min(previous[-1], limit + 1)


def spelling_variant(a: str, b: str, *, max_edits: int = 2, min_edit_chars: int = 6) -> bool:
    """Return True when two key parts are the same after `key_part`, or close in spelling.

    Args:
        a: a subject or attribute.
        b: another one.
        max_edits: most edits allowed between the normalised parts.
        min_edit_chars: edits are allowed only when both normalised parts are at least this long.

    Returns:
        True for `"home_city"`/`"home-city"` (equal once normalised) or `"lives_in"`/`"lived_in"`.
    """
    na, nb = key_part(a), key_part(b)
    if na == nb:
        return bool(na)
    if min(len(na), len(nb)) < min_edit_chars:
        return False
    return edit_distance(na, nb, max_edits) <= max_edits


@dataclass(frozen=True)
class Polarity:
    """What `analyse_polarity` found in a text.

    Attributes:
        negative: True when the text carries an odd number of negation/antonym cues.
        terms: the canonical terms (cues dropped, antonyms mapped to one member).
        cues: the cue words found, in order.
    """

    negative: bool
    terms: frozenset[str]
    cues: tuple[str, ...]


def analyse_polarity(text: str) -> Polarity:
    """Find the negation and antonym cues of a text and its canonical terms.

    Args:
        text: any text.

    Returns:
        The polarity: "The flag is not enabled" and "The flag is disabled" are negative, with
        the terms of "the flag is enabled".
    """
    words = _words(text)
    terms: set[str] = set()
    cues: list[str] = []
    skip_next = False
    for i, word in enumerate(words):
        if skip_next:
            skip_next = False
            continue
        if word in NEGATIONS:
            if word == "no" and i + 1 < len(words) and words[i + 1] == "longer":
                cues.append("no longer")
                skip_next = True
            else:
                cues.append(word)
            continue
        if word in ANTONYMS:
            cues.append(word)
            terms.add(ANTONYMS[word])
            continue
        terms.add(word)
    return Polarity(negative=len(cues) % 2 == 1, terms=frozenset(terms), cues=tuple(cues))


def opposed(a: str, b: str) -> tuple[bool, tuple[str, ...]]:
    """Return whether two texts say opposite things about the same thing, and the cues.

    Args:
        a: first text.
        b: second text.

    Returns:
        `(True, cues)` when exactly one is negative and their canonical terms overlap by
        Jaccard >= `OPPOSITION_OVERLAP`; `cues` are the cue words of both texts.
    """
    pa, pb = analyse_polarity(a), analyse_polarity(b)
    if pa.negative == pb.negative or not (pa.terms or pb.terms):
        return False, ()
    overlap = len(pa.terms & pb.terms) / len(pa.terms | pb.terms)
    return overlap >= OPPOSITION_OVERLAP, pa.cues + pb.cues


def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _EXCERPT_CHARS else text[: _EXCERPT_CHARS - 1] + "…"


def _fmt_confidence(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".") if value else "0"


# -- framework ----------------------------------------------------------------------------


@dataclass(frozen=True)
class JobReport:
    """What one run of one job did (the answer of `POST /v1/maintenance/run`).

    Attributes:
        job: the job's name.
        namespace: where it ran.
        examined: memories looked at (decisions for evidence-drift, facts for the others).
        changed: writes made: new decision versions, or new proposal traces.
        memory_ids: the memories those writes concern, sorted.
        trace_ids: the maintenance traces recorded, in order.
    """

    job: str
    namespace: str
    examined: int
    changed: int
    memory_ids: tuple[str, ...] = ()
    trace_ids: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """Return the JSON shape `{job, examined, changed, memory_ids, trace_ids}`."""
        return {
            "job": self.job,
            "examined": self.examined,
            "changed": self.changed,
            "memory_ids": list(self.memory_ids),
            "trace_ids": list(self.trace_ids),
        }


@dataclass(frozen=True)
class MaintenanceConfig:
    """Thresholds of the jobs (documented in the module docstring).

    Attributes:
        duplicate_similarity: raw cosine from which two facts are duplicate candidates
            (`settings.duplicate_similarity`).
        opposition_similarity: raw cosine from which two same-subject facts with opposite
            polarity are contradiction candidates.
        max_edits: most edits between two normalised key parts that differ only in spelling.
        min_edit_chars: edits count only when both normalised parts are at least this long.
        pair_block: rows of the similarity matrix computed at once (memory: pair_block x n floats).
    """

    duplicate_similarity: float = 0.92
    opposition_similarity: float = 0.85
    max_edits: int = 2
    min_edit_chars: int = 6
    pair_block: int = 1024


class MaintenanceJob(ABC):
    """One maintenance job: a name, a run on one namespace, a report.

    Args:
        graph: the query runner.
        memories: the memory store (versions keep `created_by_*`).
        reasoning: the trace store (`record_in`, `lineage`).
        config: thresholds.
    """

    name: ClassVar[str]
    summary: ClassVar[str]

    def __init__(
        self,
        graph: Graph,
        memories: MemoryService,
        reasoning: ReasoningService,
        config: MaintenanceConfig,
    ) -> None:
        self.graph = graph
        self.memories = memories
        self.reasoning = reasoning
        self.config = config

    def writer(self, namespace: str) -> Writer:
        """Return the job's writer: origin `maintenance`, actor `job:<name>`."""
        return Writer(namespace=namespace, origin=Origin.MAINTENANCE, actor=f"job:{self.name}")

    @abstractmethod
    def run(self, namespace: str) -> JobReport:
        """Run once on `namespace` and report; a second run with nothing new changes nothing.

        Raises:
            GraphUnavailableError: Neo4j is unreachable.
        """


# -- evidence-drift -----------------------------------------------------------------------


@dataclass
class _Cited:
    """One cited evidence version, with where it was cited and whether it changed since."""

    memory_id: str
    version: int
    content: str
    change: str | None = None
    changed_at: datetime | None = None
    cited_by: list[tuple[str, int]] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.memory_id}@{self.version}"


@dataclass(frozen=True)
class _Drift:
    decision: Row
    trace_ids: tuple[str, ...]
    total: int
    changed: tuple[_Cited, ...]
    accounted: tuple[str, ...]
    old: float
    new: float


class EvidenceDrift(MaintenanceJob):
    """Lower the confidence of decisions whose cited evidence changed (rule: module docstring)."""

    name = "evidence-drift"
    summary = "lower a decision's confidence when the evidence its reasoning cites changed"

    def run(self, namespace: str) -> JobReport:
        """Examine every current decision with cited reasoning; write one version per drift.

        Args:
            namespace: the tenant.

        Returns:
            `examined` decisions, `changed` = decisions given a new version, their ids, and the
            maintenance traces that produced those versions.
        """
        now = utcnow()
        rows = self.graph.run(
            "maintenance/list_drift_candidates",
            {"namespace": namespace, "origins": list(SUBJECT_ORIGINS), "now": now},
        )
        changed: list[str] = []
        traces: list[str] = []
        for row in rows:
            drift = self._drift(namespace, row)
            if drift is None:
                continue
            try:
                trace_id = self._apply(namespace, drift)
            except (ConflictError, MissingReference) as exc:  # changed during the run
                log.warning(
                    "%s: skipped decision %s in %s (next run looks again): %s",
                    self.name,
                    row["memory_id"],
                    namespace,
                    exc.message,
                )
                continue
            changed.append(row["memory_id"])
            traces.append(trace_id)
        return JobReport(
            self.name, namespace, len(rows), len(changed), tuple(sorted(changed)), tuple(traces)
        )

    def _drift(self, namespace: str, row: Row) -> _Drift | None:
        decision_id = row["memory_id"]
        try:
            lineage = self.reasoning.lineage(namespace, decision_id)
        except MemoryNotFound:
            return None
        producing = [t for t in lineage["traces"] if t["created_by"]["origin"] in SUBJECT_ORIGINS]
        cited: dict[str, _Cited] = {}
        for trace in producing:
            for step in trace["steps"]:
                for cite in step["cites"]:
                    if cite["memory_id"] == decision_id:
                        continue
                    item = cited.setdefault(
                        f"{cite['memory_id']}@{cite['version']}",
                        _Cited(cite["memory_id"], cite["version"], cite.get("content") or ""),
                    )
                    item.cited_by.append((trace["trace_id"], step["index"]))
                    since = cite["changed_at"] is None or cite["changed_at"] >= trace["system_from"]
                    if cite["change"] is not None and since and item.change is None:
                        item.change, item.changed_at = cite["change"], cite["changed_at"]
        accounted = set(row["accounted"] or ())
        fresh = tuple(
            c for k, c in sorted(cited.items()) if c.change is not None and k not in accounted
        )
        if not fresh:
            return None
        old = 1.0 if row["confidence"] is None else float(row["confidence"])
        new = round(old * (1 - DRIFT_WEIGHT * len(fresh) / len(cited)), 3)
        return _Drift(
            decision=row,
            trace_ids=tuple(t["trace_id"] for t in producing),
            total=len(cited),
            changed=fresh,
            accounted=tuple(sorted(accounted | {c.key for c in fresh})),
            old=old,
            new=new,
        )

    def _describe(self, namespace: str, cite: _Cited) -> tuple[str, tuple[str, ...]]:
        """Return an observation's text about one changed piece of evidence, and its draft cites."""
        where = ", ".join(f"step {step} of trace {trace}" for trace, step in cite.cited_by)
        when = cite.changed_at.isoformat() if cite.changed_at else "an unknown time"
        text = (
            f"Evidence {cite.memory_id} version {cite.version} ('{_excerpt(cite.content)}'), "
            f"cited by {where}, was {cite.change} at {when}"
        )
        try:
            current = self.memories.get(namespace, cite.memory_id)
        except MemoryNotFound:
            return (
                text
                + "; it has no current version (retracted), so only that exact version is cited.",
                (),
            )
        text += f"; its current version {current['version']} reads '{_excerpt(current['content'])}'"
        if current.get("valid_to") is not None:
            text += f" and stopped being true at {current['valid_to'].isoformat()}"
        return text + ".", (cite.memory_id,)

    def _draft(self, namespace: str, drift: _Drift) -> tuple[TraceDraft, list[dict[str, Any]]]:
        d = drift.decision
        old, new = _fmt_confidence(drift.old), _fmt_confidence(drift.new)
        k, total = len(drift.changed), drift.total
        steps = [
            StepDraft(
                kind=StepKind.OBSERVATION,
                content=(
                    f"Decision {d['memory_id']} version {d['version']} (confidence {old}) reads "
                    f"'{_excerpt(d['content'])}'. It was produced by reasoning "
                    f"{', '.join(drift.trace_ids)}, whose steps cite {total} distinct pieces of evidence."
                ),
                cites=drift.trace_ids,
            )
        ]
        pins: list[dict[str, Any]] = []
        for cite in drift.changed:
            text, cites = self._describe(namespace, cite)
            pins.append({"step": len(steps), "memory_id": cite.memory_id, "version": cite.version})
            steps.append(StepDraft(kind=StepKind.OBSERVATION, content=text, cites=cites))
        steps.append(
            StepDraft(
                kind=StepKind.THOUGHT,
                content=(
                    f"{k} of the {total} pieces of evidence the reasoning cites changed since it was "
                    f"recorded. Rule: new confidence = old x (1 - {DRIFT_WEIGHT} x changed / cited) "
                    f"= {old} x (1 - {DRIFT_WEIGHT} x {k}/{total}) = {new}."
                ),
            )
        )
        steps.append(
            StepDraft(
                kind=StepKind.CONCLUSION,
                content=(
                    f"Lower the confidence of decision {d['memory_id']} from {old} to {new}: {k} of "
                    f"the {total} pieces of evidence its reasoning cites changed since it was recorded. "
                    "The decision itself stays as it is; its authors may revisit it."
                ),
            )
        )
        draft = TraceDraft(
            task=f"Evidence drift: does decision {d['memory_id']} ('{_excerpt(d['content'])}') still hold?",
            steps=tuple(steps),
            produced_memory_id=d["memory_id"],
        )
        return draft, pins

    def _apply(self, namespace: str, drift: _Drift) -> str:
        writer = self.writer(namespace)
        draft, pins = self._draft(namespace, drift)
        draft = self.reasoning.clean_draft(draft)
        vectors = self.memories.embedder.encode(self.reasoning.embedding_texts(draft))
        now = utcnow()
        decision = drift.decision
        reason = f"evidence drift: {len(drift.changed)} of {drift.total} cited pieces of evidence changed"

        def work(tx: Tx) -> str:
            current = self.memories.current_in(tx, namespace, decision["memory_id"])
            if current["version"] != decision["version"]:
                raise VersionConflict(
                    f"decision {decision['memory_id']} moved to version {current['version']} during the run"
                )
            changes = {"confidence": drift.new, "drift_evidence": list(drift.accounted)}
            self.memories.version_in(tx, current, changes, writer, now, reason=reason)
            # produced_memory_id resolves to the current version: the one just written.
            recorded = self.reasoning.record_in(tx, writer, draft, vectors, now=now, gate=False)
            linked = tx.one(
                "maintenance/link_version_citations",
                {"namespace": namespace, "trace_uid": recorded.trace_uid, "cites": pins},
            )
            if linked is None or linked["linked"] != len(pins):
                raise RationaleError(
                    f"{self.name}: cited {linked and linked['linked']} of {len(pins)} versions"
                )
            return recorded.trace_id

        return self.graph.write(work)


# -- proposal jobs ------------------------------------------------------------------------


@dataclass(frozen=True)
class Fact:
    """A current fact as the candidate jobs see it.

    Attributes:
        embedding: list[float], len == settings.embedding_dim, L2-normalised; None if missing.
    """

    memory_id: str
    version: int
    content: str
    subject: str | None = None
    attribute: str | None = None
    embedding: Sequence[float] | None = field(default=None, repr=False, compare=False)

    @property
    def keyed(self) -> bool:
        """True when the fact has a key (subject + attribute)."""
        return self.subject is not None and self.attribute is not None

    def describe(self) -> str:
        """Return `Fact <id> version <n> [(key '<subject>' / '<attribute>')] reads: '<content>'`."""
        key = f" (key '{self.subject}' / '{self.attribute}')" if self.keyed else ""
        return (
            f"Fact {self.memory_id} version {self.version}{key} reads: '{_excerpt(self.content)}'"
        )


@dataclass(frozen=True)
class Proposal:
    """A pair of facts a proposal job wants to propose, with the reasons (sentences)."""

    a: Fact
    b: Fact
    reasons: tuple[str, ...]


class ProposalJob(MaintenanceJob):
    """A job that only proposes: one maintenance trace per new pair of facts, nothing changed."""

    @abstractmethod
    def find(self, facts: Sequence[Fact]) -> list[Proposal]:
        """Return the candidate pairs (a.memory_id < b.memory_id), in a stable order."""

    @abstractmethod
    def texts(self, proposal: Proposal) -> tuple[str, str, str]:
        """Return `(task, thought, conclusion)` for a proposal's trace."""

    def run(self, namespace: str) -> JobReport:
        """Propose each new candidate pair once.

        Args:
            namespace: the tenant.

        Returns:
            `examined` current facts, `changed` = proposals recorded, the facts they concern,
            and the proposal traces.
        """
        now = utcnow()
        facts = [
            Fact(**r)
            for r in self.graph.run(
                "maintenance/list_current_facts",
                {"namespace": namespace, "origins": list(SUBJECT_ORIGINS), "now": now},
            )
        ]
        done = {
            r["proposal_key"]
            for r in self.graph.run(
                "maintenance/list_proposal_keys",
                {"namespace": namespace, "prefix": f"{self.name}:"},
            )
        }
        memory_ids: set[str] = set()
        traces: list[str] = []
        for proposal in self.find(facts):
            key = f"{self.name}:{proposal.a.memory_id}|{proposal.b.memory_id}"
            if key in done:
                continue
            try:
                traces.append(self._propose(namespace, proposal, key))
            except (ConflictError, MissingReference) as exc:  # raced, or a fact went away
                log.warning(
                    "%s: skipped %s in %s: %s",
                    self.name,
                    key,
                    namespace,
                    exc.message,
                )
                continue
            memory_ids.update((proposal.a.memory_id, proposal.b.memory_id))
        return JobReport(
            self.name, namespace, len(facts), len(traces), tuple(sorted(memory_ids)), tuple(traces)
        )

    def _propose(self, namespace: str, proposal: Proposal, key: str) -> str:
        task, thought, conclusion = self.texts(proposal)
        draft = TraceDraft(
            task=task,
            steps=(
                StepDraft(
                    kind=StepKind.OBSERVATION,
                    content=proposal.a.describe(),
                    cites=(proposal.a.memory_id,),
                ),
                StepDraft(
                    kind=StepKind.OBSERVATION,
                    content=proposal.b.describe(),
                    cites=(proposal.b.memory_id,),
                ),
                StepDraft(kind=StepKind.THOUGHT, content=thought),
                StepDraft(kind=StepKind.CONCLUSION, content=conclusion),
            ),
        )
        draft = self.reasoning.clean_draft(draft)
        vectors = self.memories.embedder.encode(self.reasoning.embedding_texts(draft))
        writer = self.writer(namespace)
        now = utcnow()

        def work(tx: Tx) -> str:
            recorded = self.reasoning.record_in(tx, writer, draft, vectors, now=now, gate=False)
            tx.one(
                "maintenance/update_trace_proposal_key",
                {"namespace": namespace, "trace_uid": recorded.trace_uid, "proposal_key": key},
            )
            return recorded.trace_id

        return self.graph.write(work)


def similar_pairs(
    facts: Sequence[Fact], threshold: float, block: int = 1024
) -> dict[tuple[str, str], float]:
    """Return the pairs of facts whose embeddings' cosine similarity is at least `threshold`.

    Exact: every pair is compared (numpy, `block` rows of the similarity matrix at a time).

    Args:
        facts: the facts; those without an embedding are skipped.
        threshold: raw cosine in [-1, 1].
        block: rows computed at once (memory: block x len(facts) floats).

    Returns:
        `{(memory_id a, memory_id b): cosine}` with a < b; cosine in [-1, 1], 4 decimals.
    """
    items = sorted((f for f in facts if f.embedding), key=lambda f: f.memory_id)
    if len(items) < 2:
        return {}
    ids = [f.memory_id for f in items]
    matrix = np.asarray([f.embedding for f in items], dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix = matrix / np.where(norms == 0.0, 1.0, norms)  # stored L2-normalised; guard anyway
    pairs: dict[tuple[str, str], float] = {}
    for start in range(0, len(ids), block):
        sims = matrix[start : start + block] @ matrix.T
        for row, col in zip(*np.nonzero(sims >= threshold), strict=True):
            i, j = start + int(row), int(col)
            if j > i:
                pairs[(ids[i], ids[j])] = round(float(sims[row, col]), 4)
    return pairs


def _ordered(a: Fact, b: Fact) -> tuple[Fact, Fact]:
    return (a, b) if a.memory_id < b.memory_id else (b, a)


class DuplicateCandidates(ProposalJob):
    """Propose merging near-duplicate current facts (rule: module docstring)."""

    name = "duplicate-candidates"
    summary = "propose merging current facts with the same loose text or very close embeddings"

    def find(self, facts: Sequence[Fact]) -> list[Proposal]:
        """Return pairs with equal loose text or cosine >= duplicate_similarity, minus opposed ones."""
        by_id = {f.memory_id: f for f in facts}
        reasons: dict[tuple[str, str], list[str]] = {}
        groups: dict[str, list[Fact]] = {}
        for f in facts:
            groups.setdefault(loose_text(f.content), []).append(f)
        for text, group in groups.items():
            for x, y in combinations(group, 2):
                a, b = _ordered(x, y)
                reasons.setdefault((a.memory_id, b.memory_id), []).append(
                    f"their texts are the same once case, punctuation and spacing are ignored ('{_excerpt(text)}')"
                )
        threshold = self.config.duplicate_similarity
        for pair, cosine in similar_pairs(facts, threshold, self.config.pair_block).items():
            reasons.setdefault(pair, []).append(
                f"their embeddings have cosine similarity {cosine:.3f} (duplicate threshold {threshold})"
            )
        out = []
        for (ida, idb), why in sorted(reasons.items()):
            a, b = by_id[ida], by_id[idb]
            if opposed(a.content, b.content)[0]:
                continue  # the same words with opposite polarity: a contradiction, not a duplicate
            out.append(Proposal(a, b, tuple(why)))
        return out

    def texts(self, proposal: Proposal) -> tuple[str, str, str]:
        """Return the task, thought and conclusion of a duplicate proposal."""
        a, b = proposal.a, proposal.b
        return (
            f"Are facts {a.memory_id} and {b.memory_id} duplicates?",
            "The two facts look like the same fact: " + "; ".join(proposal.reasons) + ".",
            (
                f"Propose merging fact {b.memory_id} ('{_excerpt(b.content)}') into fact {a.memory_id} "
                f"('{_excerpt(a.content)}'): they look like duplicates. This is a proposal only: "
                "nothing was merged, invalidated or deleted."
            ),
        )


class ContradictionCandidates(ProposalJob):
    """Propose reviewing facts with spelling-variant keys or opposite claims (rule: module docstring)."""

    name = "contradiction-candidates"
    summary = "propose reviewing current facts whose keys differ only in spelling or that say opposite things"

    def _subjects_match(self, a: str, b: str) -> bool:
        return spelling_variant(
            a, b, max_edits=self.config.max_edits, min_edit_chars=self.config.min_edit_chars
        )

    def find(self, facts: Sequence[Fact]) -> list[Proposal]:
        """Return keyed pairs with spelling-variant keys, or opposed texts about one subject."""
        keyed = [f for f in facts if f.keyed]
        by_id = {f.memory_id: f for f in keyed}
        by_subject: dict[str, list[Fact]] = {}
        for f in keyed:
            assert f.subject is not None
            by_subject.setdefault(key_part(f.subject), []).append(f)
        subjects = sorted(by_subject)
        linked = [(s, s) for s in subjects] + [
            (s, t) for s, t in combinations(subjects, 2) if self._subjects_match(s, t)
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
                a, b = _ordered(x, y)
                same_subject.add((a.memory_id, b.memory_id))
                if (a.subject, a.attribute) == (b.subject, b.attribute):
                    continue  # the very same key: the keyed-fact rule already keeps one current value
                assert a.attribute is not None
                assert b.attribute is not None
                if self._subjects_match(a.attribute, b.attribute):
                    reasons.setdefault((a.memory_id, b.memory_id), []).append(
                        f"their keys '{a.subject}' / '{a.attribute}' and '{b.subject}' / '{b.attribute}' "
                        "differ only in spelling, so neither replaced the other as the value of one key"
                    )
        threshold = self.config.opposition_similarity
        for pair, cosine in similar_pairs(keyed, threshold, self.config.pair_block).items():
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
        return [Proposal(by_id[a], by_id[b], tuple(why)) for (a, b), why in sorted(reasons.items())]

    def texts(self, proposal: Proposal) -> tuple[str, str, str]:
        """Return the task, thought and conclusion of a contradiction proposal."""
        a, b = proposal.a, proposal.b
        return (
            f"Do facts {a.memory_id} and {b.memory_id} contradict each other?",
            "The two facts may contradict each other: " + "; ".join(proposal.reasons) + ".",
            (
                f"Propose reviewing facts {a.memory_id} ('{_excerpt(a.content)}') and {b.memory_id} "
                f"('{_excerpt(b.content)}'): they may contradict each other. This is a proposal only: "
                "nothing was changed."
            ),
        )


# -- service and scheduler ----------------------------------------------------------------

#: Every job, in the order a full round runs them.
JOBS: tuple[type[MaintenanceJob], ...] = (
    EvidenceDrift,
    DuplicateCandidates,
    ContradictionCandidates,
)

#: The names `POST /v1/maintenance/run` and `rationale maintenance run` accept.
JOB_NAMES: tuple[str, ...] = tuple(job.name for job in JOBS)


class MaintenanceService:
    """The registry of jobs, run on one namespace or on every namespace holding memories.

    Args:
        graph: the query runner.
        memories: the memory store.
        reasoning: the trace store.
        config: thresholds of the jobs.
    """

    def __init__(
        self,
        graph: Graph,
        memories: MemoryService,
        reasoning: ReasoningService,
        config: MaintenanceConfig,
    ) -> None:
        self.graph = graph
        self.jobs: dict[str, MaintenanceJob] = {
            job.name: job(graph, memories, reasoning, config) for job in JOBS
        }

    def names(self) -> list[str]:
        """Return the known job names, in run order."""
        return list(self.jobs)

    def run(self, job: str, namespace: str) -> JobReport:
        """Run one job on one namespace.

        Args:
            job: a name from `names()`.
            namespace: the tenant (`[A-Za-z0-9_-]{1,64}`).

        Returns:
            The job's report.

        Raises:
            InvalidInputError: unknown job (the message and `known_jobs` name the known ones) or
                a malformed namespace.
            GraphUnavailableError: Neo4j is unreachable.
        """
        if job not in self.jobs:
            raise InvalidInputError(
                f"unknown maintenance job {job!r}; known jobs: {', '.join(self.jobs)}",
                extra={"known_jobs": list(self.jobs)},
            )
        if not _NAMESPACE.match(namespace):
            raise InvalidInputError(f"namespace {namespace!r} must match [A-Za-z0-9_-]{{1,64}}")
        report = self.jobs[job].run(namespace)
        log.info(
            "maintenance %s on %s: examined %d, changed %d",
            job,
            namespace,
            report.examined,
            report.changed,
        )
        return report

    def namespaces(self) -> list[str]:
        """Return every namespace that holds at least one memory, sorted."""
        return [r["namespace"] for r in self.graph.run("maintenance/list_namespaces", {})]

    def run_everywhere(self, stop: threading.Event | None = None) -> list[JobReport]:
        """Run every job on every namespace holding memories; a failing job is logged and skipped.

        Args:
            stop: when set, no further job starts (the scheduler's shutdown signal).

        Returns:
            The reports of the jobs that ran.
        """
        reports: list[JobReport] = []
        for namespace in self.namespaces():
            for job in self.jobs:
                if stop is not None and stop.is_set():
                    return reports
                try:
                    reports.append(self.run(job, namespace))
                except RationaleError as exc:
                    log.error(
                        "maintenance %s on %s failed: %s (%s)",
                        job,
                        namespace,
                        exc.message,
                        exc.code,
                    )
        return reports


class MaintenanceScheduler:
    """Runs `MaintenanceService.run_everywhere` every `interval_s` seconds in a daemon thread.

    Args:
        service: the jobs.
        interval_s: seconds between the end of one round and the start of the next; 0 = off
            (`start` does nothing).
    """

    def __init__(self, service: MaintenanceService, interval_s: float) -> None:
        self.service = service
        self.interval_s = interval_s
        self.rounds = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def running(self) -> bool:
        """True while the thread is alive."""
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> None:
        """Start the thread (once); do nothing when the interval is 0."""
        if self.interval_s <= 0 or self._thread is not None:
            return
        self._thread = threading.Thread(
            target=self._loop, name="rationale-maintenance", daemon=True
        )
        self._thread.start()
        log.info("maintenance scheduled every %.1f s", self.interval_s)

    def stop(self, timeout_s: float = 30.0) -> None:
        """Ask the thread to stop (after the job in progress) and wait for it.

        Args:
            timeout_s: how long to wait for the job in progress, in seconds.
        """
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            if self._thread.is_alive():
                log.warning(
                    "maintenance thread still running after %.1f s; it is a daemon", timeout_s
                )

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self.tick()

    def tick(self) -> list[JobReport]:
        """Run one round now; any error is logged, never kills the thread.

        Returns:
            The round's reports (empty when it failed).
        """
        try:
            reports = self.service.run_everywhere(self._stop)
        except Exception:  # the thread's top level: log and keep the schedule alive
            log.exception("maintenance round failed")
            return []
        self.rounds += 1
        return reports
