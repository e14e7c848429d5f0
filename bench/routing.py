"""Placement policies compared on one agent workload over simulated engines in two pools.

    python bench/routing.py              # the full run: about 1,100 requests per policy
    python bench/routing.py --quick      # a smoke run of a few hundred requests
    python bench/routing.py --policies taskgate,"vllm consistent_hash"

Four `taskgate sim` engines (two fast and dear, two slow and cheap) are started
fresh for every policy, so each one starts with cold caches. The router under
test runs as its own process in front of them; the same seeded workload is
played through it. Prints a table and saves bench/results/routing.png and
routing.json. Not a test: numbers depend on the machine and on what else runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import needs
from cluster import CLASS_TTFT_MS, POOLS, Cluster, Counters, Pool, stop_on_signals
from drive import Run, drive
from policies import POLICIES, Policy, RouterProcess
from report import engines_table, plot, summarise, table
from workload import Session, Shape, describe, generate

RESULTS = Path(__file__).resolve().parent / "results"
MODEL = "agent"


def run_policy(
    policy: Policy, sessions: list[Session], scale: float, deadline_s: float
) -> tuple[Run, dict[str, Counters], dict[str, Pool]]:
    """Fresh engines, the policy's router, the workload; then the engines' own counters."""
    cluster = Cluster(POOLS, MODEL, scale, RESULTS)
    router = RouterProcess(policy, RESULTS)
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


def main() -> int:
    needs.plotting()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smoke run: fewer requests, faster clock")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--requests", type=int, help="at least this many requests (default 1100, quick 250)")
    parser.add_argument("--time-scale", type=float, help="wall seconds per engine second (default 0.3, quick 0.15)")
    parser.add_argument("--policies", help="comma-separated policy names to run (default: all)")
    args = parser.parse_args()
    scale = args.time_scale or (0.15 if args.quick else 0.3)
    shape = Shape(requests=args.requests or (250 if args.quick else 1_100))
    chosen = _choose(args.policies)
    stop_on_signals()
    RESULTS.mkdir(exist_ok=True)

    sessions = generate(args.seed, shape)
    workload = describe(sessions)
    planned = {"interactive": workload["interactive_requests"]}
    deadline_s = (workload["arrival_span_s"] * scale) * 3 + 120.0
    target_s = CLASS_TTFT_MS["interactive"] * scale / 1000
    print(f"workload: {workload}; time scale {scale}; interactive TTFT target {target_s * 1000:.0f} ms wall")
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
                skipped.append(f"{policy.name}: {exc} (see bench/results/routing-*.log)")
                continue
            rows.append(summarise(policy.name, run, counters, pools, planned, target_s))
    except KeyboardInterrupt:
        print("interrupted; every engine and router is stopped", file=sys.stderr)
        skipped.append("the rest: interrupted")
        report(rows, skipped, args, workload, scale, target_s)
        return 130
    report(rows, skipped, args, workload, scale, target_s)
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
    rows: list[dict[str, Any]],
    skipped: list[str],
    args: argparse.Namespace,
    workload: dict[str, Any],
    scale: float,
    target_s: float,
) -> None:
    if rows:
        print(table(rows))
        print()
        print(engines_table(rows))
    for note in skipped:
        print(f"skipped {note}")
    pools = [{"name": p.name, "profile": p.profile, "engines": p.engines, "kv_blocks": p.kv_blocks} for p in POOLS]
    summary = {
        "args": vars(args),
        "time_scale": scale,
        "interactive_ttft_target_ms": target_s * 1000,
        "workload": workload,
        "pools": pools,
        "rows": rows,
        "skipped": skipped,
    }
    (RESULTS / "routing.json").write_text(json.dumps(summary, indent=2))
    if rows:
        title = (
            f"Placement policies: {workload['requests']} agent requests, 4 simulated engines in 2 pools "
            f"(time scale {scale})"
        )
        plot(rows, RESULTS / "routing.png", title)
        print(f"plot: {RESULTS / 'routing.png'}")


if __name__ == "__main__":
    sys.exit(main())
