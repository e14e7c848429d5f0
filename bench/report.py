"""The benchmarks' shared report: labelled bar panels saved as one PNG, and bench/routing.py's figures.

Every benchmark's plot goes through `save`: a list of `Bars` panels, each a
set of labelled horizontal bars, so a benchmark says what it shows (what each
target adds over the baseline, on a linear axis, then the totals) and not how
matplotlib draws it.
"""

from __future__ import annotations

import math
import statistics
from collections import Counter as Tally
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeGuard

if TYPE_CHECKING:
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


# --- plots -------------------------------------------------------------------------------------

BAR_INCHES = 0.2  # one bar's height: room for its label in 8-point type
PANEL_INCHES = 1.2  # a panel's title, value axis and its title
COLUMN_INCHES = 7.5
OUTLIER = 3.0  # a value over this many times the next largest is drawn to the axis end
MARGIN_PX = 6  # between a label and the axis edge
OURS, THEIRS, BASE = "tab:blue", "tab:gray", "tab:green"  # a single series' groups: taskgate, peers, a baseline
SERIES = ("tab:orange", "tab:purple", "tab:olive", "tab:brown", "tab:pink", "tab:cyan", "tab:red")  # none of those


@dataclass(frozen=True)
class Bars:
    """One panel of horizontal bars: per group (a row) one bar per series, each labelled with its value.

    `unit` titles the value axis and names the unit. `fmt` formats each label (`{:+.2f}` for a
    difference). `log` is for totals that span decades; a difference stays linear (a lone outlier
    stops at the axis end, hatched, with its value in its label: see `_reach`). With one series,
    `colours` colours the groups (taskgate against the peers). A value of None (or NaN) draws no bar
    and is labelled "n/a".
    """

    title: str
    unit: str
    groups: Sequence[str]
    series: Mapping[str, Sequence[float | None]]
    fmt: str = "{:.2f}"
    log: bool = False
    colours: Sequence[str] | None = None

    @property
    def gap(self) -> float:
        return 0.8 if len(self.series) > 1 else 0.0

    @property
    def slots(self) -> float:
        """The panel's height in bars."""
        return len(self.groups) * (len(self.series) + self.gap)


def minus(values: Sequence[float | None], base: float | None) -> list[float | None]:
    """Each value less the baseline's: what it adds over it (None where either is missing)."""
    return [None if value is None or base is None else value - base for value in values]


def highlight(names: Sequence[str], ours: Callable[[str], bool], base: str | None = None) -> list[str]:
    """A colour per name: the baseline's in green, taskgate's in blue, everyone else's in grey."""
    return [BASE if name == base else OURS if ours(name) else THEIRS for name in names]


