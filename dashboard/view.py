"""An evidence record as the dashboard shows it: its timeline, placement and decisions, nothing else.

The page draws what this returns and never reads a record itself, so the
record can grow without the page breaking, and what is sent per record stays
small (no scraped cluster snapshot, no finding offsets). Every part is
optional: a record has what its surface and its end gave it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

Record = Mapping[str, Any]


def view(record: Record) -> dict[str, Any]:
    """The dashboard's view of one record (a request, a task, or one call of a task's trace)."""
    decisions: Mapping[str, Any] = record.get("decisions") or {}
    error: Mapping[str, Any] = record.get("error") or {}
    out: dict[str, Any] = {
        "id": record.get("request_id"),
        "at": record.get("started_at"),
        "path": record.get("path"),
        "surface": record.get("surface"),
        "model": record.get("model"),
        "status": record.get("status"),
        "ms": record.get("duration_ms"),
        "steps": [_step(s) for s in record.get("steps") or ()],
    }
    parts = {
        "who": _who(decisions.get("identity")),
        "intent": _intent(decisions.get("intent")),
        "placement": _placement(decisions.get("placement"), record.get("dispatch")),
        "upstream": _upstream(record.get("dispatch")),
        "grant": _grant(decisions.get("grant")),
        "pii": _pii(decisions.get("pii") or error.get("pii")),
        "error": _error(error),
        "task": _task(record.get("task")),
    }
    return out | {key: value for key, value in parts.items() if value}


def _step(step: Mapping[str, Any]) -> list[Any]:
    return [step.get("step"), step.get("outcome"), step.get("start_ms"), step.get("duration_ms")]


def _who(identity: Mapping[str, Any] | None) -> str | None:
    return f"{identity.get('subject')}@{identity.get('tenant')}" if identity else None


def _intent(intent: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if not intent:
        return None
    keep = {"task_type": "task_type", "class": "request_class", "confidence": "confidence"}
    return {key: intent.get(field) for key, field in keep.items()}


def _placement(placement: Mapping[str, Any] | None, dispatch: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Where it was placed and why: every candidate's scores, what was refused, the cache it expected and got."""
    if not placement:
        return None
    keep = ("pool", "endpoint", "region", "class", "picker", "reason", "fallbacks", "predicted_cached_tokens")
    out = {key: placement[key] for key in keep if key in placement}
    out["candidates"] = placement.get("candidates") or {}
    refused = {**(placement.get("refused_endpoints") or {}), **(placement.get("refused_pools") or {})}
    if refused:
        out["refused"] = refused
    cached = (dispatch or {}).get("engine_cached_tokens")
    if cached is not None:
        out["engine_cached_tokens"] = cached
    return out


def _upstream(dispatch: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What dispatch did: each attempt in order (a fallback after a refusal), or the MCP server a call went to."""
    if not dispatch:
        return None
    keep = ("started_ms", "endpoint", "status", "ttfb_ms", "outcome", "server", "tool", "ms")
    out = {key: dispatch[key] for key in keep if key in dispatch}
    attempts = dispatch.get("attempts")
    if attempts:
        out["attempts"] = [[a.get("endpoint"), a.get("ms"), a.get("status") or a.get("error")] for a in attempts]
    return out


def _grant(grant: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The task's grant: its profile, the tools it may and may not use, and each call judged under it."""
    if not grant:
        return None
    checked = grant.get("tools_checked") or {}
    out = {key: grant[key] for key in ("task", "profile", "new_task") if key in grant}
    out["granted"] = checked.get("granted") or []
    out["denied"] = checked.get("denied") or {}
    if grant.get("decisions"):
        out["decisions"] = [_judged(d) for d in grant["decisions"]]
    return out


def _judged(decision: Mapping[str, Any]) -> dict[str, Any]:
    """One call's decision: its tool (or resource, prompt), outcome, the rule that decided and the rules behind it."""
    name = next((decision[k] for k in ("tool", "resource", "prompt") if k in decision), None)
    out = {"name": name, "outcome": decision.get("outcome"), "reason": decision.get("reason")}
    return out | {key: decision[key] for key in ("rule", "condition", "sources") if decision.get(key)}


def _pii(pii: Mapping[str, Any] | None) -> list[dict[str, Any]] | None:
    """Findings by type: how many, what was done, in the request or in the answer (the counts are whole; the
    findings the record lists may be cut short)."""
    if not pii:
        return None
    actions = pii.get("actions") or {}
    found = [
        {"type": kind, "count": count, "action": actions.get(kind), "where": "request"}
        for kind, count in (pii.get("counts") or {}).items()
    ]
    output = pii.get("output") or {}
    done = {f.get("entity"): f.get("action") for f in output.get("findings") or ()}
    found += [
        {"type": kind, "count": count, "action": done.get(kind, "redact"), "where": "answer"}
        for kind, count in (output.get("counts") or {}).items()
    ]
    return found or None


def _error(error: Mapping[str, Any]) -> dict[str, Any] | None:
    """Why it was refused or failed; a denial names the decision (and its rule) that refused it."""
    if not error:
        return None
    out = {key: error[key] for key in ("code", "message", "step") if key in error}
    if isinstance(error.get("decision"), Mapping):
        out["decision"] = _judged(error["decision"])
    return out


def _task(task: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A task taskgate ran: its summary, and each call of its trace as a view of its own, offset in the task."""
    if not task:
        return None
    keep = ("task", "status", "turns", "tool_calls", "denied", "failed", "stopped")
    out = {key: task[key] for key in keep if key in task}
    if isinstance(task.get("steps"), Mapping):  # a workflow's steps counted by how they ended
        out["outcomes"] = dict(task["steps"])
    out["trace"] = [_entry(entry) for entry in task.get("trace") or ()]
    return out


def _entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    extra = {key: entry[key] for key in ("kind", "turn", "tool", "allowed", "step") if key in entry}
    return {**view(entry), **extra, "start": entry.get("started_ms")}
