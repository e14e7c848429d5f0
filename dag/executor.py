"""Run a compiled plan: each step starts the moment its inputs exist."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine, Generator, Mapping
from concurrent.futures import Executor
from typing import Any

from .errors import Halt, StepFailed, describe
from .plan import Plan
from .types import Failure, Inputs, Outcome, Runnable, StepRecord, StepSpec

Result = tuple[Any, BaseException | None]
Settled = Callable[[StepRecord], None]


class Execution:
    """One walk of a plan for one request.

    `records` holds a record for every step of the plan (its timing and
    outcome, or that it never started), also when `run` raises, so the
    caller can always write the evidence. `limit` bounds how many steps run
    at once (the others wait their turn, ready); `on_settle` hears each
    step's record as the step ends or is skipped, while the run goes on.
    """

    def __init__(
        self,
        plan: Plan,
        seeds: Mapping[str, Any],
        pool: Executor | None = None,
        limit: int | None = None,
        on_settle: Settled | None = None,
    ):
        missing = plan.seeds - seeds.keys()
        if missing:
            raise ValueError(f"plan {plan.name!r} needs seed values for {', '.join(sorted(missing))}")
        if limit is not None and limit < 1:
            raise ValueError(f"limit must be at least 1, not {limit}")
        self.plan = plan
        self.values: dict[str, Any] = dict(seeds)
        self.records: list[StepRecord] = []
        self._pool = pool
        self._gate = asyncio.Semaphore(limit) if limit is not None else None
        self._on_settle = on_settle
        self._record: dict[str, StepRecord] = {}
        self._started: set[str] = set()
        self._tasks: dict[asyncio.Task[Result], str] = {}
        self._ready: list[tuple[Runnable, Inputs, StepRecord]] = []  # started, not yet running
        self._waiting = {name: set(keys) for name, keys in plan.waits.items()}
        self._t0 = time.perf_counter()

    async def run(self) -> dict[str, Any]:
        """Run every step; raise StepFailed or the step's Halt if the run stops."""
        self._t0 = time.perf_counter()
        try:
            for name in self.plan.roots:
                self._start(name)
            while self._ready or self._tasks:
                if len(self._ready) == 1 and not self._tasks:  # nothing to overlap with: no task, no wait
                    step, inputs, record = self._ready.pop()
                    self._finish(record.name, await self._call(step, inputs, record))
                    continue
                for step, inputs, record in sorted(self._ready, key=_on_the_loop):
                    task = asyncio.create_task(self._call(step, inputs, record), name=f"step:{record.name}")
                    self._tasks[task] = record.name
                self._ready.clear()
                done, _ = await asyncio.wait(self._tasks, return_when=asyncio.FIRST_COMPLETED)
                for task in sorted(done, key=_halts_first):
                    self._finish(self._tasks.pop(task), task.result())
        except (Halt, StepFailed):
            self._keep_finished()
            await self._cancel_all()
            raise
        except BaseException:
            await self._cancel_all()
            raise
        return self.values

    def elapsed_ms(self) -> float:
        return (time.perf_counter() - self._t0) * 1000.0

    def _start(self, name: str) -> None:
        if name in self._started:
            return
        self._started.add(name)
        step, now = self.plan.steps[name], self.elapsed_ms()
        record = self._record[name] = StepRecord(name, Outcome.CANCELLED, now, now)
        self.records.append(record)
        missing = next((key for key in _hard_inputs(step) if key not in self.values), None)
        if missing is not None:
            record.outcome, record.detail = Outcome.SKIPPED, f"input {missing!r} is absent"
            self._heard(record)
            self._settle(step.spec, present=False)
            return
        inputs = Inputs({k: self.values[k] for k in step.spec.requires + step.spec.optional if k in self.values})
        self._ready.append((step, inputs, record))  # run() starts it: inline when it is alone, else as a task

    def _call(self, step: Runnable, inputs: Inputs, record: StepRecord) -> Coroutine[Any, Any, Result]:
        gate = self._gate
        return self._timed(step, inputs, record) if gate is None else self._gated(gate, step, inputs, record)

    async def _gated(self, gate: asyncio.Semaphore, step: Runnable, inputs: Inputs, record: StepRecord) -> Result:
        async with gate:
            return await self._timed(step, inputs, record)

    async def _timed(self, step: Runnable, inputs: Inputs, record: StepRecord) -> Result:
        spec = step.spec
        record.start_ms = self.elapsed_ms()
        try:
            if spec.when is not None and not spec.when(inputs):
                record.outcome = Outcome.SKIPPED
                return _SKIP, None
            # the step's own coroutine when it runs once on the loop (the common case): no layer in between
            alone = spec.fan_out is None and not spec.cpu_bound
            work = step.run(inputs) if alone else self._invoke(step, inputs, record)
            value = await work if spec.timeout is None else await _within(work, spec.timeout)
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
        items = self.values[fan_out]
        if not isinstance(items, list | tuple):
            raise TypeError(f"fan-out key {fan_out!r} must hold a list, not {type(items).__name__}")
        record.instances = len(items)
        try:
            async with asyncio.TaskGroup() as group:
                tasks = [group.create_task(self._once(step, Inputs(inputs, item, i))) for i, item in enumerate(items)]
        except BaseExceptionGroup as errors:
            raise _decisive(errors) from None
        return [task.result() for task in tasks]

    async def _once(self, step: Runnable, inputs: Inputs) -> Any:
        if not step.spec.cpu_bound:
            return await step.run(inputs)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, step.run_blocking, inputs)

    def _finish(self, name: str, result: Result) -> None:
        value, error = result
        spec = self.plan.steps[name].spec
        self._heard(self._record[name])
        if value is _SKIP:
            self._settle(spec, present=False)
        elif value is not _FAIL:
            self._settle(spec, present=True, value=value)
        elif isinstance(error, Halt):
            raise error
        elif spec.failure is Failure.OPEN:
            self._settle(spec, present=True, value=spec.fallback)
        elif spec.failure is Failure.OPTIONAL:
            self._settle(spec, present=False)
        else:
            self._raise_failed(name, error)

    def _heard(self, record: StepRecord) -> None:
        if self._on_settle is not None:
            self._on_settle(record)

    def _keep_finished(self) -> None:
        """Values of steps that finished in the batch a stop came in: the caller may need to release them."""
        for task, name in list(self._tasks.items()):
            if task.done() and not task.cancelled():
                value, error = task.result()
                key = self.plan.steps[name].spec.provides
                if error is None and value is not _SKIP and key is not None:
                    self.values[key] = value  # derived keys are not needed to release anything
                del self._tasks[task]

    def _raise_failed(self, name: str, error: BaseException | None) -> None:
        outcome = Outcome.TIMEOUT if isinstance(error, TimeoutError) else Outcome.FAILED
        failed = StepFailed(name, outcome, error)
        failed.records = self.records
        raise failed from error

    def _settle(self, spec: StepSpec, present: bool, value: Any = None) -> None:
        """Record a step's keys (or their absence) and start whoever waited only for them."""
        if spec.provides is not None:
            self._announce(spec.provides, present, value)
        for key, derive in spec.derives.items():
            try:
                derived = derive(value) if present and value is not None else None
            except Exception as exc:  # a broken projection must not pass for an absent constraint
                self._raise_failed(spec.name, exc)
            self._announce(key, derived is not None, derived)

    def _announce(self, key: str, present: bool, value: Any) -> None:
        if present:
            self.values[key] = value
        for consumer in self.plan.consumers.get(key, ()):
            waiting = self._waiting[consumer]
            if key in waiting:
                waiting.discard(key)
                if not waiting:
                    self._start(consumer)

    async def _cancel_all(self) -> None:
        self._ready.clear()  # started by a step that settled in the stopping batch; their records say cancelled
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks.clear()
        now = self.elapsed_ms()
        for record in self.records:
            if record.outcome is Outcome.CANCELLED and record.end_ms == record.start_ms:
                record.end_ms = now  # created, then cancelled before its coroutine ran
        for name in self.plan.order:
            if name not in self._started:
                self.records.append(StepRecord(name, Outcome.CANCELLED, now, now, detail="never started"))


