"""Writing one unit: its observations, its trace and `EXTRACTED_FROM`, in one transaction."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from service.domain.ingestion.outcomes import MaterialOutcome, material_outcomes, unrecordable
from service.domain.ingestion.report import UnitOutcome, failed_outcome, printable
from service.domain.ingestion.source import outcomes_from_rows
from service.domain.ingestion.supersession import amend, supersede
from service.domain.ingestion.units import CleanedUnit, PreparedUnit
from service.domain.memories import MemoryService, Writer, encode_metadata, utcnow
from service.domain.models import IngestUnit, Kind
from service.domain.outcomes import OutcomeService
from service.domain.reasoning import ReasoningService
from service.errors import RationaleError, ReasoningRejected
from service.graph.query_names import QueryName
from service.graph.repository import Graph, Tx

log = logging.getLogger(__name__)


def _context(title: str, text: str) -> str | None:
    """Return a unit's title as an observation's lexical context, unless the text holds it."""
    title = title.strip()[:500]
    return title if title and title not in text else None


class UnitWriter:
    """Writes ingest units, each in its own transaction.

    Args:
        graph: the query runner.
        memories: the memory store (observations, ADR decision versions).
        reasoning: the trace store (`record_in`).
    """

    def __init__(self, graph: Graph, memories: MemoryService, reasoning: ReasoningService) -> None:
        self.graph = graph
        self.memories = memories
        self.reasoning = reasoning
        self.outcomes = OutcomeService(graph, memories)

    def process(
        self,
        writer: Writer,
        source_uid: str,
        document: str,
        unit: IngestUnit,
        cleaned: CleanedUnit,
        vectors: Sequence[list[float]],
        gate: bool,
    ) -> UnitOutcome:
        """Write one unit in its own transaction; a domain error fails (or refuses) it alone.

        The unit's observations form the episode `<document>/<unit key>` (`document`: the
        source's name), each at its position: the same words elsewhere are other memories, and
        an unchanged unit of an edited document ingested again is found as it was stored.
        """
        title = printable(unit.title)
        now = utcnow()
        try:
            n = len(cleaned.observations)
            observations = [
                self.memories.new_props(
                    writer,
                    Kind.OBSERVATION,
                    text,
                    now=now,
                    embedding=vector,
                    valid_from=unit.valid_from,
                    # The unit is the episode: each observation is indexed for lexical search
                    # with the unit's title and the observation before it.
                    episode=f"{document}/{unit.key}",
                    position=position,
                    context=_context(unit.title, text),
                )
                for position, (text, vector) in enumerate(
                    zip(cleaned.observations, vectors[:n], strict=True)
                )
            ]
            prepared = PreparedUnit(observations, cleaned.draft, list(vectors[n:]), cleaned.adr)
            stated = (
                [
                    (
                        o,
                        self.memories.new_props(
                            writer, Kind.OBSERVATION, o.content, now=now, valid_from=unit.valid_from
                        ),
                    )
                    for o in material_outcomes(unit, cleaned.observations)
                ]
                if cleaned.draft is not None
                else []
            )

            def work(tx: Tx) -> UnitOutcome:
                return self._write_unit(tx, writer, source_uid, unit, prepared, gate, now, stated)

            outcome = self.graph.write(work)
        except ReasoningRejected as exc:
            quality = exc.extra.get("quality") or {}
            log.info("ingest: unit %s refused by the quality gate: %s", unit.key, exc.message)
            return UnitOutcome(
                key=unit.key,
                title=title,
                status="refused",
                error=printable(exc.message),
                quality=quality,
            )
        except RationaleError as exc:
            return failed_outcome(unit, exc)
        outcome.title = title
        return outcome

    def _write_unit(
        self,
        tx: Tx,
        writer: Writer,
        source_uid: str,
        unit: IngestUnit,
        prepared: PreparedUnit,
        gate: bool,
        now: datetime,
        stated: Sequence[tuple[MaterialOutcome, dict[str, Any]]] = (),
    ) -> UnitOutcome:
        earlier = tx.run(
            QueryName.INGEST_CLAIM_UNIT,
            {
                "namespace": writer.namespace,
                "source_uid": source_uid,
                "unit": unit.key,
                "now": now,
            },
        )
        if earlier:  # a concurrent ingest of the same source wrote this unit first
            return outcomes_from_rows(earlier)[unit.key]
        outcome = UnitOutcome(key=unit.key, title=unit.title, status="ok")
        uids: list[str] = []
        resolve: dict[str, str] = {}
        for i, props in enumerate(prepared.observations):
            row, created = self.memories.create_in(tx, props, now, writer)
            resolve[f"obs:{i}"] = row.memory_id
            uids.append(row.uid)
            if row.memory_id not in outcome.memory_ids:
                outcome.memory_ids.append(row.memory_id)
            if created:
                outcome.created[Kind.OBSERVATION] += 1
        if prepared.draft is not None:
            adr = prepared.adr
            extra = None
            if adr is not None:
                extra = {
                    "adr_name": adr["name"],
                    "adr_aliases": adr["aliases"],
                    "adr_supersedes": adr["supersedes"],
                    "adr_superseded_by": adr["superseded_by"],
                    "adr_amends": adr["amends"],
                    "metadata_json": encode_metadata(
                        {
                            "adr_name": adr["name"],
                            "adr_file": unit.name,
                            "adr_supersedes": adr["supersedes"],
                            "adr_superseded_by": adr["superseded_by"],
                            **({"adr_status": adr["status"]} if adr["status"] else {}),
                            # The record's other status lines and its changelog, as written.
                            **(
                                {"adr_status_history": adr["status_history"]}
                                if adr["status_history"]
                                else {}
                            ),
                        }
                    ),
                }
            recorded = self.reasoning.record_in(
                tx,
                writer,
                prepared.draft,
                prepared.trace_vectors,
                now=now,
                gate=gate,
                source_id=source_uid,
                valid_from=unit.valid_from,
                resolve=resolve,
                produced_extra=extra,
            )
            outcome.trace_id = recorded.trace_id
            outcome.quality = recorded.assessment.as_dict()
            if recorded.created:  # the same reasoning, from material ingested before
                outcome.created[Kind.REASONING] += 1
            uids.append(recorded.trace_uid)
            produced = recorded.produced
            if produced is not None:
                uids.append(produced.uid)
                if produced.memory_id not in outcome.memory_ids:
                    outcome.memory_ids.append(produced.memory_id)
                if recorded.produced_created:
                    outcome.created[produced.kind] += 1
                if produced.kind == Kind.DECISION:
                    for said, props in stated:  # what the material says happened
                        skipped = unrecordable(said, unit.valid_from or now, produced, now)
                        if skipped is not None:  # dated in the future: reported, not recorded
                            outcome.warnings.append(skipped)
                            continue
                        cites = [resolve[c] for c in said.cites if c in resolve]
                        stored = self.outcomes.record_in(
                            tx,
                            writer,
                            produced.memory_id,
                            said.result,
                            props,
                            cites,
                            now,
                            observed=unit.valid_from,
                            challenge=said.challenges,
                        )
                        uids.append(stored.outcome.uid)
                        if stored.outcome.outcome_id not in outcome.memory_ids:
                            outcome.memory_ids.append(stored.outcome.outcome_id)
                        if stored.created:
                            outcome.created[Kind.OBSERVATION] += 1
                # After the outcomes: a challenge writes its version at `now`, supersession
                # closes later (a version begun after `now` cannot be followed at `now`).
                if adr is not None and produced.kind == Kind.DECISION:
                    outcome.supersedes = supersede(
                        tx, self.memories, writer, produced, adr, now, unit.key
                    )
                    outcome.amends = amend(tx, writer, produced, adr, now, unit.key)
        wanted = list(dict.fromkeys(uids))
        if wanted:
            link = tx.one(
                QueryName.INGEST_LINK_EXTRACTED,
                {
                    "namespace": writer.namespace,
                    "source_uid": source_uid,
                    "memory_uids": wanted,
                    "unit": unit.key,
                    "now": now,
                },
            )
            linked = link["linked"] if link else 0
            if linked != len(wanted):
                raise RationaleError(
                    f"ingest: unit {unit.key}: linked {linked} of {len(wanted)} memories to the source"
                )
        return outcome
