"""Fuzz a real `taskgate serve` on every surface: 5xx from bad input, tracebacks, hangs, liveness, memory.

    python bench/fuzz.py                      # 10,000 requests per surface (chat, /mcp, /v1/tasks)
    python bench/fuzz.py --per-surface 2000 --concurrency 16 --seed 7

The proxy runs as its own process on the demo's embedded defaults (NER PII,
the classifier, JWT authentication, per-task grants, the MCP gateway in front
of two SDK tool servers, a simulated pool). Requests come from the strategies
in tests/fuzzing.py, raw on a socket. Reports per surface: answers by status
class, 5xx, hangs over 10 s, closings without an answer, answers not in the
surface's error format; for the process: tracebacks in its log, whether it is
alive, its resident memory after warm-up and at the end. Prints a table and
saves bench/results/fuzz.png and fuzz.json. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import needs
import yaml
from aiohttp import web

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from targets import free_port, wait_ready  # noqa: E402

from taskgate.demo import tools as demo_tools  # noqa: E402
from taskgate.demo.run import demo_config  # noqa: E402
from taskgate.sim import PROFILES  # noqa: E402
from taskgate.sim import create_app as create_sim  # noqa: E402
from tests.fuzzing import SURFACES, Request, examples, judge, requests, send  # noqa: E402

RESULTS = ROOT / "bench" / "results"
FORMAT_PROBLEMS = ("an error answer", "an /mcp error", "an OpenAI error")
WARM_UP_SHARE = 0.2  # memory is compared from here on: caches and pools have filled by then


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


async def start_engine() -> tuple[web.AppRunner, list[dict[str, Any]]]:
    profile = dataclasses.replace(PROFILES["instant"], models=("agent",))
    runner = web.AppRunner(create_sim(profile, "sim-0"), access_log=None)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    pool = {"name": "sim", "endpoints": [{"name": "sim-0", "url": f"http://127.0.0.1:{port}"}],
            "models": [{"name": "agent"}]}  # fmt: skip
    return runner, [pool]


@contextlib.asynccontextmanager
async def tool_servers() -> AsyncIterator[dict[str, str]]:
    """The demo's MCP tool servers in a process of their own, so the load this one drives does not starve them."""
    child = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--serve-tools", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE
    )
    assert child.stdout is not None
    assert child.stdin is not None
    try:
        yield json.loads(await asyncio.wait_for(child.stdout.readline(), 60))
    finally:
        child.stdin.close()  # the child serves until its standard input closes
        await child.wait()


async def serve_tools() -> None:
    async with demo_tools.tool_servers() as tools:
        print(json.dumps(tools), flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)


def serve(config: dict[str, Any], folder: Path) -> tuple[subprocess.Popen[bytes], int, Path]:
    port = free_port()
    config["server"] = {"port": port, "body_timeout_s": 2.0}
    config["logging"] = {"level": "info", "evidence": False}
    path, log = folder / "taskgate.yaml", folder / "taskgate.log"
    path.write_text(yaml.safe_dump(config))
    command = [sys.executable, "-m", "taskgate", "serve", "-c", str(path)]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log.open("wb"), cwd=folder)
    wait_ready(f"http://127.0.0.1:{port}/readyz", 120, proc)
    return proc, port, log


async def mcp_session(port: int, token: str) -> str:
    hello = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}
    body = json.dumps(hello).encode()
    headers = ((b"Content-Type", b"application/json"), (b"Authorization", f"Bearer {token}".encode()))
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(Request("mcp", "/mcp", headers, body).wire())
    answer = await reader.read()
    writer.close()
    line = next(h for h in answer.split(b"\r\n") if h.lower().startswith(b"mcp-session-id:"))
    return line.split(b":", 1)[1].strip().decode()


def error_code(body: bytes) -> str:
    """The stable code of an error answer: OpenAI `error.code`, or JSON-RPC `error.data.reason` (else its number)."""
    try:
        error = json.loads(body).get("error") or {}
    except (ValueError, AttributeError):
        return "?"
    data = error.get("data")
    reason = data.get("reason") if isinstance(data, dict) else None
    return str(reason or error.get("code"))


async def drive(port: int, drawn: list[Request], concurrency: int, pid: int, before: int) -> dict[str, Any]:
    """Send `drawn` with `concurrency` at once; RSS is sampled every 250 answers (counted from `before`)."""
    gate = asyncio.Semaphore(concurrency)
    statuses: Counter[str] = Counter()
    codes: Counter[str] = Counter()
    problems: Counter[str] = Counter()
    samples: list[dict[str, Any]] = []
    memory: list[tuple[int, float]] = []
    slowest = 0.0
    done = 0

    async def one(request: Request) -> None:
        nonlocal slowest, done
        async with gate:
            status, body, seconds = await send("127.0.0.1", port, request)
        verdict = judge(request, status, body, seconds)
        statuses[f"{status // 100}xx" if status else "none"] += 1
        codes[error_code(body) if status and status >= 400 else str(status)] += 1
        slowest = max(slowest, seconds)
        for problem in verdict.problems:
            problems[problem.split(":")[0]] += 1
            if len(samples) < 20:
                samples.append({"problem": problem, "status": status, "body": body[:300].decode("utf-8", "replace"),
                                "request": request.wire()[:600].decode("utf-8", "replace")})  # fmt: skip
        done += 1
        if done % 250 == 0:
            memory.append((before + done, rss_mb(pid)))

    await asyncio.gather(*(one(r) for r in drawn))
    return {"statuses": dict(statuses), "codes": dict(codes.most_common(12)), "problems": dict(problems),
            "samples": samples, "memory": memory,
            "slowest_s": round(slowest, 3)}  # fmt: skip


