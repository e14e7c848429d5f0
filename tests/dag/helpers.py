"""A minimal Runnable for engine tests: a spec and a function."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from taskgate.dag import Inputs, StepSpec


@dataclass
class FnStep:
    spec: StepSpec
    fn: Callable[[Inputs], Awaitable[Any]] | None = None
    blocking: Callable[[Inputs], Any] | None = None

    async def run(self, inputs: Inputs) -> Any:
        assert self.fn is not None
        return await self.fn(inputs)

    def run_blocking(self, inputs: Inputs) -> Any:
        assert self.blocking is not None
        return self.blocking(inputs)


def sleeper(
    name: str, seconds: float, provides: str | None = None, requires: tuple[str, ...] = (), **kw: Any
) -> FnStep:
    """A step that sleeps, then returns its own name."""

    async def fn(inputs: Inputs) -> str:
        await asyncio.sleep(seconds)
        return name

    return FnStep(StepSpec(name, requires=requires, provides=provides, **kw), fn)


def failing(name: str, after: float = 0.0, provides: str | None = None, **kw: Any) -> FnStep:
    async def fn(inputs: Inputs) -> Any:
        await asyncio.sleep(after)
        raise RuntimeError(f"{name} broke")

    return FnStep(StepSpec(name, provides=provides, **kw), fn)


def echo(name: str, requires: tuple[str, ...], provides: str | None = None, **kw: Any) -> FnStep:
    """A step that returns the inputs it saw."""

    async def fn(inputs: Inputs) -> dict[str, Any]:
        return dict(inputs)

    return FnStep(StepSpec(name, requires=requires, provides=provides, **kw), fn)


def with_spec(step: FnStep, **changes: Any) -> FnStep:
    return FnStep(replace(step.spec, **changes), step.fn, step.blocking)


class Stopwatch:
    def __enter__(self) -> Stopwatch:
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.start
