"""Prompt-injection replay: how well per-task authorization stops hijacked agents and lets users' tasks through.

    python bench/injection.py            # every task and (task, attack) pair, each configuration (about 8 min here)
    python bench/injection.py --quick    # every task, a seeded sample of 80 pairs, one latency pass (under 1 min)
    python bench/injection.py --configs none,profiles --seed 3
    python bench/injection.py --split dev   # only the dev tasks and their pairs (revising a policy)

The suite is bench/injection_suite: one user's world (mail, calendar, files,
bank, team chat, web) served by six real MCP servers (the official SDK), user
tasks with their intended tool calls, and attacks planted into untrusted
fields of the data a task reads. The tasks are split:

- `dev` (143): what the policies and the classifier's examples are revised on: the first 77
  (tasks.py), the 30 of heldout_tasks.py (held aside until the third round was measured) and the 36
  of heldout2_tasks.py (held aside until the fourth was measured);
- `heldout` (heldout3_tasks.py): written apart by someone who saw neither the policies nor the
  classifier's examples while the fifth round's revision was made, read only after it was committed,
  and run once.

The classifier's accuracy is measured on request phrasings the same way: phrasings_heldout.jsonl and
phrasings_heldout2.jsonl (held aside in the third and fourth rounds) are tuning data now,
phrasings_heldout3.jsonl the held-aside set,
reported only with a run that includes the held-out tasks. Configurations:

- `none`: no gateway; the calls go straight to the servers (every attack succeeds: the floor).
- `profiles`: taskgate with roles and intent profiles (policies/profiles.csv).
- `constraints`: plus argument constraints that need no provenance (constraints.csv).
- `provenance`: coarser profiles (provenance.task_types.json), trust declarations, provenance of
  values, and holds (provenance.csv); the classifier alone picks the task's profile.
- `pinned`: provenance.csv with one profile granting every tool, to which a policy rule pins the
  user's tasks: what the argument rules, trust declarations, reference sources and holds decide
  without the classifier (the policy rows are provenance.csv's, unchanged).
- `base`: provenance.csv with a base profile for every task of the user (every tool but the bank's
  writes) plus the profiles the classifier adds (`add` rows): a misclassified task keeps its base
  writes, and moving money needs a request the classifier reads as a payment.

Each configuration has its own policy file; the runner checks that the user's
roles are the same in all of them and that every profile a configuration's
task types name has rows in its policy. `--split dev` runs the dev tasks only
(revise a policy on those; the held-out tasks measure what that misses, once).

taskgate runs in this process as an MCP-only gateway (no model pools;
pipeline authenticate, classify, authorize), with a real HS256 JWT for the
user. The classifier is the local model with the suite's examples; the task's
text is its stated purpose. A policy taskgate refuses is reported with its
reason and that configuration is skipped.

Measured, for dev and heldout tasks and per domain:
- utility: tasks whose every call is allowed (replayed in a clean world);
- utility under attack: the same, for the task's calls in each pair;
- attack success: pairs whose every attacker call is allowed (after the task's calls, in the same task);
- held: calls taskgate holds for approval (a refusal whose reason is `approval_required`: an `isError` result
  with `_meta` `io.taskgate/refusal`, or -32044 where refusals are errors), legitimate ones (utility replay)
  and the attacker's;
  a held call is not allowed in the first table, and is never approved here. The second table answers the
  holds as the task's user would (yes to what her task needs, no to the rest): utility with approvals, the
  share of legitimate calls held, and attack success for an approver who says yes to every hold;
- added latency: per allowed call, through the gateway minus the same call made direct just before it
  (medians of the repeats).

Prints tables and saves bench/results/injection.png and injection.json (a `--split dev` or
`--split heldout` run: injection-dev.*, injection-heldout.*, leaving the full run's files).
Seeded and deterministic but for timings. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import platform
import random
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import needs
from injection_suite import phrasings
from injection_suite.adaptive import ADAPTIVE_IDS, adaptive_pairs
from injection_suite.attacks import ATTACKS, Pair, pairs
from injection_suite.domains import Live, serving_all
from injection_suite.replay import (
    POLICIES,
    Caller,
    PolicyRefused,
    Run,
    authorize_params_for,
    direct,
    gateway,
    replay,
    task_types_for,
    task_types_path,
)
from injection_suite.tasks import DOMAINS, SPLIT_SEED, TASKS, Task, unsourced
from injection_suite.world import WORLD_SEED, base_world
from report import Bars, save

from taskgate.logs import configure_logging

RESULTS = Path(__file__).resolve().parent / "results"


def pinned_policy() -> Path:
    """provenance.csv with its profiles replaced by one that grants every tool, to which a policy rule pins the
    members' tasks: what the argument rules, trust declarations and holds decide with no classifier at all."""
    folder = Path(tempfile.mkdtemp(prefix="injection-pinned-"))
    source = POLICIES / "provenance.csv"
    rows = [line for line in source.read_text().splitlines() if not line.startswith("p, profile:")]
    rows += ["p, profile:assistant, *, *, call, as-all", "p, role:member, brightwell, profile:assistant, pin, pin-all"]
    target = folder / "pinned.csv"
    target.write_text("\n".join(rows) + "\n")
    kinds = task_types_for(source)
    (folder / "pinned.task_types.json").write_text(
        json.dumps({k: {**v, "profile": "assistant"} for k, v in kinds.items()})
    )
    (folder / "pinned.authorize.json").write_text(json.dumps(authorize_params_for(source)))
    return target


