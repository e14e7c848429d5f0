"""The classifier's answer: what kind of task a request is, how urgent and how big."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

INTENT = "intent"
CLASSES = ("interactive", "batch", "background")  # most urgent first, as routing orders them


@dataclass(frozen=True, slots=True)
class Intent:
    """Task type, the request class and permission profile it maps to, size estimates, and who decided.

    `classifier` is "rules" (structure decided: embeddings, tool results,
    long documents), "local" (the bundled model) or "model:<target>" (a model
    call); `fallback` says why a model call's answer was not used.
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
        return out
