"""Deterministic request bodies for the load benchmarks: memories to write and traces to record.

Texts reuse the vocabulary of `bench/corpus.py` (services, events, causes, ...), so written
memories look like the corpus and recall queries match them. Every body carries a run nonce so
a re-run never hits the idempotency check (`created: false`) instead of writing.
"""

from __future__ import annotations

import random
from typing import Any

from bench.corpus import ACTIONS, CAUSES, ENVS, EVENTS, SERVICES, TECH, synthetic

#: Memory numbers of load-written memories start here (the corpus uses 0..size-1).
LOAD_OFFSET = 50_000_000


def memory_body(i: int, nonce: str) -> dict[str, Any]:
    """Return the `POST /v1/memories` body of load write i (same kinds mix as the corpus)."""
    kind, text, _ = synthetic(LOAD_OFFSET + i)
    return {"kind": kind.value, "content": f"{text} [load {nonce}]"}


def trace_body(n_steps: int, seed: int, nonce: str, cite_ids: list[str]) -> dict[str, Any]:
    """Return a `POST /v1/reasoning` body of `n_steps` steps that passes the quality gate.

    Shape: observation / thought pairs about one incident (each observation cites one corpus
    memory when `cite_ids` is given), one hypothesis rejected by a later step, and a final
    conclusion that names the service and the cause the observations established; it produces
    a decision. The step texts differ (numbers, components), so the trace is neither
    repetitive nor circular.

    Args:
        n_steps: total steps, at least 4 (the last is the conclusion).
        seed: picks the incident; the same seed gives the same trace.
        nonce: run marker, put in the task and the decision (no idempotent repeats).
        cite_ids: memory_ids of existing memories in the namespace to cite.
    """
    rng = random.Random(seed)
    service, event, cause, env = (
        rng.choice(SERVICES),
        rng.choice(EVENTS),
        rng.choice(CAUSES),
        rng.choice(ENVS),
    )
    action = rng.choice(ACTIONS)
    steps: list[dict[str, Any]] = []
    hypothesis_at: int | None = None
    for i in range(n_steps - 1):
        part = rng.choice(TECH)
        if i % 2 == 0:
            step: dict[str, Any] = {
                "kind": "observation",
                "content": (
                    f"check {i}: {service} in {env} shows {event} near {part}; "
                    f"{rng.randint(2, 999)} errors in window w{i}, trace id t{seed}-{i}"
                ),
            }
            if cite_ids:
                step["cites"] = [cite_ids[(seed * 31 + i) % len(cite_ids)]]
        elif hypothesis_at is None and i >= 3:
            hypothesis_at = i
            step = {
                "kind": "thought",
                "status": "hypothesis",
                "content": f"maybe {rng.choice(CAUSES)} broke {part} (idea {i})",
            }
        elif hypothesis_at is not None and i == hypothesis_at + 2:
            step = {
                "kind": "thought",
                "content": f"logs of {part} rule out idea {hypothesis_at}; look at {cause} instead",
                "rejects": [hypothesis_at],
            }
        else:
            step = {
                "kind": "thought",
                "content": (
                    f"step {i}: {cause} fits the {event} pattern seen at {part} "
                    f"(signal s{rng.randint(10, 99_999)})"
                ),
            }
        steps.append(step)
    steps.append(
        {
            "kind": "conclusion",
            "content": f"{service} {event} in {env} because of {cause}; {action}",
        }
    )
    return {
        "task": f"why did {service} {event} in {env}? (bench trace {nonce}-{seed})",
        "steps": steps,
        "produced": {
            "kind": "decision",
            "content": f"Decided to {action} for {service} because of {cause} ({nonce}-{seed})",
            "confidence": 0.8,
        },
    }
