"""Shared field types and bases of the HTTP contract: UTC times, JSON objects, strict bodies, errors."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    WithJsonSchema,
)
from pydantic_core import PydanticCustomError

from service.domain.models import WRITABLE_KINDS, Kind
from service.domain.text import check_json

DecisionStatus = Literal["active", "challenged", "retracted"]


def _utc(value: datetime) -> datetime:
    try:
        return value.astimezone(UTC)
    except OverflowError as exc:
        raise ValueError("time is out of range once normalised to UTC") from exc


_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]")


def _iso_text(value: Any) -> Any:
    # A numeric string ("0.5") would be taken as a Unix time: refused like any non-ISO text.
    if not (isinstance(value, datetime) or (isinstance(value, str) and _ISO_DATE.match(value))):
        raise ValueError(
            "a time must be an ISO 8601 string with an offset, e.g. 2024-01-01T00:00:00Z"
        )
    return value


def _json_int(value: Any) -> Any:
    # JSON Schema's integer includes 7.0; a string or a boolean is never a number here.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    return value


def _checked_json(value: dict[str, Any]) -> dict[str, Any]:
    check_json(value, field="JSON object")
    return value


def _only(*allowed: Kind) -> tuple[BeforeValidator, WithJsonSchema]:
    """Restrict a `Kind` field to `allowed`: same error and JSON schema as a `Literal` of them."""
    values = [k.value for k in allowed]
    expected = ", ".join(repr(v) for v in values[:-1]) + f" or {values[-1]!r}"

    def check(value: Any) -> Any:
        if not (isinstance(value, str) and value in values):
            raise PydanticCustomError(
                "literal_error", "Input should be {expected}", {"expected": expected}
            )
        return value

    return BeforeValidator(check), WithJsonSchema({"enum": values, "type": "string"})


#: The kinds a client may create through `POST /v1/memories` (`WRITABLE_KINDS`).
MemoryKind = Annotated[Kind, *_only(*WRITABLE_KINDS)]

#: Free-form JSON: valid Unicode, finite numbers, at most 32 levels deep.
JsonObject = Annotated[dict[str, Any], AfterValidator(_checked_json)]

#: A JSON integer (`7` or `7.0`); strings and booleans are refused, not coerced.
JsonInt = Annotated[int, BeforeValidator(_json_int)]

#: An ISO 8601 time that must carry an offset; normalised to UTC.
UtcDatetime = Annotated[AwareDatetime, BeforeValidator(_iso_text), AfterValidator(_utc)]


class Strict(BaseModel):
    """Base of request bodies: unknown fields are refused (422), so typos are never ignored."""

    model_config = ConfigDict(extra="forbid", use_enum_values=True)


class ActorRef(BaseModel):
    """Provenance of one version: the door it came through and who wrote it."""

    origin: str = Field(
        description="user, ingestion or maintenance (or unrecognized).", examples=["user"]
    )
    actor: str = Field(description="Free-form writer name.", examples=["agent:ci-triage"])


class ErrorBody(BaseModel):
    """Every error answer: a message and a stable dotted code."""

    detail: Any
    code: str
