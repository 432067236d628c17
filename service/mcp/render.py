"""Short text renderings of the REST answers, written for an LLM to read (numbered, one line each).

A step is numbered by its 0-based `index` everywhere (`rejects`, `rejected_by`, a revisit's or a
quality issue's `step`, a trace's stored text), so the numbers a text shows are the ones to pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from service.errors import echo_ids
from service.mcp.backend import BackendError, Json

#: Unicode's bidirectional formatting characters (marks, embeddings, overrides, isolates).
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
#: C0 and C1 control characters but line feed and tab, and DEL: ESC opens a terminal's escape
#: sequences (colours, cursor moves, window titles), carriage return and backspace overwrite.
TERMINAL_CONTROLS = frozenset(
    chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)] if chr(c) not in "\n\t"
)
_SHOWN = {ord(c): f"\\u{ord(c):04x}" for c in BIDI_CONTROLS | TERMINAL_CONTROLS}


def shown(text: str) -> str:
    r"""Return a tool's text with each control character written as its escape (``\u202e``).

    Stored texts keep them (structured content is the REST answer, unchanged); in the text a
    model reads, a bidirectional override would reorder what follows it (CVE-2021-42574,
    "Trojan Source"), and in a host that prints it to a terminal an escape sequence would
    recolour or rewrite the screen (trial 13: `\x1b[31m` went through raw): `BIDI_CONTROLS`
    and `TERMINAL_CONTROLS`.
    """
    return text.replace("\r\n", "\n").translate(_SHOWN)


#: A trace in a recall or search answer shows at most this many steps (its first
#: `BRIEF_HEAD` and its last ones, where it concludes), each cut to `BRIEF_STEP_CHARS`
#: characters: trial 17's recall of 10 items was 45,800 characters, whole coding-session
#: traces (one of 135 steps) inlined. `get_memory` shows a trace whole.
BRIEF_STEPS = 12
BRIEF_HEAD = 3
BRIEF_STEP_CHARS = 600


#: Memory texts a rendering already showed: (memory_id, content) -> the version whose line
#: wrote it out.
Texts = Mapping[tuple[str, str], int]


def _cut(text: str, limit: int | None) -> str:
    if limit is None or len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"


def hang(text: str, indent: str) -> str:
    """Indent a text's later lines, so a multi-line memory or step reads as one item."""
    return text.replace("\n", "\n" + indent)


#: Most ids listed of the near-duplicates folded into a recall or search item.
SHOWN_DUPLICATES = 5


def _grouped(item: Json) -> list[str]:
    """Notes on what a recall or search item stands for besides itself (REST fields).

    Its near-duplicates (`duplicates`: trial 18, two sessions' copies of one trace folded into
    one item without a word) and the trace that produced it (`reasoning`).
    """
    notes = []
    duplicates = item.get("duplicates") or {}
    if duplicates.get("count"):
        ids = [str(i) for i in duplicates.get("memory_ids") or []]
        listed = ", ".join(ids[:SHOWN_DUPLICATES]) + (" ..." if len(ids) > SHOWN_DUPLICATES else "")
        notes.append(f"{duplicates['count']} near-duplicate(s) folded in: {listed}")
    reasoning = item.get("reasoning") or {}
    if reasoning.get("trace_id"):
        task = _cut(" ".join(str(reasoning.get("task") or "").split()), 120)
        notes.append(f"produced by trace {reasoning['trace_id']} (task: {task})")
    return notes


def when(value: Any) -> str:
    """Return a time as REST sent it, or "now" for an open end (None)."""
    return str(value) if value else "now"


def _provenance(m: Json) -> list[str]:
    """Who created a memory and, when another door wrote this version, who changed it.

    Trial 19: a version maintenance wrote read "by user" (the creator's origin only).
    """
    created = m.get("created_by") or {}
    changed = m.get("last_modified_by") or {}
    notes = [f"by {created['origin']}"] if created.get("origin") else []
    if changed.get("origin") and (changed.get("origin"), changed.get("actor")) != (
        created.get("origin"),
        created.get("actor"),
    ):
        actor = f" ({changed['actor']})" if changed.get("actor") else ""
        notes.append(f"this version by {changed['origin']}{actor}")
    return notes


