"""Placement economics: which pool each request class lands on, whether it meets its target, what it costs.

    python bench/economics.py                # eight policies, about 900 requests each (about 10 min here)
    python bench/economics.py --quick        # about 350 requests each, a shorter span, a faster clock (5 min)
    python bench/economics.py --policies "all premium","taskgate cheapest" --seed 3

Five `taskgate sim` engines in three pools of distinct price and speed
(premium h100s, cheap l4s, a memory-rich a100 for long context) are started
fresh for every policy. One seeded workload mixes short interactive chat
turns, agent sessions whose prompts grow turn by turn, long-document questions
and batch summaries, each class with its own TTFT target. Prints a table per
policy and per class (target attainment, TTFT p50/p99, cost against sending
everything to the premium pool) and saves bench/results/economics.png and
economics.json. Not a test: numbers depend on the machine and on what else runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import needs
from cluster import Cluster, Counters, Pool, stop_on_signals
from drive import Run, drive
from policies import POLICIES as ROUTING_POLICIES
from policies import Policy, RouterProcess
from report import Bars, highlight, percentile, save
from workload import TOOLS, Agent, Session, Shape, Turn, agents, words

RESULTS = Path(__file__).resolve().parent / "results"
MODEL = "mix"
LABEL = "economics"

# name, sim profile, engines, KV blocks (16 tokens each), seats, $ in/out per Mtok, advertised TTFT and TPOT
# targets (ms), max context. The l4s are cheap and slow; the a100 holds long documents the l4s cannot take.
POOLS = (
    Pool("premium", "h100", 2, 2_048, 32, 3.0, 9.0, 600.0, 30.0, 32_768),
    Pool("cheap", "l4", 2, 2_048, 16, 0.8, 2.4, 3_000.0, 80.0, 16_384),
    Pool("memory", "a100", 1, 8_192, 32, 1.5, 4.5, 4_000.0, 40.0, 131_072),
)
# Engine-time TTFT targets per request class.
CLASS_TTFT_MS = {"interactive": 800.0, "batch": 8_000.0, "background": 60_000.0}
# The workload's kinds, each with its request class.
KINDS = {"chat": "interactive", "agent": "interactive", "document": "batch", "batch": "background"}
INTERACTIVE = tuple(kind for kind, cls in KINDS.items() if cls == "interactive")
BASELINE = "all premium"
TARGET_IN = 0.99  # the target: this share of interactive requests within target ...
TARGET_COST = 0.60  # ... at no more than this share of the all-premium cost
EVERYTHING_MEETS = dict.fromkeys(CLASS_TTFT_MS, 1e9)  # a target every pool meets: only the price decides

POLICIES = (
    Policy(BASELINE, "taskgate", "scored", only=("premium",)),
    Policy("cost greedy", "taskgate", "cheapest", classes=EVERYTHING_MEETS),
    Policy("least loaded", "taskgate", "least_loaded"),
    Policy("taskgate scored", "taskgate", "scored"),
    Policy("taskgate cheapest", "taskgate", "cheapest"),
    *(p for p in ROUTING_POLICIES if p.router != "taskgate"),
)


@dataclass(frozen=True)
class Mix:
    """Arrival rates per engine second, and sizes in simulator tokens."""

    span_s: float = 180.0  # sessions arrive over this much engine time
    chat_per_s: float = 1.0
    agent_per_s: float = 0.35
    document_per_s: float = 0.06
    batch_per_s: float = 0.6
    chat_system_tokens: int = 350
    chat_turns: tuple[int, int] = (1, 4)
    agent_turns: tuple[int, int] = (3, 8)
    document_tokens: tuple[int, int] = (9_000, 22_000)
    document_turns: tuple[int, int] = (1, 3)
    batch_instruction_tokens: int = 600
    batch_report_tokens: tuple[int, int] = (1_500, 4_000)


def generate(seed: int, mix: Mix) -> list[Session]:
    """Every kind's sessions as its own Poisson process over `mix.span_s`, merged in arrival order."""
    rng = random.Random(seed)
    apps = [Agent(f"app-{i}", f"You are assistant {i}. " + words(rng, mix.chat_system_tokens), []) for i in range(3)]
    team = agents(rng, Shape(agents=2, system_tokens=1_500))
    reader = Agent("reader", "You answer questions about the document the user gives, quoting it.", [])
    summariser = Agent("summariser", "Summarise the report below. " + words(rng, mix.batch_instruction_tokens), [])
    rates = {"chat": mix.chat_per_s, "agent": mix.agent_per_s, "document": mix.document_per_s}
    rates["batch"] = mix.batch_per_s
    sessions: list[Session] = []
    for kind, rate in rates.items():
        clock = rng.expovariate(rate)
        while clock < mix.span_s:
            sid = f"{kind[0]}{len(sessions):04d}"
            if kind == "chat":
                sessions.append(_chat(rng, mix, sid, apps[rng.randrange(len(apps))], clock))
            elif kind == "agent":
                sessions.append(_agent(rng, mix, sid, team[rng.randrange(len(team))], clock))
            elif kind == "document":
                sessions.append(_document(rng, mix, sid, reader, clock))
            else:
                first = words(rng, rng.randint(*mix.batch_report_tokens))
                sessions.append(_session(sid, "batch", summariser, clock, first, [Turn(0.0, "", None, 160)]))
            clock += rng.expovariate(rate)
    return sorted(sessions, key=lambda s: s.arrival_s)


