"""A batch job beside interactive sessions: sent straight, through a client-side limit, or as a taskgate batch.

    python bench/batch.py               # 2,000 batch items beside ~750 interactive requests, 3 replicas
    python bench/batch.py --quick       # 300 items beside ~250 interactive requests
    python bench/batch.py --scenarios "no batch,taskgate batch" --items 500
    python bench/batch.py --ablation    # no batch and taskgate batch under each variant (VARIANTS)

Two `taskgate sim` engines (the h100 profile, 4 slots each, a small KV cache)
form one pool behind `--replicas` taskgate processes (3 by default: HAProxy
in front, round robin, one Redis they share for the batch jobs and, as the
variant says, routing's state); everything is started fresh for every
scenario, so each starts with cold caches. The same seeded interactive
sessions (bench/workload.py's agent tool loops, streamed) play through
taskgate in every scenario, and beside them the same batch job:

- `no batch`: the interactive sessions alone (the baseline);
- `straight`: every item sent at once as its own request (`x-taskgate-class:
  batch`), each 429 retried after its Retry-After;
- `client limit N`: the items sent in file order, N in flight at a time;
- `taskgate batch`: the items uploaded as a JSONL file and run as a batch job
  (`files.create`, `batches.create` with a 10m window, `batches.retrieve`
  until it ends, `files.content` of its output), with the official SDK.

Most items share a long prefix (an instruction and one of a few long
documents); the file is shuffled, so only a scheduler that groups items by
prefix runs each document's items back to back. Prints a table and saves
bench/results/batch.png and batch.json (with every interactive request's
record, per scenario). Not a test: the numbers belong to the machine and to
what else runs on it.

A variant names what is on (`--variant`, default `all`; `--ablation` runs
each): routing's state shared by the replicas in Redis (placements, the
prefix index, in-flight counts) or each replica's own; the engines' chunked
prefill (the sim's `--prefill-chunk-tokens`, as vLLM schedules a long prompt
over several steps) or whole prefills; and the job's items claimed at once by
the whole fleet (`batch.per_job`, 4) or three times that (each replica's 4).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import aiohttp
import needs
from cluster import Cluster, Counters, Pool, stop_on_signals
from drive import Record, drive
from fleet import REDIS, Fleet
from report import Bars, highlight, minus, percentile, save
from workload import Shape, describe, generate, words

RESULTS = Path(__file__).resolve().parent / "results"
MODEL = "agent"
# One pool of two engines: the h100 profile's timing (20k tok/s prefill, 12 ms per token), 4 slots each so a
# batch can fill them, and a KV cache of 2,048 blocks (32k tokens) so long documents and live conversations
# compete for it. Prices per million tokens; cached prompt tokens at a tenth of the input price.
POOL = Pool("gpu", "h100", 2, 2_048, 4, 3.0, 9.0, 150.0, 30.0, 32_768)
CACHED_PER_MTOK = 0.3
INTERACTIVE_TTFT_MS = 150.0  # engine time; the target every interactive request is held to
WINDOW = "10m"
ITEM_MAX_TOKENS = 32
CLIENT_LIMIT = 4
# taskgate's settings for the run (see bench/README.md): the pool's max_inflight is its engines' slots
MAX_INFLIGHT = POOL.engines * POOL.max_num_seqs
BATCH: dict[str, Any] = {"concurrency": 4, "per_job": 4, "poll_s": 0.05}
ADMISSION = {"idle_low": 0.5, "idle_high": 0.75}
LOAD_SLACK = 2.0  # routing.route: affinity yields once an endpoint has 2 more requests than the least loaded
CHARS_PER_TOKEN = 4.6  # the sim's tokenizer on this text (bench/policies.py)
SCENARIOS = ("no batch", "straight", f"client limit {CLIENT_LIMIT}", "taskgate batch")
CHUNK_TOKENS = 512  # the engines' prefill chunk where a variant chunks (25.6 ms of h100 prefill)


@dataclass(frozen=True)
class Variant:
    """What is on in a run: routing's state shared across replicas, the engines' chunked prefill, and how many of
    the job's items the fleet claims at once (`batch.per_job`, a bound across replicas; 12 is what three
    replicas of 4 each claimed when it bounded each replica alone)."""

    shared_state: bool = True
    chunked_prefill: bool = True
    fleet_per_job: int = BATCH["per_job"]

    @property
    def sim_flags(self) -> tuple[str, ...]:
        return ("--prefill-chunk-tokens", str(CHUNK_TOKENS)) if self.chunked_prefill else ()


VARIANTS = {
    "none": Variant(shared_state=False, chunked_prefill=False, fleet_per_job=3 * BATCH["per_job"]),
    "no shared state": Variant(shared_state=False),
    "no chunked": Variant(chunked_prefill=False),
    "no fleet bound": Variant(fleet_per_job=3 * BATCH["per_job"]),
    "all": Variant(),
}


# --- the batch job -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Items:
    lines: list[dict[str, Any]]  # the JSONL lines: custom_id, method, url, body
    documents: int
    shared: int  # items whose prompt starts with a shared document

    @property
    def jsonl(self) -> bytes:
        return "".join(json.dumps(line) + "\n" for line in self.lines).encode()


def batch_items(seed: int, count: int, documents: int = 8) -> Items:
    """`count` summarising questions: 80% about one of `documents` long shared documents, the rest about a
    document of their own; one instruction for all; shuffled, as a file collected over a day would be."""
    rng = random.Random(seed * 7919 + 1)
    instruction = "You answer questions about internal reports for the weekly digest . " + words(rng, 240)
    docs = [f"Report {d} .\n" + words(rng, rng.randint(2_500, 4_000)) for d in range(documents)]
    lines = []
    shared = 0
    for index in range(count):
        if rng.random() < 0.8:
            document = docs[rng.randrange(documents)]
            shared += 1
        else:
            document = f"Note {index} .\n" + words(rng, rng.randint(600, 1_200))
        question = "Question : " + words(rng, rng.randint(20, 60)) + " ?"
        body = {
            "model": MODEL,
            "messages": [
                {"role": "system", "content": instruction},
                {"role": "user", "content": document + "\n" + question},
            ],
            "max_tokens": ITEM_MAX_TOKENS,
        }
        lines.append({"custom_id": f"item-{index:05d}", "method": "POST", "url": "/v1/chat/completions", "body": body})
    rng.shuffle(lines)
    return Items(lines, documents, shared)


@dataclass
class BatchOutcome:
    started_s: float = 0.0  # since the run started
    ended_s: float | None = None
    completed: int = 0
    failed: int = 0
    retries: int = 0  # 429s and 503s the client waited out (straight)
    prompt_tokens: int = 0
    cached_tokens: int = 0
    completion_tokens: int = 0
    taskgate_cost: float | None = None  # the job's own figure (taskgate batch)
    status: str = ""
    errors: list[str] = field(default_factory=list)

    @property
    def seconds(self) -> float | None:
        return None if self.ended_s is None else self.ended_s - self.started_s

    def add_usage(self, usage: dict[str, Any] | None) -> None:
        usage = usage or {}
        self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        self.completion_tokens += int(usage.get("completion_tokens") or 0)
        self.cached_tokens += int((usage.get("prompt_tokens_details") or {}).get("cached_tokens") or 0)

    def cost(self) -> float:
        """The pool's prices: uncached input, cached input, output."""
        fresh = self.prompt_tokens - self.cached_tokens
        return (fresh * POOL.input_per_mtok + self.cached_tokens * CACHED_PER_MTOK) / 1e6 + (
            self.completion_tokens * POOL.output_per_mtok / 1e6
        )