def memory_line(m: Json, *, same_as: int | None = None, limit: int | None = None) -> str:
    """Render one memory version on one line: kind, content, then id, version and its times.

    Args:
        m: a memory in the REST shape (`memory_id`, `version`, `kind`, `content`, times...).
        same_as: writes "same text as v<same_as>" for the content: a version of the memory
            whose text a line above showed, with that version (trial 24: a decision's 4
            versions and 3 traces wrote its text 10 times, 8.5k characters).
        limit: most characters of the content shown (None: all).

    Returns:
        e.g. `[decision] Use a lock (id 3f..., v2, challenged, valid 2024-... to now, by user)`.
    """
    facts = [f"id {m.get('memory_id')}", f"v{m.get('version')}"]
    if m.get("status"):
        facts.append(str(m["status"]))
    if m.get("subject") or m.get("attribute"):
        facts.append(f"key {m.get('subject')}.{m.get('attribute')}")
    if m.get("confidence") is not None:
        facts.append(f"confidence {m['confidence']:g}")
    facts.append(f"valid {when(m.get('valid_from'))} to {when(m.get('valid_to'))}")
    if m.get("system_to"):
        facts.append(f"no longer believed since {m['system_to']}")
    if m.get("change_reason"):
        facts.append(f"written for: {m['change_reason']}")
    if m.get("retracted_reason"):
        facts.append(f"retracted: {m['retracted_reason']}")
    facts.extend(_provenance(m))
    text = _cut(str(m.get("content")), limit) if same_as is None else f"same text as v{same_as}"
    return f"[{m.get('kind')}] {text} ({', '.join(facts)})"


def _cite(c: Json) -> str:
    state = "still valid" if c.get("still_valid") else f"{c.get('change') or 'changed'}"
    if c.get("changed_at") and not c.get("still_valid"):
        state += f" at {c['changed_at']}"
    return f"{c.get('memory_id')} v{c.get('version')} ({state})"


def step_lines(
    steps: list[Json], indent: str = "", *, brief: bool = False, trace_id: str | None = None
) -> list[str]:
    """Render a trace's steps as lines numbered by their 0-based index, rejected hypotheses marked.

    Args:
        steps: the trace's `steps` (REST shape; `index`, `rejected_by` and `rejects` are 0-based).
        indent: prefix of every line.
        brief: at most `BRIEF_STEPS` steps (the first `BRIEF_HEAD`, then the last ones, a line
            saying how many are left out between) of at most `BRIEF_STEP_CHARS` characters.
        trace_id: named in the line of steps left out (`get_memory` shows them).

    Returns:
        One line per step, e.g. `1. [thought, hypothesis] Maybe the cache (rejected by step 3)`.
    """
    ordered = sorted(steps, key=lambda s: int(s.get("index", 0)))
    limit = BRIEF_STEP_CHARS if brief else None
    left_out = len(ordered) - BRIEF_STEPS if brief else 0
    lines = []
    for n, s in enumerate(ordered):
        if left_out > 0 and BRIEF_HEAD <= n < BRIEF_HEAD + left_out:
            if n == BRIEF_HEAD:
                lines.append(
                    f"{indent}... {left_out} steps not shown (get_memory {trace_id} shows the "
                    "whole trace)"
                )
            continue
        label = str(s.get("kind"))
        if s.get("status") in ("hypothesis", "rejected"):
            label += ", hypothesis"
        content = hang(_cut(str(s.get("content")), limit), indent + "   ")
        line = f"{indent}{s.get('index', 0)}. [{label}] {content}"
        if s.get("rejected_by") is not None:
            line += f" (rejected by step {s['rejected_by']})"
        elif s.get("status") == "rejected":
            line += " (rejected)"
        if s.get("rejects"):
            line += " (rules out step " + ", ".join(str(i) for i in s["rejects"]) + ")"
        if s.get("cites"):
            line += " - cites " + "; ".join(_cite(c) for c in s["cites"])
        lines.append(line)
    return lines


def trace(t: Json, indent: str = "", *, brief: bool = False, texts: Texts | None = None) -> str:
    """Render a reasoning trace: header, task, numbered steps, conclusion and what it produced.

    With `brief` (a recall or search item) its steps and texts are cut as `step_lines` says;
    `texts` are the memory texts shown above it (`produced_lines`).
    """
    quality = t.get("quality") or {}
    origin = (t.get("created_by") or {}).get("origin")
    trace_id = t.get("trace_id") or t.get("memory_id")
    limit = BRIEF_STEP_CHARS if brief else None
    lines = [
        f"{indent}Reasoning trace {trace_id} (origin {origin}, "
        f"quality {quality.get('verdict')} {quality.get('score')})",
        f"{indent}Task: {hang(_cut(str(t.get('task')), limit), indent + '   ')}",
        *step_lines(list(t.get("steps") or []), indent, brief=brief, trace_id=str(trace_id)),
    ]
    if t.get("conclusion"):
        lines.append(
            f"{indent}Conclusion: {hang(_cut(str(t['conclusion']), limit), indent + '   ')}"
        )
    lines.extend(produced_lines(list(t.get("produced") or []), indent, limit, texts))
    return "\n".join(lines)


