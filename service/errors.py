"""Domain exception hierarchy: every error has a stable dotted `code` (no framework imports).

Also how much of the caller's input a message repeats (`bounded_detail`, `echo_id`, `echo_ids`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: The longest `detail` a domain error answers with; a message that echoes the caller's
#: input (a 60 KB path id, 20,000 unknown cited ids) is cut there (`bounded_detail`).
MAX_DETAIL_CHARS = 1_000
#: The most characters of one id a message repeats (`echo_id`); a stored id is a UUID (36).
MAX_ECHOED_ID_CHARS = 80
#: The most ids of a list a message names (`echo_ids`); the rest are counted.
MAX_ECHOED_IDS = 10


def bounded_detail(message: str, limit: int = MAX_DETAIL_CHARS) -> str:
    """Return `message`, or its first `limit` characters and how many more there were."""
    if len(message) <= limit:
        return message
    return f"{message[:limit]}... ({len(message) - limit} more characters)"


def echo_id(value: str) -> str:
    """Return an id as an error message repeats it: whole, or cut and its length said.

    E.g. a 60,000-character path id becomes its first `MAX_ECHOED_ID_CHARS` characters and
    `"... (60000 characters)"`.
    """
    if len(value) <= MAX_ECHOED_ID_CHARS:
        return value
    return f"{value[:MAX_ECHOED_ID_CHARS]}... ({len(value)} characters)"


def echo_ids(values: Sequence[str]) -> str:
    """Return ids as an error message lists them: `"a, b, c"`, or the first few and a count.

    Past `MAX_ECHOED_IDS` ids the list ends `"and N more"`; each id is shown as `echo_id` shows
    it, in the order given.
    """
    shown = ", ".join(echo_id(v) for v in values[:MAX_ECHOED_IDS])
    more = len(values) - MAX_ECHOED_IDS
    return f"{shown} and {more} more" if more > 0 else shown


class RationaleError(Exception):
    """Base of every error the service raises on purpose; maps to HTTP in `api/errors.py`."""

    code = "internal"

    def __init__(self, message: str, *, extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra or {}


class NotFoundError(RationaleError):
    """Something asked for does not exist in the caller's namespace."""

    code = "not_found"


class MemoryNotFound(NotFoundError):
    """No memory with that id is visible in the caller's namespace."""

    code = "memory.not_found"


class TraceNotFound(NotFoundError):
    """No reasoning trace with that id exists in the caller's namespace."""

    code = "reasoning.not_found"


class ConflictError(RationaleError):
    """The write lost a race or contradicts the current state."""

    code = "conflict"


class VersionConflict(ConflictError):
    """The client's `If-Match` version is no longer the current one."""

    code = "memory.version_conflict"


class StateConflict(ConflictError):
    """The write contradicts the stored state, e.g. invalidating a memory already invalidated.

    No lost race: the same request sent again meets the same state (read it, then decide).
    """

    code = "conflict"


class PositionTaken(ConflictError):
    """A stored current memory holds the episode and position written to, with other content.

    A position is one turn's place in its episode: a different text there is another turn,
    not a new version (`PATCH` changes a turn); the same text is an idempotent repeat.
    """

    code = "memory.position_taken"


class InvalidInputError(RationaleError, ValueError):
    """Input is well-formed JSON but breaks a domain rule."""

    code = "input.invalid"


class PositionClash(InvalidInputError):
    """Two items of one batch put different content at the same episode and position."""

    code = "input.position_clash"


class MissingReference(InvalidInputError):
    """A write refers to memories or steps that do not exist (or were retracted); nothing written."""

    code = "reasoning.invalid_reference"


class ReasoningRejected(InvalidInputError):
    """The quality gate refused a trace; `extra["quality"]` holds the assessment."""

    code = "reasoning.rejected"


class UnsupportedFormat(InvalidInputError):
    """Handed-in material is of an unknown format or malformed for the one named."""

    code = "input.invalid_format"


class TooLargeError(RationaleError):
    """Input exceeds a documented size limit."""

    code = "input.too_large"


class AuthError(RationaleError):
    """The request carries no valid API key."""

    code = "auth.invalid_key"


class ForbiddenError(RationaleError):
    """The API key lacks the scope the operation needs."""

    code = "auth.forbidden"


class GraphUnavailableError(RationaleError):
    """Neo4j cannot be reached or asked to retry; the caller may retry later."""

    code = "graph.unavailable"


class GraphTimeoutError(GraphUnavailableError):
    """Neo4j did not finish the request within the query timeout; it was rolled back (503)."""

    code = "graph.timeout"


class VectorIndexFault(GraphUnavailableError):
    """Neo4j's vector index kept failing a `SEARCH` (a Neo4j 2026.09 fault while it is written).

    A reader with another way to rank falls back to it (`retrieval.candidates.read_ranked`);
    elsewhere it is a 503 like any unavailability.
    """

    code = "graph.unavailable"


class EmbeddingError(RationaleError):
    """The embedding model failed to load or encode."""

    code = "embedding.failed"


class SchemaError(RationaleError):
    """The database schema does not match what the service needs (e.g. vector dimension)."""

    code = "schema.mismatch"


class CypherFileError(RationaleError):
    """A file in `cypher/` breaks the named-query rules (header, params, one statement)."""

    code = "cypher.invalid_file"


class NotADecision(InvalidInputError):
    """An outcome was recorded on (or asked of) a memory that is not a decision."""

    code = "outcome.not_a_decision"