EVERYDAY = (
    "mail__*",
    "calendar__*",
    "chat__*",
    "files__*",
    "web__fetch",
    "bank__balance",
    "bank__transactions",
    "bank__payees",
    "bank__scheduled",
    "bank__read_bill",
)


def base_policy() -> Path:
    """provenance.csv with a base profile for the members' tasks: every tool but the bank's writes (what the
    argument rules, trust declarations and holds guard on their own), plus the profiles the classifier finds
    (`add` rows): moving money needs a request the classifier reads as a payment."""
    folder = Path(tempfile.mkdtemp(prefix="injection-base-"))
    source = POLICIES / "provenance.csv"
    rows = source.read_text().splitlines()
    rows += [f"p, profile:everyday, *, {tools}, call, ev-{n}" for n, tools in enumerate(EVERYDAY)]
    rows += ["p, role:member, brightwell, profile:everyday, base, base-everyday",
             "p, role:member, brightwell, profile:*, add, add-classified"]  # fmt: skip
    target = folder / "base.csv"
    target.write_text("\n".join(rows) + "\n")
    (folder / "base.task_types.json").write_text(json.dumps(task_types_for(source)))
    (folder / "base.authorize.json").write_text(json.dumps(authorize_params_for(source)))
    return target


CONFIGS = {
    "none": None,
    "profiles": POLICIES / "profiles.csv",
    "constraints": POLICIES / "constraints.csv",
    "provenance": POLICIES / "provenance.csv",
    "pinned": pinned_policy(),
    "base": base_policy(),
}
LABELS = {
    "none": "no gateway", "profiles": "profiles", "constraints": "+constraints", "provenance": "+provenance",
    "pinned": "+prov. pinned", "base": "+prov. base",
}  # fmt: skip
QUICK_PAIRS = 80
SPLITS = ("all", "dev", "heldout")
WARMUP_TASKS = 6


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def check_policies() -> None:
    """The user and her roles are the same in every policy (`p, role:` and `g` rows); each policy may shape its own
    profiles, but every profile its task types map to must have rows in it (a missing one would grant nothing)."""
    seen = {}
    for name, path in CONFIGS.items():
        if path is None:
            continue
        lines = [line.strip() for line in path.read_text().splitlines()]
        seen[name] = sorted(
            line for line in lines
            if line.startswith(("p, role:", "g,")) and not any(f", {how}," in line for how in ("pin", "base", "add"))
        )  # fmt: skip
        defined = {line.split(",")[1].strip() for line in lines if line.startswith("p, profile:")}
        wanted = {f"profile:{kind.get('profile', label)}" for label, kind in task_types_for(path).items()}
        missing = sorted(wanted - defined)
        if missing:
            raise SystemExit(f"{path}: its task types ({task_types_path(path).name}) map to {missing}, with no rows")
    first = next(iter(seen.values()))
    for name, rows in seen.items():
        if rows != first:
            raise SystemExit(f"{CONFIGS[name]}: its role and g rows differ from profiles.csv; keep them the same")


