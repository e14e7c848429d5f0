"""Prefill and decode on different engines: long documents beside interactive chat, at 50% and 80% load.

    python bench/pd.py                      # 50% and 80% load, 60 s of arrivals each, every scenario
    python bench/pd.py --seconds 20 --loads 0.8 --no-peers

Six `taskgate sim` engines (the h100 profile slowed to 1,000 prefill tokens/s
and 50 ms per output token, vLLM's chunked prefill in chunks of 512 tokens,
and `--prefill-stalls-decode`: a decode step waits for the prefill chunk
computing beside it, as one GPU batch does) are started fresh for every
scenario, so each begins with cold caches:

- `aggregated`: six engines of role both, one pool; taskgate places whole requests as ever;
- `always-disaggregated`: five prefill engines and one decode engine, `disaggregation.mode: always`;
- `taskgate decision`: the same engines, `mode: auto` (docs/steps/routing.route.md);
- `vllm-router P/D`: the same engines behind vllm-router 0.1.17 `--vllm-pd-disaggregation --kv-connector nixl`
  (it speaks the same kv_transfer_params exchange; every request is disaggregated).

The split (five to one) follows the work: the documents are about 85% of the
prompt tokens to prefill, so five engines prefill them at the load the six
aggregated engines carry, and one decode engine has room for every decode and
the chats' short uncached prompts. Load is the offered prefill work over the
six engines' prefill capacity: arrivals (Poisson, seeded, the same in every
scenario) at load × 6 × 1,000 / the mean uncached prompt. 90% are chats (a
400-token system prompt every chat shares, then 60 tokens of their own, 32
tokens answered), 10% long documents (3,000 tokens of their own, 16
answered); all stream, and none names a class, so both are interactive.
TTFT is the first content chunk; ITL every gap between two content chunks of
an answer, pooled per class. The first 5 s of arrivals warm the caches and
are not counted.

sglang-router's `--pd-disaggregation` is not measured: it speaks SGLang's
bootstrap protocol (it sends both engines the whole request at once with
`bootstrap_host`, `bootstrap_port` and `bootstrap_room`, and the decode engine
meets the prefill engine at that address), which neither these sims nor vLLM
speak. LiteLLM's proxy has no prefill/decode mode. Prints a table and saves
bench/results/pd.png and pd.json. Not a test: the numbers belong to the
machine and to what else runs on it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import string
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
from cluster import env_offline, stop_on_signals, stop_process
from report import Bars, percentile, save
from targets import free_port, wait_ready

RESULTS = Path(__file__).resolve().parent / "results"
MODEL = "m"
PREFILL_TPS, TPOT_MS, CHUNK, KV_GB_PER_S = 1_000.0, 50.0, 512, 10.0
ENGINES, PREFILLS = 6, 5
CHAT_SHARED, CHAT_OWN, CHAT_ANSWER = 400, 60, 32
DOC_TOKENS, DOC_ANSWER, DOC_SHARE = 3_000, 16, 0.1
WARM_S = 5.0
SCENARIOS = ("aggregated", "always-disaggregated", "taskgate decision", "vllm-router P/D")


@dataclass
class Record:
    kind: str  # chat or document
    sent_at: float
    ttft_s: float | None = None
    gaps: list[float] = field(default_factory=list)
    error: str | None = None
    split: bool = False  # its prompt was prefilled on a prefill engine


def words(rng: random.Random, count: int) -> str:
    """`count` three-letter words: one sim token each, and four characters each as routing estimates tokens."""
    return " ".join("".join(rng.choices(string.ascii_lowercase, k=3)) for _ in range(count))


Plan = list[tuple[float, str, dict[str, Any]]]  # arrival (s), kind, body


def workload(seed: int, load: float, seconds: float) -> Plan:
    """Arrival times and bodies: Poisson arrivals at the rate that offers `load` of the prefill capacity."""
    rng = random.Random(seed)
    mean_uncached = DOC_SHARE * DOC_TOKENS + (1 - DOC_SHARE) * CHAT_OWN
    rate = load * ENGINES * PREFILL_TPS / mean_uncached
    system = "You are a helpful assistant for the support desk. " + words(random.Random(7), CHAT_SHARED - 10)
    out: Plan = []
    at = 0.0
    while True:
        at += rng.expovariate(rate)
        if at >= seconds:
            return out
        if rng.random() < DOC_SHARE:
            text = "Summarise this document: " + words(rng, DOC_TOKENS)
            kind, body = "document", {"messages": [{"role": "user", "content": text}], "max_tokens": DOC_ANSWER}
        else:
            messages = [{"role": "system", "content": system}, {"role": "user", "content": words(rng, CHAT_OWN)}]
            kind, body = "chat", {"messages": messages, "max_tokens": CHAT_ANSWER}
        out.append((at, kind, {"model": MODEL, "stream": True, **body}))


async def one(session: aiohttp.ClientSession, url: str, body: dict[str, Any], record: Record, peer: bool) -> None:
    started = time.perf_counter()
    last: float | None = None
    try:
        async with session.post(url + "/v1/chat/completions", json=body) as resp:
            record.split = peer or bool(resp.headers.get("x-taskgate-prefill-endpoint"))  # the peer splits all
            if resp.status != 200:
                record.error = f"{resp.status}: {(await resp.text())[:120]}"
                return
            async for line in resp.content:
                if not line.startswith(b"data: {"):
                    continue
                chunk = json.loads(line[6:])
                if not chunk.get("choices") or not chunk["choices"][0].get("delta", {}).get("content"):
                    continue
                now = time.perf_counter()
                if last is None:
                    record.ttft_s = now - started
                else:
                    record.gaps.append(now - last)
                last = now
    except (aiohttp.ClientError, TimeoutError) as exc:
        record.error = repr(exc)[:120]


async def drive(url: str, plan: Plan, label: str) -> list[Record]:
    records: list[Record] = []
    tasks = []
    timeout = aiohttp.ClientTimeout(total=300)
    async with aiohttp.ClientSession(timeout=timeout, connector=aiohttp.TCPConnector(limit=0)) as session:
        t0 = time.perf_counter()
        for at, kind, body in plan:
            delay = t0 + at - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            record = Record(kind, at)
            records.append(record)
            tasks.append(asyncio.create_task(one(session, url, body, record, label == "vllm-router P/D")))
        await asyncio.gather(*tasks)
    return records


@dataclass
class Stack:
    """The engines and the router in front of them, started fresh for one scenario."""

    scenario: str
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)
    logs: Path = RESULTS

    def start(self) -> str:
        roles = ["both"] * ENGINES if self.scenario == "aggregated" else ["prefill"] * PREFILLS + ["decode"]
        engines = [(f"{role}-{i}", role, free_port()) for i, role in enumerate(roles)]
        for name, role, port in engines:
            argv = [sys.executable, "-m", "taskgate", "sim", "h100", "--port", str(port), "--name", name]
            argv += ["--model", MODEL, "--role", role, "--prefill-tps", str(PREFILL_TPS), "--tpot-ms", str(TPOT_MS)]
            argv += ["--prefill-chunk-tokens", str(CHUNK), "--prefill-stalls-decode"]
            argv += ["--kv-transfer-gb-per-s", str(KV_GB_PER_S)]
            self.procs.append(self._spawn(argv, f"pd-{name}"))
        for (_, _, port), proc in zip(engines, self.procs, strict=True):
            wait_ready(f"http://127.0.0.1:{port}/health", 60, proc)
        port = free_port()
        if self.scenario == "vllm-router P/D":
            argv = [str(Path(sys.executable).parent / "vllm-router"), "--vllm-pd-disaggregation"]
            argv += ["--host", "127.0.0.1", "--port", str(port), "--kv-connector", "nixl", "--log-level", "warning"]
            for _, role, p in engines:
                argv += ["--prefill" if role == "prefill" else "--decode", f"http://127.0.0.1:{p}"]
            argv += ["--prometheus-host", "127.0.0.1", "--prometheus-port", str(free_port())]
            self.procs.append(self._spawn(argv, "pd-vllm-router"))
            wait_ready(f"http://127.0.0.1:{port}/readiness", 60, self.procs[-1])
        else:
            config = self.logs / f"pd-{self.scenario.replace(' ', '-')}.yaml"
            config.write_text(json.dumps(self._config(engines, port)))
            self.procs.append(
                self._spawn([sys.executable, "-m", "taskgate", "serve", "-c", str(config)], "pd-taskgate")
            )
            wait_ready(f"http://127.0.0.1:{port}/readyz", 60, self.procs[-1])
        return f"http://127.0.0.1:{port}"

    def _config(self, engines: list[tuple[str, str, int]], port: int) -> dict[str, Any]:
        def pool(name: str, role: str) -> dict[str, Any]:
            endpoints = [{"name": n, "url": f"http://127.0.0.1:{p}"} for n, r, p in engines if r == role]
            return {"name": name, "role": role, "zone": "rack-1", "endpoints": endpoints, "models": [{"name": MODEL}],
                    "prefill_tokens_per_s": PREFILL_TPS, "targets": {"tpot_ms": TPOT_MS}}  # fmt: skip

        if self.scenario == "aggregated":
            pools = [pool("whole", "both")]
        else:
            pools = [pool("prefill", "prefill"), pool("decode", "decode")]
        mode = "always" if self.scenario == "always-disaggregated" else "auto"
        disaggregation = {"mode": mode, "same_zone_gb_per_s": KV_GB_PER_S}
        return {
            "server": {"port": port},
            "logging": {"level": "warning", "evidence": False},
            "routing": {"pools": pools, "state": {"scrape_interval_s": 0.5}, "disaggregation": disaggregation},
        }

    def _spawn(self, argv: list[str], name: str) -> subprocess.Popen[bytes]:
        log = (self.logs / f"{name}.log").open("ab")
        return subprocess.Popen(argv, stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env_offline())

    def stop(self) -> None:
        for proc in reversed(self.procs):
            stop_process(proc)
        self.procs.clear()


def summarise(scenario: str, load: float, records: list[Record]) -> dict[str, Any]:
    row: dict[str, Any] = {"scenario": scenario, "load": load}
    counted = [r for r in records if r.sent_at >= WARM_S]
    for kind in ("chat", "document"):
        mine = [r for r in counted if r.kind == kind and r.error is None]
        ttft = [r.ttft_s * 1000 for r in mine if r.ttft_s is not None]
        gaps = [g * 1000 for r in mine for g in r.gaps]
        row[kind] = {
            "n": len(mine), "ttft_p50_ms": percentile(ttft, 0.5), "ttft_p99_ms": percentile(ttft, 0.99),
            "itl_p50_ms": percentile(gaps, 0.5), "itl_p99_ms": percentile(gaps, 0.99),
            "split_share": sum(r.split for r in mine) / len(mine) if mine else float("nan"),
        }  # fmt: skip
    row["errors"] = sum(1 for r in counted if r.error is not None)
    row["errors_sample"] = sorted({r.error or "" for r in counted if r.error})[:3]
    return row


def table(rows: list[dict[str, Any]]) -> str:
    head = (
        f"{'load':>4}  {'scenario':<21} {'chat TTFT p50/p99':>18} {'chat ITL p50/p99':>17} "
        f"{'doc TTFT p50/p99':>17} {'doc ITL p50/p99':>16} {'split chat/doc':>15} {'err':>4}"
    )
    lines = [head, "-" * len(head)]
    for r in rows:
        c, d = r["chat"], r["document"]
        lines.append(
            f"{r['load']:>4.0%}  {r['scenario']:<21} {c['ttft_p50_ms']:>8.0f}/{c['ttft_p99_ms']:<7.0f}ms "
            f"{c['itl_p50_ms']:>7.0f}/{c['itl_p99_ms']:<7.0f}ms {d['ttft_p50_ms']:>7.0f}/{d['ttft_p99_ms']:<7.0f}ms "
            f"{d['itl_p50_ms']:>6.0f}/{d['itl_p99_ms']:<7.0f}ms {c['split_share']:>6.0%}/{d['split_share']:<6.0%} "
            f"{r['errors']:>4}"
        )
    return "\n".join(lines)


def verdict(rows: list[dict[str, Any]], load: float) -> list[str]:
    """The acceptance targets at `load`, each said plainly, met or not."""
    at = {r["scenario"]: r["chat"] for r in rows if r["load"] == load}
    mine, whole, always = at.get("taskgate decision"), at.get("aggregated"), at.get("always-disaggregated")
    if mine is None or whole is None or always is None:
        return [f"at {load:.0%}: not every scenario ran; no verdict"]
    itl = mine["itl_p99_ms"] / whole["itl_p99_ms"]
    ttft = mine["ttft_p99_ms"] / whole["ttft_p99_ms"]
    checks = [
        (f"chat ITL p99 {mine['itl_p99_ms']:.0f} ms = {itl:.2f}x aggregated (target <= 0.5x)", itl <= 0.5),
        (f"chat TTFT p99 {mine['ttft_p99_ms']:.0f} ms = {ttft:.2f}x aggregated (target <= 1.1x)", ttft <= 1.1),
        (f"chat ITL p99 vs always-disaggregated {always['itl_p99_ms']:.0f} ms (target: no worse)",
         mine["itl_p99_ms"] <= always["itl_p99_ms"]),
        (f"chat TTFT p99 vs always-disaggregated {always['ttft_p99_ms']:.0f} ms (target: no worse)",
         mine["ttft_p99_ms"] <= always["ttft_p99_ms"]),
    ]  # fmt: skip
    return [f"at {load:.0%}: {'MET    ' if ok else 'NOT MET'} {text}" for text, ok in checks]


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    scenarios = [s for s in SCENARIOS if any(r["scenario"] == s for r in rows)]
    loads = sorted({r["load"] for r in rows})

    def series(kind: str, key: str) -> dict[str, list[float | None]]:
        by = {(r["scenario"], r["load"]): r[kind][key] for r in rows}
        return {f"{load:.0%} load": [by.get((s, load)) for s in scenarios] for load in loads}

    def over_aggregated(key: str) -> dict[str, list[float | None]]:
        by = {(r["scenario"], r["load"]): r["chat"][key] for r in rows}
        return {
            f"{load:.0%} load": [
                by[(s, load)] / by[("aggregated", load)] if ("aggregated", load) in by and (s, load) in by else None
                for s in scenarios
            ]
            for load in loads
        }

    panels = [
        Bars("chat inter-token latency p99 over aggregated", "x aggregated", scenarios, over_aggregated("itl_p99_ms")),
        Bars("chat time to first token p99 over aggregated", "x aggregated", scenarios, over_aggregated("ttft_p99_ms")),
        Bars("chat inter-token latency p99", "ms", scenarios, series("chat", "itl_p99_ms"), "{:.0f}"),
        Bars("chat time to first token p99", "ms", scenarios, series("chat", "ttft_p99_ms"), "{:.0f}"),
        Bars("document time to first token p99", "ms", scenarios, series("document", "ttft_p99_ms"), "{:.0f}"),
        Bars("document inter-token latency p99", "ms", scenarios, series("document", "itl_p99_ms"), "{:.0f}"),
    ]
    save(path, "Prefill and decode on different engines: six sims, chat beside long documents", panels, columns=2)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds of arrivals per run")
    parser.add_argument("--loads", type=float, nargs="+", default=[0.5, 0.8])
    parser.add_argument("--scenarios", default=",".join(SCENARIOS))
    parser.add_argument("--no-peers", action="store_true", help="leave out vllm-router")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    stop_on_signals()
    RESULTS.mkdir(exist_ok=True)
    chosen = [s for s in args.scenarios.split(",") if s in SCENARIOS]
    if args.no_peers:
        chosen = [s for s in chosen if s != "vllm-router P/D"]
    rows = []
    for load in args.loads:
        plan = workload(args.seed, load, args.seconds)
        for scenario in chosen:
            stack = Stack(scenario)
            try:
                url = stack.start()
                records = asyncio.run(drive(url, plan, scenario))
            finally:
                stack.stop()
            rows.append(summarise(scenario, load, records))
            print(f"{load:.0%} {scenario}: {len(plan)} requests, {rows[-1]['errors']} errors", flush=True)
    print()
    print(table(rows))
    for load in args.loads:
        print("\n".join(verdict(rows, load)))
    print("sglang-router: not measured (SGLang's bootstrap protocol, not kv_transfer_params); "
          "litellm: no prefill/decode mode")  # fmt: skip
    (RESULTS / "pd.json").write_text(json.dumps(rows, indent=1))
    plot(rows, RESULTS / "pd.png")
    print(f"saved {RESULTS / 'pd.png'} and pd.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
