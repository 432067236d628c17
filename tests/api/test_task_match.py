"""A trace's task counts as a match only when it is one (`fusion.TASK_MATCH_SCORE`), real Neo4j.

A fresh-user trial: in a namespace of a few traces, the task whose similarity was best among
them was normalised to 1 for any query, so a trace about something else outranked a memory that
answered the question.
"""

from __future__ import annotations

from tests.api.test_retrieval_v2 import ids, recall
from tests.conftest import Tenant
from tests.factories import memory, small_trace

BACKUP = (
    "Why does the nightly database backup fail on the replica?",
    [
        "the backup job exits with code 2 at 02:10: no space left on the replica disk",
        "the backup fails because the replica disk is full",
    ],
)
CHECKOUT = (
    "Why did checkout latency spike after the deploy?",
    [
        "p99 rose to 2 s after the 14:00 deploy; the new ORM issues N+1 queries",
        "checkout latency spiked because the new ORM issues N+1 queries",
    ],
)


def test_a_trace_about_something_else_does_not_outrank_the_answer(tenant: Tenant) -> None:
    answer = memory(tenant, "The espresso maker sits on level three, next to the lifts")
    traces = [small_trace(tenant, *BACKUP), small_trace(tenant, *CHECKOUT)]
    items = recall(tenant, "where can I find the coffee machine", limit=5, explain=True)
    assert ids(items)[0] == answer["memory_id"], ids(items)
    for item in items:
        if item["memory_id"] in traces:
            assert item["explain"]["task"]["normalised"] < 0.5


def test_a_restated_task_still_counts_fully(tenant: Tenant) -> None:
    target = small_trace(tenant, *BACKUP)
    small_trace(tenant, *CHECKOUT)
    items = recall(tenant, "what makes the overnight db backup on the replica break", explain=True)
    assert ids(items)[0] == target
    assert items[0]["explain"]["task"]["normalised"] == 1.0
