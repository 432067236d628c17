"""The client's `ProducedIn` sends `valid_from`: what reasoning produced, true since before it was recorded."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from rationale_client import Client, ProducedIn, StepIn, TraceCreate

from tests.client.helpers import observation, unique


def test_produced_valid_from_is_sent_and_stored(client: Client) -> None:
    started = (datetime.now(UTC) - timedelta(days=3)).replace(microsecond=0)
    log = observation(client, unique("pg_upgrade log: payments cluster on PostgreSQL 17"))
    body = TraceCreate(
        task=unique("Which PostgreSQL version does the payments service run?"),
        steps=[
            StepIn(
                kind="observation",
                content="pg_upgrade log shows the payments cluster on PostgreSQL 17",
                cites=[log.memory_id],
            ),
            StepIn(kind="conclusion", content="The payments service runs PostgreSQL 17"),
        ],
        produced=ProducedIn(content="Run payments on PostgreSQL 17", valid_from=started),
    )
    assert body.to_json()["produced"]["valid_from"] == started.isoformat().replace("+00:00", "Z")
    trace = client.reasoning.record(body)
    assert trace.produced[0].valid_from == started
    assert trace.system_from > started