def produced_lines(
    produced: list[Json], indent: str = "", limit: int | None = None, texts: Texts | None = None
) -> list[str]:
    """Render what a trace produced: each memory's produced version, then how it stands now.

    REST's `produced` holds the version the trace produced and, when the memory changed since,
    its latest version too (oldest first); the latest is one `Now:` line under the produced
    one, its text written only when it differs (trial 16: a challenged decision was shown
    twice, each whole, as two things produced).

    Args:
        produced: a trace's `produced` (REST shape).
        indent: prefix of every line.
        limit: most characters of each content shown (None: all).
        texts: texts shown above (a lineage's versions): a version with one of them says
            "same text as v<n>" instead.

    Returns:
        e.g. `Produced: [decision] Use a lock (id 3f..., v1, ..., no longer believed since ...)`
        then `  Now: [decision] same text as v1 (id 3f..., v2, challenged, ...)`.
    """
    known = texts or {}
    versions: dict[str, list[Json]] = {}
    for m in produced:
        versions.setdefault(str(m.get("memory_id")), []).append(m)
    lines = []
    for memory_id, found in versions.items():
        first, latest = found[0], found[-1]
        said = known.get((memory_id, str(first.get("content"))))
        shown_first = hang(memory_line(first, same_as=said, limit=limit), indent + "   ")
        lines.append(f"{indent}Produced: {shown_first}")
        if latest is not first:
            if latest.get("content") == first.get("content"):
                said = int(first.get("version") or 0) if said is None else said
            else:
                said = known.get((memory_id, str(latest.get("content"))))
            now = hang(memory_line(latest, same_as=said, limit=limit), indent + "     ")
            lines.append(f"{indent}  Now: {now}")
    return lines


def recorded_trace(answer: Json) -> str:
    """Render the answer to record_reasoning: the trace, said to be a repeat when it was one."""
    text = trace(answer)
    if answer.get("created", True):
        return text
    return "Already recorded (nothing written): the same reasoning is stored as\n" + text


def ranked(answer: Json, what: str) -> str:
    """Render recall or search items, best first; a trace comes with its numbered steps."""
    items = list(answer.get("items") or [])
    if not items:
        return f"No {what} results."
    lines = [f"{len(items)} {what} result(s), best first:"]
    for n, item in enumerate(items, 1):
        notes = [f"score {float(item.get('score', 0.0)):.3f}", f"origin {item.get('origin')}"]
        if item.get("has_reasoning"):
            notes.append("has reasoning")
        if item.get("lineage"):
            notes.append("its reasoning: call lineage with this id")
        if item.get("current") is False:
            notes.append("closed version")
        if item.get("in_force") is False:
            notes.append("its conclusion no longer holds (superseded, invalidated or retracted)")
        notes.extend(_grouped(item))
        why = [f"   {why_line(item['explain'])}"] if item.get("explain") else []
        if item.get("kind") == "reasoning":
            lines.extend([f"{n}. ({'; '.join(notes)})", *why])
            lines.append(trace(item, indent="   ", brief=True))
        else:
            lines.extend([f"{n}. {hang(memory_line(item), '   ')} ({'; '.join(notes)})", *why])
    return "\n".join(lines)


#: What `explain.identified` says: how the item holds the number the query is about.
IDENTIFIED = {2: "holds the number asked about", 1: "holds the number asked about (bare)"}


def _part(name: str, part: Any, raw: str) -> str | None:
    """One list's share of the fused score: its contribution, else (RRF) its raw score."""
    if not isinstance(part, dict):
        return None
    value = part.get("contribution")
    if value is None:
        value, name = part.get(raw), f"{name} {raw}"
    return f"{name} {float(value or 0):.2f}"