def _session(sid: str, kind: str, agent: Agent, arrival: float, first: str, turns: list[Turn]) -> Session:
    return Session(sid, kind, agent, arrival, first, turns, request_class=KINDS[kind], streamed=True)


def _chat(rng: random.Random, mix: Mix, sid: str, app: Agent, arrival: float) -> Session:
    turns = [Turn(0.0, "", None, 48)]
    for _ in range(rng.randint(*mix.chat_turns) - 1):
        turns.append(Turn(rng.uniform(3.0, 8.0), words(rng, rng.randint(10, 60)) + " ?", None, 48))
    return _session(sid, "chat", app, arrival, words(rng, rng.randint(20, 80)) + " ?", turns)


def _agent(rng: random.Random, mix: Mix, sid: str, agent: Agent, arrival: float) -> Session:
    turns = [Turn(0.0, "", None, 32)]
    for _ in range(rng.randint(*mix.agent_turns) - 1):
        result = words(rng, rng.randint(150, 500))
        turns.append(Turn(rng.uniform(0.3, 1.5), result, TOOLS[rng.randrange(len(TOOLS))], 32))
    return _session(sid, "agent", agent, arrival, words(rng, rng.randint(30, 120)) + " ?", turns)


def _document(rng: random.Random, mix: Mix, sid: str, reader: Agent, arrival: float) -> Session:
    document = words(rng, rng.randint(*mix.document_tokens))
    turns = [Turn(0.0, "", None, 200)]
    for _ in range(rng.randint(*mix.document_turns) - 1):
        turns.append(Turn(rng.uniform(4.0, 10.0), "And " + words(rng, rng.randint(15, 40)) + " ?", None, 200))
    return _session(sid, "document", reader, arrival, document + "\nWhat does it say about " + words(rng, 8), turns)


def describe(sessions: list[Session]) -> dict[str, Any]:
    out: dict[str, Any] = {"sessions": len(sessions), "requests": sum(len(s.turns) for s in sessions)}
    for kind in KINDS:
        mine = [s for s in sessions if s.kind == kind]
        out[kind] = {"sessions": len(mine), "requests": sum(len(s.turns) for s in mine)}
    out["arrival_span_s"] = max((s.arrival_s for s in sessions), default=0.0)
    return out


def run_policy(
    policy: Policy, sessions: list[Session], scale: float, deadline_s: float
) -> tuple[Run, dict[str, Counters], dict[str, Pool]]:
    """Fresh engines, the policy's router, the workload; then the engines' own counters."""
    cluster = Cluster(POOLS, MODEL, scale, RESULTS, label=LABEL)
    router = RouterProcess(policy, RESULTS, label=LABEL, classes=CLASS_TTFT_MS)
    try:
        engines = cluster.start()
        base = router.start(engines, POOLS, MODEL, scale)
        run = asyncio.run(drive(base, sessions, MODEL, scale, deadline_s, request_timeout_s=deadline_s))
        time.sleep(0.2)  # let the engines finish their bookkeeping of the last answers
        counters = cluster.scrape()
    finally:
        router.stop()
        cluster.stop()
    return run, counters, {e.name: e.pool for e in engines}


