"""`Idempotency-Key` support: one effect per key; a repeat gets the first answer.

A request with a key first *claims* it: an `:IdempotencyRecord` created by `MERGE` under the
`(namespace, key)` uniqueness constraint, so of concurrent requests exactly one holds the claim
and does the work. The others wait (polling, at most `wait_s` seconds) for its answer and replay
it; if it is still in flight after that they get 409 `idempotency.in_flight`, never a second
write. When the work fails the claim is released, so a retry can do it; a claim older than
`stale_s` (its holder died) is taken over by the next request.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from service.domain.memories import utcnow
from service.errors import ConflictError, InvalidInputError
from service.graph.query_names import QueryName
from service.graph.repository import Graph, Row

#: How long a request waits for a concurrent one holding the same key, in seconds.
IN_FLIGHT_WAIT_S = 15.0
#: A claim held longer than this (seconds) is taken over: its holder is presumed dead.
STALE_CLAIM_S = 120.0
#: Pause between two looks at a claim in flight, in seconds.
POLL_S = 0.05


class IdempotencyInFlight(ConflictError):
    """Another request with the same `Idempotency-Key` is still being processed (409)."""

    code = "idempotency.in_flight"


@dataclass(frozen=True)
class StoredAnswer:
    """The first answer to a request: HTTP status and JSON body."""

    status: int
    body: Any


@dataclass(frozen=True)
class Claim:
    """The right to do the work of a keyed request; `finish` or `release` it."""

    namespace: str
    key: str
    token: str


def request_hash(method: str, path: str, body: bytes) -> str:
    """Return a sha256 hex digest identifying one request (method, path and raw body)."""
    return hashlib.sha256(method.encode() + b" " + path.encode() + b"\n" + body).hexdigest()


class IdempotencyService:
    """Claims keys and stores answers by `(namespace, Idempotency-Key)`.

    Args:
        graph: the query runner.
        wait_s: how long `begin` waits for a claim in flight, in seconds.
        stale_s: age in seconds after which a claim in flight is taken over.
    """

    def __init__(
        self, graph: Graph, wait_s: float = IN_FLIGHT_WAIT_S, stale_s: float = STALE_CLAIM_S
    ) -> None:
        self.graph = graph
        self.wait_s = wait_s
        self.stale_s = stale_s

    def begin(self, namespace: str, key: str, digest: str) -> Claim | StoredAnswer:
        """Claim `key` for this request, or return the answer of the request that held it.

        Args:
            namespace: the caller's tenant.
            key: the `Idempotency-Key`.
            digest: `request_hash` of this request.

        Returns:
            A `Claim` (do the work, then `finish` or `release`), or the stored first answer.

        Raises:
            InvalidInputError: the key was used before for a different request.
            IdempotencyInFlight: another request holds the key and did not answer within
                `wait_s` seconds.
        """
        token = str(uuid.uuid4())
        deadline = time.monotonic() + self.wait_s
        row: Row | None = None
        while True:
            if row is None:
                row = self.graph.one(
                    QueryName.IDEMPOTENCY_CLAIM_RECORD,
                    {
                        "namespace": namespace,
                        "key": key,
                        "request_hash": digest,
                        "token": token,
                        "now": utcnow(),
                    },
                )
                assert row is not None
            if row["token"] == token:
                return Claim(namespace=namespace, key=key, token=token)
            if row["request_hash"] != digest:
                raise InvalidInputError("Idempotency-Key was already used for a different request")
            if row["status"] is not None:
                return StoredAnswer(status=int(row["status"]), body=json.loads(row["body"]))
            if self._take_over(namespace, key, token, row):
                return Claim(namespace=namespace, key=key, token=token)
            if time.monotonic() >= deadline:
                raise IdempotencyInFlight(
                    f"a request with this Idempotency-Key is still in flight after "
                    f"{self.wait_s:.0f} s; retry later to get its answer"
                )
            time.sleep(POLL_S)
            # None: the holder failed and released the claim; claim it again on the next turn.
            row = self.graph.one(
                QueryName.IDEMPOTENCY_GET_RECORD, {"namespace": namespace, "key": key}
            )

    def _take_over(self, namespace: str, key: str, token: str, row: Row) -> bool:
        now = utcnow()
        stale_before = now - timedelta(seconds=self.stale_s)
        claimed_at = row["claimed_at"]
        if claimed_at is None or claimed_at >= stale_before:
            return False
        taken = self.graph.one(
            QueryName.IDEMPOTENCY_TAKE_OVER_CLAIM,
            {
                "namespace": namespace,
                "key": key,
                "token": token,
                "stale_before": stale_before,
                "now": now,
            },
        )
        return taken is not None and taken["token"] == token

    def finish(self, claim: Claim, status: int, body: Any) -> None:
        """Store the answer of the claimed request, for every later request with the key."""
        self.graph.run(
            QueryName.IDEMPOTENCY_COMPLETE_RECORD,
            {
                "namespace": claim.namespace,
                "key": claim.key,
                "token": claim.token,
                "status": status,
                "body": json.dumps(body, ensure_ascii=False, default=str),
                "now": utcnow(),
            },
        )

    def release(self, claim: Claim) -> None:
        """Give the claim up (the work failed and wrote nothing), so a retry can do it."""
        self.graph.run(
            QueryName.IDEMPOTENCY_RELEASE_CLAIM,
            {"namespace": claim.namespace, "key": claim.key, "token": claim.token},
        )
