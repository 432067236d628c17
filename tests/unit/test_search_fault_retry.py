"""A read failed by Neo4j's vector SEARCH fault runs again (2 more, then `VectorIndexFault`)."""

from __future__ import annotations

import neo4j.exceptions
import pytest

from service.errors import VectorIndexFault
from service.graph.repository import _retry_search_fault

FAULT = "Index 33553859 out of bounds for length 1"


class Attempts:
    """An attempt that raises the given errors in turn, then answers `"rows"`."""

    def __init__(self, *errors: Exception) -> None:
        self.errors = list(errors)
        self.calls = 0

    def __call__(self) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return "rows"


@pytest.mark.parametrize("faults", [1, 2])
def test_the_search_fault_is_retried_and_answers(faults: int) -> None:
    attempt = Attempts(*(neo4j.exceptions.DatabaseError(FAULT) for _ in range(faults)))
    assert _retry_search_fault(attempt) == "rows"
    assert attempt.calls == faults + 1


def test_a_third_fault_is_a_vector_index_fault() -> None:
    attempt = Attempts(*(neo4j.exceptions.DatabaseError(FAULT) for _ in range(3)))
    with pytest.raises(VectorIndexFault) as info:
        _retry_search_fault(attempt)
    assert attempt.calls == 3
    assert info.value.code == "graph.unavailable"  # a 503 where no reader falls back


@pytest.mark.parametrize(
    "error",
    [
        neo4j.exceptions.DatabaseError("java.lang.OutOfMemoryError: Java heap space"),
        neo4j.exceptions.ClientError(FAULT),
        ValueError(FAULT),
    ],
)
def test_other_errors_are_not_retried(error: Exception) -> None:
    attempt = Attempts(error)
    with pytest.raises(type(error)):
        _retry_search_fault(attempt)
    assert attempt.calls == 1