def why_line(explain: Json) -> str:
    """Render REST's `explain` of one recall or search item as one compact line.

    Args:
        explain: the item's `explain` (`explain.explanation`'s shape: `lexical`, `vector`,
            `task`, `neighbours`, `identified`, `matched_terms`, `context_terms`).

    Returns:
        e.g. `why: lexical 0.42 (matched: upload, test; via context: rows), vector 0.31,
        task 0.10`: each list's contribution to the fused score (under RRF its raw score,
        `lexical bm25 3.10`), the query words the memory's own text holds and those only its
        indexed context holds.
    """
    terms = [
        f"{label}: {', '.join(str(t) for t in explain.get(key) or [])}"
        for label, key in (("matched", "matched_terms"), ("via context", "context_terms"))
        if explain.get(key)
    ]
    said = f" ({'; '.join(terms)})" if terms else ""
    lexical = _part("lexical", explain.get("lexical"), "bm25")
    parts = [lexical + said if lexical else "no lexical match" + said]
    for name, raw in (("vector", "similarity"), ("task", "similarity")):
        part = _part(name, explain.get(name), raw)
        if part:
            parts.append(part)
    if explain.get("neighbours"):
        parts.append(f"episode neighbours {float(explain['neighbours']):.2f}")
    identified = explain.get("identified")
    if identified is not None:
        parts.append(IDENTIFIED.get(int(identified), "lacks the number asked about"))
    return "why: " + ", ".join(parts)


def record(answer: Json) -> str:
    """Render `get_memory`'s answer: a memory on one line, a trace whole (every step)."""
    if answer.get("kind") == "reasoning" and "steps" in answer:
        return trace(answer)
    return hang(memory_line(answer), "  ")


def memories(answer: Json, title: str) -> str:
    """Render a `{items, count}` list of memories under a title."""
    items = list(answer.get("items") or [])
    if not items:
        return f"{title}: none."
    lines = [f"{n}. {hang(memory_line(m), '   ')}" for n, m in enumerate(items, 1)]
    return "\n".join([f"{title} ({len(items)}):", *lines])


def created(answer: Json) -> str:
    """Render the answer to remember: the memory, and whether it was new."""
    verb = "Created" if answer.get("created", True) else "Already known (nothing written)"
    return f"{verb}: {hang(memory_line(answer), '  ')}"


def updated(answer: Json, version: int) -> str:
    """Render the answer to update_memory: the new version, or that nothing differed.

    Args:
        answer: the memory as REST's `PATCH` answers it.
        version: the version the caller sent (`If-Match`): the answer is that version when
            every field sent already held its value (nothing written).
    """
    verb = "Updated" if answer.get("version") != version else "Nothing changed (same values)"
    return f"{verb}: {hang(memory_line(answer), '  ')}"


def ingest(answer: Json) -> str:
    """Render an ingest report: what was created, per kind, and each trace's quality."""
    chunks = answer.get("chunks") or {}
    made = ", ".join(f"{k} {v}" for k, v in sorted((answer.get("created") or {}).items()))
    lines = [
        f"Ingested {answer.get('source_name')} as {answer.get('format')} "
        f"({'new' if answer.get('new') else 'seen before'}, {answer.get('status')}); "
        f"source {answer.get('source_id')}",
        f"Created: {made or 'nothing new'}",
        f"Units: {chunks.get('ok', 0)} ok, {chunks.get('failed', 0)} failed, "
        f"{chunks.get('refused', 0)} refused",
        f"Memories: {len(answer.get('memory_ids') or [])}; traces: "
        + (", ".join(answer.get("trace_ids") or []) or "none"),
    ]
    for q in answer.get("quality") or []:
        issues = ", ".join(q.get("issues") or []) or "no issues"
        lines.append(f"- {q.get('unit')}: {q.get('verdict')} {q.get('score')} ({issues})")
    return "\n".join(lines)


def error(exc: BackendError) -> str:
    """Render a refusal: code, status and message, then the quality issues or invalid fields."""
    lines = [f"Refused: {exc.code} (HTTP {exc.status})"]
    if isinstance(exc.detail, list):
        for e in exc.detail:
            where = ".".join(str(p) for p in (e.get("loc") or []) if p != "body")
            lines.append(f"- {where or 'input'}: {e.get('msg')}")
    else:
        lines[0] += f": {exc.detail}"
    quality = exc.extra.get("quality")
    if isinstance(quality, dict):
        lines.append(f"Quality: {quality.get('verdict')}, score {quality.get('score')}")
        for issue in quality.get("issues") or []:
            step = issue.get("step")
            at = f" (step {step})" if step is not None else ""
            lines.append(
                f"- [{issue.get('severity')}] {issue.get('code')}{at}: {issue.get('message')}"
            )
    if exc.code == "memory.version_conflict":
        lines.append(
            "Nothing was written: the memory changed since you read it. Read it again "
            "(get_memory), then retry with its current version if your change still applies."
        )
    missing = exc.extra.get("missing")
    if isinstance(missing, list) and missing:
        lines.append(f"Missing: {echo_ids([str(m) for m in missing])}")
    return "\n".join(lines)