async def run_config(
    caller: Caller, live: Live, tasks: list[Task], chosen: list[Pair], repeats: int, floor: Caller | None
) -> dict[str, Any]:
    """Warm up, replay every task `repeats` times (the first counts), then every pair once.

    With a `floor` (the same servers, direct), each timed replay of a task is
    preceded by the same replay straight to the servers, so the added latency
    compares calls made moments apart.
    """
    for task in tasks[:WARMUP_TASKS]:
        await replay(caller, live, task)
        if floor is not None:
            await replay(floor, live, task)
    utility: list[Run] = []
    timings: dict[tuple[str, int], list[float]] = defaultdict(list)
    floors: dict[tuple[str, int], list[float]] = defaultdict(list)
    for repeat in range(repeats):
        for task in tasks:
            if floor is not None:
                for number, outcome in enumerate((await replay(floor, live, task)).task_calls):
                    floors[(task.id, number)].append(outcome.ms)
            run = await replay(caller, live, task)
            if repeat == 0:
                utility.append(run)
            for number, outcome in enumerate(run.task_calls):
                if outcome.passed:
                    timings[(task.id, number)].append(outcome.ms)
    attacked = [await replay(caller, live, p.task, p.attack, p.slot) for p in chosen]
    return {"utility": utility, "attacked": attacked, "ms": _medians(timings), "floor_ms": _medians(floors)}


def _medians(samples: dict[tuple[str, int], list[float]]) -> dict[tuple[str, int], float]:
    return {key: statistics.median(values) for key, values in samples.items()}


