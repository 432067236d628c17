"""Result groups: near-duplicates collapse into one item, a decision carries the trace behind it."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from service.domain.models import Kind
from service.domain.retrieval.models import Ranked
from service.domain.text import similarity
from service.graph.records import MemoryRecord

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
#: The speaker label ingestion puts before a user's words (a session's request, a later user
#: message: "User: fix the login bug").
USER_LABEL = "User: "
#: Factor of the score of a trace whose conclusion no longer holds (`Entry.ended`): the
#: reasoning behind a superseded decision ranks below the one that replaced it (fresh-user
#: trial 15: ADR013, "superseded by ADR014", was the first answer to the question both answer).
ENDED_FACTOR = 0.5


@dataclass
class Entry:
    """One fused candidate read back, and what was grouped into it.

    Attributes:
        ranked: the fused candidate (its score, contributions).
        memory: the stored version.
        has_reasoning: a lineage-visible trace `PRODUCED` some version of it.
        produced: for a trace, the memory ids it `PRODUCED`.
        in_force: for a trace in a read of current versions, whether any memory it produced
            still holds at the read's `as_of` (None: it produced nothing, or a history read).
            When none does (`ended`: superseded, invalidated, retracted) its score is
            `ENDED_FACTOR` of its fused one.
        score: the group's score: its lead's (the best of its members).
        duplicates: near-duplicates collapsed into it, best first.
        reasoning: the trace (as an entry) that produced it and was ranked below it, or None.
        produced_items: for a trace, what it produced that was ranked below it.
    """

    ranked: Ranked
    memory: MemoryRecord
    has_reasoning: bool
    produced: tuple[str, ...] = ()
    in_force: bool | None = None
    score: float = 0.0
    duplicates: list[Entry] = field(default_factory=list)
    reasoning: Entry | None = None
    produced_items: list[Entry] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.score = self.ranked.score * (ENDED_FACTOR if self.ended else 1.0)

    @property
    def ended(self) -> bool:
        """True for a trace none of whose produced memories holds any more (`in_force`)."""
        return self.in_force is False

    def fresh(self) -> Entry:
        """Return this candidate without any grouping (to group a longer list again)."""
        return Entry(self.ranked, self.memory, self.has_reasoning, self.produced, self.in_force)


def in_force_first(
    entries: list[Entry], replaced_by: Mapping[str, Sequence[str]] | None = None
) -> list[Entry]:
    """Return entries best first by their own score (`Entry.score`), rejected traces last.

    The fused order, but a trace whose conclusion ended (`Entry.ended`) moves down to where
    its lowered score puts it, and what replaced it ranks above it: an entry that is, or
    produced, a memory in `replaced_by` of something the ended trace produced (ADR 5
    superseding ADR 3) scores at least the ended trace's score and goes first on a tie
    (trial 22: ADR 3, matching the question word for word, still ranked above ADR 5 at half
    its score). The order is otherwise kept (a stable sort).

    Args:
        entries: the candidates read back, in fused order.
        replaced_by: ended memory id -> the memory ids that replaced it (`replacements`).

    Returns:
        The entries in their new order (the same objects; scores raised in place).
    """
    if not any(e.ended for e in entries):
        return entries
    for ended in (e for e in entries if e.ended and replaced_by):
        assert replaced_by is not None
        successors = {r for p in ended.produced for r in replaced_by.get(p, ())}
        for e in entries:
            if not e.ended and (
                e.memory.memory_id in successors or successors.intersection(e.produced)
            ):
                e.score = max(e.score, ended.score)
    return sorted(entries, key=lambda e: (e.ranked.last, -e.score, e.ended))


@lru_cache(maxsize=65536)
def numbers(text: str) -> tuple[str, ...]:
    """Return the numbers a text states, in order ("deploy 3" and "deploy 4" are two facts).

    Cached like `text.shingles`: `group` compares each candidate with every group before it,
    so one recall asked this about 300 times for its 20 texts (cProfile, 10k tenant).
    """
    return tuple(_NUMBER.findall(text))


def near_duplicates(a: MemoryRecord, b: MemoryRecord, threshold: float) -> bool:
    """Return True when two memories say the same thing: same kind, same numbers, similar terms.

    Traces collapse as other memories do (their text: task, steps, conclusion): copies of one
    story (the same reasoning recorded again with other evidence or wording) filled a page
    (a fresh-user trial: three copies of one trace were the top three); the best-ranked copy
    leads, its quality included, and lists the others. (A rejected trace never collapses:
    `group` keeps it last.) Keyed facts never collapse: about
    different keys ("Works on the payments team" for bob and for carol) they are two facts,
    and two memories of one key are two of its values over time ("lives in Paris", "lives in
    Lyon": a history search collapsed a key's values into one, led by a closed version).

    Args:
        a: one memory version.
        b: another.
        threshold: least Jaccard similarity of their term shingles (`similarity`), in [0, 1].

    Returns:
        True for two versions of one memory never (they are one memory), else by the rule.
    """
    if a.memory_id == b.memory_id or a.kind != b.kind:
        return False
    if a.subject is not None or b.subject is not None:
        return False
    return same_statement(a.content, b.content, threshold)


def same_statement(a: str, b: str, threshold: float) -> bool:
    """Return True when two texts state the same numbers and their terms are similar.

    `similarity` (term shingle Jaccard) at least `threshold`: the test `near_duplicates` and
    `states_task` make of two texts.
    """
    return numbers(a) == numbers(b) and similarity(a, b) >= threshold


def states_task(observation: MemoryRecord, trace: MemoryRecord, threshold: float) -> bool:
    """Return True when an observation is the request a trace works on (its task, restated).

    Ingestion keeps a session's request twice: as the trace's task and as an observation
    memory (`"User: <request>"`, the evidence its first step cites); a recall for the request
    found both, the observation first (trial 15). The observation states the task when, with
    the `USER_LABEL` taken off, the two texts cut to the shorter one's length (one side may be
    trimmed) are near-duplicates (`similarity` >= `threshold`, the same numbers).

    Args:
        observation: a candidate observation.
        trace: a candidate trace (its `task_text`).
        threshold: the near-duplicate threshold.
    """
    task = trace.task_text
    if observation.kind != Kind.OBSERVATION or not task:
        return False
    said = observation.content.removeprefix(USER_LABEL)
    size = min(len(said), len(task))
    return same_statement(said[:size], task[:size], threshold)


def group(entries: list[Entry], duplicate_similarity: float) -> list[Entry]:
    """Group fused candidates (best first) into result groups, best first.

    1. A trace and a memory it `PRODUCED` (usually a decision), both among the candidates,
       become one group led by whichever ranked higher: a memory lead carries the trace in
       `reasoning`, a trace lead (it comes back whole) carries the memory in `produced_items`;
       the other is not an item of its own. Rejected traces are never grouped (they keep
       their place after every other item).
    2. An observation stating a trace's task (`states_task`: a session's request, kept as
       an observation too), both among the candidates, is listed in the trace's
       `duplicates`; the trace leads (it holds the request whole), at the better of the two
       ranks and scores.
    3. Near-duplicates (`near_duplicates`; traces too, but never a rejected one) collapse into
       the best-ranked of them, which lists the others in `duplicates`.

    Args:
        entries: the candidates read back, best first.
        duplicate_similarity: the `near_duplicates` threshold (setting); above 1 = off.

    Returns:
        The groups, best first.
    """
    by_memory = {e.memory.memory_id: e for e in entries if e.memory.kind != Kind.REASONING}
    producer: dict[str, Entry] = {}
    for e in entries:
        if e.memory.kind == Kind.REASONING and not e.ranked.last:
            for memory_id in e.produced:
                producer.setdefault(memory_id, e)
    asked: dict[str, Entry] = {}  # observation uid -> the trace whose task it states
    requests: dict[str, list[Entry]] = {}  # trace uid -> those observations, best first
    if duplicate_similarity <= 1:
        traces = [e for e in entries if e.memory.kind == Kind.REASONING and not e.ranked.last]
        for e in entries:
            trace = next(
                (t for t in traces if states_task(e.memory, t.memory, duplicate_similarity)),
                None,
            )
            if trace is not None:
                asked[e.memory.uid] = trace
                requests.setdefault(trace.memory.uid, []).append(e)
    absorbed: set[str] = set()
    kept: list[Entry] = []
    for entry in entries:
        if entry.memory.uid in absorbed:
            continue
        trace = asked.get(entry.memory.uid)
        if trace is not None and trace.memory.uid not in absorbed:
            entry = trace  # the request ranked first: its trace leads in its place
        uid = entry.memory.uid
        if entry.memory.kind == Kind.REASONING:
            for request in requests.get(uid, []):
                if request.memory.uid not in absorbed:
                    entry.duplicates.append(request)
                    entry.score = max(entry.score, request.score)
                    absorbed.add(request.memory.uid)
            if not entry.ranked.last:
                for memory_id in entry.produced:
                    partner = by_memory.get(memory_id)
                    if partner is not None and partner.memory.uid not in absorbed:
                        entry.produced_items.append(partner)
                        absorbed.add(partner.memory.uid)
        else:
            trace = producer.get(entry.memory.memory_id)
            if trace is not None and trace.memory.uid not in absorbed:
                entry.reasoning = trace
                absorbed.add(trace.memory.uid)
        absorbed.add(uid)
        kept.append(entry)
    if duplicate_similarity > 1:
        return kept
    out: list[Entry] = []
    for entry in kept:
        twin = next(
            (
                g
                for g in out
                if not (g.ranked.last or entry.ranked.last)
                and near_duplicates(g.memory, entry.memory, duplicate_similarity)
            ),
            None,
        )
        if twin is not None:
            twin.duplicates.append(entry)
        else:
            out.append(entry)
    return out