_SKIP = object()
_FAIL = object()


def _on_the_loop(ready: tuple[Runnable, Inputs, StepRecord]) -> bool:
    """Sort key: steps whose work runs elsewhere first (False sorts before True)."""
    spec = ready[0].spec
    return not (spec.cpu_bound or spec.offloads)


def _halts_first(task: asyncio.Task[Result]) -> int:
    """Within one batch, a deliberate stop outranks a failure: a deny must never read as an error."""
    return 0 if isinstance(task.result()[1], Halt) else 1


def _decisive(errors: BaseExceptionGroup[BaseException]) -> BaseException:
    """The exception a fan-out stands for: its first Halt if any, else its first failure."""
    halts = errors.subgroup(Halt)
    chosen: BaseException = halts if halts is not None else errors
    while isinstance(chosen, BaseExceptionGroup):
        chosen = chosen.exceptions[0]
    return chosen


async def _within(work: Coroutine[Any, Any, Any], limit_s: float) -> Any:
    """`work` bounded by `limit_s`; a step that finishes before it first waits costs no timer.

    The step runs eagerly up to its first wait (as `asyncio.eager_task_factory`
    runs a task); only a step that does wait goes on under the timeout, resumed
    where it stopped.
    """
    try:
        pending = work.send(None)
    except StopIteration as done:
        return done.value
    async with asyncio.timeout(limit_s):
        return await _Resumed(work, pending)


class _Resumed:
    """Awaits what a started coroutine waits for, then drives it on: `yield from` it, from its first wait on."""

    __slots__ = ("_pending", "_work")

    def __init__(self, work: Coroutine[Any, Any, Any], pending: Any):
        self._work, self._pending = work, pending

    def __await__(self) -> Generator[Any, Any, Any]:
        work, pending = self._work, self._pending
        while True:
            try:
                sent = yield pending
            except GeneratorExit:
                work.close()
                raise
            except BaseException as exc:  # thrown in: a cancellation, the timeout
                try:
                    pending = work.throw(exc)
                except StopIteration as done:
                    return done.value
            else:
                try:
                    pending = work.send(sent)
                except StopIteration as done:
                    return done.value


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
