"""The latency and throughput taskgate adds, against a direct call and peer routers.

    python bench/overhead.py                 # everything installed; peers via `pip install -e '.[bench]'`
    python bench/overhead.py --no-peers      # direct and taskgate only (with and without tracing)

One minimal upstream (bench/upstream.py) answers instantly; each target runs as
its own process in front of it, one at a time, on this machine. `taskgate +
tracing` is the default taskgate with every request traced (sampling 1.0),
exported over OTLP/HTTP by the batch processor to a stand-in collector on
127.0.0.1 (a process of its own). Prints a table and saves bench/results/overhead.png
and overhead.json. Not a test: numbers depend on the machine and on what else
runs on it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import platform
import sys
from collections.abc import Callable
from dataclasses import asdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import needs

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import latency, throughput
from report import Bars, highlight, minus, save
from targets import Target, _taskgate, free_port, start_upstream, targets

RESULTS = Path(__file__).resolve().parent / "results"


def measure(target: Target, upstream: str, args: argparse.Namespace) -> dict[str, Any]:
    base = target.start(upstream, RESULTS)
    try:
        whole = asyncio.run(latency(base, args.requests, args.warmup, False, target.headers))
        stream = asyncio.run(latency(base, args.requests, args.warmup, True, target.headers))
        rps, errors = asyncio.run(throughput(base, args.concurrency, args.seconds, target.headers))
    finally:
        target.stop()
    return {"target": target.name, "whole": asdict(whole), "stream": asdict(stream), "rps": rps, "rps_errors": errors}


class Collector:
    """A stand-in OTLP/HTTP collector in a process of its own (so its work slows neither taskgate nor the load
    generator): takes POST /v1/traces, counts exports and bytes, answers an empty 200."""

    def __init__(self) -> None:
        self.port = free_port()
        self.exports, self.received = multiprocessing.Value("q", 0), multiprocessing.Value("q", 0)
        self.proc = multiprocessing.Process(target=_collect, args=(self.port, self.exports, self.received), daemon=True)
        self.proc.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1/traces"

    def stop(self) -> str:
        self.proc.terminate()
        self.proc.join(timeout=10)
        return f"{self.exports.value} OTLP exports, {self.received.value} bytes received by the collector"


def _collect(port: int, exports: Any, received: Any) -> None:
    class Traces(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            with exports.get_lock():
                exports.value += 1
                received.value += len(body)
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            return None

    ThreadingHTTPServer(("127.0.0.1", port), Traces).serve_forever()


def traced(collector: str) -> Callable[[str, int, Path], tuple[list[str], dict[str, str], str]]:
    """The default taskgate, every request traced and exported to `collector`."""
    plain = _taskgate(evidence=True)

    def launch(upstream: str, port: int, logs: Path) -> tuple[list[str], dict[str, str], str]:
        argv, env, ready = plain(upstream, port, logs)
        config = logs / "taskgate-tracing.yaml"
        tracing = f"tracing: {{enabled: true, endpoint: '{collector}', sample_ratio: 1.0}}\n"
        config.write_text(Path(argv[-1]).read_text() + tracing)
        return [*argv[:-1], str(config)], env, ready

    return launch


def table(rows: list[dict[str, Any]], concurrency: int) -> str:
    direct = rows[0]
    head = (
        f"{'target':<28} {'p50 ms':>8} {'p99 ms':>8} {'+p50':>7} {'+p99':>7}"
        f" {'ttfb p50':>9} {'ttfb p99':>9} {'+ttfb':>7} {f'req/s c={concurrency}':>12} {'errors':>6}"
    )
    lines = [head, "-" * len(head)]
    for row in rows:
        w, s = row["whole"], row["stream"]
        added = w["p50_ms"] - direct["whole"]["p50_ms"], w["p99_ms"] - direct["whole"]["p99_ms"]
        added_ttfb = s["p50_ms"] - direct["stream"]["p50_ms"]
        errors = w["errors"] + s["errors"] + row["rps_errors"]
        lines.append(
            f"{row['target']:<28} {w['p50_ms']:8.3f} {w['p99_ms']:8.3f} {added[0]:7.3f} {added[1]:7.3f}"
            f" {s['p50_ms']:9.3f} {s['p99_ms']:9.3f} {added_ttfb:7.3f} {row['rps']:12.0f} {errors:6d}"
        )
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], path: Path, concurrency: int) -> None:
    """What each target adds over the direct call, then the totals and the throughput, every bar labelled."""
    direct, names = rows[0], [r["target"] for r in rows]
    colours = highlight(names, lambda name: name.startswith("taskgate"), direct["target"])

    def ms(kind: str, key: str, of: list[dict[str, Any]] = rows) -> list[float | None]:
        return [r[kind][key] for r in of]

    added = {
        "p50": minus(ms("whole", "p50_ms", rows[1:]), direct["whole"]["p50_ms"]),
        "p99": minus(ms("whole", "p99_ms", rows[1:]), direct["whole"]["p99_ms"]),
        "stream TTFB p50": minus(ms("stream", "p50_ms", rows[1:]), direct["stream"]["p50_ms"]),
    }
    totals = {"p50": ms("whole", "p50_ms"), "p99": ms("whole", "p99_ms"), "stream TTFB p50": ms("stream", "p50_ms")}
    rps = {"req/s": [r["rps"] for r in rows]}
    panels = [
        Bars(
            "Latency each target adds over the direct call",
            "ms per request, the target's − direct's, concurrency 1",
            names[1:],
            added,
            "{:+.2f}",
        ),
        Bars("Latency through each target", "ms per request, concurrency 1 (log)", names, totals, log=True),
        Bars(f"Closed-loop throughput, {concurrency} clients", "requests / s", names, rps, "{:,.0f}", colours=colours),
    ]
    title = f"taskgate overhead vs direct and peers ({platform.processor() or platform.machine()}, 2 cores shared)"
    save(path, title, panels, columns=2)


def main() -> int:
    needs.plotting()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--requests", type=int, default=2000, help="sequential requests per latency run")
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=5.0, help="length of the throughput run")
    parser.add_argument("--no-peers", action="store_true", help="skip sglang-router, vllm-router and litellm")
    args = parser.parse_args()
    RESULTS.mkdir(exist_ok=True)
    chosen, missing = targets(include_peers=not args.no_peers)
    collector = Collector()
    after = next(i for i, t in enumerate(chosen) if t.name.startswith("taskgate")) + 1
    chosen.insert(after, Target("taskgate + tracing", traced(collector.url)))
    upstream_proc, upstream = start_upstream(RESULTS)
    rows = []
    try:
        for target in chosen:
            print(f"measuring {target.name} ...", file=sys.stderr, flush=True)
            try:
                rows.append(measure(target, upstream, args))
            except RuntimeError as exc:
                missing.append(f"{target.name}: {exc} (see bench/results/*.log)")
    finally:
        upstream_proc.terminate()
        upstream_proc.wait(timeout=10)
    print(table(rows, args.concurrency))
    print(f"tracing: {collector.stop()}")
    for note in missing:
        print(f"skipped {note}")
    (RESULTS / "overhead.json").write_text(json.dumps({"args": vars(args), "rows": rows, "skipped": missing}, indent=2))
    plot(rows, RESULTS / "overhead.png", args.concurrency)
    print(f"plot: {RESULTS / 'overhead.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