async def send_items(base: str, items: Items, limit: int | None, t0: float, outcome: BatchOutcome) -> None:
    """Each item as its own chat request, `limit` in flight (None: all at once, 429s retried)."""
    url = base + "/v1/chat/completions"
    headers = {"Content-Type": "application/json", "x-taskgate-class": "batch"}
    gate = asyncio.Semaphore(limit or len(items.lines))
    timeout = aiohttp.ClientTimeout(total=None, sock_read=600)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), timeout=timeout) as http:
        outcome.started_s = time.perf_counter() - t0

        async def one(line: dict[str, Any]) -> None:
            payload = json.dumps(line["body"])
            async with gate:
                while True:
                    try:
                        async with http.post(url, data=payload, headers=headers) as resp:
                            if resp.status in (429, 503) and "Retry-After" in resp.headers:
                                outcome.retries += 1
                                await resp.read()
                                await asyncio.sleep(float(resp.headers["Retry-After"]))
                                continue
                            answer = await resp.json(content_type=None)
                    except (aiohttp.ClientError, TimeoutError, ValueError) as exc:
                        outcome.failed += 1
                        outcome.errors.append(f"{type(exc).__name__}: {exc}"[:200])
                        return
                    if resp.status == 200:
                        outcome.completed += 1
                        outcome.add_usage(answer.get("usage"))
                    else:
                        outcome.failed += 1
                        outcome.errors.append(f"{resp.status}: {json.dumps(answer)[:200]}")
                    return

        await asyncio.gather(*(one(line) for line in items.lines))
    outcome.ended_s = time.perf_counter() - t0
    outcome.status = "completed"


