"""The agent room's config sections: bounds of the tool loop and of `/v1/tasks` workflows."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from taskgate.plugins import Params
from taskgate.plugins.redis import RedisUrl


class ToolLoopConfig(Params):
    """Bounds of the server-side tool loop; a request may ask for less, never more."""

    max_turns: int = Field(default=8, ge=1, le=64)  # model calls per request
    max_tool_calls: int = Field(default=32, ge=0, le=1024)  # tool calls per request
    max_parallel: int = Field(default=4, ge=1, le=64)  # tool calls of one turn running at once
    timeout_s: float = Field(default=120.0, gt=0, le=3600)  # wall time of the whole loop
    max_result_chars: int = Field(default=16_000, ge=256)  # a longer tool result is cut before the model reads it


class WorkflowsConfig(Params):
    """Bounds of /v1/tasks workflows; a workflow may ask for less, never more."""

    max_steps: int = Field(default=64, ge=1, le=1024)
    max_parallel: int = Field(default=8, ge=1, le=64)
    timeout_s: float = Field(default=300.0, gt=0, le=86_400)
    max_running: int = Field(default=64, ge=1)  # tasks running at once (per replica); past it, 429
    max_running_per_caller: int = Field(default=8, ge=1)
    max_output_chars: int = Field(default=16_000, ge=256)  # a longer step output is cut
    max_input_chars: int = Field(default=200_000, ge=1024)  # a step whose resolved inputs are longer fails
    keep: int = Field(default=256, ge=1)  # finished tasks kept for polling (per replica), oldest forgotten first
    keep_s: float = Field(default=3600.0, gt=0)  # and for at most this long after they end
    # redis: runs' state shared, so any replica answers a poll, and a run whose replica stops is taken over
    store: Literal["memory", "redis"] = "memory"
    redis_url: RedisUrl = "redis://127.0.0.1:6379/0"  # or redis+sentinel://HOST:PORT[,...]/SERVICE[/DB]
    key_prefix: str = Field(default="taskgate:workflow:", min_length=1)
    # tool steps (SERVER__TOOL patterns) safe to call again when a run taken over was cut off in one; model
    # steps always are, other tool steps end the run `interrupted` instead
    repeatable_tools: list[str] = Field(default_factory=list)