async def measure(names: list[str], tasks: list[Task], chosen: list[Pair], repeats: int) -> dict[str, Any]:
    """Each configuration against freshly started domain servers (one world, reset for every replay)."""
    live = Live(base_world())
    out: dict[str, Any] = {}
    for name in names:
        policy = CONFIGS[name]
        started = time.perf_counter()
        gc.collect()
        gc.freeze()  # what earlier configurations left stays out of the collector's way while calls are timed
        async with serving_all(live) as urls, direct(urls) as floor:
            try:
                if policy is None:
                    out[name] = await run_config(floor, live, tasks, chosen, repeats, None)
                else:
                    async with gateway(policy, urls) as through:
                        out[name] = await run_config(through, live, tasks, chosen, repeats, floor)
            except PolicyRefused as exc:
                out[name] = {"refused": str(exc)}
                print(f"[{name}] taskgate refused {policy}: {exc}", file=sys.stderr)
                continue
        print(f"[{name}] {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return out


# --- numbers -----------------------------------------------------------------------------------------------------


def _share(k: int, n: int) -> dict[str, Any]:
    return {"k": k, "n": n, "rate": k / n if n else None}


def group(measured: dict[str, Any], keep: Any, adaptive: bool = False) -> dict[str, Any]:
    """The numbers of one configuration over the tasks `keep` selects (the fixed attacks, or the adaptive)."""
    base_ms = measured["floor_ms"]
    utility = [r for r in measured["utility"] if keep(r.task)]
    attacked = [r for r in measured["attacked"] if keep(r.task) and (r.attack.id in ADAPTIVE_IDS) == adaptive]
    added = [ms - base_ms[key] for key, ms in measured["ms"].items() if key in base_ms and keep(_task(key[0]))]
    held_legit = sum(o.status == "held" for r in utility for o in r.task_calls)
    held_attacker = sum(o.status == "held" for r in attacked for o in r.attack_calls)
    held_under_attack = sum(o.status == "held" for r in attacked for o in r.task_calls)
    stopped_by_hold = sum(
        not r.attack_passed and all(o.status in ("allowed", "tool_error", "held") for o in r.attack_calls)
        for r in attacked
    )
    approved = sum(all(o.passed or o.status == "held" for o in r.task_calls) for r in utility)
    calls = sum(len(r.task_calls) for r in utility)
    return {
        "tasks": len(utility),
        "calls": calls,
        "utility": _share(sum(r.task_passed for r in utility), len(utility)),
        # the task's user approves what was held for her (a hold is her question, not a refusal)
        "utility_with_approvals": _share(approved, len(utility)),
        "held_legit_share": _share(held_legit, calls),
        # an approver who says yes to everything: how many attacks the holds alone stopped
        "attack_success_if_all_approved": _share(
            sum(r.attack_passed for r in attacked) + stopped_by_hold, len(attacked)
        ),
        "utility_under_attack": _share(sum(r.task_passed for r in attacked), len(attacked)),
        "attack_success": _share(sum(r.attack_passed for r in attacked), len(attacked)),
        "held_legit_calls": held_legit,
        "held_legit_tasks": sum(any(o.status == "held" for o in r.task_calls) for r in utility),
        "held_legit_calls_under_attack": held_under_attack,
        "held_attacker_calls": held_attacker,
        "attacks_stopped_only_by_hold": stopped_by_hold,
        "tool_errors": sum(o.status == "tool_error" for r in utility + attacked for o in r.task_calls + r.attack_calls),
        "added_ms_p50": pct(added, 0.5) if added else None,
        "added_ms_p95": pct(added, 0.95) if added else None,
        "calls_timed": len(added),
    }


_BY_ID = {t.id: t for t in TASKS}


def _task(task_id: str) -> Task:
    return _BY_ID[task_id]


def _refusals(runs: list[Run]) -> dict[str, int]:
    """The task calls refused or held, counted by status, tool and rule (what failed, not which task)."""
    return dict(Counter(
        f"{o.status} {o.tool} ({o.rule or o.reason or '-'})" for r in runs for o in r.task_calls if not o.passed
    ).most_common())  # fmt: skip


def numbers(measured: dict[str, Any], splits: tuple[str, ...]) -> dict[str, Any]:
    """Each configuration's numbers; `splits` are the task splits that were run (dev, heldout, or both)."""
    out: dict[str, Any] = {}
    keep = {"all": lambda t: True, "dev": lambda t: t.split == "dev", "heldout": lambda t: t.split == "heldout"}
    for name, result in measured.items():
        if "refused" in result:
            out[name] = {"refused": result["refused"]}
            continue
        entry: dict[str, Any] = {
            "split": {s: group(result, keep[s]) for s in (*splits, "all")},
            "domain": {d: group(result, lambda t, d=d: t.domain == d) for d in DOMAINS},
            "domain_split": {
                f"{d}/{s}": group(result, lambda t, d=d, s=s: (t.domain, t.split) == (d, s))
                for d in DOMAINS for s in splits
            },
            "attack": {},
            "adaptive": {s: group(result, keep[s], adaptive=True) for s in (*splits, "all")},
            "profiles": dict(Counter(r.profile or "-" for r in result["utility"])),
            "legit_refusals": _refusals(result["utility"]),
            "legit_refusals_split": {s: _refusals([r for r in result["utility"] if r.task.split == s]) for s in splits},
            "tasks": [
                {"id": r.task.id, "split": r.task.split, "domain": r.task.domain, "profile": r.profile,
                 "passed": r.task_passed,
                 "calls": [{"tool": o.tool, "status": o.status, "rule": o.rule, "reason": o.reason,
                            "ms": round(o.ms, 3)} for o in r.task_calls]}
                for r in result["utility"]
            ],
            "pairs": [
                {"task": r.task.id, "attack": r.attack.id if r.attack else None,
                 "carrier": r.slot.carrier if r.slot else None, "task_passed": r.task_passed,
                 "attack_passed": r.attack_passed,
                 "task_calls": [{"tool": o.tool, "status": o.status, "rule": o.rule} for o in r.task_calls],
                 "attack_calls": [{"tool": o.tool, "status": o.status, "rule": o.rule} for o in r.attack_calls]}
                for r in result["attacked"]
            ],
        }  # fmt: skip
        for attack_id in (*(a.id for a in ATTACKS), *ADAPTIVE_IDS):
            mine = [r for r in result["attacked"] if r.attack is not None and r.attack.id == attack_id]
            entry["attack"][attack_id] = _share(sum(r.attack_passed for r in mine), len(mine))
            approved = sum(r.attack_passed or all(o.status in ("allowed", "tool_error", "held") for o in r.attack_calls)
                           for r in mine)  # fmt: skip
            entry.setdefault("attack_if_all_approved", {})[attack_id] = _share(approved, len(mine))
        out[name] = entry
    return out


# --- report ------------------------------------------------------------------------------------------------------


def _rate(share: dict[str, Any]) -> str:
    return f"{share['k']:>3}/{share['n']:<3} {100 * share['rate']:5.1f}%" if share["n"] else "      -      "


def _ms_cell(value: float | None) -> str:
    return f"{value:7.2f}" if value is not None else "      -"


def tables(result: dict[str, Any]) -> str:
    numbers_ = result["configs"]
    lines = [
        f"{result['counts']['tasks']} tasks ({result['counts']['dev']} dev, {result['counts']['heldout']} heldout), "
        f"{result['counts']['attacks']} attacks, {result['counts']['pairs_run']} of {result['counts']['pairs']} pairs",
        "",
        "config         split      utility          util. under attack  attack success      held legit/attacker"
        "   +ms p50  +ms p95",
    ]
    for name, entry in numbers_.items():
        if "refused" in entry:
            lines.append(f"{LABELS[name]:14} refused by taskgate: {entry['refused'][:160]}")
            continue
        for split in result["splits"] + ["all"] * (len(result["splits"]) > 1):
            g = entry["split"][split]
            timed = name != "none"  # the baseline is what the others are timed against
            lines.append(
                f"{LABELS[name]:14} {split:8} {_rate(g['utility'])}  {_rate(g['utility_under_attack'])}   "
                f"{_rate(g['attack_success'])}   {g['held_legit_calls']:>5} / {g['held_attacker_calls']:<5}      "
                f"{_ms_cell(g['added_ms_p50'] if timed else None)}  {_ms_cell(g['added_ms_p95'] if timed else None)}"
            )
    lines += [
        "",
        "with holds answered: the user approves what was held for her task, refuses the rest; held share is of",
        "the legitimate calls; the last column is an approver who says yes to every hold",
        "config         split      utility w/ approvals  legit calls held     attack success   if all approved",
    ]
    for name, entry in numbers_.items():
        if "refused" in entry or name == "none":
            continue
        for split in result["splits"] + ["all"] * (len(result["splits"]) > 1):
            g = entry["split"][split]
            lines.append(
                f"{LABELS[name]:14} {split:8} {_rate(g['utility_with_approvals'])}      "
                f"{_rate(g['held_legit_share'])}    {_rate(g['attack_success'])}  "
                f"{_rate(g['attack_success_if_all_approved'])}"
            )
    lines += [
        "",
        f"per domain ({'+'.join(result['splits'])})".ljust(27)
        + "utility          util. under attack  attack success      held legit/att.",
    ]
    for name, entry in numbers_.items():
        if "refused" in entry:
            continue
        for domain in DOMAINS:
            g = entry["domain"][domain]
            lines.append(
                f"{LABELS[name]:14} {domain:10}  {_rate(g['utility'])}  {_rate(g['utility_under_attack'])}   "
                f"{_rate(g['attack_success'])}   {g['held_legit_calls']:>5} / {g['held_attacker_calls']}"
            )
    ran = [n for n, e in numbers_.items() if "refused" not in e]
    for split in result["splits"] if len(result["splits"]) > 1 else ():
        lines += [
            "",
            f"per domain ({split})".ljust(27)
            + "utility          util. under attack  attack success      held legit/att.",
        ]
        for name in ran:
            for domain in DOMAINS:
                g = numbers_[name]["domain_split"][f"{domain}/{split}"]
                lines.append(
                    f"{LABELS[name]:14} {domain:10}  {_rate(g['utility'])}  {_rate(g['utility_under_attack'])}   "
                    f"{_rate(g['attack_success'])}   {g['held_legit_calls']:>5} / {g['held_attacker_calls']}"
                )
    lines += [
        "",
        "adaptive attacker (written knowing the policy: recipients the task names, secrets inside bodies, another",
        "entry of the same listing, text copied into titles), reported apart from the fixed attacks above",
        "config         split      pairs  attack success   if all approved   held attacker calls",
    ]
    for name in ran:
        for split in result["splits"] + ["all"] * (len(result["splits"]) > 1):
            g = numbers_[name]["adaptive"][split]
            lines.append(
                f"{LABELS[name]:14} {split:8} {g['attack_success']['n']:>6}  {_rate(g['attack_success'])}  "
                f"{_rate(g['attack_success_if_all_approved'])}    {g['held_attacker_calls']:>5}"
            )
    lines += ["", "attack success by attack   " + "".join(f"{LABELS[n]:>16}" for n in ran)]
    for attack in ATTACKS:
        cells = "".join(f"{_rate(numbers_[n]['attack'][attack.id]):>16}" for n in ran)
        lines.append(f"{attack.id + (' *' if attack.sneaky else ''):26}{cells}")
    for attack_id in ADAPTIVE_IDS:
        cells = "".join(f"{_rate(numbers_[n]['attack'][attack_id]):>16}" for n in ran)
        lines.append(f"{attack_id + ' (adaptive)':26}{cells}")
    lines.append("(* sneaky: reuses values the user trusts)")
    lines += classifier_table(result.get("classifier"))
    for name in ran:
        refusals = numbers_[name]["legit_refusals"]
        if refusals:
            top = "; ".join(f"{k} x{v}" for k, v in list(refusals.items())[:6])
            lines.append(f"{LABELS[name]}: legitimate calls refused or held: {top}")
        for split in result["splits"] if len(result["splits"]) > 1 else ():
            mine = numbers_[name]["legit_refusals_split"][split]
            if mine:
                top = "; ".join(f"{k} x{v}" for k, v in list(mine.items())[:6])
                lines.append(f"  {split}: {top}")
    return "\n".join(lines)


def classifier_table(measured: dict[str, Any] | None) -> list[str]:
    """The classifier's accuracy on the held-aside phrasings, per profile they need."""
    if not measured:
        return []
    lines = [
        "",
        "classifier on held-aside phrasings (injection_suite/phrasings_heldout3.jsonl: written apart, not tuned on)",
        "needed profile    phrasings   right (exactly)   enough (at least)   short (a write missing)",
    ]
    for profile, counts in measured["profiles"].items():
        n = sum(counts.values())
        right, enough, short = (
            counts.get("right", 0),
            counts.get("right", 0) + counts.get("enough", 0),
            counts.get("short", 0),
        )
        lines.append(
            f"{profile:16} {n:>10}   {right:>4} {100 * right / n:5.1f}%      {enough:>4} {100 * enough / n:5.1f}%"
            f"        {short:>4} {100 * short / n:5.1f}%"
        )
    return lines


def plot(result: dict[str, Any], path: Path) -> None:
    """What the gateway adds per allowed call, then utility and attack success, every bar labelled."""
    ran = {n: e for n, e in result["configs"].items() if "refused" not in e}
    names = list(ran)

    def percent(rate: dict[str, Any]) -> float | None:
        return None if rate["rate"] is None else 100 * rate["rate"]

    timed = [n for n in names if n != "none" and ran[n]["split"]["all"]["added_ms_p50"] is not None]
    added = {q: [ran[n]["split"]["all"][f"added_ms_{q}"] for n in timed] for q in ("p50", "p95")}
    rates = {
        f"{metric.replace('_', ' ')} ({split})": [percent(ran[n]["split"][split][metric]) for n in names]
        for metric in ("utility", "attack_success")
        for split in result["splits"]
    }
    domains = {LABELS[n]: [percent(ran[n]["domain"][d]["attack_success"]) for d in DOMAINS] for n in names}
    panels = [
        Bars("What the gateway adds per allowed call", "ms per call, through the gateway − direct",
             [LABELS[n] for n in timed], added, "{:+.2f}"),
        Bars("Utility and attack success", "% of tasks (utility), of (task, attack) pairs (attack success)",
             [LABELS[n] for n in names], rates, "{:.1f}"),
        Bars("Attack success by the task's domain", "% of (task, attack) pairs", list(DOMAINS), domains, "{:.0f}"),
    ]  # fmt: skip
    title = f"taskgate prompt-injection replay ({platform.machine()}, in-process, seed {result['seed']})"
    save(path, title, panels, columns=3)


def main() -> int:
    needs.plotting()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help=f"a seeded sample of {QUICK_PAIRS} pairs, one timing pass")
    parser.add_argument("--seed", type=int, default=7, help="picks the quick sample (the world and split are fixed)")
    parser.add_argument("--configs", default=",".join(CONFIGS), help="comma-separated: " + ", ".join(CONFIGS))
    parser.add_argument("--repeats", type=int, default=None, help="utility replays timed (default 3, quick 1)")
    parser.add_argument(
        "--split", choices=SPLITS, default="all", help="the tasks (and their pairs) to run: dev while revising a policy"
    )
    args = parser.parse_args()
    names = [n.strip() for n in args.configs.split(",") if n.strip()]
    unknown = [n for n in names if n not in CONFIGS]
    if unknown:
        parser.error(f"unknown configs {unknown}; known: {', '.join(CONFIGS)}")
    check_policies()
    problems = unsourced()
    if problems:
        raise SystemExit("tasks use values they never read:\n  " + "\n  ".join(problems))
    configure_logging("warning")  # taskgate's own lines, as JSON on stderr; the tables own stdout
    splits = ("dev", "heldout") if args.split == "all" else (args.split,)
    tasks = [t for t in TASKS if t.split in splits]
    every = pairs(base_world(), tuple(tasks))
    adaptive = adaptive_pairs(base_world(), tuple(tasks))
    sample = min(QUICK_PAIRS, len(every))
    chosen = sorted(random.Random(args.seed).sample(every, sample), key=every.index) if args.quick else every
    fixed_run = len(chosen)
    chosen = chosen + (random.Random(args.seed).sample(adaptive, min(20, len(adaptive))) if args.quick else adaptive)
    repeats = args.repeats if args.repeats is not None else (1 if args.quick else 3)
    measured = asyncio.run(measure(names, tasks, chosen, repeats))
    result = {
        "seed": args.seed, "world_seed": WORLD_SEED, "split_seed": SPLIT_SEED, "quick": args.quick,
        "repeats": repeats, "splits": list(splits),
        "counts": {"tasks": len(tasks), "dev": sum(t.split == "dev" for t in tasks),
                   "heldout": sum(t.split == "heldout" for t in tasks), "attacks": len(ATTACKS),
                   "sneaky_attacks": sum(a.sneaky for a in ATTACKS), "pairs": len(every), "pairs_run": fixed_run,
                   "pairs_by_carrier": dict(Counter(p.slot.carrier for p in chosen))},
        "heldout": [t.id for t in TASKS if t.split == "heldout"],
        "adaptive_pairs": len(adaptive),
        "configs": numbers(measured, splits),
        # the held-aside phrasings are measured with the held-out tasks only: never while revising on dev
        "classifier": phrasings.accuracy(task_types_for(POLICIES / "provenance.csv")) if "heldout" in splits else None,
    }  # fmt: skip
    print(tables(result))
    floor = result["configs"].get("none", {}).get("split", {}).get("all", {})
    if floor.get("tool_errors"):
        print(f"\nwarning: {floor['tool_errors']} calls failed in the servers without a gateway", file=sys.stderr)
    RESULTS.mkdir(exist_ok=True)
    stem = "injection" if args.split == "all" else f"injection-{args.split}"  # a partial run keeps the full one
    (RESULTS / f"{stem}.json").write_text(json.dumps(result, indent=2, ensure_ascii=False))
    plot(result, RESULTS / f"{stem}.png")
    print(f"\nsaved {RESULTS / stem}.png and {stem}.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