async def run(args: argparse.Namespace) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="taskgate-fuzz-"))
    authz, token = demo_tools.prepare(folder)
    engine, pools = await start_engine()
    results: dict[str, Any] = {"surfaces": {}}
    async with tool_servers() as tools:
        proc, port, log = serve(demo_config(pools, authz, tools), folder)
        try:
            session = await mcp_session(port, token)
            started_rss = rss_mb(proc.pid)
            sent = 0
            for surface in SURFACES:
                drawn = examples(requests(surface, token, session, "agent"), args.per_surface, derandomize=False)
                began = time.perf_counter()
                found = await drive(port, drawn, args.concurrency, proc.pid, sent)
                sent += len(drawn)
                found |= {"requests": len(drawn), "seconds": round(time.perf_counter() - began, 1)}
                results["surfaces"][surface] = found
                print(f"{surface}: {len(drawn)} requests in {found['seconds']} s", file=sys.stderr)
            memory = [m for s in results["surfaces"].values() for m in s["memory"]]
            results["alive"] = proc.poll() is None
            results["rss_mb"] = {"start": started_rss, "end": rss_mb(proc.pid)}
        finally:
            proc.terminate()
            await asyncio.to_thread(proc.wait, 30)
            await engine.cleanup()
    text = log.read_text(errors="replace")
    results["log_tracebacks"] = text.count("Traceback (most recent call last)")
    results["log_errors"] = sum(1 for line in text.splitlines() if '"level": "error"' in line)
    warm = memory[int(len(memory) * WARM_UP_SHARE)][1] if memory else float("nan")
    results["rss_mb"] |= {"after_warm_up": warm, "growth_after_warm_up_pct": 100.0 * (results["rss_mb"]["end"] - warm)
                          / warm}  # fmt: skip
    results["memory"] = memory
    results["log"] = str(log)
    return results


def table(results: dict[str, Any]) -> str:
    head = f"{'surface':<8} {'requests':>8} {'2xx':>6} {'4xx':>6} {'5xx':>5} {'hangs':>5} {'no answer':>9} " \
           f"{'bad format':>10} {'slowest s':>9}"  # fmt: skip
    lines = [head, "-" * len(head)]
    for surface, found in results["surfaces"].items():
        s, p = found["statuses"], found["problems"]
        lines.append(
            f"{surface:<8} {found['requests']:>8} {s.get('2xx', 0):>6} {s.get('4xx', 0):>6} {s.get('5xx', 0):>5} "
            f"{p.get('no answer within 10 s', 0):>5} {p.get('the connection closed without an answer', 0):>9} "
            f"{sum(v for k, v in p.items() if k.startswith(FORMAT_PROBLEMS)):>10} "
            f"{found['slowest_s']:>9}"
        )
    rss = results["rss_mb"]
    lines += ["", "most frequent answers (error code, or status):"]
    for surface, found in results["surfaces"].items():
        lines.append(f"  {surface}: " + ", ".join(f"{code} {n}" for code, n in found["codes"].items()))
    lines += [
        "",
        f"process alive: {results['alive']}; tracebacks in its log: {results['log_tracebacks']}; "
        f"error lines: {results['log_errors']}",
        f"RSS MB: start {rss['start']:.0f}, after warm-up {rss['after_warm_up']:.0f}, end {rss['end']:.0f} "
        f"({rss['growth_after_warm_up_pct']:+.1f}% after warm-up)",
    ]
    return "\n".join(lines)


def plot(results: dict[str, Any], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (memory, answers) = plt.subplots(1, 2, figsize=(12, 4.5))
    memory.plot([n for n, _ in results["memory"]], [rss for _, rss in results["memory"]], marker=".")
    warm = results["rss_mb"]["after_warm_up"]
    memory.axhline(warm, color="grey", linestyle="--", label=f"after warm-up {warm:.0f} MB")
    memory.axhline(warm * 1.1, color="red", linestyle=":", label="+10% (target bound)")
    memory.set(xlabel="requests sent", ylabel="taskgate RSS (MB)", title="Memory while fuzzing")
    memory.legend()
    surfaces = list(results["surfaces"])
    bottom = [0] * len(surfaces)
    for kind, colour in (("2xx", "tab:green"), ("4xx", "tab:blue"), ("5xx", "tab:red"), ("none", "tab:grey")):
        counts = [results["surfaces"][s]["statuses"].get(kind, 0) for s in surfaces]
        bars = answers.bar(surfaces, counts, bottom=bottom, color=colour, label=kind)
        answers.bar_label(bars, labels=[str(c) if c else "" for c in counts], label_type="center")
        bottom = [b + c for b, c in zip(bottom, counts, strict=True)]
    answers.set(ylabel="answers", title="Answers by status class")
    answers.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    needs.plotting()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-surface", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--serve-tools", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve_tools:
        asyncio.run(serve_tools())
        return
    results = asyncio.run(run(args))
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "fuzz.json").write_text(json.dumps(results, indent=2))
    print(table(results))
    plot(results, RESULTS / "fuzz.png")
    print(f"\nsaved {RESULTS / 'fuzz.json'} and {RESULTS / 'fuzz.png'}; the proxy's log: {results['log']}")


if __name__ == "__main__":
    main()
