"""What `taskgate demo` prints: a row per request, the agent tasks' grants and tool calls, the tool loop's trace."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Call:
    """One request the demo made, as the client saw it."""

    label: str
    request_id: str = "-"
    status: int = 0
    seconds: float = 0.0
    ttft: float | None = None
    cached: int | None = None
    notes: list[str] = field(default_factory=list)
    task_token: str | None = None


@dataclass
class LoopCall:
    """The tool-loop request as the client saw it: the streamed answer and taskgate's loop summary."""

    call: Call
    instruction: str = ""
    answer: str = ""
    chunks: int = 0
    header: str = "-"
    summary: dict[str, Any] = field(default_factory=dict)


def _row(call: Call, record: dict[str, Any] | None) -> str:
    record = record or {}
    decisions = record.get("decisions", {})
    placement = decisions.get("placement", {})
    where = f"{placement['endpoint']} ({placement.get('class')})" if placement else f"refused: {call.notes[0]}"
    intent = decisions.get("intent", {}).get("task_type", "-")
    pii = decisions.get("pii") or record.get("error", {}).get("pii") or {}
    found = ",".join(f"{e.split('_')[0].lower()}:{pii['actions'][e]}" for e in pii.get("counts", {})) or "-"
    steps = " ".join(f"{s['step']}:{s['duration_ms']:.2f}ms" for s in record.get("steps", [])) or "-"
    ttft = f"{call.ttft * 1000:7.0f}" if call.ttft is not None else "      -"
    cached = str(call.cached) if call.cached is not None else "-"
    pre = record.get("dispatch", {}).get("started_ms")
    pre_s = f"{pre:6.2f}" if pre is not None else "     -"
    return (
        f"{call.label:<32} {call.status:>3} {where:<24} {intent:<15} {found:<40} {call.seconds * 1000:7.0f} "
        f"{ttft} {pre_s} {cached:>6}  {steps}"
    )


def _findings(pii: dict[str, Any] | None) -> str:
    """What the pii step found and did, and where: entity:action in the request's top-level field."""
    found = (pii or {}).get("findings", [])
    return ", ".join(f"{f['entity'].lower()}:{f['action']} in {f['where'].split('.')[0]}" for f in found) or "none"


def _model_turn(entry: dict[str, Any], emitted: list[str]) -> str:
    placement = entry.get("decisions", {}).get("placement", {})
    where = f"{placement['endpoint']} ({placement.get('class')})" if placement else f"failed: {entry['status']}"
    predicted = placement.get("predicted_cached_tokens", "-")
    cached = entry.get("dispatch", {}).get("engine_cached_tokens", "-")
    then = "tool calls " + ", ".join(emitted) if emitted else "the answer"
    return (
        f"  turn {entry['turn']}  model  {where:<22} prefix tokens: predicted {predicted!s:>3}, engine cached "
        f"{cached!s:>3}  {entry['duration_ms']:5.0f} ms  -> {then}"
    )


def _tool_call(entry: dict[str, Any]) -> str:
    decisions = entry.get("decisions", {})
    if entry["allowed"]:
        granted = decisions.get("grant", {}).get("decisions") or [{}]
        redacted = ", ".join(
            f"{e.split('_')[0].lower()}:redact" for e in decisions.get("pii", {}).get("output", {}).get("counts", {})
        )
        verdict = f"allowed by {entry.get('rule') or granted[0].get('rule', '-')}"
        verdict += f"; its result: {redacted}" if redacted else ""
    else:
        verdict = "denied: " + entry.get("error", {}).get("message", "-")
    return (
        f"          tool   {entry['tool']:<22} {entry['status']:>3}  from +{entry['started_ms']:5.0f} ms  "
        f"{entry['duration_ms']:5.0f} ms  {verdict}"
    )


def _round(summary: dict[str, Any]) -> str:
    count = len(summary["tools"])
    how = f"{count} calls in parallel: wall about the slowest, not the sum" if count > 1 else "one call"
    return f"          round  wall {summary['wall_ms']:5.0f} ms, sum {summary['sum_ms']:5.0f} ms: {how}"


def _loop_turns(trace: list[dict[str, Any]], rounds: dict[int, dict[str, Any]]) -> list[str]:
    """Each model turn with its placement, then the tool calls it emitted and how long their round took."""
    lines = []
    for turn in (e for e in trace if e["kind"] == "model_turn"):
        calls = [e for e in trace if e["kind"] == "tool_call" and e["turn"] == turn["turn"]]
        lines.append(_model_turn(turn, [c["tool"] for c in calls]))
        lines += [_tool_call(c) for c in calls]
        lines += [_round(rounds[turn["turn"]])] if turn["turn"] in rounds else []
    return lines