async def run_job(base: str, items: Items, t0: float, outcome: BatchOutcome, deadline_s: float) -> None:
    """The items as one taskgate batch job, with the official SDK, polled until it ends."""
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=base + "/v1", api_key="sk-bench-local", max_retries=0, timeout=120)
    try:
        outcome.started_s = time.perf_counter() - t0
        uploaded = await client.files.create(file=("items.jsonl", items.jsonl), purpose="batch")
        job = await client.batches.create(
            input_file_id=uploaded.id,
            endpoint="/v1/chat/completions",
            completion_window=WINDOW,  # type: ignore[arg-type]  # the SDK's type knows only 24h
        )
        while job.status not in ("completed", "failed", "expired", "cancelled"):
            if time.perf_counter() - t0 > deadline_s:
                outcome.errors.append(f"still {job.status} at the bench's deadline")
                break
            await asyncio.sleep(0.25)
            job = await client.batches.retrieve(job.id)
        if job.status in ("completed", "expired", "cancelled", "failed"):
            outcome.ended_s = time.perf_counter() - t0
        outcome.status = job.status
        if job.output_file_id:
            text = (await client.files.content(job.output_file_id)).text
            for raw in text.splitlines():
                line = json.loads(raw)
                outcome.completed += 1
                outcome.add_usage(line["response"]["body"].get("usage"))
        if job.error_file_id:
            text = (await client.files.content(job.error_file_id)).text
            for raw in text.splitlines():
                line = json.loads(raw)
                outcome.failed += 1
                if len(outcome.errors) < 5:
                    outcome.errors.append(json.dumps(line.get("error"))[:200])
        ours = (job.model_extra or {}).get("taskgate") or {}
        outcome.taskgate_cost = ours.get("cost")
    finally:
        await client.close()


# --- one scenario ----------------------------------------------------------------------------------------------


def taskgate_config(engines: list[Any], directory: Path, variant: Variant, replicas: int) -> dict[str, Any]:
    """One replica's config: the pool's slots, prices and the batch settings this benchmark uses; the jobs (and,
    if the variant shares it, routing's state) in the fleet's Redis, the files in one directory."""
    pool = {
        "name": POOL.name,
        "hardware": POOL.profile,
        "price": {
            "input_per_mtok": POOL.input_per_mtok,
            "output_per_mtok": POOL.output_per_mtok,
            "cached_input_per_mtok": CACHED_PER_MTOK,
        },
        "targets": {"ttft_ms": POOL.ttft_ms, "tpot_ms": POOL.tpot_ms},
        "max_context": POOL.max_context,
        "kv_capacity_tokens": POOL.kv_blocks * POOL.block_size,
        "prefill_tokens_per_s": POOL.prefill_tokens_per_s,
        "max_inflight": MAX_INFLIGHT,
        "models": [{"name": MODEL}],
        "endpoints": [{"name": e.name, "url": e.url} for e in engines],
    }
    state: dict[str, Any] = {"store": "memory", "scrape_interval_s": 0.25}
    if variant.shared_state and replicas > 1:
        state |= {"store": "redis", "redis_url": REDIS}
    shared = {"store": "redis", "redis_url": REDIS, "lease_s": 15.0} if replicas > 1 else {}
    batch: dict[str, Any] = {**BATCH, "per_job": variant.fleet_per_job}
    return {
        "logging": {"level": "warning", "evidence": False},
        "routing": {
            "state": state,
            "pools": [pool],
            "classes": {"interactive_ttft_ms": INTERACTIVE_TTFT_MS, "batch_ttft_ms": 30_000.0},
            "prefix": {"chars_per_token": CHARS_PER_TOKEN},
            "admission": ADMISSION,
        },
        "steps": [{"name": "route", "type": "routing.route", "params": {"load_slack": LOAD_SLACK}}],
        "batch": {"directory": str(directory), "windows": [WINDOW, "24h"], **batch, **shared},
    }


