"""The generated trace corpus of the peer comparison: 1,000 reasoning traces and 200 paraphrased tasks.

Deterministic: trace i is built from the benchmark vocabulary (`bench.corpus`) by `random.Random`
seeded with i; each trace has its own (service, event, environment) so a task names one trace.
A trace has 6-12 steps: observations and thoughts about the incident, one hypothesis that a later
step rejects, and a conclusion naming the cause and the action; it produces a decision. Query j
rewrites the task of trace `j * 5` with other words (synonyms of the event, the environment and
the cause, another sentence frame), so it shares the meaning and few of the words.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from bench.corpus import ACTIONS, CAUSES, ENVS, EVENTS, SERVICES, TECH

TRACES = 1000
QUERIES = 200

TASKS = (
    "Investigate why {service} {event} in {env} after {cause}",
    "Find the root cause: {service} {event} in {env} following {cause}",
    "Diagnose {service}, which {event} in {env} right after {cause}",
)
PARAPHRASES = (
    "what made {service} {event} on {env} once {cause} happened?",
    "{env}: {service} {event} - was it {cause}?",
    "explain the {service} problem where it {event} on {env}, suspected {cause}",
    "{service} {event} on {env} shortly after {cause}; what was behind it?",
)
# fmt: off
EVENT_WORDS = {
    "deploy failed": "had a broken rollout", "latency spiked": "got very slow",
    "returned 500 errors": "kept answering with server errors",
    "ran out of memory": "exhausted its RAM", "lost its leader": "had no elected primary",
    "dropped connections": "kept closing client sockets", "hit the rate limit": "was throttled",
    "stalled on a lock": "hung waiting on a mutex", "served stale data": "showed outdated results",
    "crashed on start-up": "died while booting", "leaked file handles": "exhausted descriptors",
    "timed out talking to the database": "could not reach its DB in time",
    "filled the disk": "used up all storage", "skipped a cron run": "missed a scheduled job",
    "double-charged a customer": "billed a client twice",
    "lagged on replication": "fell behind its replicas",
}
ENV_WORDS = {
    "production": "prod", "staging": "the pre-prod environment", "eu-west": "the European region",
    "us-east": "the US East region", "the canary fleet": "canary hosts",
    "the nightly CI": "the overnight build pipeline",
}
CAUSE_WORDS = {
    "a bad config push": "a faulty configuration rollout",
    "an expired TLS certificate": "a certificate that had lapsed",
    "a slow SQL migration": "a long-running schema migration", "a noisy neighbour": "a busy co-tenant",
    "a DNS change": "a name-resolution update", "a retry storm": "a flood of retries",
    "a full connection pool": "an exhausted pool of connections",
    "a schema change without backfill": "a table change with no data backfill",
    "a kernel upgrade": "an OS kernel update", "a missing index": "an absent database index",
    "clock skew between hosts": "host clocks drifting apart", "a cache stampede": "a thundering herd on the cache",
    "a dependency upgrade": "a library version bump", "a feature flag flipped too early": "a toggle enabled prematurely",
    "an oversized batch job": "a batch run that was too big", "a network partition": "a split network",
    "a leaked credential rotation": "rotating a leaked secret", "a race in the start-up code": "a boot-time race condition",
}
# fmt: on


@dataclass(frozen=True)
class TraceCase:
    """One generated trace: its task, steps (`POST /v1/reasoning` shape) and produced decision."""

    index: int
    task: str
    steps: list[dict[str, Any]]
    decision: str
    service: str
    event: str
    env: str
    cause: str

    def body(self, nonce: str) -> dict[str, Any]:
        """Return the `POST /v1/reasoning` body (the nonce marks the run in the decision)."""
        return {
            "task": self.task,
            "steps": self.steps,
            "produced": {
                "kind": "decision",
                "content": f"{self.decision} (run {nonce})",
                "confidence": 0.8,
            },
        }


def _combos() -> list[tuple[str, str, str]]:
    combos = [(s, e, v) for s in SERVICES for e in EVENTS for v in ENVS]
    random.Random(12).shuffle(combos)
    return combos[:TRACES]


def trace(i: int) -> TraceCase:
    """Return trace i of the corpus (0 <= i < TRACES)."""
    service, event, env = _combos()[i]
    rng = random.Random(1000 + i)
    cause, action = rng.choice(CAUSES), rng.choice(ACTIONS)
    n_steps = rng.randint(6, 12)
    steps: list[dict[str, Any]] = []
    hypothesis_at: int | None = None
    for k in range(n_steps - 1):
        part = rng.choice(TECH)
        if k % 2 == 0:
            steps.append(
                {
                    "kind": "observation",
                    "content": f"{service} in {env}: {event} seen near {part}, "
                    f"{rng.randint(2, 999)} errors in window {k}",
                }
            )
        elif hypothesis_at is None and k >= 1 and k + 2 < n_steps - 1:
            hypothesis_at = k
            wrong = rng.choice([c for c in CAUSES if c != cause])
            steps.append(
                {
                    "kind": "thought",
                    "status": "hypothesis",
                    "content": f"maybe {wrong} broke {part}",
                }
            )
        elif hypothesis_at is not None and k == hypothesis_at + 2:
            steps.append(
                {
                    "kind": "thought",
                    "content": f"the {part} logs rule that out; {cause} fits the timeline",
                    "rejects": [hypothesis_at],
                }
            )
        else:
            steps.append(
                {
                    "kind": "thought",
                    "content": f"{cause} matches the {event} pattern at {part} "
                    f"(signal {rng.randint(10, 99_999)})",
                }
            )
    steps.append(
        {"kind": "conclusion", "content": f"{service} {event} in {env} because of {cause}"}
    )
    task = TASKS[i % len(TASKS)].format(service=service, event=event, env=env, cause=cause)
    decision = f"Decided to {action} for {service} after {cause}"
    return TraceCase(i, task, steps, decision, service, event, env, cause)


def paraphrase(case: TraceCase, j: int) -> str:
    """Rewrite a trace's task with other words and another sentence frame (query j)."""
    return PARAPHRASES[j % len(PARAPHRASES)].format(
        service=case.service,
        event=EVENT_WORDS[case.event],
        env=ENV_WORDS[case.env],
        cause=CAUSE_WORDS[case.cause],
    )


def queries(cases: list[TraceCase]) -> list[tuple[str, int]]:
    """Return `QUERIES` (paraphrased task, index of the trace it names); fewer for a small corpus."""
    n = min(QUERIES, len(cases))
    step = len(cases) // n
    return [(paraphrase(cases[j * step], j), cases[j * step].index) for j in range(n)]
