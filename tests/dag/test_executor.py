"""The executor: as-soon-as-ready starts, concurrency, failure policies, timeouts."""

from __future__ import annotations

import asyncio
import itertools
import threading
import time

import pytest

from taskgate.dag import Execution, Failure, Halt, Inputs, Outcome, StepFailed, StepSpec, compile_plan, execute

from .helpers import FnStep, Stopwatch, echo, failing, sleeper


def records(run: Execution) -> dict[str, object]:
    return {r.name: r for r in run.records}


async def test_two_independent_200ms_steps_finish_together_in_about_200ms() -> None:
    plan = compile_plan("p", [sleeper("a", 0.2, "ka"), sleeper("b", 0.2, "kb")])
    with Stopwatch() as watch:
        values = await execute(plan, {})
    assert values == {"ka": "a", "kb": "b"}
    assert 0.19 <= watch.seconds < 0.32, watch.seconds


async def test_a_step_starts_when_its_own_inputs_exist_while_an_unrelated_slow_step_runs() -> None:
    # a (50 ms) feeds b; slow (500 ms) is unrelated. A generation-by-generation
    # scheduler would hold b until slow ends; b must start at about 50 ms.
    steps = [sleeper("a", 0.05, "ka"), sleeper("slow", 0.5, "ks"), echo("b", ("ka",), "kb")]
    run = Execution(compile_plan("p", steps), {})
    await run.run()
    by_name = {r.name: r for r in run.records}
    assert by_name["b"].start_ms < 150, by_name["b"].start_ms
    assert by_name["b"].end_ms < by_name["slow"].end_ms


async def test_fail_closed_failure_cancels_in_flight_steps_and_raises_a_clean_error() -> None:
    steps = [failing("broken", after=0.05, provides="kx"), sleeper("slow", 5.0, "ks"), echo("after", ("kx",), "ka")]
    run = Execution(compile_plan("p", steps), {})
    with Stopwatch() as watch, pytest.raises(StepFailed) as info:
        await run.run()
    assert watch.seconds < 0.5
    assert info.value.step == "broken"
    assert str(info.value) == "step 'broken' failed: RuntimeError: broken broke"
    by_name = {r.name: r for r in run.records}
    assert by_name["broken"].outcome is Outcome.FAILED
    assert by_name["slow"].outcome is Outcome.CANCELLED
    assert by_name["after"].outcome is Outcome.CANCELLED
    assert by_name["after"].detail == "never started"


async def test_timeout_is_enforced_and_reported_as_timeout() -> None:
    run = Execution(compile_plan("p", [sleeper("sleepy", 5.0, "k", timeout=0.1)]), {})
    with Stopwatch() as watch, pytest.raises(StepFailed) as info:
        await run.run()
    assert watch.seconds < 0.5
    assert info.value.outcome is Outcome.TIMEOUT
    assert str(info.value) == "step 'sleepy' timed out"
    assert run.records[0].outcome is Outcome.TIMEOUT


async def test_a_bounded_step_that_waits_after_a_first_wait_is_still_bounded_and_its_value_arrives() -> None:
    waits: list[str] = []

    async def twice(inputs: Inputs) -> str:
        await asyncio.sleep(0)  # a first wait: from here on the step runs under its bound
        waits.append("first")
        await asyncio.sleep(0.01)
        waits.append("second")
        return "done"

    async def stuck(inputs: Inputs) -> str:
        await asyncio.sleep(0)
        await asyncio.Event().wait()  # never set: only the bound ends it
        return "never"

    plan = compile_plan("p", [FnStep(StepSpec("twice", provides="k", timeout=1.0), twice)])
    assert await execute(plan, {}) == {"k": "done"}
    assert waits == ["first", "second"]
    run = Execution(compile_plan("p", [FnStep(StepSpec("stuck", provides="k", timeout=0.05), stuck)]), {})
    with Stopwatch() as watch, pytest.raises(StepFailed) as info:
        await run.run()
    assert watch.seconds < 0.5
    assert info.value.outcome is Outcome.TIMEOUT


