"""How a SWE-agent-style run ends: its submission, in words, as a decision or a give-up."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.domain.ingestion.formats.common import MAX_STEP_CHARS, truncate
from service.domain.models import Kind, ProducedDraft

#: Longest explanation quoted in a submission's decision, in characters.
MAX_EXPLANATION_CHARS = 600
#: Files named in a submission's decision; more are counted ("and 3 more").
MAX_FILES_NAMED = 5
#: Thoughts looked back over, from the last, for the agent's explanation of its submission.
_THOUGHTS_LOOKED_AT = 3
#: An exit status that is no deliberate ``submit``: a limit or an error ended the run and the
#: harness autosubmitted what was there (SWE-agent ``submitted (exit_cost)``, ``exit_context``,
#: ``exit_format``; mini-SWE-agent ``LimitsExceeded``, ``TimeoutError``...).
_LIMIT_STATUS = re.compile(r"(?i)exit|autosubmi|limit|cost|context|timeout|error|format")
#: A thought that admits the agent did not get there (it gave up, is unsure, ran out).
_ADMITS_FAILURE = re.compile(
    r"(?i)\b(?:could ?n[o']t|unable to|not able to|not sure|unsure|gave up|give up|giving up"
    r"|failed to|ran out|run out)\b"
)
#: An answer that says there is none ("I cannot determine the cause", "I don't know"): a
#: give-up, not a decision (trial 25). FEVER's "NOT ENOUGH INFO" is an answer of its own.
_NO_ANSWER = re.compile(
    r"(?i)\b(?:can ?not|can't|could ?n[o']t|unable to|not able to) "
    r"(?:determine|find|answer|tell|figure|identify|work out|say)\b"
    r"|\b(?:I|we) (?:do not|don't) know\b|\b(?:gave|give|giving) up\b"
)


def gives_up(answer: str) -> bool:
    """Whether an agent's final answer says it has none ("I cannot determine the cause").

    Args:
        answer: the final answer (a ReAct ``Finish[...]``, an agent's last message).

    Returns:
        True for a give-up, which decides nothing.
    """
    return bool(_NO_ANSWER.search(answer))


#: A sentence announcing the submit or the next step, no explanation ("Let me submit.").
_NOT_AN_EXPLANATION = re.compile(
    r"(?i)\bsubmit(?:ting)?\b|^(?:let me|let's|let us|now,? (?:let|i)|i will|i'll|next,?)\b"
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_DIFF_FILE = re.compile(r"^diff --git a/(\S+) b/", re.MULTILINE)
_NEW_FILE = re.compile(r"^\+\+\+ b/(\S+)", re.MULTILINE)
_PLACEHOLDERS = ("(no thought recorded)", "")


def is_patch(submission: str) -> bool:
    """True for a submission that is a diff (``diff --git``, ``--- a/...``)."""
    return submission.startswith(("diff", "--- ")) or bool(_NEW_FILE.search(submission))


def changed_files(diff: str) -> list[str]:
    """Return the files a diff changes, in order, each once.

    Args:
        diff: a unified diff (``diff --git a/x b/x`` headers, else ``+++ b/x`` lines).

    Returns:
        The paths (empty when the diff names none).
    """
    found = _DIFF_FILE.findall(diff) or _NEW_FILE.findall(diff)
    return list(dict.fromkeys(found))


def explanation(thoughts: Sequence[str]) -> str:
    """Return what the agent last said about its work before it submitted.

    The last thoughts are looked at, newest first (at most `_THOUGHTS_LOOKED_AT`): sentences
    that announce the submit or the next step ("Let me run the tests again.") are dropped, and
    the first thought that keeps at least four words is the explanation.

    Args:
        thoughts: the run's thoughts, in order.

    Returns:
        The explanation cut to `MAX_EXPLANATION_CHARS`, or empty when none says anything.
    """
    for thought in [t for t in thoughts if t.strip() not in _PLACEHOLDERS][::-1][
        :_THOUGHTS_LOOKED_AT
    ]:
        sentences = _SENTENCE_END.split(" ".join(thought.split()))
        kept = " ".join(s for s in sentences if not _NOT_AN_EXPLANATION.search(s)).strip()
        if len(kept.split()) >= 4:
            return truncate(kept, MAX_EXPLANATION_CHARS)
    return ""


def is_autosubmitted(exit_status: str) -> bool:
    """True when a limit or an error ended the run (`_LIMIT_STATUS`), not the agent's submit."""
    return bool(_LIMIT_STATUS.search(exit_status))


def _files(submission: str) -> str:
    files = changed_files(submission)
    if not files:
        return ""
    named = ", ".join(files[:MAX_FILES_NAMED])
    more = len(files) - MAX_FILES_NAMED
    return f" to {named}" + (f" and {more} more" if more > 0 else "")


def submission_conclusion(
    submission: str, exit_status: str, thoughts: Sequence[str]
) -> tuple[str, ProducedDraft]:
    """Return the conclusion of a SWE-agent-style run and the memory it produces.

    A submission the agent made with ``submit`` (an exit status without a limit or an error:
    ``submitted``, ``Submitted``, or none known) decides what it submitted:

    - a patch: ``"Submitted patch to <files>: <explanation>"`` -- the files the diff changes and
      what the agent last said about its work (`explanation`); the diff itself stays in the
      trace (the observation of the submit, or one the parser adds);
    - other text (a CTF flag, an answer): ``"Submitted: <text>"``;
    - nothing (exit status ``submitted``): ``"Submitted an empty patch (no change). <explanation>"`` -- a decision when the
      explanation says why and admits no failure ("the behaviour is intended; no change is
      needed" is as much a decision as a patch), else an ``observation``.

    Decisions are ``active``. A submission a limit or an error ended (`is_autosubmitted`)
    produces an ``observation``: ``"Run autosubmitted at its limit (exit status: ...): patch to
    <files>, not verified by the agent. Last thought: ..."`` -- a give-up, however sure the
    patch looks. A run that submitted nothing and whose exit status is not ``submitted``
    produces the ``observation`` ``"Run ended without a submission (exit status: ...). Last
    thought: ..."``.

    Args:
        submission: what the run submitted (stripped; empty when nothing was).
        exit_status: how the run ended (``submitted``, ``submitted (exit_cost)``,
            ``LimitsExceeded``...).
        thoughts: the run's thoughts, in order (the last one is quoted by a give-up).

    Returns:
        `(conclusion, produced)`, both cut to `MAX_STEP_CHARS`.
    """
    last = thoughts[-1] if thoughts else ""
    said = explanation(thoughts)
    if submission and is_autosubmitted(exit_status):
        what = f"patch{_files(submission)}" if is_patch(submission) else "its output"
        text = truncate(
            f"Run autosubmitted at its limit (exit status: {exit_status}): {what}, "
            f"not verified by the agent. Last thought: {last}",
            MAX_STEP_CHARS,
        )
        return text, ProducedDraft(kind=Kind.OBSERVATION, content=text)
    if not submission and exit_status.lower() != "submitted":
        text = truncate(
            f"Run ended without a submission (exit status: {exit_status}). Last thought: {last}",
            MAX_STEP_CHARS,
        )
        return text, ProducedDraft(kind=Kind.OBSERVATION, content=text)
    if not submission:
        text = "Submitted an empty patch (no change)." + (f" {said}" if said else "")
        if not said or _ADMITS_FAILURE.search(said):
            return text, ProducedDraft(kind=Kind.OBSERVATION, content=text)
        return text, ProducedDraft(kind=Kind.DECISION, content=text, status="active")
    if is_patch(submission):
        text = f"Submitted patch{_files(submission)}" + (f": {said}" if said else ".")
    else:
        text = f"Submitted: {truncate(submission, MAX_STEP_CHARS)}"
    text = truncate(text, MAX_STEP_CHARS)
    return text, ProducedDraft(kind=Kind.DECISION, content=text, status="active")


def patch_observation(submission: str, exit_status: str, observations: Sequence[str]) -> str:
    """Return the observation that keeps a submitted patch in the trace, when none shows it yet.

    A ``submit`` step observes the diff it submitted; an autosubmitted patch, or one whose
    output was not saved, appears nowhere else once the decision names its files in words.

    Args:
        submission: what the run submitted (stripped).
        exit_status: how the run ended.
        observations: the trace's observations so far.

    Returns:
        ``"Submitted patch:"`` and the diff on the next lines (``"Autosubmitted patch (exit
        status: ...):"`` for `is_autosubmitted`), or empty when it is no patch or an
        observation holds its first line.
    """
    if not is_patch(submission):
        return ""
    first = submission.splitlines()[0]
    if any(first in o for o in observations):
        return ""
    if is_autosubmitted(exit_status):
        return f"Autosubmitted patch (exit status: {exit_status}):\n{submission}"
    return f"Submitted patch:\n{submission}"