async def play(scenario: str, base: str, sessions: list[Any], items: Items, deadline_s: float) -> tuple[Any, Any]:
    t0 = time.perf_counter()
    outcome = BatchOutcome()
    interactive = asyncio.create_task(drive(base, sessions, MODEL, 1.0, deadline_s, request_timeout_s=deadline_s))
    batch: asyncio.Task[None] | None = None
    if scenario == "straight":
        batch = asyncio.create_task(send_items(base, items, None, t0, outcome))
    elif scenario.startswith("client limit"):
        batch = asyncio.create_task(send_items(base, items, int(scenario.split()[-1]), t0, outcome))
    elif scenario == "taskgate batch":
        batch = asyncio.create_task(run_job(base, items, t0, outcome, deadline_s))
    run = await interactive
    if batch is not None:
        try:
            await asyncio.wait_for(batch, timeout=max(1.0, deadline_s - (time.perf_counter() - t0)))
        except TimeoutError:
            outcome.errors.append("the batch had not ended at the bench's deadline")
    return run, outcome


def run_scenario(
    scenario: str, sessions: list[Any], items: Items, deadline_s: float, variant: Variant, replicas: int
) -> dict[str, Any]:
    cluster = Cluster((POOL,), MODEL, 1.0, RESULTS, label="batch", extra=variant.sim_flags)
    directory = Path(tempfile.mkdtemp(prefix="taskgate-bench-batch-"))
    try:
        engines = cluster.start()
        configs = [taskgate_config(engines, directory, variant, replicas) for _ in range(replicas)]
        with Fleet(configs, RESULTS, "batch") as base:
            run, outcome = asyncio.run(play(scenario, base, sessions, items, deadline_s))
            time.sleep(0.3)  # the engines' bookkeeping of the last answers
            counters = cluster.scrape()
    finally:
        cluster.stop()
        shutil.rmtree(directory, ignore_errors=True)
    return summarise(scenario, run, outcome, counters, items)


def summarise(
    scenario: str, run: Any, outcome: BatchOutcome, counters: dict[str, Counters], items: Items
) -> dict[str, Any]:
    records: list[Record] = run.records
    ok = [r for r in records if r.ok and r.kind == "interactive"]
    ttfts = [r.ttft_s for r in ok if r.ttft_s is not None]
    target_s = INTERACTIVE_TTFT_MS / 1000
    planned = sum(len(s.turns) for s in SESSIONS)
    has_batch = scenario != "no batch"
    return {
        "scenario": scenario,
        "interactive_requests": len(records),
        "interactive_errors": len(records) - len(ok),
        "unfinished_sessions": run.unfinished_sessions,
        "ttft_p50_ms": percentile(ttfts, 0.5) * 1000,
        "ttft_p99_ms": percentile(ttfts, 0.99) * 1000,
        "in_target": sum(1 for t in ttfts if t <= target_s) / planned if planned else 0.0,
        "batch_items": len(items.lines) if has_batch else 0,
        "batch_completed": outcome.completed,
        "batch_failed": outcome.failed,
        "batch_retries": outcome.retries,
        "batch_status": outcome.status,
        "batch_s": outcome.seconds if has_batch else None,
        "batch_cached_share": outcome.cached_tokens / outcome.prompt_tokens if outcome.prompt_tokens else None,
        "batch_prompt_tokens": outcome.prompt_tokens,
        "batch_cost_usd": outcome.cost() if has_batch else None,
        "batch_cost_taskgate_usd": outcome.taskgate_cost,
        "total_cost_usd": sum(c.cost(POOL) for c in counters.values()),
        "engine_requests": {name: c.requests for name, c in counters.items()},
        "batch_errors_sample": outcome.errors[:3],
        "interactive_errors_sample": sorted({r.error or "" for r in records if not r.ok})[:3],
        "interactive": [
            [r.session, r.turn, r.start_s, r.ttft_s, r.prompt_tokens, r.cached_tokens, r.engine]
            for r in records
            if r.kind == "interactive"
        ],
    }


