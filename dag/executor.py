"""Run a compiled plan: each step starts the moment its inputs exist."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from concurrent.futures import Executor
from typing import Any

from .errors import Halt, StepFailed, describe
from .plan import Plan
from .types import Failure, Inputs, Outcome, Runnable, StepRecord


class Execution:
    """One walk of a plan for one request.

    `records` holds every step's timing and outcome, also when `run` raises,
    so the caller can always write the evidence.
    """

    def __init__(self, plan: Plan, seeds: Mapping[str, Any], pool: Executor | None = None):
        self.plan = plan
        self.values: dict[str, Any] = dict(seeds)
        self.records: list[StepRecord] = []
        self._pool = pool
        self._absent: set[str] = set()
        self._tasks: dict[asyncio.Task[Any], str] = {}
        self._waiting = {name: set(keys) for name, keys in plan.waits.items()}
        self._t0 = time.perf_counter()

    async def run(self) -> dict[str, Any]:
        """Run every step; raise StepFailed or the step's Halt if the run stops."""
        self._t0 = time.perf_counter()
        for name in self.plan.order:
            if not self._waiting[name]:
                self._start(name)
        try:
            while self._tasks:
                done, _ = await asyncio.wait(self._tasks, return_when=asyncio.FIRST_COMPLETED)
                for task in done:
                    self._finish(self._tasks.pop(task), task.result())
        except BaseException:
            await self._cancel_all()
            raise
        return self.values

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self._t0) * 1000.0

    def _start(self, name: str) -> None:
        step = self.plan.steps[name]
        record = StepRecord(name, Outcome.CANCELLED, self.elapsed_ms(), self.elapsed_ms())
        self.records.append(record)
        missing = [key for key in _hard_inputs(step) if key not in self.values]
        if missing:
            record.outcome, record.detail = Outcome.SKIPPED, f"input {missing[0]!r} is absent"
            self._settle(step.spec.provides, present=False)
            return
        inputs = Inputs({k: self.values[k] for k in step.spec.requires + step.spec.optional if k in self.values})
        task = asyncio.create_task(self._call(step, inputs, record), name=f"step:{name}")
        self._tasks[task] = name

    async def _call(self, step: Runnable, inputs: Inputs, record: StepRecord) -> tuple[Any, BaseException | None]:
        spec = step.spec
        record.start_ms = self.elapsed_ms()
        try:
            if spec.when is not None and not spec.when(inputs):
                record.outcome = Outcome.SKIPPED
                return _SKIP, None
            async with asyncio.timeout(spec.timeout):
                value = await self._invoke(step, inputs, record)
            record.outcome = Outcome.OK
            return value, None
        except asyncio.CancelledError:
            record.outcome = Outcome.CANCELLED
            raise
        except Exception as exc:  # every failure is recorded and judged by policy
            record.outcome, record.detail = _judge(spec.failure, exc), describe(exc)
            return _FAIL, exc
        finally:
            record.end_ms = self.elapsed_ms()

    async def _invoke(self, step: Runnable, inputs: Inputs, record: StepRecord) -> Any:
        fan_out = step.spec.fan_out
        if fan_out is None:
            return await self._once(step, inputs)
        items = list(self.values[fan_out])
        record.instances = len(items)
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(self._once(step, Inputs(inputs, item, i))) for i, item in enumerate(items)]
        except* Halt as halts:
            raise halts.exceptions[0] from None
        except* Exception as errors:
            raise errors.exceptions[0] from None
        return [task.result() for task in tasks]

    async def _once(self, step: Runnable, inputs: Inputs) -> Any:
        if not step.spec.cpu_bound:
            return await step.run(inputs)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, step.run_blocking, inputs)

    def _finish(self, name: str, result: tuple[Any, BaseException | None]) -> None:
        value, error = result
        spec = self.plan.steps[name].spec
        if value is _SKIP:
            self._settle(spec.provides, present=False)
        elif value is not _FAIL:
            self._settle(spec.provides, present=True, value=value)
        elif isinstance(error, Halt):
            raise error
        elif spec.failure is Failure.OPEN:
            self._settle(spec.provides, present=True, value=spec.fallback)
        elif spec.failure is Failure.OPTIONAL:
            self._settle(spec.provides, present=False)
        else:
            self._raise_failed(name, error)

    def _raise_failed(self, name: str, error: BaseException | None) -> None:
        outcome = Outcome.TIMEOUT if isinstance(error, TimeoutError) else Outcome.FAILED
        failed = StepFailed(name, outcome, error)
        failed.records = self.records
        raise failed from error

    def _settle(self, key: str | None, present: bool, value: Any = None) -> None:
        if key is None:
            return
        if present:
            self.values[key] = value
        else:
            self._absent.add(key)
        for consumer in self.plan.consumers.get(key, ()):
            waiting = self._waiting[consumer]
            if key in waiting:
                waiting.discard(key)
                if not waiting:
                    self._start(consumer)

    async def _cancel_all(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        now = self.elapsed_ms()
        for record in self.records:
            if record.outcome is Outcome.CANCELLED and record.end_ms == record.start_ms:
                record.end_ms = now  # cancelled before it ever ran


_SKIP = object()
_FAIL = object()


def _hard_inputs(step: Runnable) -> tuple[str, ...]:
    spec = step.spec
    return spec.requires + ((spec.fan_out,) if spec.fan_out else ())


def _judge(policy: Failure, exc: BaseException) -> Outcome:
    if isinstance(exc, Halt):
        return Outcome.HALTED
    if policy is Failure.OPEN:
        return Outcome.FAILED_OPEN
    return Outcome.TIMEOUT if isinstance(exc, TimeoutError) else Outcome.FAILED


async def execute(plan: Plan, seeds: Mapping[str, Any], pool: Executor | None = None) -> dict[str, Any]:
    """Run a plan to completion and return every key's value."""
    return await Execution(plan, seeds, pool).run()