def summarise(
    name: str, run: Run, counters: dict[str, Counters], pools: dict[str, Pool], workload: dict[str, Any], scale: float
) -> dict[str, Any]:
    """Per kind: requests within their class's target over those planned, TTFT p50/p99; then cost and pools."""
    ok = [r for r in run.records if r.ok]
    kinds: dict[str, dict[str, float]] = {}
    for kind, cls in KINDS.items():
        target_s = CLASS_TTFT_MS[cls] * scale / 1000
        ttfts = [r.ttft_s for r in ok if r.kind == kind and r.ttft_s is not None]
        planned = workload[kind]["requests"]
        kinds[kind] = {
            "planned": planned,
            "within": sum(1 for t in ttfts if t <= target_s),
            "p50_ms": percentile(ttfts, 0.5) * 1000,
            "p99_ms": percentile(ttfts, 0.99) * 1000,
        }
    planned = sum(kinds[k]["planned"] for k in INTERACTIVE)
    within = sum(kinds[k]["within"] for k in INTERACTIVE)
    by_pool = {pool.name: 0.0 for pool in POOLS}
    for engine, c in counters.items():
        by_pool[pools[engine].name] += c.requests
    prompt = sum(c.prompt_tokens for c in counters.values())
    cached = sum(c.cached_tokens for c in counters.values())
    return {
        "policy": name,
        "requests": len(run.records),
        "errors": len(run.records) - len(ok),
        "unfinished_sessions": run.unfinished_sessions,
        "kinds": kinds,
        "interactive_within_target": within / planned if planned else 0.0,
        "cost_usd": sum(c.cost(pools[engine]) for engine, c in counters.items()),
        "cached_share": cached / prompt if prompt else 0.0,
        "pool_requests": by_pool,
        "engine_requests": {engine: c.requests for engine, c in counters.items()},
        "errors_sample": sorted({r.error or "" for r in run.records if not r.ok})[:3],
    }


def relative(rows: list[dict[str, Any]]) -> None:
    """Each row's cost over the all-premium run's (None if that run is missing)."""
    base = next((row["cost_usd"] for row in rows if row["policy"] == BASELINE), None)
    for row in rows:
        row["cost_vs_premium"] = row["cost_usd"] / base if base else None


def tables(rows: list[dict[str, Any]]) -> str:
    pools = [pool.name for pool in POOLS]
    head = f"{'policy':<22} {'interactive in target':>21} {'cost $':>8} {'vs all premium':>14} {'cached %':>8}"
    head += "".join(f" {name + ' req':>12}" for name in pools) + f" {'errors':>6}"
    lines = [head, "-" * len(head)]
    for row in rows:
        vs = row["cost_vs_premium"]
        line = f"{row['policy']:<22} {row['interactive_within_target']:>21.1%} {row['cost_usd']:>8.3f} "
        line += f"{vs:>14.1%}" if vs is not None else f"{'n/a':>14}"
        line += f" {row['cached_share']:>8.1%}" + "".join(f" {row['pool_requests'][p]:>12.0f}" for p in pools)
        lines.append(line + f" {row['errors']:>6d}")
    lines.append("")
    kinds = list(KINDS)
    head = f"{'policy':<22}" + "".join(f" {f'{k} ({KINDS[k]})':>26}" for k in kinds)
    sub = f"{'':<22}" + "".join(f" {'in %':>8} {'p50':>8} {'p99':>8}" for _ in kinds)
    lines += [head, sub, "-" * len(sub)]
    for row in rows:
        line = f"{row['policy']:<22}"
        for kind in kinds:
            k = row["kinds"][kind]
            share = k["within"] / k["planned"] if k["planned"] else 0.0
            line += f" {share:>8.1%} {k['p50_ms']:>8.0f} {k['p99_ms']:>8.0f}"
        lines.append(line)
    return "\n".join(lines)


def verdict(rows: list[dict[str, Any]]) -> str:
    row = next((r for r in rows if r["policy"] == "taskgate cheapest"), None)
    if row is None or row["cost_vs_premium"] is None:
        return "target: not judged (needs the taskgate cheapest and all premium runs)"
    within, cost = row["interactive_within_target"], row["cost_vs_premium"]
    met = within >= TARGET_IN and cost <= TARGET_COST
    return (
        f"target (>= {TARGET_IN:.0%} of interactive requests within target at <= {TARGET_COST:.0%} of the all-premium "
        f"cost): taskgate cheapest {within:.1%} at {cost:.1%}: {'met' if met else 'NOT met'}"
    )


