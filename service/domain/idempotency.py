"""`Idempotency-Key` support: a POST repeated with the same key returns the first answer."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from service.domain.memories import utcnow
from service.errors import ConflictError, InvalidInputError
from service.graph.query_names import QueryName
from service.graph.repository import Graph


@dataclass(frozen=True)
class StoredAnswer:
    """The first answer to a request: HTTP status and JSON body."""

    status: int
    body: Any


def request_hash(method: str, path: str, body: bytes) -> str:
    """Return a sha256 hex digest identifying one request (method, path and raw body)."""
    return hashlib.sha256(method.encode() + b" " + path.encode() + b"\n" + body).hexdigest()


class IdempotencyService:
    """Stores answers by `(namespace, Idempotency-Key)` as `:IdempotencyRecord` nodes."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph

    def lookup(self, namespace: str, key: str, digest: str) -> StoredAnswer | None:
        """Return the stored answer for `key`, or None when the key is new.

        Raises:
            InvalidInputError: the key was used before for a different request.
        """
        row = self.graph.one(QueryName.IDEMPOTENCY_GET_RECORD, {"namespace": namespace, "key": key})
        if row is None:
            return None
        if row["request_hash"] != digest:
            raise InvalidInputError("Idempotency-Key was already used for a different request")
        return StoredAnswer(status=int(row["status"]), body=json.loads(row["body"]))

    def remember(self, namespace: str, key: str, digest: str, status: int, body: Any) -> None:
        """Store the answer; a concurrent duplicate keeps the first one."""
        try:
            self.graph.run(
                QueryName.IDEMPOTENCY_CREATE_RECORD,
                {
                    "namespace": namespace,
                    "key": key,
                    "request_hash": digest,
                    "status": status,
                    "body": json.dumps(body, ensure_ascii=False, default=str),
                    "now": utcnow(),
                },
            )
        except ConflictError:
            return
