"""What the sync and async clients share: configuration, the retry policy, calls and answers."""

from __future__ import annotations

import email.utils
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

import httpx
from pydantic import BaseModel

from rationale_client.errors import RequestTimeoutError, TransportError, error_from_response

__version__ = "0.1.0"

DEFAULT_URL = "http://127.0.0.1:8000"
#: Default timeout for connect, read, write and pool, in seconds.
DEFAULT_TIMEOUT_S = 60.0

T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class RetryPolicy:
    """When and how long to wait before trying a request again.

    A request is retried when the answer's status is in `statuses` (503 by default: the service
    wrote nothing and asks to come back) or, with `connect_errors`, when no connection could be
    made (nothing was sent). A POST keeps its `Idempotency-Key` across attempts, so a retry never
    writes twice.

    Args:
        attempts: total tries, the first included (1 = never retry).
        backoff_s: first wait in seconds; doubled on each further retry (exponential back-off).
        max_delay_s: cap on any wait, `Retry-After` included, in seconds.
        statuses: HTTP statuses that are retried.
        connect_errors: also retry when the connection could not be established.
    """

    attempts: int = 3
    backoff_s: float = 0.5
    max_delay_s: float = 30.0
    statuses: frozenset[int] = frozenset({503})
    connect_errors: bool = True

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError("attempts must be >= 1")
        if self.backoff_s < 0 or self.max_delay_s < 0:
            raise ValueError("backoff_s and max_delay_s must be >= 0")

    def delay_s(self, retry: int, retry_after: str | None = None) -> float:
        """Return how long to wait before retry number `retry` (1 for the first retry).

        Args:
            retry: 1-based number of the retry about to be made.
            retry_after: the answer's `Retry-After` header: seconds or an HTTP date; it wins
                over the back-off when present and parseable.

        Returns:
            Seconds to wait, in [0, max_delay_s].
        """
        wait = self.backoff_s * float(2 ** (retry - 1))
        hinted = parse_retry_after(retry_after)
        if hinted is not None:
            wait = hinted
        return max(0.0, min(wait, self.max_delay_s))

    def should_retry(self, attempt: int, status: int) -> bool:
        """Return True when an answer with `status` after try number `attempt` is retried."""
        return attempt < self.attempts and status in self.statuses


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Return the seconds a `Retry-After` header asks for, or None if absent or unparseable.

    Args:
        value: delta-seconds (`"5"`) or an HTTP date (`"Wed, 21 Oct 2015 07:28:00 GMT"`).
        now: the current time for the date form (default: now, UTC).
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        return max(0.0, float(text))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


@dataclass(frozen=True)
class Call(Generic[T]):
    """One API call, independent of sync or async: what to send and how to read the answer.

    Args:
        method: HTTP method.
        path: path below the base URL, segments already escaped.
        answer: the model an accepted answer validates into.
        json: the JSON body, if any.
        params: query parameters, if any.
        headers: extra headers (e.g. `If-Match`).
        idempotency_key: for a POST, the key to send; None lets the client generate one.
        accept: error statuses read as an answer instead of raised (e.g. 503 for `/readyz`).
        retry: False for calls that must not be retried (e.g. readiness probes).
    """

    method: str
    path: str
    answer: type[T]
    json: Any = None
    params: Mapping[str, str] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    idempotency_key: str | None = None
    accept: frozenset[int] = frozenset()
    retry: bool = True


@dataclass(frozen=True)
class Config:
    """Connection settings common to `Client` and `AsyncClient` (see their docstrings)."""

    base_url: str
    headers: dict[str, str]
    timeout: httpx.Timeout
    retry: RetryPolicy
    idempotency_keys: bool

    @classmethod
    def build(
        cls,
        base_url: str | None,
        api_key: str | None,
        timeout: float | httpx.Timeout,
        retry: RetryPolicy | None,
        idempotency_keys: bool,
        headers: Mapping[str, str] | None,
    ) -> Config:
        """Resolve defaults: `RATIONALE_URL` and `RATIONALE_API_KEY` from the environment."""
        url = base_url or os.environ.get("RATIONALE_URL") or DEFAULT_URL
        key = api_key if api_key is not None else os.environ.get("RATIONALE_API_KEY")
        merged = {"User-Agent": f"rationale-client/{__version__}", **(headers or {})}
        if key:
            merged["Authorization"] = f"Bearer {key}"
        return cls(
            base_url=url.rstrip("/"),
            headers=merged,
            timeout=timeout if isinstance(timeout, httpx.Timeout) else httpx.Timeout(timeout),
            retry=retry or RetryPolicy(),
            idempotency_keys=idempotency_keys,
        )

    def request_headers(self, call: Call[Any]) -> dict[str, str]:
        """Return the per-request headers: the call's own plus, on a POST, `Idempotency-Key`."""
        headers = dict(call.headers)
        if call.method == "POST":
            key = call.idempotency_key
            if key is None and self.idempotency_keys:
                key = new_idempotency_key()
            if key is not None:
                headers["Idempotency-Key"] = key
        return headers


def new_idempotency_key() -> str:
    """Return a fresh random `Idempotency-Key` (32 hex characters)."""
    return uuid.uuid4().hex


def retry_delay(config: Config, call: Call[Any], attempt: int, response: httpx.Response) -> float:
    """Return the wait before trying `call` again after `response`, or -1 to stop retrying."""
    if not call.retry or not config.retry.should_retry(attempt, response.status_code):
        return -1.0
    return config.retry.delay_s(attempt, response.headers.get("Retry-After"))


def may_retry_connect(config: Config, call: Call[Any], attempt: int) -> bool:
    """Return True when a connect error on try number `attempt` is retried."""
    return call.retry and config.retry.connect_errors and attempt < config.retry.attempts


def transport_error(exc: httpx.TransportError) -> TransportError:
    """Wrap an httpx transport error in the client's own class (timeouts apart)."""
    if isinstance(exc, httpx.TimeoutException):
        return RequestTimeoutError(f"timed out: {exc}")
    return TransportError(f"cannot reach the service: {exc}")


def read_answer(call: Call[T], response: httpx.Response) -> T:
    """Validate an answer into `call.answer`, or raise the error it carries.

    Raises:
        APIError: the matching subclass for an error status (see `rationale_client.errors`).
    """
    if response.status_code >= 400 and response.status_code not in call.accept:
        raise error_from_response(response)
    return call.answer.model_validate(response.json())