def _loop_section(loop: LoopCall, record: dict[str, Any] | None) -> list[str]:
    """The tool-loop request: its intent, grant and personal data, each turn's placement, the calls, the answer."""
    trace = (record or {}).get("task", {}).get("trace", [])
    if not trace:
        return ["", f"The tool-loop task: {loop.call.status}, and its evidence record holds no trace."]
    first = trace[0].get("decisions", {})
    intent, grant = first.get("intent", {}), first.get("grant", {})
    ttft = f"{loop.call.ttft * 1000:.0f}" if loop.call.ttft is not None else "-"
    return [
        "",
        f"The tool-loop task ({intent.get('profile', '?')} profile): one request with tool_loop "
        "{servers: [mail, metrics]}; taskgate offers",
        "the granted tools, runs each call the model emits through /mcp (one turn's calls in parallel), "
        "streams the answer.",
        f'  instruction: "{loop.instruction}"',
        f"  intent: {intent.get('task_type')} ({intent.get('request_class')}, {intent.get('classifier')} classifier, "
        f"confidence {intent.get('confidence', 0):.2f}); personal data in the request: {_findings(first.get('pii'))}",
        f"  grant: the model was offered {', '.join(grant.get('tools_checked', {}).get('granted', []))}; "
        f"removed: {', '.join(grant.get('tools_removed', [])) or '-'}",
        *_loop_turns(trace, {r["turn"]: r for r in loop.summary.get("rounds", [])}),
        f"  answer, streamed in {loop.chunks} chunks (first {ttft} ms, all {loop.call.seconds * 1000:.0f} ms after "
        "the request):",
        f"    {loop.answer}",
        f"  x-taskgate-loop: {loop.header}; evidence record {loop.call.request_id} holds the whole trace.",
    ]


def summary(
    calls: list[Call],
    tool_calls: list[tuple[str, int, str]],
    loop: LoopCall,
    records: list[dict[str, Any]],
    evidence_path: Path,
    started: float,
) -> str:
    by_id = {r["request_id"]: r for r in records}
    first = by_id.get(calls[0].request_id, {}).get("decisions", {}).get("grant", {})
    header = (
        f"{'call':<32} {'st':>3} {'placed on':<24} {'intent':<15} {'personal data':<40} "
        f"{'ms':>7} {'ttft':>7} {'pre':>6} {'cached':>6}  steps"
    )
    lines = ["", "taskgate demo: two agent tasks and their side work, through the proxy", "", header, "-" * len(header)]
    lines += [_row(call, by_id.get(call.request_id)) for call in calls]
    ok = sum(1 for c in (*calls, loop.call) if 200 <= c.status < 300)
    lines += [
        "",
        f"{len(calls) + 1} requests, {ok} answered, {len(calls) + 1 - ok} refused with an OpenAI error body, "
        f"{time.perf_counter() - started:.1f}s in all.",
        "ms: client-side latency; ttft: time to first token (streamed); pre: the proxy's own time before dispatch;",
        "cached: prompt tokens the engine served from its prefix cache: the agent's turns stay on one endpoint,",
        "so each turn reuses the last. intent: the local classifier's task type; it sets the request class,",
        "so summaries and extraction go to the cheapest l4 pool and interactive turns to h100. personal data:",
        "what the pii step found and did: names, emails and phones are redacted before the engine sees them,",
        "an IBAN keeps its request in eu-west, a card number is refused by type (never by value).",
        "",
        f"The agent's task ({first.get('profile', '?')} profile): alice's role may use every mail and metrics tool, "
        "the task only what its intent needs.",
        f"  chat: the model was offered {', '.join(first.get('tools_checked', {}).get('granted', []))}; "
        f"removed: {', '.join(first.get('tools_removed', [])) or '-'}",
        *(f"  {label:<18} {status:>3}  {note}" for label, status, note in tool_calls),
        *_loop_section(loop, by_id.get(loop.call.request_id)),
        "",
        f"Evidence, one JSON record per request: {evidence_path}",
    ]
    return "\n".join(lines)


def dashboard(base_url: str, admin_token: str | None) -> str:
    """Where these requests can be seen: the dashboard of the gateway that served them, while it runs."""
    if admin_token is None:
        return "Dashboard: `taskgate demo --stay` keeps this gateway up and prints where to see these requests (/ui)."
    return "\n".join(
        [
            "",
            f"Dashboard: {base_url}/ui  (Ctrl-C stops the demo)",
            "  alice's token has no admin role, so it is refused there; sign in with the operator's:",
            f"  {admin_token}",
        ]
    )
