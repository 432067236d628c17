"""Secret redaction: secrets-looking strings are replaced before any handed-in text is parsed or stored."""

from __future__ import annotations

import re
from collections import Counter

#: Each kind of secret and the pattern that finds it. A match is replaced by
#: ``[REDACTED:<kind>]`` (for ``assignment`` only the value is replaced, the name is kept).
#: Replacements never contain quotes or backslashes, so JSON and JSONL stay valid.
SECRET_PATTERNS: dict[str, re.Pattern[str]] = {
    "private_key": re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
        re.DOTALL,
    ),
    "api_key": re.compile(r"(?<![A-Za-z0-9])sk-(?:ant-|proj-|live-|test-)?[A-Za-z0-9_\-]{20,}"),
    "github_token": re.compile(
        r"(?<![A-Za-z0-9])(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})"
    ),
    "aws_access_key": re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])"),
    "slack_token": re.compile(r"(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9\-]{10,}"),
    "google_api_key": re.compile(r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_\-]{35}"),
    "jwt": re.compile(
        r"(?<![A-Za-z0-9])eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"
    ),
    "bearer_token": re.compile(r"(?<=[Bb]earer )[A-Za-z0-9._~+/=\-]{20,}"),
}

#: ``password=...``-style assignments: the name, then ``=`` or ``:`` (JSON quotes allowed),
#: then a value of 6 or more characters holding a letter and a digit and no ``.``/``(``, not
#: followed by ``(`` or by ``.`` and a name (so code such as ``apiKey: config.apiKey`` or
#: ``apiKey: 'not-required'`` is left alone, while a sentence's full stop after a value is not
#: code). The value is possessive (``{6,}+``): backing off a character to get past the
#: look-ahead left a secret's last character in the text (``password=Summer2024.`` became
#: ``password=[REDACTED:assignment]4.``).
_ASSIGNMENT = re.compile(
    r"(?i)(?<![A-Za-z0-9_])((?:password|passwd|pwd|secret|client_secret|api[_-]?key|"
    r"access[_-]?token|auth[_-]?token|secret[_-]?key)[\"']?\s*[:=]\s*[\"']?)"
    r"(?![\"'<\[$*{%])([^\s\"'\\,;)}\].(]{6,}+)(?!\(|\.[A-Za-z_$(])"
)
_PLACEHOLDER = re.compile(
    r"(?i)^(?:x+|\*+|\.+|changeme|example\w*|your\w*|none|null|true|false|redacted\w*)$"
)


def redact(text: str) -> tuple[str, Counter[str]]:
    """Replace secrets-looking strings in `text`.

    Kinds: `SECRET_PATTERNS` (private key blocks, ``sk-...`` API keys, GitHub ``ghp_``/
    ``github_pat_`` tokens, AWS ``AKIA``/``ASIA`` access key ids, Slack ``xox?-`` tokens,
    Google ``AIza`` keys, JWTs, the token after ``Bearer``) and ``assignment`` (the value of
    ``password=``, ``secret:``, ``api_key=``, ``access_token:`` ... when it is 6+ characters
    with a letter and a digit, no ``.`` or ``(`` and not followed by a call or a member --
    code, not a literal --, and not a placeholder).

    Args:
        text: any text (JSON as text too: replacements keep it valid).

    Returns:
        `(redacted text, {kind: count})`; the counter is empty when nothing was found.
    """
    counts: Counter[str] = Counter()
    for kind, pattern in SECRET_PATTERNS.items():
        text, n = pattern.subn(f"[REDACTED:{kind}]", text)
        if n:
            counts[kind] += n

    def assignment(match: re.Match[str]) -> str:
        value = match.group(2)
        has_both = any(c.isdigit() for c in value) and any(c.isalpha() for c in value)
        if not has_both or _PLACEHOLDER.match(value) or value.startswith("[REDACTED"):
            return match.group(0)
        counts["assignment"] += 1
        return f"{match.group(1)}[REDACTED:assignment]"

    text = _ASSIGNMENT.sub(assignment, text)
    return text, counts
