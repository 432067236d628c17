"""Test data made through the client, as a user of the client would."""

from __future__ import annotations

import uuid

from rationale_client import Client, Memory, MemoryCreate, ProducedIn, StepIn, Trace, TraceCreate


def unique(text: str) -> str:
    """Return `text` with a random token, so data from other tests never matches."""
    return f"{text} [{uuid.uuid4().hex[:10]}]"


def observation(client: Client, content: str) -> Memory:
    return client.memories.create(MemoryCreate(kind="observation", content=content))


def flaky_story_body(log: str, cache: str, fix: str) -> TraceCreate:
    """A trace that passes the quality gate: a rejected hypothesis, evidence, a conclusion."""
    return TraceCreate(
        task=unique("Why does test_upload fail intermittently in CI?"),
        steps=[
            StepIn(
                kind="observation",
                content="test_upload failed with connection reset during setup",
                cites=[log],
            ),
            StepIn(
                kind="thought",
                content="Maybe it is the cache serving a stale fixture",
                status="hypothesis",
            ),
            StepIn(
                kind="observation",
                content="Cache hit rate was normal during the failures, so the cache is not it",
                cites=[cache],
                rejects=[1],
            ),
            StepIn(
                kind="observation",
                content="Two workers create the same temp directory /tmp/upload-fixture in setup at once",
                cites=[fix],
            ),
            StepIn(
                kind="action",
                content="Add a file lock around the temp directory creation in the setup code",
            ),
            StepIn(
                kind="conclusion",
                content="The setup code has a race on the temp directory; the lock fixes it",
            ),
        ],
        produced=ProducedIn(
            kind="decision",
            content=unique("The setup code has a race; the lock fixes it"),
            confidence=0.9,
        ),
    )


def flaky_story(client: Client) -> tuple[Trace, dict[str, Memory]]:
    """Record the story; return the trace and the evidence memories by name."""
    evidence = {
        "log": observation(
            client, unique("CI log: test_upload failed with connection reset during setup")
        ),
        "cache": observation(
            client, unique("Cache hit rate was normal (98%) during the failing runs")
        ),
        "race": observation(
            client, unique("Worker logs show gw0 and gw1 both creating /tmp/upload-fixture at once")
        ),
    }
    body = flaky_story_body(
        evidence["log"].memory_id, evidence["cache"].memory_id, evidence["race"].memory_id
    )
    return client.reasoning.record(body), evidence