SESSIONS: list[Any] = []


# --- the report --------------------------------------------------------------------------------------------------


def _fmt(value: Any, spec: str) -> str:
    return "n/a" if value is None else format(value, spec)


def table(rows: list[dict[str, Any]], window_s: float) -> str:
    head = (
        f"{'scenario':<16} {'TTFT p50':>9} {'TTFT p99':>9} {'p99 vs base':>11} {'in target':>9} "
        f"{'batch s':>8} {'in window':>9} {'done':>10} {'cached %':>8} {'batch $':>8} {'total $':>8}"
    )
    lines = [head, "-" * len(head)]
    base = next((r for r in rows if r["scenario"] == "no batch"), None)
    for row in rows:
        versus = (row["ttft_p99_ms"] / base["ttft_p99_ms"] - 1) if base else None
        done = f"{row['batch_completed']}/{row['batch_items']}" if row["batch_items"] else "-"
        within = (
            "-"
            if not row["batch_items"]
            else "yes"
            if row["batch_s"] is not None and row["batch_s"] <= window_s and not row["batch_failed"]
            else "no"
        )
        share = row["batch_cached_share"]
        lines.append(
            f"{row['scenario']:<16} {row['ttft_p50_ms']:>9.1f} {row['ttft_p99_ms']:>9.1f} "
            f"{_fmt(versus, '+.1%'):>11} {row['in_target']:>9.1%} {_fmt(row['batch_s'], '.1f'):>8} {within:>9} "
            f"{done:>10} {_fmt(None if share is None else share * 100, '.1f'):>8} "
            f"{_fmt(row['batch_cost_usd'], '.3f'):>8} {row['total_cost_usd']:>8.3f}"
        )
    return "\n".join(lines)


def plot(rows: list[dict[str, Any]], path: Path, title: str) -> None:
    names = [r["scenario"] for r in rows]
    base = next((r for r in rows if r["scenario"] == "no batch"), rows[0])
    others = [r for r in rows if r is not base]
    batched = [r for r in rows if r["batch_items"]]
    batch_names = [r["scenario"] for r in batched]
    batch_colours = highlight(batch_names, lambda n: n == "taskgate batch")
    panels = [
        Bars(
            "Interactive TTFT p99 against no batch (the target: within 5%)",
            "ms, the scenario's TTFT p99 − no batch's",
            [r["scenario"] for r in others],
            {"p99": minus([r["ttft_p99_ms"] for r in others], base["ttft_p99_ms"])},
            "{:+.1f}",
            colours=highlight([r["scenario"] for r in others], lambda n: n == "taskgate batch"),
        ),
        Bars(
            "Interactive TTFT",
            "ms",
            names,
            {"p50": [r["ttft_p50_ms"] for r in rows], "p99": [r["ttft_p99_ms"] for r in rows]},
            "{:.1f}",
        ),
        Bars(
            f"Batch completion time (window {WINDOW})",
            "s, first item sent to last answer",
            batch_names,
            {"s": [r["batch_s"] for r in batched]},
            "{:.1f}",
            colours=batch_colours,
        ),
        Bars(
            "Batch prompt tokens from cache; interactive requests in target",
            "%",
            names,
            {
                "batch prompt tokens cached": [
                    None if r["batch_cached_share"] is None else r["batch_cached_share"] * 100 for r in rows
                ],
                "interactive within TTFT target": [r["in_target"] * 100 for r in rows],
            },
            "{:.1f}",
        ),
        Bars(
            "Cost at the pool's prices",
            "$",
            names,
            {"batch": [r["batch_cost_usd"] for r in rows], "everything": [r["total_cost_usd"] for r in rows]},
            "{:.3f}",
        ),
    ]
    save(path, title, panels, columns=2)


