"""ASGI middleware that refuses requests whose `Host` is not one the service answers (DNS rebinding)."""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

#: The refusal's stable code (421 Misdirected Request: not an authority this service serves).
HOST_NOT_ALLOWED = "input.host_not_allowed"
#: Liveness and readiness answer any Host: probes address a pod or container by its IP, and
#: neither reveals nor changes anything a rebinding page could use.
PROBE_PATHS = frozenset({"/healthz", "/readyz"})
#: Longest echo of a refused Host in the error detail, in characters.
_ECHO_CHARS = 100


def host_name(header: str) -> str:
    """Return the name part of a `Host` header, lower case, without its port.

    Args:
        header: `api.example.com:8000`, `127.0.0.1`, `[::1]:8000`...

    Returns:
        `api.example.com`, `127.0.0.1`, `[::1]`; "" for an empty header.
    """
    value = header.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        return value[: end + 1] if end > 0 else value
    name, _, port = value.rpartition(":")
    return name if name and port.isdigit() else value


def host_allowed(name: str, allowed: tuple[str, ...]) -> bool:
    """Return True when `name` is in `allowed` or under one of its `*.suffix` patterns.

    Args:
        name: a host name as `host_name` returns it.
        allowed: lower-case names and `*.suffix` patterns (`Settings.host_allow_list`).
    """
    if not name:
        return False
    return any(
        name == entry or (entry.startswith("*.") and name.endswith(entry[1:])) for entry in allowed
    )


class HostCheckMiddleware:
    """Answer 421 `input.host_not_allowed` to a request whose `Host` the service does not serve.

    A page on another domain that rebinds its name to this machine's address reaches the service
    with its own name as `Host`; refusing unknown names keeps it out, dev mode's unauthenticated
    endpoints included. The health probes (`PROBE_PATHS`) are not checked.

    Args:
        app: the wrapped ASGI app.
        allowed: the names served (`Settings.host_allow_list`); None serves any Host.
    """

    def __init__(self, app: ASGIApp, allowed: tuple[str, ...] | None) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Pass the request on when its Host is served, else refuse it."""
        if self.allowed is None or scope["type"] != "http" or scope.get("path") in PROBE_PATHS:
            await self.app(scope, receive, send)
            return
        header = Headers(scope=scope).get("host", "")
        if host_allowed(host_name(header), self.allowed):
            await self.app(scope, receive, send)
            return
        shown = header[:_ECHO_CHARS] or "(none)"
        refusal = JSONResponse(
            {
                "detail": f"Host {shown!r} is not served here; allow it with RATIONALE_ALLOWED_HOSTS",
                "code": HOST_NOT_ALLOWED,
            },
            status_code=421,
        )
        await refusal(scope, receive, send)