async def test_a_bounded_step_that_never_waits_finishes_and_one_that_raises_first_fails_by_its_policy() -> None:
    async def instant(inputs: Inputs) -> str:
        return "now"

    async def broken(inputs: Inputs) -> str:
        raise ValueError("no")

    plan = compile_plan("p", [FnStep(StepSpec("instant", provides="k", timeout=0.01), instant)])
    assert await execute(plan, {}) == {"k": "now"}
    run = Execution(compile_plan("p", [FnStep(StepSpec("broken", provides="k", timeout=0.01), broken)]), {})
    with pytest.raises(StepFailed) as info:
        await run.run()
    assert info.value.outcome is Outcome.FAILED
    assert run.records[0].detail == "ValueError: no"


async def test_a_bounded_step_cancelled_while_it_waits_is_cancelled_all_the_way_down() -> None:
    cleaned = asyncio.Event()

    async def waiting(inputs: Inputs) -> str:
        await asyncio.sleep(0)
        try:
            await asyncio.sleep(5)
        finally:
            cleaned.set()
        return "never"

    run = Execution(compile_plan("p", [FnStep(StepSpec("waiting", provides="k", timeout=10.0), waiting)]), {})
    task = asyncio.create_task(run.run())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cleaned.is_set()
    assert run.records[0].outcome is Outcome.CANCELLED


async def test_fail_open_step_gives_its_declared_fallback_to_consumers() -> None:
    steps = [failing("flaky", provides="kf", failure=Failure.OPEN, fallback="default"), echo("use", ("kf",), "ku")]
    run = Execution(compile_plan("p", steps), {})
    values = await run.run()
    assert values["ku"] == {"kf": "default"}
    assert run.records[0].outcome is Outcome.FAILED_OPEN
    assert run.records[0].detail == "RuntimeError: flaky broke"


async def test_optional_failure_skips_hard_consumers_and_feeds_soft_ones_without_the_key() -> None:
    steps = [
        failing("maybe", provides="km", failure=Failure.OPTIONAL),
        echo("hard", ("km",), "kh"),
        echo("soft", (), "ks", optional=("km",)),
    ]
    run = Execution(compile_plan("p", steps), {})
    values = await run.run()
    assert values == {"ks": {}}
    by_name = {r.name: r for r in run.records}
    assert by_name["hard"].outcome is Outcome.SKIPPED
    assert by_name["hard"].detail == "input 'km' is absent"


async def test_condition_false_skips_the_step_and_its_dependents() -> None:
    cond = sleeper("cond", 0, "kc", requires=("flag",), when=lambda inputs: bool(inputs["flag"]))
    steps = [cond, echo("next", ("kc",), "kn")]
    run = Execution(compile_plan("p", steps, seeds=["flag"]), {"flag": False})
    values = await run.run()
    assert "kn" not in values
    assert [r.outcome for r in run.records] == [Outcome.SKIPPED, Outcome.SKIPPED]


async def test_fan_out_runs_one_concurrent_instance_per_item_and_keeps_order() -> None:
    async def call(inputs: Inputs) -> str:
        await asyncio.sleep(0.1 * (3 - (inputs.index or 0)))  # later items finish first
        return f"{inputs.index}:{inputs.item}"

    step = FnStep(StepSpec("tool", fan_out="calls", provides="results"), call)
    run = Execution(compile_plan("p", [step], seeds=["calls"]), {"calls": ["x", "y", "z"]})
    with Stopwatch() as watch:
        values = await run.run()
    assert values["results"] == ["0:x", "1:y", "2:z"]
    assert watch.seconds < 0.4  # 0.3 s for the slowest, not 0.6 s in series
    assert run.records[0].instances == 3


async def test_cpu_bound_step_runs_off_the_event_loop() -> None:
    loop_thread = threading.get_ident()
    ticks: list[float] = []

    def crunch(inputs: Inputs) -> int:
        time.sleep(0.2)  # stands for CPU-heavy work that would block the loop
        return threading.get_ident()

    async def ticker(inputs: Inputs) -> int:
        for _ in range(8):
            ticks.append(time.perf_counter())
            await asyncio.sleep(0.02)
        return len(ticks)

    steps = [
        FnStep(StepSpec("ner", provides="kn", cpu_bound=True), blocking=crunch),
        FnStep(StepSpec("tick", provides="kt"), ticker),
    ]
    values = await execute(compile_plan("p", steps), {})
    assert values["kn"] != loop_thread
    assert max(b - a for a, b in itertools.pairwise(ticks)) < 0.1


