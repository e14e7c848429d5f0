"""A seeded agent workload: sessions of chat turns sharing long system prompts.

Every time here is in engine seconds (the simulated hardware's clock); the
driver multiplies by the engines' time scale. The same seed and sizes always
give the same sessions, so every policy sees the same requests.

- A few agents, each with its own long system prompt and tool list; every
  session belongs to one agent, so its prompt starts with that agent's prefix
  (the simulator renders the tools, then the messages).
- Interactive sessions: a user question, then tool-loop turns that resend the
  whole conversation plus the assistant's last reply (as a tool call) and the
  tool's result. Streamed, short answers.
- Batch sessions: a long document to summarise, then one or two follow-ups on
  the same conversation. Not streamed, longer answers.
- Sessions arrive as a Poisson process; within a session the next turn starts
  after the previous answer plus a think (or tool) time drawn here.
"""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import dataclass, field
from typing import Any, Literal

Kind = Literal["interactive", "batch"]
TOOLS = ("search_logs", "read_metrics", "query_db", "fetch_ticket", "run_check")


@dataclass(frozen=True)
class Shape:
    """Sizes and rates of a workload."""

    requests: int = 1_100  # sessions are added until the turns reach this many
    agents: int = 3
    system_tokens: int = 1_500
    sessions_per_s: float = 0.7  # Poisson arrival rate, engine seconds
    batch_share: float = 0.15
    interactive_turns: tuple[int, int] = (3, 10)
    batch_turns: tuple[int, int] = (1, 3)
    question_tokens: tuple[int, int] = (30, 120)
    tool_result_tokens: tuple[int, int] = (200, 700)
    document_tokens: tuple[int, int] = (2_500, 5_500)
    followup_tokens: tuple[int, int] = (15, 40)
    interactive_max_tokens: int = 32
    batch_max_tokens: int = 160
    think_s: tuple[float, float] = (0.2, 1.5)


@dataclass(frozen=True)
class Agent:
    name: str
    system: str
    tools: list[dict[str, Any]]


@dataclass(frozen=True)
class Turn:
    """What is appended before one request: a tool result (after the last reply) or a user message."""

    think_s: float
    text: str
    tool: str | None  # None: a user message
    max_tokens: int


@dataclass(frozen=True)
class Session:
    id: str
    kind: str  # "interactive" or "batch" here; other workloads name their own kinds
    agent: Agent
    arrival_s: float
    first: str  # the opening user message
    turns: list[Turn] = field(default_factory=list)  # turns[0] has no think time and an empty text
    request_class: str | None = None  # its x-taskgate-class; None: its kind
    streamed: bool | None = None  # None: interactive sessions stream, the others do not

    @property
    def stream(self) -> bool:
        return self.kind == "interactive" if self.streamed is None else self.streamed

    @property
    def cls(self) -> str:
        """The request class its turns carry."""
        return self.request_class or self.kind


def words(rng: random.Random, tokens: int) -> str:
    """Text of exactly `tokens` simulator tokens: pseudo-words with a full stop every so often."""
    out: list[str] = []
    while len(out) < tokens:
        out.append(_VOCAB[rng.randrange(len(_VOCAB))])
        if len(out) < tokens and rng.random() < 0.08:
            out.append(".")
    return " ".join(out)


def _vocabulary() -> list[str]:
    onsets = ("b", "d", "f", "g", "k", "l", "m", "n", "p", "r", "s", "t", "v", "z", "ch", "st")
    vowels = ("a", "e", "i", "o", "u")
    return [a + b + c + d for a, b, c, d in itertools.product(onsets, vowels, ("n", "r", "l", "s"), ("", "o", "a"))]


_VOCAB = _vocabulary()


def agents(rng: random.Random, shape: Shape) -> list[Agent]:
    out = []
    for index in range(shape.agents):
        tools = [
            {
                "type": "function",
                "function": {
                    "name": tool,
                    "description": words(rng, 12),
                    "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
                },
            }
            for tool in TOOLS
        ]
        system = f"You are agent {index}. " + words(rng, shape.system_tokens - 5)
        out.append(Agent(f"agent-{index}", system, tools))
    return out


def generate(seed: int, shape: Shape) -> list[Session]:
    """Sessions in arrival order; their turns add up to at least `shape.requests`."""
    rng = random.Random(seed)
    team = agents(rng, shape)
    sessions: list[Session] = []
    clock, total = 0.0, 0
    while total < shape.requests:
        clock += rng.expovariate(shape.sessions_per_s)
        kind: Kind = "batch" if rng.random() < shape.batch_share else "interactive"
        session = _session(rng, shape, f"s{len(sessions):04d}", kind, team[rng.randrange(len(team))], clock)
        sessions.append(session)
        total += len(session.turns)
    return sessions


def _session(rng: random.Random, shape: Shape, sid: str, kind: Kind, agent: Agent, arrival: float) -> Session:
    if kind == "interactive":
        first = words(rng, rng.randint(*shape.question_tokens)) + " ?"
        count, limit = rng.randint(*shape.interactive_turns), shape.interactive_max_tokens
        turns = [Turn(0.0, "", None, limit)]
        for _ in range(count - 1):
            tool = TOOLS[rng.randrange(len(TOOLS))]
            turns.append(
                Turn(rng.uniform(*shape.think_s), words(rng, rng.randint(*shape.tool_result_tokens)), tool, limit)
            )
    else:
        document = words(rng, rng.randint(*shape.document_tokens))
        first = "Summarise the following report for the weekly digest .\n" + document
        count, limit = rng.randint(*shape.batch_turns), shape.batch_max_tokens
        turns = [Turn(0.0, "", None, limit)]
        for _ in range(count - 1):
            ask = "Now " + words(rng, rng.randint(*shape.followup_tokens)) + " ."
            turns.append(Turn(rng.uniform(*shape.think_s), ask, None, limit))
    return Session(sid, kind, agent, arrival, first, turns)


def opening(session: Session) -> list[dict[str, Any]]:
    """The messages of a session's first request."""
    return [{"role": "system", "content": session.agent.system}, {"role": "user", "content": session.first}]


def follow(messages: list[dict[str, Any]], reply: str, turn: Turn, call_id: str) -> None:
    """Append the last reply and this turn's text to a conversation, in place."""
    if turn.tool is None:
        messages.append({"role": "assistant", "content": reply})
        messages.append({"role": "user", "content": turn.text})
        return
    call = {
        "id": call_id,
        "type": "function",
        "function": {"name": turn.tool, "arguments": json.dumps({"query": reply[:40]})},
    }
    messages.append({"role": "assistant", "content": reply, "tool_calls": [call]})
    messages.append({"role": "tool", "tool_call_id": call_id, "content": turn.text})


def body(session: Session, messages: list[dict[str, Any]], turn: Turn, model: str) -> dict[str, Any]:
    """The chat-completions request body of one turn."""
    out: dict[str, Any] = {"model": model, "messages": messages, "tools": session.agent.tools}
    out["max_tokens"] = turn.max_tokens
    if session.stream:
        out["stream"] = True
        out["stream_options"] = {"include_usage": True}
    return out


def describe(sessions: list[Session]) -> dict[str, Any]:
    """Counts for the report."""
    interactive = [s for s in sessions if s.kind == "interactive"]
    return {
        "sessions": len(sessions),
        "interactive_sessions": len(interactive),
        "batch_sessions": len(sessions) - len(interactive),
        "requests": sum(len(s.turns) for s in sessions),
        "interactive_requests": sum(len(s.turns) for s in interactive),
        "arrival_span_s": sessions[-1].arrival_s if sessions else 0.0,
    }