# --- main --------------------------------------------------------------------------------------------------------


def main() -> int:
    needs.plotting()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="a smoke run: 300 items, fewer interactive requests")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--items", type=int, help="batch items (default 2000, quick 300)")
    parser.add_argument("--requests", type=int, help="interactive requests, at least (default 750, quick 250)")
    parser.add_argument("--scenarios", help=f"comma-separated, of: {', '.join(SCENARIOS)} (default: all)")
    parser.add_argument("--replicas", type=int, default=3, help="taskgate processes behind HAProxy (default 3)")
    parser.add_argument("--variant", default="all", help=f"one of: {', '.join(VARIANTS)} (default: all)")
    parser.add_argument(
        "--ablation", action="store_true", help="no batch and taskgate batch under every variant, in turn"
    )
    args = parser.parse_args()
    chosen = [s.strip() for s in args.scenarios.split(",")] if args.scenarios else list(SCENARIOS)
    if args.ablation and not args.scenarios:
        chosen = ["no batch", "taskgate batch"]
    unknown = [s for s in chosen if s not in SCENARIOS]
    if unknown:
        raise SystemExit(f"unknown scenarios {unknown}; known: {', '.join(SCENARIOS)}")
    if args.variant not in VARIANTS:
        raise SystemExit(f"unknown variant {args.variant!r}; known: {', '.join(VARIANTS)}")
    if args.replicas < 1:
        raise SystemExit("--replicas must be at least 1")
    variants = list(VARIANTS) if args.ablation else [args.variant]
    stop_on_signals()
    RESULTS.mkdir(exist_ok=True)

    shape = Shape(requests=args.requests or (250 if args.quick else 750), batch_share=0.0, sessions_per_s=0.8)
    SESSIONS[:] = generate(args.seed, shape)
    items = batch_items(args.seed, args.items or (300 if args.quick else 2_000))
    workload = describe(SESSIONS)
    window_s = 600.0
    deadline_s = window_s + 120.0
    print(
        f"interactive: {workload['interactive_requests']} requests in {workload['sessions']} sessions over "
        f"{workload['arrival_span_s']:.0f} s, TTFT target {INTERACTIVE_TTFT_MS:.0f} ms; batch: {len(items.lines)} "
        f"items ({items.shared} on {items.documents} shared documents), window {WINDOW}; {args.replicas} "
        f"replica(s); variant(s): {', '.join(variants)}",
        flush=True,
    )
    rows: list[dict[str, Any]] = []
    skipped: list[str] = []
    try:
        for name in variants:
            for scenario in chosen:
                print(f"running {scenario} ({name}) ...", file=sys.stderr, flush=True)
                try:
                    row = run_scenario(scenario, SESSIONS, items, deadline_s, VARIANTS[name], args.replicas)
                    rows.append(row | {"variant": name})
                except RuntimeError as exc:
                    skipped.append(f"{scenario} ({name}): {exc} (see bench/results/batch-*.log)")
    except KeyboardInterrupt:
        print("interrupted; every engine and taskgate are stopped", file=sys.stderr)
        skipped.append("the rest: interrupted")
        report(rows, skipped, args, workload, items, window_s)
        return 130
    report(rows, skipped, args, workload, items, window_s)
    return 0