async def test_halt_stops_the_run_even_for_a_fail_open_step() -> None:
    async def deny(inputs: Inputs) -> None:
        raise Halt("denied")

    steps = [FnStep(StepSpec("authz", provides="grant", failure=Failure.OPEN), deny), sleeper("slow", 5, "ks")]
    run = Execution(compile_plan("p", steps), {})
    with Stopwatch() as watch, pytest.raises(Halt, match="denied"):
        await run.run()
    assert watch.seconds < 0.5
    assert {r.name: r.outcome for r in run.records} == {"authz": Outcome.HALTED, "slow": Outcome.CANCELLED}


async def test_cancelling_the_run_cancels_its_steps() -> None:
    started = asyncio.Event()
    cancelled = asyncio.Event()

    async def long(inputs: Inputs) -> None:
        started.set()
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    run = Execution(compile_plan("p", [FnStep(StepSpec("long", provides="k"), long)]), {})
    task = asyncio.create_task(run.run())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cancelled.is_set()
    assert run.records[0].outcome is Outcome.CANCELLED


async def test_step_sees_only_the_keys_it_declared() -> None:
    steps = [sleeper("a", 0, "ka"), sleeper("b", 0, "kb"), echo("c", ("ka",), "kc")]
    values = await execute(compile_plan("p", steps, seeds=["secret"]), {"secret": 1})
    assert values["kc"] == {"ka": "a"}


async def test_a_halt_inside_fan_out_wins_over_a_sibling_failure_even_when_fail_open() -> None:
    async def call(inputs: Inputs) -> None:
        await asyncio.sleep(0.01)  # both instances end in the same loop tick
        if inputs.item == "deny":
            raise Halt("denied")
        raise RuntimeError("broken")

    step = FnStep(StepSpec("tool", fan_out="calls", provides="results", failure=Failure.OPEN, fallback="ALLOW"), call)
    run = Execution(compile_plan("p", [step], seeds=["calls"]), {"calls": ["deny", "other"]})
    with pytest.raises(Halt, match="denied"):
        await run.run()
    assert run.records[0].outcome is Outcome.HALTED


async def test_a_halt_and_a_failure_finishing_together_report_the_halt() -> None:
    async def deny(inputs: Inputs) -> None:
        await asyncio.sleep(0.02)
        raise Halt("denied")

    async def broken(inputs: Inputs) -> None:
        await asyncio.sleep(0.02)
        raise RuntimeError("broken")

    for order in ((deny, broken), (broken, deny)):
        steps = [FnStep(StepSpec(f"s{i}", provides=f"k{i}"), fn) for i, fn in enumerate(order)]
        with pytest.raises(Halt):
            await execute(compile_plan("p", steps), {})


async def test_fan_out_over_an_empty_list_gives_an_empty_result() -> None:
    step = FnStep(StepSpec("tool", fan_out="calls", provides="results"), lambda inputs: asyncio.sleep(0))
    assert (await execute(compile_plan("p", [step], seeds=["calls"]), {"calls": []}))["results"] == []


async def test_fan_out_over_something_that_is_not_a_list_fails_clearly() -> None:
    step = FnStep(StepSpec("tool", fan_out="calls", provides="results"), lambda inputs: asyncio.sleep(0))
    with pytest.raises(StepFailed, match="fan-out key 'calls' must hold a list, not str"):
        await execute(compile_plan("p", [step], seeds=["calls"]), {"calls": "abc"})


async def test_a_missing_seed_is_refused_before_anything_runs() -> None:
    plan = compile_plan("p", [echo("a", ("request",), "ka"), echo("b", ("ka",), "kb")], seeds=["request"])
    with pytest.raises(ValueError, match="needs seed values for request"):
        Execution(plan, {})


