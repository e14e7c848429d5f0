"""The classifier's answer: what kind of task a request is, how urgent and how big."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

INTENT = "intent"
CLASSES = ("interactive", "batch", "background")  # most urgent first, as routing orders them


@dataclass(frozen=True, slots=True)
class Intent:
    """Task type, the request class and permission profile it maps to, size estimates, and who decided.

    The task type is that of the conversation's instruction (its first user
    message), so every turn of a task gets the same class and profile.
    `classifier` is "rules" (structure decided: embeddings, long documents),
    "local" (the bundled model) or "model:<name>" (a model call); `fallback`
    says why a model call's answer was not used. A turn that returns a
    tool's result is `agent_tool_step`, with the class and profile of
    `instruction_type`, the task it belongs to.
    """

    task_type: str
    request_class: str
    profile: str
    prompt_tokens: int
    output_tokens: int
    confidence: float
    classifier: str
    class_source: str = "task_type"  # or "header": the caller pinned it where policy allows
    fallback: str | None = None
    ms: float = 0.0
    instruction_type: str | None = None  # agent_tool_step: the type of the task the turn belongs to
    profiles: tuple[str, ...] = ()  # a request with several parts: the profile each needs (`profile` first)
    uncertain: bool = False  # below the confidence floor: `profile` is the narrowest one

    def evidence(self) -> Mapping[str, Any]:
        out: dict[str, Any] = {
            "task_type": self.task_type,
            "request_class": self.request_class,
            "class_source": self.class_source,
            "profile": self.profile,
            "prompt_tokens": self.prompt_tokens,
            "output_tokens": self.output_tokens,
            "confidence": round(self.confidence, 3),
            "classifier": self.classifier,
            "ms": round(self.ms, 3),
        }
        if self.fallback is not None:
            out["fallback"] = self.fallback
        if self.instruction_type is not None:
            out["instruction_type"] = self.instruction_type
        if self.profiles:
            out["profiles"] = list(self.profiles)
        if self.uncertain:
            out["profile_uncertain"] = True
        return out


if TYPE_CHECKING:  # the hooks the gateway reads from the step's value (plugins.hooks)
    from taskgate.plugins import HasEvidence

    _: type[HasEvidence] = Intent
