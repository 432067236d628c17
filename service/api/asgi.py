"""Answers sent straight through ASGI by the middlewares that refuse a request before the app."""

from __future__ import annotations

import json
from collections.abc import Sequence

from starlette.types import Send


async def send_json(
    send: Send, status: int, payload: dict[str, object], headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    """Send `payload` as a complete JSON response with `status` (and any extra `headers`)."""
    body = json.dumps(payload).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
