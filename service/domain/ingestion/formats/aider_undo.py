"""Aider's commits and ``/undo``: which request made a commit, and what undoing it withdraws."""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.domain.ingestion.formats.session import SessionTrace
from service.domain.models import StepKind

#: Aider's line after the edits of a reply were committed: ``Commit 3e1a9c2 feat: ...``.
_COMMIT = re.compile(r"^Commit (?P<sha>[0-9a-f]{7,40})\b", re.MULTILINE)
#: ``/undo``'s line naming the commit it removed: ``Removed: 8b77d01 feat: ...``.
_REMOVED = re.compile(r"^Removed: (?P<sha>[0-9a-f]{7,40})\b[ \t]*(?P<message>.*)$", re.MULTILINE)
_UNDO_COMMAND = re.compile(r"^#### /undo\s*$")


@dataclass(frozen=True)
class _Commit:
    """A commit Aider made: its hash, the request whose edits it holds, and its console step."""

    sha: str
    trace: SessionTrace
    step: int
    edits: tuple[int, ...]


def undo_follows(lines: list[str], i: int) -> bool:
    """True when the next entry from line `i` is an ``/undo`` that removed a commit.

    Blank lines may come between; the ``/undo`` must be the next ``#### `` line, and a
    ``Removed: <hash>`` line must be in the console output right after it (an ``/undo`` that
    removed nothing -- "The last commit was not made by aider" -- undoes no work).

    Args:
        lines: the history's lines.
        i: the index after a user message.

    Returns:
        Whether the message asked for the undo that follows it.
    """
    k = _next_filled(lines, i)
    if k >= len(lines) or not _UNDO_COMMAND.match(lines[k]):
        return False
    k = _next_filled(lines, k + 1)
    while k < len(lines) and lines[k].startswith(">"):
        if _REMOVED.match(lines[k][1:].strip()):
            return True
        k += 1
    return False


def _next_filled(lines: list[str], i: int) -> int:
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i


class Commits:
    """The commits Aider made in a history, each with the request (trace) whose edits it holds."""

    def __init__(self) -> None:
        """Start with no commit."""
        self._made: list[_Commit] = []
        self._undone: set[int] = set()  # indexes into `_made`

    def console(self, trace: SessionTrace, text: str) -> None:
        """Add Aider's console output to `trace`: record its commits, apply its undos.

        ``Commit <hash>`` holds the trace's edit actions since its previous commit. ``Removed:
        <hash>`` (``/undo``) undoes the trace that made that commit (`SessionTrace.undo`): the
        output `REJECTS` the commit's edits and that trace produces no decision. When the
        commit is another (earlier) request's, the output is this trace's observation as usual,
        and the earlier trace gets an observation saying so. A hash Aider never committed in
        this history (a commit from before it) undoes nothing here.

        Args:
            trace: the request the output was printed in.
            text: the output, noise removed (non-empty).
        """
        own: list[int] = []
        undone: list[str] = []
        for removed in _REMOVED.finditer(text):
            commit = self._take(removed.group("sha"))
            if commit is None:
                continue
            what = f"commit {commit.sha} ({removed.group('message').strip()}) was undone (/undo)"
            if commit.trace is trace:
                own += commit.edits
                undone.append(what)
            else:
                commit.trace.undo(
                    f"Undone in a later request: {removed.group(0)}", commit.edits, what
                )
        start = max((c.step + 1 for c in self._made if c.trace is trace), default=0)
        edits = tuple(
            i for i in range(start, len(trace.steps)) if trace.steps[i].kind == StepKind.ACTION
        )
        if undone:
            trace.undo(text, tuple(sorted(set(own))), "; ".join(undone))
        else:
            trace.console(text)
        for made in _COMMIT.finditer(text):
            self._made.append(_Commit(made.group("sha"), trace, len(trace.steps) - 1, edits))

    def _take(self, sha: str) -> _Commit | None:
        """Return the latest commit not undone yet that `sha` names (either hash may be short).

        It counts as undone from now on.
        """
        for k in range(len(self._made) - 1, -1, -1):
            made = self._made[k].sha
            if k not in self._undone and (made.startswith(sha) or sha.startswith(made)):
                self._undone.add(k)
                return self._made[k]
        return None
