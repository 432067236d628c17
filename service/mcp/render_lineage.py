"""Renderings of why a memory stands as it does: its lineage, history, challenge, outcomes.

Also precedents (past decisions with their reasoning and outcome record). A memory's text is
written once per rendering: a later version with the same text says "same text as v<n>"
(trial 24: a decision's lineage with 4 versions and 3 traces was 8,500 characters).
"""

from __future__ import annotations

from datetime import UTC, datetime

from service.mcp.backend import Json
from service.mcp.render import Texts, hang, memory_line, trace, when


def version_lines(versions: list[Json]) -> tuple[list[str], Texts]:
    """Render a memory's versions, oldest first, each text written only when it changed.

    Args:
        versions: versions of one memory in the REST shape, oldest first.

    Returns:
        One line per version (a version with its predecessor's text says "same text as v<n>",
        n the version whose line wrote it), and the texts written: (memory_id, content) ->
        that version.
    """
    lines: list[str] = []
    texts: dict[tuple[str, str], int] = {}
    before: tuple[str, str] | None = None
    for v in versions:
        key = (str(v.get("memory_id")), str(v.get("content")))
        if key == before:
            lines.append(memory_line(v, same_as=texts[key]))
        else:
            lines.append(memory_line(v))
            texts[key] = int(v.get("version") or 0)
        before = key
    return lines, texts


def history(answer: Json) -> str:
    """Render `history`'s `{items, count}`: every version, a text written only when it changed."""
    lines, _ = version_lines(list(answer.get("items") or []))
    if not lines:
        return "Versions: none."
    numbered = [f"{n}. {hang(line, '   ')}" for n, line in enumerate(lines, 1)]
    return "\n".join([f"Versions ({len(lines)}):", *numbered])


def lineage(answer: Json) -> str:
    """Render a lineage: the memory, its versions, and each trace that produced any of them.

    A version's text is written once: a version whose text is its predecessor's says "same
    text as v<n>", and so does a trace's produced version whose text a version line wrote.
    """
    versions = list(answer.get("versions") or [])
    traces = list(answer.get("traces") or [])
    lines = [f"Lineage of {hang(memory_line(answer.get('memory') or {}), '   ')}"]
    lines.append(f"Versions ({len(versions)}, oldest first):")
    shown, texts = version_lines(versions)
    lines.extend(f"  {hang(line, '    ')}" for line in shown)
    if not traces:
        lines.append("No recorded reasoning produced it.")
    lines.extend(trace(t, texts=texts) for t in traces)
    record = answer.get("outcome_record") or {}
    outcomes = list(answer.get("outcomes") or [])
    if outcomes or (answer.get("memory") or {}).get("kind") == "decision":
        lines.append(f"Outcomes: {record.get('summary') or len(outcomes)}")
        lines.extend(f"- {hang(outcome_line(o), '  ')}" for o in outcomes)
    return "\n".join(lines)


def outcome_line(o: Json) -> str:
    """Render one outcome: result, what was observed, when, and its id."""
    return (
        f"{o.get('result')}: {o.get('content')} (observed {o.get('observed_at')}, "
        f"id {o.get('outcome_id')})"
    )


def outcome(answer: Json) -> str:
    """Render the answer to record_outcome: the outcome and what it did to the decision."""
    verb = "Recorded" if answer.get("created", True) else "Already recorded (nothing written)"
    lines = [f"{verb} outcome {outcome_line(answer)}"]
    if answer.get("challenged"):
        lines.append("It made the decision challenged: revisit its reasoning (see challenge).")
    lines.append(f"Decision now: {hang(memory_line(answer.get('decision') or {}), '   ')}")
    return "\n".join(lines)


def challenge(answer: Json) -> str:
    """Render a challenge: the lineage, then the steps whose cited evidence has changed."""
    revisit = list(answer.get("revisit") or [])
    lines = [lineage(answer)]
    memory = answer.get("memory") or {}
    if memory.get("kind") not in (None, "decision"):
        lines.append(
            f"Only a decision has a status to challenge: this {memory.get('kind')} was not changed."
        )
    ended = memory.get("valid_to")
    if memory.get("kind") == "decision" and ended and _past(str(ended)):
        lines.append(f"This decision no longer holds (valid to {ended}): not marked challenged.")
    if not revisit:
        lines.append("Nothing to revisit: all cited evidence still holds.")
    else:
        lines.append(f"Steps to revisit ({len(revisit)}):")
        lines.extend(
            f"- trace {r.get('trace_id')} step {r.get('step')}: cited "
            f"{r.get('memory_id')} v{r.get('version')} was {r.get('change')} at "
            f"{when(r.get('changed_at'))}"
            for r in revisit
        )
    since = list(answer.get("outcomes_since") or [])
    if since:
        lines.append(f"Outcomes since the reasoning ({len(since)}):")
        lines.extend(f"- {hang(outcome_line(o), '  ')}" for o in since)
    return "\n".join(lines)


def _past(iso: str) -> bool:
    """Whether an ISO-8601 time with an offset (REST's form) is before now."""
    try:
        return datetime.fromisoformat(iso) <= datetime.now(UTC)
    except ValueError:
        return False


def precedents(answer: Json) -> str:
    """Render precedents, best first: the decision, its outcome record, reasoning in brief."""
    items = list(answer.get("items") or [])
    if not items:
        return "No precedents."
    lines = [f"{len(items)} precedent(s), best first:"]
    for n, p in enumerate(items, 1):
        record = p.get("outcome_record") or {}
        lines.append(
            f"{n}. {hang(memory_line(p.get('decision') or {}), '   ')} "
            f"(score {float(p.get('score', 0)):.3f}; "
            f"outcomes: {record.get('summary') or 'none recorded'})"
        )
        for r in p.get("reasoning") or []:
            said = f"Reasoning {r.get('trace_id')}: {r.get('task')} -> {r.get('conclusion')}"
            lines.append(f"   {hang(said, '     ')}")
            for h in r.get("hypotheses") or []:
                mark = (
                    f" (rejected by step {h['rejected_by']}: {h.get('rejected_because')})"
                    if h.get("rejected_by") is not None
                    else f" ({h.get('status')})"
                )
                said = f"hypothesis, step {h.get('step')}: {h.get('content')}{mark}"
                lines.append(f"   - {hang(said, '     ')}")
        terms = sorted({t for m in p.get("matched") or [] for t in m.get("shared_terms") or []})
        if terms:
            lines.append(f"   Matched on: {', '.join(terms)}")
    return "\n".join(lines)