async def test_every_step_starts_at_most_once() -> None:
    calls: list[str] = []

    async def count(inputs: Inputs) -> str:
        calls.append("c")
        return "c"

    steps = [sleeper("a", 0, "ka"), sleeper("b", 0.01, "kb"), FnStep(StepSpec("c", ("ka", "kb"), provides="kc"), count)]
    run = Execution(compile_plan("p", steps), {})
    await run.run()
    assert calls == ["c"]
    assert sorted(r.name for r in run.records) == ["a", "b", "c"]


async def test_a_value_finished_in_the_same_tick_as_a_halt_stays_visible_for_release() -> None:
    async def deny(inputs: Inputs) -> None:
        await asyncio.sleep(0.02)
        raise Halt("denied")

    async def place(inputs: Inputs) -> str:
        await asyncio.sleep(0.02)
        return "slot"

    steps = [FnStep(StepSpec("deny", provides="kd"), deny), FnStep(StepSpec("place", provides="kp"), place)]
    for ordered in (steps, steps[::-1]):
        run = Execution(compile_plan("p", ordered), {})
        with pytest.raises(Halt):
            await run.run()
        assert run.values.get("kp") == "slot", "the proxy must be able to release what was placed"


async def test_a_limit_bounds_how_many_steps_run_at_once_and_the_rest_still_run() -> None:
    running, most = 0, 0

    def counted(name: str) -> FnStep:
        async def fn(inputs: Inputs) -> str:
            nonlocal running, most
            running += 1
            most = max(most, running)
            await asyncio.sleep(0.02)
            running -= 1
            return name

        return FnStep(StepSpec(name, provides=name), fn)

    plan = compile_plan("p", [counted(f"s{i}") for i in range(6)])
    values = await Execution(plan, {}, limit=2).run()
    assert most == 2
    assert sorted(values) == [f"s{i}" for i in range(6)]


async def test_on_settle_hears_each_step_as_it_ends_including_those_skipped_for_a_missing_input() -> None:
    heard: list[tuple[str, str]] = []
    steps = [
        failing("broken", provides="a", failure=Failure.OPTIONAL),
        echo("needs_a", ("a",), "b"),
        sleeper("slow", 0.05, "c"),
    ]
    run = Execution(compile_plan("p", steps), {}, on_settle=lambda r: heard.append((r.name, r.outcome.value)))
    await run.run()
    assert heard == [("broken", "failed"), ("needs_a", "skipped"), ("slow", "ok")]


@pytest.mark.parametrize("offloads", [True, False])
async def test_a_step_whose_work_runs_elsewhere_starts_before_its_peers_work_on_the_loop(offloads: bool) -> None:
    events: list[str] = []

    async def busy(inputs: Inputs) -> str:  # "a" sorts first: 50 ms of work on the loop, no await
        events.append("a begins")
        time.sleep(0.05)  # noqa: ASYNC251  # the point: CPU work that holds the loop
        return "a"

    async def elsewhere(inputs: Inputs) -> str:  # hands its work to a thread at once, then waits
        events.append("b hands off")
        await asyncio.to_thread(time.sleep, 0.05)
        return "b"

    steps = [
        FnStep(StepSpec("a", provides="ka"), busy),
        FnStep(StepSpec("b", provides="kb", offloads=offloads), elsewhere),
    ]
    with Stopwatch() as watch:
        await execute(compile_plan("p", steps), {})
    if offloads:
        assert events == ["b hands off", "a begins"]
        assert watch.seconds < 0.09, watch.seconds  # the two overlapped
    else:
        assert events == ["a begins", "b hands off"]  # plan order: the thread's work waited for the loop's
        assert watch.seconds >= 0.1, watch.seconds


async def test_a_chain_of_steps_runs_inline_without_a_task_per_step() -> None:
    tasks: list[asyncio.Task[object] | None] = []

    async def where(inputs: Inputs) -> str:
        tasks.append(asyncio.current_task())
        return "x"

    steps = [FnStep(StepSpec("a", provides="ka"), where), FnStep(StepSpec("b", requires=("ka",), provides="kb"), where)]

    async def caller() -> None:
        tasks.append(asyncio.current_task())
        await execute(compile_plan("p", steps), {})

    await caller()
    assert tasks[0] is tasks[1] is tasks[2]  # each ran alone: in the caller's own task
