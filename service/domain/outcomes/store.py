"""Recording and listing outcomes: what happened when a decision was acted on (DESIGN §12).

An outcome is a `:Memory:Observation` created through the memory store (origin from the door,
`valid_from` = `observed_at`), linked `(Decision)-[:HAD_OUTCOME {result, at, origin, actor}]->
(Observation)` from the decision version current at write time. A `failure` or `mixed` outcome on
an `active` decision also writes the decision's next version with status `challenged`
(`created_by` kept, `last_modified_by` the outcome's writer), in the same transaction.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from service.domain.memories import Memory, MemoryService, Writer, iso_utc, memory_public, utcnow
from service.domain.memories.cited import cited_memories
from service.domain.memories.locks import lock_contents
from service.domain.memories.rows import CLOCK_SKEW
from service.domain.memories.versions import RACE_BACKOFF_S
from service.domain.models import Kind
from service.domain.outcomes.models import CHALLENGING, NewOutcome, Outcome, OutcomeResult
from service.domain.text import normalise_for_match
from service.errors import (
    InvalidInputError,
    MemoryNotFound,
    NotADecision,
)
from service.graph.query_names import QueryName
from service.graph.records import CitedMemory, MemoryRecord
from service.graph.repository import Graph, Runner, Tx

#: Most memories one outcome may cite.
MAX_OUTCOME_CITES = 50


#: How far past the server's clock an outcome's `observed_at` may be (the caller's clock runs
#: ahead); later is a future observation, refused (`check_observed_at`). Shared with a
#: reasoning's `produced.valid_from` (`reasoning.drafts.clean_draft`).
MAX_CLOCK_SKEW = CLOCK_SKEW


def check_observed_at(observed_at: datetime, decision: MemoryRecord, now: datetime) -> None:
    """Refuse an outcome's `observed_at` from before its decision took effect or in the future.

    A future outcome would take effect at once (a failure challenges the decision now).

    Args:
        observed_at: when the caller says it was observed (timezone-aware UTC).
        decision: the decision's current version (its `valid_from`: when it took effect).
        now: the server's time (timezone-aware UTC).

    Raises:
        InvalidInputError: `observed_at` is later than `now` plus `MAX_CLOCK_SKEW`, or earlier
            than the decision's `valid_from`.
    """
    if observed_at > now + MAX_CLOCK_SKEW:
        raise InvalidInputError(
            f"observed_at: {iso_utc(observed_at)} is in the future (the server's time is "
            f"{iso_utc(now)}, allowing {MAX_CLOCK_SKEW.seconds} s of clock skew); an outcome "
            "is recorded once it was observed"
        )
    if observed_at < decision.valid_from:
        raise InvalidInputError(
            f"observed_at: {iso_utc(observed_at)} is before decision {decision.memory_id} "
            f"took effect ({iso_utc(decision.valid_from)}); an outcome follows its decision"
        )


@dataclass(frozen=True)
class RecordedOutcome:
    """The answer of `OutcomeService.record`.

    Attributes:
        outcome: the outcome as stored.
        decision: the decision's current version after the write (the `challenged` one when
            this outcome challenged it).
        challenged: True when this write made the decision `challenged`.
        created: False when the same outcome (equal text, the same result and, when given, the
            same `observed_at`) was already recorded on this decision: nothing was written.
    """

    outcome: Outcome
    decision: Memory
    challenged: bool
    created: bool


def list_outcomes_in(
    runner: Runner,
    namespace: str,
    memory_ids: Sequence[str],
    as_of: datetime | None = None,
    known_at: datetime | None = None,
) -> list[Outcome]:
    """Return the outcomes of decisions, oldest observation first (per decision).

    Args:
        runner: a `Graph` or an open `Tx`.
        namespace: the tenant.
        memory_ids: the decisions (any version's `HAD_OUTCOME` counts).
        as_of: only outcomes observed (valid time) by then, timezone-aware UTC, or None.
        known_at: only outcomes recorded (system time) by then, each observation's version
            believed then; None for now.

    Returns:
        The outcomes.
    """
    if not memory_ids:
        return []
    return runner.mapped(
        QueryName.OUTCOME_LIST_OUTCOMES,
        {
            "namespace": namespace,
            "memory_ids": list(memory_ids),
            "as_of": as_of,
            "known_at": known_at,
        },
        Outcome.from_row,
    )


class OutcomeService:
    """Use cases on outcomes: record one on a decision, list a decision's outcomes.

    Args:
        graph: the query runner.
        memories: the memory store (the observation, the decision's `challenged` version).
    """

    def __init__(self, graph: Graph, memories: MemoryService) -> None:
        self.graph = graph
        self.memories = memories

    def _decision_in(self, tx: Runner, namespace: str, memory_id: str) -> MemoryRecord:
        record = tx.memory(
            QueryName.MEMORY_GET_MEMORY,
            {"namespace": namespace, "memory_id": memory_id, "as_of": None, "known_at": None},
        )
        if record is None:
            raise self.memories.not_found(namespace, memory_id)
        if record.kind != Kind.DECISION:
            raise NotADecision(
                f"memory {memory_id} is of kind {record.kind}, not a decision: outcomes are "
                "recorded on decisions"
            )
        return record

    def record(self, writer: Writer, decision_id: str, body: NewOutcome) -> RecordedOutcome:
        """Record what happened when a decision was acted on, in one transaction.

        Args:
            writer: namespace, door (origin) and actor of the outcome.
            decision_id: the decision's `memory_id`.
            body: result, content, `observed_at` (timezone-aware UTC, default now) and cites.

        Returns:
            The outcome, the decision's current version, whether it was challenged, and
            `created` (False for a repeat of the same outcome: nothing written).

        Raises:
            MemoryNotFound: no current memory `decision_id` in the namespace (404).
            NotADecision: the memory is not a decision (422, `outcome.not_a_decision`).
            MissingReference: a cited memory does not exist or was retracted (422).
            InvalidInputError, TooLargeError: bad result, text or too many cites, or an
                `observed_at` before the decision took effect or in the future
                (`check_observed_at`).
        """
        if body.result not in {r.value for r in OutcomeResult}:
            raise InvalidInputError(
                f"result: {body.result!r} is not one of success, failure, mixed"
            )
        cites = tuple(dict.fromkeys(body.cites))
        if len(cites) > MAX_OUTCOME_CITES:
            raise InvalidInputError(f"cites: at most {MAX_OUTCOME_CITES} memories")
        now = utcnow()
        # Validate the decision before embedding (a 404/422 costs no model call).
        try:
            decision = self._decision_in(self.graph, writer.namespace, decision_id)
        except MemoryNotFound:  # read while a concurrent write replaced its version: once more
            time.sleep(RACE_BACKOFF_S)
            decision = self._decision_in(self.graph, writer.namespace, decision_id)
        check_observed_at(body.observed_at or now, decision, now)
        props = self.memories.new_props(
            writer, Kind.OBSERVATION, body.content, now=now, valid_from=body.observed_at or now
        )

        def work(tx: Tx) -> RecordedOutcome:
            return self.record_in(
                tx, writer, decision_id, body.result, props, cites, now, observed=body.observed_at
            )

        return self.memories.write_racing(work)

    def record_in(
        self,
        tx: Tx,
        writer: Writer,
        decision_id: str,
        result: str,
        props: dict[str, Any],
        cites: Sequence[str],
        now: datetime,
        *,
        observed: datetime | None = None,
        challenge: bool = True,
    ) -> RecordedOutcome:
        """Record an outcome inside an open write transaction (ingestion adds its own).

        An outcome is an event: its observation is a memory of its own, never another
        memory of equal text (the same failure seen again a week later is a second outcome,
        and one decision's outcome is never another's). A repeat (`created` False, nothing
        written) is an outcome of this decision with equal text (normalised) and the same
        result, observed at `observed` when that was given: a retried call. Equal text and
        time with another result is refused.

        Args:
            tx: the open write transaction.
            writer: namespace, door (origin) and actor.
            decision_id: the decision's `memory_id`.
            result: an `OutcomeResult` value.
            props: the observation's properties, from `MemoryService.new_props` (kind
                observation, `valid_from` = when it was observed).
            cites: memory_ids of evidence (current versions are cited).
            now: the write's system time (timezone-aware UTC datetime).
            observed: when it was observed as the caller or the material said it (timezone-aware
                UTC), or None when not said (`props["valid_from"]` is then the write's time).
            challenge: let a failure or mixed outcome challenge an active decision (False when
                the material already settles the decision's fate, e.g. a superseded ADR, whose
                supersession closes it).

        Returns:
            See `record`.

        Raises:
            MemoryNotFound, NotADecision, MissingReference, InvalidInputError: see `record`.
        """
        decision = self._decision_in(tx, writer.namespace, decision_id)
        cited = self._cited(tx, writer.namespace, cites, decision_id)
        # Equal outcomes take the same content lock: a retry racing the first call finds it.
        lock_contents(tx, writer.namespace, [props], now)
        repeated = [
            o
            for o in list_outcomes_in(tx, writer.namespace, [decision_id])
            if normalise_for_match(o.content) == props["content_norm"]
            and (observed is None or o.observed_at == observed)
        ]
        if repeated:
            same = [o for o in repeated if o.result == result]
            if not same:
                raise InvalidInputError(
                    f"outcome {repeated[-1].outcome_id} of decision {decision_id} says the same as "
                    f"a {repeated[-1].result}; record a new observation for a different result"
                )
            return RecordedOutcome(same[-1], memory_public(decision), False, False)
        observation, _ = self.memories.create_in(tx, props, now, writer, deduplicate=False)
        tx.one(
            QueryName.OUTCOME_LINK_OUTCOME,
            {
                "namespace": writer.namespace,
                "decision_uid": decision.uid,
                "observation_uid": observation.uid,
                "result": result,
                "now": now,
                "origin": writer.origin,
                "actor": writer.actor,
            },
        )
        if cited:
            tx.one(
                QueryName.OUTCOME_LINK_OUTCOME_CITATIONS,
                {
                    "namespace": writer.namespace,
                    "observation_uid": observation.uid,
                    "cite_uids": [c.uid for c in cited],
                },
            )
        current = decision
        challenged = (
            challenge and result in CHALLENGING and (decision.status or "active") == "active"
        )
        if challenged:
            current = self.memories.version_in(
                tx,
                decision,
                {"status": "challenged"},
                writer,
                now,
                reason=f"challenged by a {result} outcome ({observation.memory_id})",
            )
        outcome = next(
            o
            for o in list_outcomes_in(tx, writer.namespace, [decision_id])
            if o.outcome_id == observation.memory_id
        )
        return RecordedOutcome(outcome, memory_public(current), challenged, True)

    def _cited(
        self, tx: Tx, namespace: str, cites: Sequence[str], decision_id: str
    ) -> list[CitedMemory]:
        if not cites:
            return []
        if decision_id in cites:
            raise InvalidInputError("cites: an outcome cannot cite its own decision")
        found = cited_memories(tx, namespace, cites)
        return [found[c] for c in cites]

    def list(
        self,
        namespace: str,
        decision_id: str,
        as_of: datetime | None = None,
        known_at: datetime | None = None,
    ) -> list[Outcome]:
        """Return a decision's outcomes in time order (observed time, then recorded time).

        Args:
            namespace: the tenant.
            decision_id: the decision's `memory_id`.
            as_of: only outcomes observed by then (timezone-aware UTC), or None for all.
            known_at: only outcomes recorded by then, or None for now.

        Raises:
            MemoryNotFound: no such memory in the namespace (404).
            NotADecision: the memory is not a decision (422).
        """
        versions = self.memories.history(namespace, decision_id)
        if versions[-1].kind != Kind.DECISION:
            raise NotADecision(
                f"memory {decision_id} is of kind {versions[-1].kind}, not a decision"
            )
        return list_outcomes_in(self.graph, namespace, [decision_id], as_of, known_at)