def plot(rows: list[dict[str, Any]], path: Path, title: str) -> None:
    names = [row["policy"] for row in rows]
    colours = highlight(names, lambda name: name.startswith("taskgate"), BASELINE)

    def share(row: dict[str, Any], kind: str) -> float:
        k = row["kinds"][kind]
        return 100.0 * k["within"] / k["planned"] if k["planned"] else float("nan")

    costs = [None if row["cost_vs_premium"] is None else 100.0 * row["cost_vs_premium"] for row in rows]
    panels = [
        Bars(
            "Cost against all premium",
            "% of the all-premium run's cost",
            names,
            {"cost": costs},
            "{:.1f}",
            colours=colours,
        ),
        Bars(
            "Interactive requests within target",
            "% of the interactive requests planned",
            names,
            {"within target": [100.0 * row["interactive_within_target"] for row in rows]},
            "{:.1f}",
            colours=colours,
        ),
        Bars(
            "Within target, by kind of request",
            "% of the kind's requests planned",
            names,
            {f"{kind} ({KINDS[kind]})": [share(row, kind) for row in rows] for kind in KINDS},
            "{:.0f}",
        ),
        Bars(
            "TTFT p99, by kind of request",
            "ms, wall clock",
            names,
            {f"{kind} ({KINDS[kind]})": [row["kinds"][kind]["p99_ms"] for row in rows] for kind in KINDS},
            "{:.0f}",
            log=True,
        ),
        Bars(
            "Requests per pool",
            "requests the pool's engines served",
            names,
            {pool.name: [row["pool_requests"][pool.name] for row in rows] for pool in POOLS},
            "{:.0f}",
        ),
    ]
    save(path, title, panels, columns=2)


def main() -> int:
    needs.plotting()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smoke run: a shorter workload, a faster clock")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--span", type=float, help="engine seconds of arrivals (default 180, quick 60)")
    parser.add_argument("--time-scale", type=float, help="wall seconds per engine second (default 0.3, quick 0.2)")
    parser.add_argument("--policies", help="comma-separated policy names to run (default: all)")
    args = parser.parse_args()
    scale = args.time_scale or (0.2 if args.quick else 0.3)
    mix = Mix(span_s=args.span or (60.0 if args.quick else 180.0))
    chosen = _choose(args.policies)
    stop_on_signals()
    RESULTS.mkdir(exist_ok=True)

    sessions = generate(args.seed, mix)
    workload = describe(sessions)
    deadline_s = workload["arrival_span_s"] * scale * 3 + 120.0
    targets = ", ".join(f"{cls} {ms * scale:.0f} ms" for cls, ms in CLASS_TTFT_MS.items())
    print(f"workload: {workload}; time scale {scale}; TTFT targets (wall) {targets}")
    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    try:
        for policy in chosen:
            reason = policy.missing()
            if reason:
                skipped.append(f"{policy.name}: {reason}")
                continue
            print(f"running {policy.name} ...", file=sys.stderr, flush=True)
            try:
                run, counters, pools = run_policy(policy, sessions, scale, deadline_s)
            except RuntimeError as exc:
                skipped.append(f"{policy.name}: {exc} (see bench/results/{LABEL}-*.log)")
                continue
            rows.append(summarise(policy.name, run, counters, pools, workload, scale))
    except KeyboardInterrupt:
        print("interrupted; every engine and router is stopped", file=sys.stderr)
        skipped.append("the rest: interrupted")
        report(rows, skipped, args, workload, scale)
        return 130
    report(rows, skipped, args, workload, scale)
    return 0


def _choose(names: str | None) -> list[Policy]:
    if not names:
        return list(POLICIES)
    wanted = [n.strip() for n in names.split(",") if n.strip()]
    known = {p.name: p for p in POLICIES}
    unknown = [n for n in wanted if n not in known]
    if unknown:
        raise SystemExit(f"unknown policies {unknown}; known: {', '.join(known)}")
    return [known[n] for n in wanted]


def report(
    rows: list[dict[str, Any]], skipped: list[str], args: argparse.Namespace, workload: dict[str, Any], scale: float
) -> None:
    relative(rows)
    if rows:
        print(tables(rows))
        print()
        print(verdict(rows))
    for note in skipped:
        print(f"skipped {note}")
    summary = {
        "args": vars(args),
        "time_scale": scale,
        "class_ttft_ms_engine": CLASS_TTFT_MS,
        "kinds": KINDS,
        "workload": workload,
        "pools": [vars(p) for p in POOLS],
        "rows": rows,
        "skipped": skipped,
    }
    (RESULTS / f"{LABEL}.json").write_text(json.dumps(summary, indent=2))
    if rows:
        engines = sum(pool.engines for pool in POOLS)
        title = (
            f"Placement economics: {workload['requests']} requests, {engines} simulated engines in {len(POOLS)} pools"
        )
        title += f" (time scale {scale})"
        plot(rows, RESULTS / f"{LABEL}.png", title)
        print(f"plot: {RESULTS / f'{LABEL}.png'}")


if __name__ == "__main__":
    sys.exit(main())
