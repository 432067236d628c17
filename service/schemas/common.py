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
    ValidationError,
    ValidatorFunctionWrapHandler,
    WithJsonSchema,
    WrapValidator,
)
from pydantic_core import PydanticCustomError

from service.domain.models import RETRACTED_IS_NOT_A_STATUS, WRITABLE_KINDS, Kind
from service.domain.text import check_json


def _utc(value: datetime) -> datetime:
    try:
        return value.astimezone(UTC)
    except OverflowError as exc:
        raise ValueError("time is out of range once normalised to UTC") from exc


_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]")


#: An offset whose `+` a URL query turned into a space (`?as_of=2024-01-01T10:00:00+02:00`).
_SPACED_OFFSET = re.compile(r"\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)? \d{2}(?::?\d{2})?$")


#: A UTC offset with seconds (`+05:30:15`, `+05:30:15.5`): Python reads it, ISO 8601 has none.
_OFFSET_SECONDS = re.compile(r"[+-]\d{2}:?\d{2}:\d{2}(?:\.\d+)?$")


def _iso_text(value: Any) -> Any:
    if isinstance(value, str) and _OFFSET_SECONDS.search(value):
        raise ValueError(
            f"{value[:80]!r} is not a valid time: a UTC offset has hours and minutes only "
            "(+05:30), no seconds; e.g. 2024-01-01T00:00:00Z"
        )
    if isinstance(value, str) and _SPACED_OFFSET.search(value):
        raise ValueError(
            "the time's offset lost its '+' (a URL query reads '+' as a space): send it as "
            "%2B, e.g. 2024-01-01T10:00:00%2B02:00, or give the time in UTC with Z"
        )
    # A numeric string ("0.5") would be taken as a Unix time: refused like any non-ISO text.
    if not (isinstance(value, datetime) or (isinstance(value, str) and _ISO_DATE.match(value))):
        raise ValueError(
            "a time must be an ISO 8601 string with an offset, e.g. 2024-01-01T00:00:00Z"
        )
    return value


#: The minutes of a time's UTC offset (`+05:45`, `-0330`).
_OFFSET_MINUTES = re.compile(r"[+-]\d{2}:?(\d{2})$")
#: pydantic's error types for text that is not a date-time.
_PARSING = frozenset({"datetime_parsing", "datetime_from_date_parsing"})


def _parsed_time(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """Parse a time; say what is wrong with text that is not one (not "extra characters").

    Text pydantic cannot read is read by Python's ISO 8601 reader, upper-cased: a lower-case
    `t` separator (pydantic takes a lower-case `z` only) or an hours-only offset (`+05`) then
    parse; when that reader refuses it too its reason is given (hour 24, second 60, an offset of
    24 h or more).
    """
    try:
        return handler(value)
    except ValidationError as exc:
        if not isinstance(value, str) or not {e["type"] for e in exc.errors()} & _PARSING:
            raise
        try:
            parsed = datetime.fromisoformat(value.upper())
            minutes = _OFFSET_MINUTES.search(value)
            if minutes and int(minutes.group(1)) > 59:  # Python reads +05:60 as +06:00
                raise ValueError("offset minutes must be in 0..59")
        except ValueError as reason:
            why = str(reason)
            if why.startswith("offset must be a timedelta"):
                why = "the UTC offset must be between -23:59 and +23:59"
            elif why.startswith("Invalid isoformat"):
                why = "not ISO 8601"
            raise ValueError(
                f"{value[:80]!r} is not a valid time: {why}; e.g. 2024-01-01T00:00:00Z"
            ) from None
        return handler(parsed)


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


def _writable_status(value: Any) -> Any:
    # "retracted" is a different write (/retract), not a status: say so instead of a bare enum error.
    if value == "retracted":
        raise PydanticCustomError("status_retracted", RETRACTED_IS_NOT_A_STATUS)
    return value


#: A status a decision is written with (`DecisionStatus`: active, challenged; never retracted).
DecisionStatus = Annotated[
    Literal["active", "challenged"],
    BeforeValidator(_writable_status),
]

#: Free-form JSON: valid Unicode, finite numbers, at most 32 levels deep.
JsonObject = Annotated[dict[str, Any], AfterValidator(_checked_json)]

#: An ISO 8601 time that must carry an offset; normalised to UTC.
UtcDatetime = Annotated[
    AwareDatetime, WrapValidator(_parsed_time), BeforeValidator(_iso_text), AfterValidator(_utc)
]


class Strict(BaseModel):
    """Base of request bodies: unknown fields are refused (422), so typos are never ignored.

    Numbers must be finite: Python's JSON parser reads `NaN` and `Infinity`, which would
    otherwise fail a bound with a misleading message ("less than or equal to 1").
    """

    model_config = ConfigDict(extra="forbid", use_enum_values=True, allow_inf_nan=False)


class ActorRef(BaseModel):
    """Provenance of one version: the door it came through and who wrote it."""

    origin: str = Field(
        description="user, ingestion or maintenance (or unrecognized).", examples=["user"]
    )
    actor: str = Field(description="Free-form writer name.", examples=["agent:ci-triage"])


class ItemError(BaseModel):
    """One problem of one item of a batch refusal (`errors`)."""

    model_config = ConfigDict(extra="allow")

    index: int = Field(description="The item's position in the request, from 0.")
    code: str = Field(description="The problem's stable code.", examples=["input.invalid"])
    detail: str = Field(
        description="What is wrong with it.", examples=["content: must not be blank"]
    )
    loc: list[str | int] | None = Field(
        default=None,
        description='A problem the schema found: where, within the item (`["position"]`).',
    )
    memory_id: str | None = Field(
        default=None,
        description="`memory.position_taken`: the stored memory that holds the item's place.",
    )
    same_place_as: int | None = Field(
        default=None,
        description="`input.position_clash`: the earlier item holding the same place.",
    )


class ErrorBody(BaseModel):
    """Every error answer: a message and a stable dotted code, and what locates the fault.

    The optional fields appear only on the answers that name them; an ingestion refusal may
    carry further details of the material (its `format`, `source_name`, sizes), hence
    `additionalProperties`.
    """

    model_config = ConfigDict(extra="allow")

    detail: Any
    code: str
    index: int | None = Field(
        default=None,
        description="A batch refusal: the position of the (first) item at fault, from 0.",
    )
    errors: list[ItemError] | None = Field(
        default=None,
        description="A batch refusal: every problem of every item at fault, by index.",
    )
    memory_id: str | None = Field(
        default=None,
        description="A 409 `memory.position_taken`: the stored memory holding the place.",
    )
    step: int | None = Field(
        default=None, description="A trace refusal: the position of the step at fault, from 0."
    )
    replaced_by: str | None = Field(
        default=None,
        description="A 404 for a keyed value corrected from its start: the memory that replaced it.",
    )
    current_version: int | None = Field(
        default=None,
        description="A 409 `memory.version_conflict` from a PATCH: the version now current.",
    )
    known_jobs: list[str] | None = Field(
        default=None, description="A 422 for an unknown maintenance job: the jobs there are."
    )
