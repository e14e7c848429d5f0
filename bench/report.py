"""Per-policy figures, the table and the plot of bench/routing.py."""

from __future__ import annotations

import statistics
from collections import Counter as Tally
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from cluster import Counters, Pool
from drive import Run


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile; NaN for no values."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def summarise(
    policy: str,
    run: Run,
    counters: dict[str, Counters],
    pools: dict[str, Pool],
    planned: dict[str, int],
    ttft_target_s: float,
) -> dict[str, Any]:
    """One row: client-side latency and usage, engine-side load and cost.

    `pools` maps engine name to its pool; `planned` counts the workload's requests by kind.
    """
    ok = [r for r in run.records if r.ok]
    interactive = [r.ttft_s for r in ok if r.kind == "interactive" and r.ttft_s is not None]
    batch = [r.total_s for r in ok if r.kind == "batch"]
    prompt = sum(r.prompt_tokens for r in ok)
    cached = sum(r.cached_tokens for r in ok)
    loads = {name: c.requests for name, c in counters.items()}
    mean_load = statistics.fmean(loads.values()) if loads else 0.0
    within = sum(1 for t in interactive if t <= ttft_target_s)
    seen = Tally(r.engine for r in ok)
    return {
        "policy": policy,
        "requests": len(run.records),
        "ok": len(ok),
        "errors": len(run.records) - len(ok),
        "unfinished_sessions": run.unfinished_sessions,
        "prompt_tokens": prompt,
        "cached_tokens": cached,
        "cached_share": cached / prompt if prompt else 0.0,
        "ttft_p50_ms": percentile(interactive, 0.5) * 1000,
        "ttft_p99_ms": percentile(interactive, 0.99) * 1000,
        "batch_p50_s": percentile(batch, 0.5),
        "total_s": run.elapsed_s,
        "engine_requests": loads,
        "engine_requests_by_header": {str(k): v for k, v in seen.items()},
        "load_max_over_mean": max(loads.values()) / mean_load if mean_load else float("nan"),
        "cost_usd": sum(c.cost(pools[name]) for name, c in counters.items()),
        "engine_cached_share": _engine_share(counters.values()),
        "engine_cached_share_by_engine": {name: _engine_share([c]) for name, c in counters.items()},
        "interactive_within_target": within / planned["interactive"] if planned["interactive"] else 0.0,
        "errors_sample": sorted({r.error or "" for r in run.records if not r.ok})[:3],
    }


def _engine_share(counters: Iterable[Counters]) -> float:
    """Prompt tokens found cached over prompt tokens, as the engines counted them."""
    prompt = cached = 0.0
    for c in counters:
        prompt, cached = prompt + c.prompt_tokens, cached + c.cached_tokens
    return cached / prompt if prompt else 0.0


COLUMNS = (
    ("policy", "policy", "{:<22}", 22),
    ("cached %", "cached_share", "{:>8.1%}", 8),
    ("TTFT p50 ms", "ttft_p50_ms", "{:>11.0f}", 11),
    ("TTFT p99 ms", "ttft_p99_ms", "{:>11.0f}", 11),
    ("total s", "total_s", "{:>8.1f}", 8),
    ("load max/mean", "load_max_over_mean", "{:>13.2f}", 13),
    ("cost $", "cost_usd", "{:>8.3f}", 8),
    ("in target %", "interactive_within_target", "{:>11.1%}", 11),
    ("errors", "errors", "{:>6d}", 6),
)


def table(rows: list[dict[str, Any]]) -> str:
    head = " ".join(
        f"{title:<{width}}" if i == 0 else f"{title:>{width}}" for i, (title, _, _, width) in enumerate(COLUMNS)
    )
    lines = [head, "-" * len(head)]
    for row in rows:
        lines.append(" ".join(fmt.format(row[key]) for _, key, fmt, _ in COLUMNS))
    return "\n".join(lines)


def engines_table(rows: list[dict[str, Any]]) -> str:
    """Requests each engine served, per policy (from the engines' /metrics)."""
    names = sorted({name for row in rows for name in row["engine_requests"]})
    head = f"{'policy':<22} " + " ".join(f"{name:>8}" for name in names)
    lines = [head, "-" * len(head)]
    for row in rows:
        counts = row["engine_requests"]
        lines.append(f"{row['policy']:<22} " + " ".join(f"{counts.get(name, 0):8.0f}" for name in names))
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [row["policy"] for row in rows]
    xs = list(range(len(rows)))
    colours = ["tab:blue" if row["policy"] == "taskgate" else "tab:gray" for row in rows]
    fig, axes = plt.subplots(2, 3, figsize=(15, 8))
    panels = [
        ("Prompt tokens served from cache (%)", [100 * r["cached_share"] for r in rows]),
        ("Interactive TTFT: p99 bars, p50 marks (ms, log)", [r["ttft_p99_ms"] for r in rows]),
        ("Total time (s)", [r["total_s"] for r in rows]),
        ("Engine load, max / mean requests", [r["load_max_over_mean"] for r in rows]),
        ("Cost ($)", [r["cost_usd"] for r in rows]),
        ("Interactive requests within TTFT target (%)", [100 * r["interactive_within_target"] for r in rows]),
    ]
    for axis, (label, values) in zip(axes.flat, panels, strict=True):
        axis.bar(xs, values, color=colours)
        axis.set_title(label, fontsize=10)
        axis.set_xticks(xs)
        axis.set_xticklabels(names, rotation=25, ha="right", fontsize=8)
    p50 = [r["ttft_p50_ms"] for r in rows]
    axes.flat[1].scatter(xs, p50, color="black", marker="_", s=300, zorder=3)
    axes.flat[1].set_yscale("log")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
