"""What the coding-agent session formats share: one trace per user request, built step by step."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from service.domain.ingestion.formats.chatter import is_chatter
from service.domain.ingestion.formats.common import (
    MAX_STEP_CHARS,
    MAX_TASK_CHARS,
    obs,
    truncate,
)
from service.domain.ingestion.formats.retraction import retracted_step
from service.domain.models import (
    IngestUnit,
    Kind,
    ProducedDraft,
    StepDraft,
    StepKind,
    StepStatus,
    TraceDraft,
)

#: Longest tool result kept as an observation, in characters: the first
#: `OBSERVATION_HEAD_CHARS` and the last `OBSERVATION_TAIL_CHARS` (where errors and summaries
#: are), the middle replaced by a marker saying how much was cut.
MAX_SESSION_OBSERVATION_CHARS = 1200
OBSERVATION_HEAD_CHARS = 800
OBSERVATION_TAIL_CHARS = 400
#: Longest action text kept (the tool and its command, file, pattern or URL -- never the payload).
MAX_SESSION_ACTION_CHARS = 500
#: Most steps in one session trace; past `MAX_SESSION_STEPS - 2` the remaining tool calls and
#: results of the request are counted (``dropped_steps``) instead of stored, so the conclusion
#: always fits. Under the service's `max_steps` (500).
MAX_SESSION_STEPS = 400

#: A user follow-up that clearly rejects the agent's last proposal ("option 1 is not
#: acceptable", "don't produce code", "no, ..."): an observation that `REJECTS` that proposal.
_REJECTING = re.compile(
    r"(?i)(?:^\W*(?:no|nope|wrong|stop)\b|\bnot (?:acceptable|accepable|valid|correct|right|what i)\b"
    r"|\bunacceptable\b|\bdon'?t\b|\bdo not\b|\bmust not\b|\bmustn'?t\b|\bshould ?n[o']t\b"
    r"|\bno need\b|\btoo complex\b|\bthat'?s wrong\b|\bis wrong\b|\bincorrect\b)"
)
#: A follow-up that amends the agent's work without a new task ("great, but ...", "however
#: ..."): an observation of the same trace, rejecting nothing.
_AMENDING = re.compile(r"(?i)^.{0,60}?\b(?:but|however)\b")
_BARE_COMMAND = re.compile(r"^/[\w:-]+$")


def follow_up_kind(text: str) -> str:
    """Classify a user message that follows agent work.

    Args:
        text: the user's message.

    Returns:
        ``rejects`` (a clear correction: looked for in its first 300 characters), ``amends``
        (``but``/``however`` in its first 60 characters) or ``request`` (a new task).
    """
    head = text.strip()[:300]
    if _REJECTING.search(head):
        return "rejects"
    if _AMENDING.search(head):
        return "amends"
    return "request"


def trim_observation(text: str) -> tuple[str, bool]:
    """Return a tool result trimmed to `MAX_SESSION_OBSERVATION_CHARS` (head and tail kept).

    Args:
        text: the tool's output or a file's content.

    Returns:
        `(text, trimmed?)`.
    """
    text = text.strip()
    if len(text) <= MAX_SESSION_OBSERVATION_CHARS:
        return text, False
    cut = len(text) - OBSERVATION_HEAD_CHARS - OBSERVATION_TAIL_CHARS
    head, tail = text[:OBSERVATION_HEAD_CHARS], text[-OBSERVATION_TAIL_CHARS:]
    return f"{head}\n… [trimmed: {cut} of {len(text)} characters cut]\n{tail}", True


def trim_action(text: str) -> tuple[str, bool]:
    """Return an action description cut to `MAX_SESSION_ACTION_CHARS`, and whether it was cut."""
    text = " ".join(text.split()) if "\n" not in text.strip() else text.strip()
    if len(text) <= MAX_SESSION_ACTION_CHARS:
        return text, False
    return truncate(text, MAX_SESSION_ACTION_CHARS), True


@dataclass
class SessionTrace:
    """One user request of a session and the agent's work on it, as steps in order.

    The request is step 0 (an ``observation`` citing ``obs:0``); visible reasoning (thinking
    blocks, commentary, prose before a tool call) are ``thought`` steps; tool calls ``action``
    steps; tool results, console output and user follow-ups ``observation`` steps (each also
    an observation memory). `finish` turns the agent's last prose into the ``conclusion``.
    """

    request: str
    started: datetime | None = None
    steps: list[StepDraft] = field(default_factory=list)
    observations: list[str] = field(default_factory=list)
    trimmed: int = 0
    dropped_steps: int = 0
    corrections: int = 0
    subagent_calls: int = 0
    last_prose: int | None = None
    last_action: int | None = None
    pending_rejection: bool = False
    #: The refused call no later call or user message has answered (its action text, quoted),
    #: or None: while set, `finish` produces no decision.
    unresolved_refusal: str | None = None
    #: What a later event undid of the trace's work (Aider's ``/undo`` removing its commit), or
    #: None: while set, `finish` produces no decision.
    undone: str | None = None
    calls: dict[str, int] = field(default_factory=dict)
    read_only: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        """Record the request as the first observation step."""
        text, cut = trim_observation(self.request)
        self.trimmed += cut
        self._observe(f"User: {text}")

    def _room(self) -> bool:
        if len(self.steps) < MAX_SESSION_STEPS - 2:
            return True
        self.dropped_steps += 1
        return False

    def _observe(self, text: str, rejects: tuple[int, ...] = ()) -> int:
        self.steps.append(
            StepDraft(
                kind=StepKind.OBSERVATION,
                content=text,
                cites=(obs(len(self.observations)),),
                rejects=rejects,
            )
        )
        self.observations.append(text)
        return len(self.steps) - 1

    @property
    def has_agent_work(self) -> bool:
        """True when the agent wrote prose or called a tool for this request."""
        return self.last_prose is not None or self.last_action is not None

    def think(self, text: str) -> None:
        """Add visible reasoning or agent prose (a ``thought``; the last one may conclude).

        A thought that takes back an earlier guess of the agent ("I was wrong about the
        renderer", "floats are not the cause"; `retracted_step`) `REJECTS` that thought, which
        becomes a ``hypothesis``.
        """
        text = text.strip()
        if not text or not self._room():
            return
        if len(text) > MAX_STEP_CHARS:
            self.trimmed += 1
        content = truncate(text, MAX_STEP_CHARS)
        rejected = {r for s in self.steps for r in s.rejects}
        retracted = retracted_step(self.steps, content, rejected)
        if retracted is not None:
            self.steps[retracted] = replace(self.steps[retracted], status=StepStatus.HYPOTHESIS)
        rejects = (retracted,) if retracted is not None else ()
        self.steps.append(StepDraft(kind=StepKind.THOUGHT, content=content, rejects=rejects))
        self.last_prose = len(self.steps) - 1

    def act(
        self,
        text: str,
        call_id: str | None = None,
        *,
        subagent: bool = False,
        read_only: bool = False,
    ) -> None:
        """Add a tool call (its tool and command/file/pattern, never its payload).

        A `read_only` call (a read, a search, a to-do list update) changes nothing: its result
        leaves a refusal before it unresolved (`result`).
        """
        call_id = call_id if isinstance(call_id, str) else None  # a mangled log's id: no link
        if not text.strip() or not self._room():
            return
        content, cut = trim_action(text)
        self.trimmed += cut
        self.steps.append(StepDraft(kind=StepKind.ACTION, content=content))
        self.last_action = len(self.steps) - 1
        self.subagent_calls += subagent
        if call_id:
            self.calls[call_id] = self.last_action
            if read_only:
                self.read_only.add(call_id)

    def result(
        self,
        text: str,
        call_id: str | None = None,
        *,
        refused: bool = False,
        failed: bool = False,
    ) -> None:
        """Add a tool result (trimmed); a call the user refused `REJECTS` that call.

        A refusal stays unresolved (`unresolved_refusal`: `finish` then produces nothing)
        until a user follow-up or a later call that worked (not `failed`, not `read_only`).
        """
        text = text.strip() or "(no output)"
        call_id = call_id if isinstance(call_id, str) else None
        call = self.calls.get(call_id or "", self.last_action) if refused else None
        if refused:
            named = f"'{truncate(self.steps[call].content, 80)}'" if call is not None else None
            self.unresolved_refusal = named or "a tool call"
        elif not failed and (call_id or "") not in self.read_only:
            self.unresolved_refusal = None
        if not self._room():
            return
        content, cut = trim_observation(text)
        self.trimmed += cut
        if refused:
            self.corrections += 1
            self.pending_rejection = True
        self._observe(content, (call,) if call is not None else ())

    def console(self, text: str) -> None:
        """Add console output the tool printed itself (applied edits, commits, command output)."""
        text = text.strip()
        if text and self._room():
            content, cut = trim_observation(text)
            self.trimmed += cut
            self._observe(content)

    def undo(self, text: str, rejects: tuple[int, ...], undone: str) -> None:
        """Add the observation that undid earlier steps (`rejects`): the trace decides nothing."""
        self.undone = undone
        self.corrections += 1
        if text.strip() and self._room():
            content, cut = trim_observation(text)
            self.trimmed += cut
            self._observe(content, rejects)

    def follow_up(self, text: str, kind: str) -> None:
        """Add a user follow-up: ``rejects`` links it to the agent's last proposal."""
        content, cut = trim_observation(text)
        self.trimmed += cut
        rejects: tuple[int, ...] = ()
        if kind == "rejects" and self.last_prose is not None:
            rejects = (self.last_prose,)
            self.corrections += 1
        self._observe(f"User: {content}", rejects)
        self.pending_rejection = False
        self.unresolved_refusal = None

    def finish(self) -> tuple[tuple[StepDraft, ...], ProducedDraft | None]:
        """Return the steps with the conclusion placed, and the produced decision.

        The conclusion is the agent's last prose when no step rejected it and it is not
        chatter (`is_chatter`: thanks, apologies, agreement, an introduction, a bare code
        fence -- short and without technical content); after chatter it is the latest earlier
        prose that is neither. Otherwise (or without prose) a ``conclusion`` step naming the
        last action is appended. The produced memory is a ``decision`` (status ``active``) with
        the conclusion's text. A request the agent only answered with chatter, with no tool
        call, concludes with that reply and produces nothing; so does a request whose last
        working tool call was refused (`unresolved_refusal`: "I've created CLAUDE.md" after the
        write was not permitted is no decision; trial 19), and one whose work was `undone`.
        """
        steps = list(self.steps)
        rejected = {r for s in steps for r in s.rejects}
        reply = last = self.last_prose
        if reply is not None and reply not in rejected and is_chatter(steps[reply].content):
            last = next(
                (
                    i
                    for i in range(reply - 1, -1, -1)
                    if steps[i].kind == StepKind.THOUGHT
                    and i not in rejected
                    and not is_chatter(steps[i].content)
                ),
                None,
            )
            if last is None and self.last_action is None:
                steps[reply] = replace(steps[reply], kind=StepKind.CONCLUSION)
                return tuple(steps), None
        if last is not None and last not in rejected:
            text = steps[last].content
            steps[last] = replace(steps[last], kind=StepKind.CONCLUSION)
        elif self.last_action is not None:
            text = f"Last action: {steps[self.last_action].content}"
            steps.append(StepDraft(kind=StepKind.CONCLUSION, content=text))
        elif self.last_prose is not None:
            text = f"Last answer (rejected by the user): {steps[self.last_prose].content}"
            steps.append(
                StepDraft(kind=StepKind.CONCLUSION, content=truncate(text, MAX_STEP_CHARS))
            )
        else:
            return tuple(steps), None
        if self.unresolved_refusal is not None or self.undone is not None:
            return tuple(steps), None
        produced = ProducedDraft(
            kind=Kind.DECISION, content=truncate(text, MAX_STEP_CHARS), status="active"
        )
        return tuple(steps), produced

    def unit(self, fmt: str, label: str, index: int, extra: dict[str, Any]) -> IngestUnit:
        """Return the trace as an ingest unit keyed ``request-<index>`` (1-based).

        A request the agent never answered has no trace: its unit holds the request as an
        observation and ``extra["warnings"]`` says ``session.unanswered_request``. A request
        answered only with chatter has a trace that produces nothing, and the warning
        ``session.chatter_reply``; one whose last working call was refused likewise, with
        ``session.refused_call``; one whose work was undone, with ``session.undone``.
        """
        steps, produced = self.finish()
        first_line = self.request.strip().splitlines()[0] if self.request.strip() else ""
        warnings = list(extra.pop("warnings", []))
        trace = None
        if self.has_agent_work:
            trace = TraceDraft(
                task=truncate(self.request.strip(), MAX_TASK_CHARS), steps=steps, produced=produced
            )
            refused, undone = self.unresolved_refusal, self.undone
            if produced is None and refused is not None:
                warnings.append(
                    f"session.refused_call: {refused} was refused and no call worked after it; "
                    "the agent's last words are no decision"
                )
            elif produced is None and undone is not None:
                warnings.append(f"session.undone: {undone}; the trace decides nothing")
            elif produced is None:
                warnings.append("session.chatter_reply")
        else:
            warnings.append("session.unanswered_request")
        return IngestUnit(
            key=f"request-{index}",
            title=f"{label}: {first_line[:100]}",
            observations=tuple(self.observations),
            trace=trace,
            valid_from=self.started,
            extra={
                "format": fmt,
                "trimmed": self.trimmed,
                "dropped_steps": self.dropped_steps,
                "corrections": self.corrections,
                "subagent_calls": self.subagent_calls,
                "warnings": warnings,
                **extra,
            },
        )


class Session:
    """The traces of one session: a user request opens a trace, follow-ups join it."""

    def __init__(self) -> None:
        """Start a session with no trace."""
        self.traces: list[SessionTrace] = []
        self.skipped: list[str] = []

    @property
    def current(self) -> SessionTrace | None:
        """The trace being built, if any."""
        return self.traces[-1] if self.traces else None

    def user(self, text: str, started: datetime | None = None) -> None:
        """Take a user message: a new request, or a follow-up of the current trace.

        After a tool call the user refused, the next message is always a correction of the
        same trace; otherwise `follow_up_kind` decides. A message before any agent work on the
        current request joins it as an amendment, except after a bare slash command the agent
        never worked on (``/clear``): that command is dropped and listed in `skipped`.
        """
        text = text.strip()
        if not text:
            return
        current = self.current
        if current is not None:
            if current.pending_rejection:
                current.follow_up(text, "amends")
                return
            if not current.has_agent_work and _BARE_COMMAND.match(current.request):
                self.skipped.append(current.request)
                self.traces.pop()
            elif not current.has_agent_work:
                current.follow_up(text, "amends")
                return
            kind = follow_up_kind(text)
            if kind != "request":
                current.follow_up(text, kind)
                return
        self.traces.append(SessionTrace(request=text, started=started))

    def units(self, fmt: str, label: str, extra: dict[str, Any] | None = None) -> list[IngestUnit]:
        """Return one unit per trace, in order (``request-1``, ``request-2``, ...)."""
        return [t.unit(fmt, label, i + 1, dict(extra or {})) for i, t in enumerate(self.traces)]


def describe_call(name: str, args: Any) -> str:
    """Return a tool call as ``Name: <what it targets>`` -- command, file, pattern, URL or query.

    The payload (file contents written, patch text, long prompts) is never included: for a
    mapping of arguments the first of ``command``/``cmd``, ``file_path``/``path``/
    ``notebook_path``, ``pattern``, ``url``, ``query``, ``description`` is used (with ``path``
    added to a pattern), else the short scalar arguments.

    Args:
        name: the tool's name.
        args: its arguments (a mapping, a string or anything JSON).

    Returns:
        The description (unbounded; callers trim it).
    """
    if isinstance(args, str):
        return f"{name}: {args.strip().splitlines()[0] if args.strip() else ''}".rstrip(": ")
    if not isinstance(args, dict):
        return name
    for key in ("command", "cmd", "file_path", "notebook_path", "path", "pattern", "url", "query"):
        value = args.get(key)
        if isinstance(value, list):
            value = " ".join(str(v) for v in value)
        if isinstance(value, str) and value.strip():
            where = args.get("path") if key == "pattern" else None
            suffix = f" (in {where})" if isinstance(where, str) and where else ""
            return f"{name}: {value.strip()}{suffix}"
    if isinstance(args.get("description"), str):
        return f"{name}: {args['description'].strip()}"
    short = {
        k: v
        for k, v in args.items()
        if isinstance(v, (int, float, bool)) or (isinstance(v, str) and 0 < len(v) <= 80)
    }
    return f"{name}: " + ", ".join(f"{k}={v}" for k, v in short.items()) if short else name
