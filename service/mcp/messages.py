"""JSON-RPC checks both MCP transports make before the SDK reads a message (HTTP and stdio).

The SDK reads some messages wrongly or not at all: a repeated key keeps its last value, a lone
surrogate is "unexpected end of hex escape", an object or null id makes a notification (HTTP:
202, nothing done), a batch draws -32602 with four validation errors, and over stdio every line
it cannot read (not JSON, an odd id, a batch) is dropped with no answer (trials 10, 11, 15, 18,
20).
`refusal` gives the JSON-RPC error such a message is answered with, the same on both transports.
"""

from __future__ import annotations

import codecs
from dataclasses import dataclass

from mcp_types import INVALID_REQUEST, PARSE_ERROR, jsonrpc_message_adapter
from pydantic import ValidationError

from service.json_types import DuplicateKeyError, lone_surrogate, strict_loads


@dataclass(frozen=True)
class Refusal:
    """The JSON-RPC error answering a message the SDK must not read.

    Attributes:
        code: -32700 (parse error: not JSON or not UTF-8, a repeated key, a lone surrogate)
            or -32600 (invalid request: an id MCP does not allow, a batch, no message object,
            a message the SDK cannot read such as one without `method`).
        message: one sentence, e.g. "Invalid Request: the id is null: MCP ids are strings or
            integers".
        id: the message's id when it is one MCP allows (the caller can match the answer),
            else None (`"id": null`).
    """

    code: int
    message: str
    id: str | int | None = None

    def as_json(self) -> dict[str, object]:
        """The JSON-RPC error response, e.g. `{"jsonrpc": "2.0", "id": null, "error": {...}}`."""
        return {
            "jsonrpc": "2.0",
            "id": self.id,
            "error": {"code": self.code, "message": self.message},
        }


def refusal(body: bytes | str) -> Refusal | None:
    """Return the error a JSON-RPC message is answered with before the SDK reads it, or None.

    Args:
        body: one message as sent (an HTTP body, a line of stdin).

    Returns:
        A `Refusal` for a body that is not JSON (nested past Python's parser included; bytes
        that are not UTF-8), names a key twice, holds a lone surrogate, is a batch or carries an
        id MCP does not allow (`invalid_request`), or is no JSON-RPC message the SDK can read
        (`_unreadable`); None for anything else.
    """
    text_bom = isinstance(body, str) and body.lstrip().startswith("\ufeff")
    if text_bom or (isinstance(body, bytes) and body.lstrip().startswith(codecs.BOM_UTF8)):
        # The SDK's reader fails on it without an answer over stdio (trial 21).
        return Refusal(
            PARSE_ERROR, "Parse error: a byte-order mark opens the message: send the JSON alone"
        )
    try:
        message = strict_loads(body)
    except DuplicateKeyError as exc:
        return Refusal(PARSE_ERROR, f"Parse error: {exc.msg}")
    except ValueError as exc:
        return Refusal(PARSE_ERROR, f"Parse error: not JSON ({exc})")
    except RecursionError:
        return Refusal(PARSE_ERROR, "Parse error: nested too deep to read")
    surrogate = lone_surrogate(message)
    if surrogate is not None:
        return Refusal(
            PARSE_ERROR,
            f"Parse error: a string holds the lone surrogate {surrogate}: not Unicode text",
        )
    bad = invalid_request(message)
    if bad is not None:
        return Refusal(INVALID_REQUEST, f"Invalid Request: {bad}")
    return _unreadable(message)


def _unreadable(message: object) -> Refusal | None:
    """Return the -32600 for a JSON object the SDK cannot read as a JSON-RPC message, or None.

    No `method`, another `jsonrpc`, a `method` that is no string: the SDK answered -32602 with
    every union member's validation errors over HTTP and nothing at all over stdio (trial 20).
    """
    try:
        jsonrpc_message_adapter.validate_python(message, by_name=False)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:]) or "the message"
        return Refusal(
            INVALID_REQUEST, f"Invalid Request: {where}: {first['msg']}", allowed_id(message)
        )
    return None


def allowed_id(message: object) -> str | int | None:
    """Return a message's id when it is one MCP allows (a string or an integer), else None."""
    value = message.get("id") if isinstance(message, dict) else None
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    return None


def invalid_request(message: object) -> str | None:
    """Return why a JSON-RPC message is not one MCP allows (its `id`, a batch), or None.

    MCP requests carry a string or integer id, never null (JSON-RPC 2.0 allows null and any
    number; MCP narrows it). The SDK read a message with an object, list, fractional or
    boolean id as a notification and answered 202 with nothing done (trial 15); such a
    message is an Invalid Request (-32600). A message without `id` is a notification.

    A JSON array is a JSON-RPC batch, which MCP no longer has (2025-06-18): the SDK answered
    one with -32602 and four validation errors (trial 18); it is an Invalid Request too, as is
    a JSON value that is no object at all.

    Args:
        message: the parsed body.

    Returns:
        e.g. "the id is an object: MCP ids are strings or integers"; None.
    """
    if isinstance(message, list):
        return "a batch (a JSON array): send one message per request"
    if not isinstance(message, dict):
        return f"a JSON {type(message).__name__}, not a message object"
    if "id" not in message or allowed_id(message) is not None:
        return None
    value = message["id"]
    shown = {
        dict: "an object",
        list: "a list",
        float: "a number with a fraction or exponent",
        bool: "a boolean",
    }
    sent = "null" if value is None else shown.get(type(value), type(value).__name__)
    return f"the id is {sent}: MCP ids are strings or integers"
