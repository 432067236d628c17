"""Detection of a document's format from its name and content (`parse` with ``auto``)."""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any

from service.domain.ingestion.formats.adr import looks_like_adr
from service.domain.ingestion.formats.common import FormatError, check_text
from service.domain.ingestion.formats.react import REACT_ANY_TAG

_NOT_JSON = object()


def _json_format(data: Any) -> str | None:
    """Return the JSON format `data` matches, or None."""
    if isinstance(data, dict) and "trajectory" in data:
        return "swe-agent"
    if (
        isinstance(data, list)
        and data
        and all(isinstance(e, dict) for e in data)
        and any("action" in e or "observation" in e for e in data)
    ):
        return "openhands"
    if isinstance(data, dict) and any(
        isinstance(v, str) and REACT_ANY_TAG.search(v) for v in data.values()
    ):
        return "react"
    return None


def detect_format(content: str, source_name: str) -> str:
    """Guess the format of handed-in material from its name and content.

    Rules, in order: JSON (a ``.json``/``.traj`` name, or content starting with ``{``/``[``)
    is ``swe-agent`` for an object with ``trajectory``, ``openhands`` for a list of event
    objects with ``action``/``observation`` keys, ``react`` for an object of strings holding
    ``Thought 1:``/``Action 1:`` lines, and an error otherwise; text with ``Thought 1:`` or
    ``Action 1:`` lines is ``react``; Markdown with a ``Decision``/``Decision Outcome``
    heading and another ADR heading (or front matter ``status``) is ``adr``; anything else is
    ``text``.

    Args:
        content: the material, as text.
        source_name: its file name (only the extension is used).

    Returns:
        One of `service.domain.ingestion.formats.FORMATS`.

    Raises:
        FormatError: empty or binary content, a ``.json``/``.traj`` name with invalid JSON,
            or JSON matching no known format.
    """
    check_text(content, "auto")
    suffix = PurePosixPath(source_name.replace("\\", "/")).suffix.lower()
    declared_json = suffix in (".json", ".traj")
    data: Any = _NOT_JSON
    if declared_json or content.lstrip()[:1] in ("{", "["):
        try:
            data = json.loads(content)
        except RecursionError as exc:
            raise FormatError(f"auto: the JSON of {source_name} is nested too deeply") from exc
        except json.JSONDecodeError as exc:
            if declared_json:
                raise FormatError(
                    f"auto: {source_name} is not valid JSON ({exc.msg} at line {exc.lineno})"
                ) from exc
    if data is not _NOT_JSON:
        fmt = _json_format(data)
        if fmt is None:
            raise FormatError(
                f"auto: the JSON of {source_name} matches no known format (expected a SWE-agent "
                "object with 'trajectory', an OpenHands event list or ReAct prompt strings)"
            )
        return fmt
    if REACT_ANY_TAG.search(content):
        return "react"
    if looks_like_adr(content):
        return "adr"
    return "text"