def report(
    rows: list[dict[str, Any]],
    skipped: list[str],
    args: argparse.Namespace,
    workload: dict[str, Any],
    items: Items,
    window_s: float,
) -> None:
    variants = list(dict.fromkeys(row["variant"] for row in rows))
    for name in variants:
        mine = [row for row in rows if row["variant"] == name]
        print(f"\nvariant: {name} ({VARIANTS[name]}), {args.replicas} replica(s)")
        print(table(mine, window_s))
        for row in mine:
            for key in ("batch_errors_sample", "interactive_errors_sample"):
                if row[key]:
                    print(f"{row['scenario']}: {key.replace('_', ' ')}: {row[key]}")
            if row["batch_cost_taskgate_usd"] is not None:
                print(f"{row['scenario']}: the job's own cost (taskgate.cost): ${row['batch_cost_taskgate_usd']:.3f}")
        verdict(mine, window_s)
    if len(variants) > 1:
        print("\n" + ablation(rows, variants, window_s))
    for note in skipped:
        print(f"skipped {note}")
    settings = {
        "pool": {
            "profile": POOL.profile,
            "engines": POOL.engines,
            "slots": POOL.max_num_seqs,
            "kv_blocks": POOL.kv_blocks,
        },
        "max_inflight": MAX_INFLIGHT,
        "batch": BATCH,
        "admission": ADMISSION,
        "load_slack": LOAD_SLACK,
        "window": WINDOW,
        "replicas": args.replicas,
        "chunk_tokens": CHUNK_TOKENS,
        "variants": {name: vars(VARIANTS[name]) for name in variants},
    }
    summary = {
        "args": vars(args),
        "interactive_ttft_target_ms": INTERACTIVE_TTFT_MS,
        "workload": workload,
        "items": len(items.lines),
        "settings": settings,
        "rows": rows,
        "skipped": skipped,
    }
    (RESULTS / "batch.json").write_text(json.dumps(summary, indent=2))
    if rows:
        shown = [row for row in rows if row["variant"] == variants[-1]]
        title = (
            f"A {len(items.lines)}-item batch beside {workload['interactive_requests']} interactive requests, "
            f"2 simulated engines with {POOL.max_num_seqs} slots each, {args.replicas} taskgate replica(s), "
            f"variant {variants[-1]}"
        )
        plot(shown, RESULTS / "batch.png", title)
        print(f"plot: {RESULTS / 'batch.png'}")


def ablation(rows: list[dict[str, Any]], variants: list[str], window_s: float) -> str:
    """Per variant: interactive p99 alone and beside the taskgate batch, and how long the batch took."""
    head = f"{'variant':<16} {'p99 alone':>9} {'p99 batch':>9} {'p99 vs base':>11} {'p50 vs base':>11} {'batch s':>8}"
    lines = [head, "-" * len(head)]
    for name in variants:
        base = next((r for r in rows if r["variant"] == name and r["scenario"] == "no batch"), None)
        ours = next((r for r in rows if r["variant"] == name and r["scenario"] == "taskgate batch"), None)
        if base is None or ours is None:
            continue
        p99, p50 = ours["ttft_p99_ms"] / base["ttft_p99_ms"] - 1, ours["ttft_p50_ms"] / base["ttft_p50_ms"] - 1
        lines.append(
            f"{name:<16} {base['ttft_p99_ms']:>9.1f} {ours['ttft_p99_ms']:>9.1f} {p99:>+11.1%} {p50:>+11.1%} "
            f"{_fmt(ours['batch_s'], '.1f'):>8}"
        )
    return "\n".join(lines)


def verdict(rows: list[dict[str, Any]], window_s: float) -> None:
    base = next((r for r in rows if r["scenario"] == "no batch"), None)
    ours = next((r for r in rows if r["scenario"] == "taskgate batch"), None)
    if base is None or ours is None:
        return
    rise = ours["ttft_p99_ms"] / base["ttft_p99_ms"] - 1
    finished = ours["batch_s"] is not None and ours["batch_s"] <= window_s and ours["batch_failed"] == 0
    met = rise <= 0.05 and finished
    print(
        f"target (taskgate batch: interactive p99 within 5% of no batch, batch done within {WINDOW}): "
        f"{'met' if met else 'NOT met'} (p99 {rise:+.1%}, batch {_fmt(ours['batch_s'], '.0f')} s, "
        f"{ours['batch_completed']}/{ours['batch_items']} completed)"
    )


if __name__ == "__main__":
    sys.exit(main())
