"""JSON value types both doors validate the same way (REST schemas and MCP tool arguments).

A bottom-layer module (pydantic only): the MCP stdio entry, which must load neither the domain
nor the driver, and `service.schemas` share it.
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, PydanticCustomError

#: The integers Neo4j stores (signed 64-bit).
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _json_int(value: Any) -> Any:
    # JSON Schema's integer includes 7.0 (and 1e20); a string or a boolean is no number. A whole
    # float becomes an int first, so it meets the field's own bounds ("less than or equal to
    # 100" for a limit) where pydantic would refuse it as a string too long to parse.
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise PydanticCustomError("int_type", "Input should be a valid integer")
    if isinstance(value, float):
        if not math.isfinite(value):  # 1e400 reads as inf, NaN as nan: neither is a fraction
            raise PydanticCustomError(
                "finite_number", "Input should be a finite number, not {value}", {"value": value}
            )
        if not value.is_integer():
            raise PydanticCustomError(
                "int_from_float",
                "Input should be a valid integer, got a number with a fractional part",
            )
        return int(value)
    return value


def _int64(value: int) -> int:
    # Neo4j stores signed 64-bit integers: a larger one would fail in the driver, not here.
    # Checked after the field's own `ge`/`le`, so a narrower bound is the one an error names.
    if value > INT64_MAX:
        raise PydanticCustomError(
            "less_than_equal", "Input should be less than or equal to {le}", {"le": INT64_MAX}
        )
    if value < INT64_MIN:
        raise PydanticCustomError(
            "greater_than_equal", "Input should be greater than or equal to {ge}", {"ge": INT64_MIN}
        )
    return value


class _Int64Schema:
    """JSON schema of `JsonInt`: `minimum`/`maximum`, the 64-bit range unless the field narrows it."""

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        # Behind a BeforeValidator pydantic writes a field's own `Field(ge=, le=)` as raw ge/le
        # keys, which no JSON Schema reader (OpenAPI tools, an MCP host) knows.
        for raw, keyword in (("ge", "minimum"), ("le", "maximum")):
            if raw in schema:
                schema[keyword] = schema.pop(raw)
        schema.setdefault("minimum", INT64_MIN)
        schema.setdefault("maximum", INT64_MAX)
        return schema


#: A JSON integer (`7` or `7.0`, never `"7"` or `true`) in the signed 64-bit range Neo4j
#: stores; a field's own `ge`/`le` narrows the range further and is what its schema shows.
JsonInt = Annotated[int, BeforeValidator(_json_int), AfterValidator(_int64), _Int64Schema()]


class DuplicateKeyError(json.JSONDecodeError):
    """A JSON object names a key twice (`strict_loads`); `key` is the name."""

    def __init__(self, key: str, doc: str, pos: int) -> None:
        super().__init__(f"duplicate key {key!r} in an object", doc, pos)
        self.key = key


def lone_surrogate(value: Any) -> str | None:
    r"""Return the first lone surrogate in a parsed JSON value's strings and keys, escaped.

    JSON's `\uD800` escapes parse to a Python string holding half a UTF-16 pair, which is no
    Unicode text (RFC 8259 §8.2: such strings are unpredictable to receivers).

    Args:
        value: what `strict_loads` returned.

    Returns:
        E.g. `"\ud800"`, or None when every string is valid Unicode.
    """
    pending: list[Any] = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                return f"\\u{ord(item[exc.start]):04x}"
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return None


class _DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Build one JSON object (`json.loads`' `object_pairs_hook`); raise on a repeated key."""
    built = dict(pairs)
    if len(built) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return built


def strict_loads(body: bytes | str) -> Any:
    """Parse a JSON document as `json.loads` does, refusing an object with a repeated key.

    RFC 8259 §4: names within an object SHOULD be unique, and parsers disagree on which value
    wins (I-JSON, RFC 7493 §2.3, forbids duplicates). Python's `json` keeps the last, so a
    body whose first `content` a proxy or an audit log read was stored with its second. REST
    bodies (`api.json_body`), the MCP endpoint and the CLI's JSON Lines read through this.

    Args:
        body: the document; bytes must be UTF-8 (RFC 8259 §8.1; a leading byte order mark
            is skipped, as §8.1 allows), not the UTF-16 or UTF-32 `json.loads` would detect.

    Returns:
        The value.

    Raises:
        json.JSONDecodeError: not JSON; `DuplicateKeyError` (a subclass) when an object names
            a key twice (`msg` says `duplicate key 'name' in an object`; `pos` is the key's
            last occurrence written as `json.dumps` writes it, 0 when there is none). FastAPI
            answers either as a 422 issue of type `json_invalid`.
        UnicodeDecodeError: bytes that are not UTF-8 (FastAPI's 400, the service's 422).
    """
    if isinstance(body, bytes):
        body = body.decode("utf-8-sig")
    try:
        return json.loads(body, object_pairs_hook=_unique_object)
    except _DuplicateKey as exc:
        text = body if isinstance(body, str) else body.decode("utf-8", "replace")
        pos = max(text.rfind(json.dumps(exc.key, ensure_ascii=False)), 0)
        raise DuplicateKeyError(exc.key, text, pos) from exc
