"""`DiagnosticsService`: what the visibility policy hides, and what a namespace holds."""

from __future__ import annotations

from dataclasses import dataclass

from service.domain.policy import VisibilityPolicy
from service.graph.query_names import QueryName
from service.graph.repository import Graph


@dataclass(frozen=True)
class DiagnosticsReport:
    """The diagnostics of a namespace's current memory versions (`GET /v1/diagnostics`).

    Attributes:
        unrecognized_count: current versions whose `created_by_origin` is missing or unknown
            to the policy (hidden from recall and search).
        unrecognized_sample: some of their memory ids, newest first.
        counts: kind -> origin -> number of current versions; a missing kind or origin is
            counted under `"(missing)"`.
    """

    unrecognized_count: int
    unrecognized_sample: tuple[str, ...]
    counts: dict[str, dict[str, int]]


class DiagnosticsService:
    """What the visibility policy hides, and what a namespace holds (`GET /v1/diagnostics`).

    Args:
        graph: the query runner.
        policy: the visibility policy (which origins are recognized).
        sample_size: most memory ids listed as a sample.
    """

    def __init__(self, graph: Graph, policy: VisibilityPolicy, sample_size: int = 20) -> None:
        self.graph = graph
        self.policy = policy
        self.sample_size = sample_size

    def report(self, namespace: str) -> DiagnosticsReport:
        """Return the diagnostics of a namespace's current memory versions.

        Args:
            namespace: the caller's namespace.

        Returns:
            How many current versions have an unrecognized origin (and a sample of their ids),
            and the counts per kind and origin.
        """
        unrecognized = self.graph.one(
            QueryName.DIAGNOSTICS_LIST_UNRECOGNIZED,
            {
                "namespace": namespace,
                "recognized": self.policy.recognized(),
                "sample_size": self.sample_size,
            },
        )
        assert unrecognized is not None
        counts: dict[str, dict[str, int]] = {}
        for row in self.graph.run(QueryName.DIAGNOSTICS_COUNT_ORIGINS, {"namespace": namespace}):
            counts.setdefault(row["kind"], {})[row["origin"]] = row["n"]
        return DiagnosticsReport(
            unrecognized_count=int(unrecognized["count"]),
            unrecognized_sample=tuple(unrecognized["sample"]),
            counts=counts,
        )