def save(path: Path, title: str, panels: Sequence[Bars], columns: int = 1) -> None:
    """The panels row by row, `columns` to a row, each row as tall as its longest panel, as one PNG.

    Panels that share their series (the same scenarios, say) share one legend at the bottom. A panel
    with no groups (a difference where only the baseline was measured) keeps its place, with a note;
    a row of them is left out. Each value axis is widened until every label fits inside it.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    columns = max(1, min(columns, len(panels)))
    grid = [panels[i : i + columns] for i in range(0, len(panels), columns)]
    grid = [row for row in grid if any(panel.slots for panel in row)]
    keyed = {tuple(panel.series) for row in grid for panel in row if len(panel.series) > 1 and panel.slots}
    heights = [PANEL_INCHES + BAR_INCHES * max(panel.slots for panel in row) for row in grid]
    size = (COLUMN_INCHES * columns, sum(heights) + 0.6)
    fig = plt.figure(figsize=size, layout=ConstrainedLayoutEngine(w_pad=0.15, h_pad=0.1))
    spec = fig.add_gridspec(len(grid), columns, height_ratios=heights)
    drawn = []
    for r, row in enumerate(grid):
        for c, panel in enumerate(row):
            ax = fig.add_subplot(spec[r, c])
            if not panel.slots:
                ax.set_title(panel.title, fontsize=10)
                ax.text(0.5, 0.5, "nothing to show: only the baseline was measured", ha="center", fontsize=9)
                ax.axis("off")
                continue
            drawn.append((ax, _draw(ax, panel, legend=len(keyed) > 1)))
    fig.suptitle(title)
    if len(keyed) == 1:
        (names,) = keyed
        fig.legend(handles=_key(names), loc="outside lower center", ncol=len(names), frameon=False, fontsize=9)
    fig.canvas.draw()  # lays the figure out: the labels' sizes are known from here
    for ax, texts in drawn:
        _fit(ax, texts)
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _draw(ax: Any, panel: Bars, legend: bool) -> list[Any]:
    """The bars and their labels; returns the labels."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    step = len(panel.series) + panel.gap
    known = [v for values in panel.series.values() for v in values if _known(v)]
    reach = None if panel.log else _reach(known)
    texts = []
    for j, values in enumerate(panel.series.values()):
        ys = [i * step + j for i in range(len(panel.groups))]
        widths = [_clip(v, reach) if _known(v) else (math.nan if panel.log else 0.0) for v in values]
        colour = panel.colours if len(panel.series) == 1 and panel.colours else SERIES[j % len(SERIES)]
        bars = ax.barh(ys, widths, 0.8, color=colour)
        for bar, value in zip(bars, values, strict=True):
            if _known(value) and reach is not None and abs(value) > reach:
                bar.set_hatch("///")
        texts += ax.bar_label(bars, labels=[_label(panel.fmt, v, reach) for v in values], padding=3, fontsize=8)
    ax.set_yticks([i * step + (len(panel.series) - 1) / 2 for i in range(len(panel.groups))])
    ax.set_yticklabels(panel.groups, fontsize=8)
    ax.set_ylim(len(panel.groups) * step - panel.gap - 0.4, -0.6)  # the first group on top
    ax.set_xlabel(panel.unit, fontsize=9)
    ax.set_title(panel.title, fontsize=10)
    ax.tick_params(axis="x", labelsize=8)
    ax.grid(axis="x", alpha=0.3)
    clipped = [_clip(v, reach) for v in known]
    if panel.log:
        ends = [math.log10(v) for v in clipped if v > 0] or [0.0]
        ax.set_xscale("log")
        few = max(ends) - min(ends) < 2  # within two decades, ticks at 1, 2 and 5 of each; else at each decade
        ax.xaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0) if few else (1.0,)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:,.0f}" if x >= 1 else f"{x:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())  # minor ticks unlabelled: on a short span they overlap
        ax.set_xlim(10 ** (min(ends) - 0.3), 10 ** max(ends))
    else:
        low, high = min([0.0, *clipped]), max([0.0, *clipped])
        ax.set_xlim(low, high if high > low else low + 1.0)
        if low < 0:
            ax.axvline(0, color="black", lw=0.8)
    if legend and len(panel.series) > 1:
        ax.legend(handles=_key(panel.series), fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    return texts


def _key(series: Iterable[str]) -> list[Any]:
    """A legend entry per series, in its colour (not a bar's, which may be hatched off scale)."""
    from matplotlib.patches import Patch

    return [Patch(color=SERIES[j % len(SERIES)], label=name) for j, name in enumerate(series)]


def _fit(ax: Any, texts: list[Any]) -> None:
    """Widen the value axis until every label, drawn beside its bar's end, lies inside the axes.

    A label keeps its size in pixels while its bar's end moves with the limits, so each label gives
    a bound on the limit at its side; twice, as widening one side moves the other's bars.
    """
    log = ax.get_xscale() == "log"
    unit = math.log10 if log else float
    renderer = ax.figure.canvas.get_renderer()
    for _ in range(2):
        box = ax.get_window_extent(renderer)
        low, high = (unit(x) for x in ax.get_xlim())
        for text in texts:
            end = text.xy[0]
            if not text.get_text() or not math.isfinite(end) or (log and end <= 0):
                continue
            extent, anchor = text.get_window_extent(renderer), ax.transData.transform(text.xy)[0]
            if extent.x1 > anchor + 1:  # beside a bar reaching right
                need = extent.x1 - anchor + MARGIN_PX
                high = max(high, low + (unit(end) - low) * box.width / max(box.width - need, 1.0))
            else:
                need = anchor - extent.x0 + MARGIN_PX
                low = min(low, high - (high - unit(end)) * box.width / max(box.width - need, 1.0))
        ax.set_xlim(*((10**low, 10**high) if log else (low, high)))


def _reach(values: list[float]) -> float | None:
    """How far a linear axis reaches: past the largest value that is not over 3 x the next largest.

    One outlier (a peer's 40 ms where everyone else adds 1) would otherwise flatten every other bar;
    its bar stops at the axis's end, hatched, and its label keeps its value.
    """
    sizes = sorted((abs(v) for v in values), reverse=True)
    while len(sizes) > 1 and sizes[0] > OUTLIER * sizes[1] > 0:
        sizes.pop(0)
    if not sizes or sizes[0] == max((abs(v) for v in values), default=0.0):
        return None
    return sizes[0] * 1.25


def _clip(value: float, reach: float | None) -> float:
    return value if reach is None else max(-reach, min(reach, value))


def _label(fmt: str, value: float | None, reach: float | None) -> str:
    if not _known(value):
        return "n/a"
    return fmt.format(value) + (" (off scale)" if reach is not None and abs(value) > reach else "")


def _known(value: float | None) -> TypeGuard[float]:
    return value is not None and not math.isnan(value)


BASELINE = "round robin"  # routing.py's difference panel: what each placement gains over the naive spread


def plot(rows: list[dict[str, Any]], path: Path, title: str) -> None:
    """TTFT p50 and p99 against round robin (or the first policy run), then the totals, every bar labelled."""
    names = [row["policy"] for row in rows]
    base = next((row for row in rows if row["policy"] == BASELINE), rows[0])
    others = [row for row in rows if row is not base]
    against = base["policy"]
    colours = highlight(names, lambda name: name == "taskgate", against)

    def column(key: str, scale: float = 1.0, of: list[dict[str, Any]] = rows) -> list[float | None]:
        return [row[key] * scale for row in of]

    panels = [
        Bars(
            f"Interactive TTFT {q} against {against} (negative: sooner)",
            f"ms, the policy's TTFT {q} − {against}'s",
            [row["policy"] for row in others],
            {q: minus(column(f"ttft_{q}_ms", of=others), base[f"ttft_{q}_ms"])},
            "{:+.0f}",
            colours=highlight([row["policy"] for row in others], lambda name: name == "taskgate"),
        )
        for q in ("p50", "p99")
    ]
    panels += [
        Bars("Interactive TTFT", "ms", names, {"p50": column("ttft_p50_ms"), "p99": column("ttft_p99_ms")}, "{:.0f}"),
        Bars(
            "Cache hits and interactive requests in target",
            "% (of prompt tokens; of interactive requests)",
            names,
            {
                "prompt tokens from cache": column("cached_share", 100),
                "within TTFT target": column("interactive_within_target", 100),
            },
            "{:.1f}",
        ),
        Bars("Cost", "$ (the pools' prices)", names, {"cost": column("cost_usd")}, "{:.3f}", colours=colours),
        Bars(
            "Total time", "s, first arrival to last answer", names, {"s": column("total_s")}, "{:.1f}", colours=colours
        ),
        Bars(
            "Engine load",
            "busiest engine's requests / the mean",
            names,
            {"load": column("load_max_over_mean")},
            colours=colours,
        ),
    ]
    save(path, title, panels, columns=2)
