"""What per-task authorization costs: grants and per-call checks by policy size; MCP calls through the gateway.

    python bench/authz.py            # about a minute here
    python bench/authz.py --quick

1. Policies of 100, 1,000 and 10,000 lines (roles and profiles over tenants,
   role memberships, argument rules, trust declarations): the time to load
   one, the time to compute a task's grant (40 tools judged), a per-call
   check on that grant (a memoised verdict plus the tool's argument rules),
   a check with provenance labels and flow rules (a `notify__send` under
   any-of, when-present, list, links, flow and text rules, against what the
   task has seen: its instruction, an address book of 200 trusted contacts, 20
   untrusted messages, a profile with a passport and five card numbers, a
   private file), the same with a 2 KB body, the time to
   gather that data for a decision, and, for scale, pycasbin's own `enforce`
   per check.
2. MCP `tools/call` through the gateway (authenticate, authorize, pii on the
   arguments and the result) against the same call made directly to the
   upstream MCP server, both with the official SDK client, one call at a time:
   a handshake client (a session), a 2026-07-28 client (stateless: each request
   authenticates and carries its task), and a call with a progress token (its
   own upstream connection, so its progress can be relayed).

3. Binding (authz/conversations.py, binding.py): what recognising a runtime's
   task adds to a request that presents no token, by conversation length
   (4, 16 and 64 messages of about 300 characters): the conversation's
   digest (every message, chained), the lookup of its assistant turns in the
   memory store, what a chat answer binds (its digest and its calls), and an
   MCP call's key and lookup.

Everything runs in this process on loopback. Prints tables and saves
bench/results/authz.png and authz.json. Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import socket
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

import needs
from report import Bars, minus, save

from taskgate.authz.seal import seal

RESULTS = Path(__file__).resolve().parent / "results"
TOOLS = [f"{server}__op{n}" for server in ("mail", "files", "crm", "calendar") for n in range(10)]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def policy_text(lines: int, seed: int = 3) -> str:
    """Role rules (a third wildcards), profile rules, memberships and constraints: `lines` rows in all."""
    rng = random.Random(seed)
    tenants = [f"t{i}" for i in range(max(1, lines // 100))]
    rows = [f"g, alice, role:r0, {tenants[0]}", f"g, role:r0, role:r1, {tenants[0]}"]
    for i in range(max(0, lines - 2)):
        kind = i % 10
        tenant = rng.choice(tenants)
        tool = rng.choice([*TOOLS, "mail__*", "crm__*"])
        if kind < 6:
            rows.append(f"p, role:r{rng.randrange(20)}, {tenant}, {tool}, call, r{i}")
        elif kind < 8:
            rows.append(f"p, profile:p{rng.randrange(5)}, *, {tool}, call, p{i}")
        elif kind == 8:
            rows.append(f"g, u{rng.randrange(500)}, role:r{rng.randrange(20)}, {tenant}")
        elif i % 20 == 9:
            rows.append(f"p2, {tool}, *, amount, max, {rng.randrange(10, 1000)}, c{i}")
        else:
            rows.append(f"p2, {tool}, *, ref, provenance, instruction|contacts, c{i}")
    rows += ["p, role:r1, t0, mail__*, call, r-main", "p, profile:p0, *, mail__*, call, p-main"]
    rows += ["p, role:r1, t0, notify__send, call, r-notify", "p, profile:p0, *, notify__send, call, p-notify"]
    rows += PROVENANCE + FLOW
    return "\n".join(rows) + "\n"


PROVENANCE = [  # the rules a notify__send meets: labelled, any-of, when present, a list, links in free text
    "p3, contacts__*, *, contacts, t-contacts",
    "p3, mail__inbox, messages[].sender, trusted, t-sender",
    r"p2, notify__send, *, to, provenance, instruction|contacts|trusted, s-to",
    r"p2, notify__send, *, to, regex, [^@]+@acme\.example, s-to",
    "p2, notify__send, *, cc?, provenance, instruction|contacts, s-cc",
    "p2, notify__send, *, attachments[].path?, prefix, /home/alice, s-attach",
    "p2, notify__send, *, body, links, instruction; allow=*.acme.example, s-links",
]
FLOW = [  # confidential values (a profile's passport and cards, a private file) kept out of every argument,
    # and a subject that may not copy six words in a row from others' messages
    "p3, profile__get, *, trusted, t-profile",
    "p3, profile__get, passport, secret:identity, s-passport",
    "p3, profile__get, cards[].number, secret:card, s-card",
    "p3, files__read_private, text:content, secret:private, s-private",
    "p2, notify__send, *, *, flow, -, f-notify",
    "p2, notify__send, *, subject?, text, instruction|contacts|trusted, x-subject",
]


def seen_data() -> tuple[str, list[str]]:
    """What a task has seen: its instruction, an address book of 200 contacts, 20 messages from others."""
    from taskgate.authz.provenance import result_record

    said = "Mail the Q3 summary to contact7@friends.example and cc contact150@friends.example; link the slides at "
    said += "https://wiki.acme.example/q3. Thanks!"
    book = {"contacts": [{"name": f"Contact {n}", "email": f"contact{n}@friends.example"} for n in range(200)]}
    inbox = {"messages": [{"sender": f"peer{n}@partner.example",
                           "body": f"Numbers attached, see https://files.partner.example/{n} or ping me."}
                          for n in range(20)]}  # fmt: skip
    profile = {
        "name": "Alice",
        "passport": "X4471902",
        "cards": [{"number": f"4111 1111 1111 {1000 + n}", "expires": "12/29"} for n in range(5)],
    }
    private = {"content": " ".join(f"Private note line {n}: the settlement with Northwind stays between us."
                                   for n in range(40))}  # fmt: skip
    records = [result_record("contacts__search", "c1", {"structuredContent": book}),
               result_record("mail__inbox", "c2", {"structuredContent": inbox}),
               result_record("profile__get", "c3", {"structuredContent": profile}),
               result_record("files__read_private", "c4", {"structuredContent": private})]  # fmt: skip
    return said, [r for r in records if r is not None]


def bench_policy(lines: int, quick: bool) -> dict[str, Any]:
    import casbin

    from taskgate.authz.grant import Grant, GrantSpec
    from taskgate.authz.policy import load
    from taskgate.authz.provenance import SeenCache, gather

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "policy.csv"
        path.write_text(seal(policy_text(lines)))
        started = time.perf_counter()
        policy = load(None, path, 1)
        load_ms = (time.perf_counter() - started) * 1000
        grants = []
        for i in range(5 if quick else 20):
            started = time.perf_counter()
            grant = Grant(GrantSpec(f"task{i}", "alice", "t0", "p0", ("r2",)), policy)
            for tool in TOOLS:
                grant.tool(tool)
            grants.append((time.perf_counter() - started) * 1000)
        checks = []
        for _ in range(20_000 if not quick else 2_000):
            started = time.perf_counter()
            grant.check("mail__op3", {"amount": 20, "to": "x"}, None)
            checks.append((time.perf_counter() - started) * 1e6)
        said, records = seen_data()
        gathers, increments, labelled = [], [], []
        for _ in range(50 if quick else 200):
            started = time.perf_counter()
            seen = gather(policy.trust, said, records, ())
            gathers.append((time.perf_counter() - started) * 1e6)
            cache = SeenCache()  # a task's next call: what it had seen is kept, one new result is added
            cache.get(("t",), policy.trust, said, tuple(records[:1]), (), ())
            started = time.perf_counter()
            cache.get(("t",), policy.trust, said, tuple(records), (), ())
            increments.append((time.perf_counter() - started) * 1e6)
        call = {"to": "contact7@friends.example", "cc": ["contact150@friends.example"],
                "attachments": [{"path": "/home/alice/q3.pdf"}], "subject": "Q3 summary",
                "body": "The Q3 summary; slides at https://wiki.acme.example/q3"}  # fmt: skip
        assert grant.check("notify__send", call, seen).allowed, grant.check("notify__send", call, seen).reason
        assert not grant.check("notify__send", {**call, "to": "peer3@partner.examplx"}, seen).allowed
        leak = {**call, "body": "card 4111-1111-1111-1003, ok?"}
        assert grant.check("notify__send", leak, seen).rule == "f-notify", grant.check("notify__send", leak, seen)
        for _ in range(20_000 if not quick else 2_000):
            started = time.perf_counter()
            grant.check("notify__send", call, seen)
            labelled.append((time.perf_counter() - started) * 1e6)
        long_body = {**call, "body": " ".join(["The Q3 numbers are final and the slides are on the wiki."] * 36)}
        assert len(long_body["body"]) > 2_000
        assert grant.check("notify__send", long_body, seen).allowed
        flows = []
        for _ in range(5_000 if not quick else 500):
            started = time.perf_counter()
            grant.check("notify__send", long_body, seen)
            flows.append((time.perf_counter() - started) * 1e6)
        enforcer = casbin.Enforcer(str(Path(__file__).resolve().parents[1] / "authz" / "model.conf"), str(path))
        n = 50 if lines >= 10_000 else 300
        started = time.perf_counter()
        for i in range(n):
            enforcer.enforce("alice", "t0", TOOLS[i % len(TOOLS)], "call")
        enforce_us = (time.perf_counter() - started) / n * 1e6
    return {
        "lines": lines,
        "load_ms": load_ms,
        "grant_ms_p50": pct(grants, 0.5),
        "check_us_p50": pct(checks, 0.5),
        "check_us_p99": pct(checks, 0.99),
        "labelled_check_us_p50": pct(labelled, 0.5),
        "labelled_check_us_p99": pct(labelled, 0.99),
        "flow_long_body_us_p50": pct(flows, 0.5),
        "flow_long_body_us_p99": pct(flows, 0.99),
        "gather_us_p50": pct(gathers, 0.5),
        "next_call_us_p50": pct(increments, 0.5),
        "casbin_enforce_us": enforce_us,
        "granted": sum(grant.tool(t).allowed for t in TOOLS),
        "constraints_on_tool": len(grant.tool("mail__op3").constraints),
    }


def conversation(length: int) -> list[dict[str, Any]]:
    """A runtime's conversation: a system prompt, a user turn, then assistant calls and tool results in turn."""
    out: list[dict[str, Any]] = [
        {"role": "system", "content": "You help the user with mail. " * 10},
        {"role": "user", "content": "Summarise my mail from this week and reply to Bob. " * 6},
    ]
    while len(out) < length:
        n = len(out)
        arguments = json.dumps({"folder": "inbox", "page": n})
        call = {"id": f"call_{n:024x}", "type": "function", "function": {"name": "mail__read", "arguments": arguments}}
        out.append({"role": "assistant", "content": None, "tool_calls": [call]})
        out.append({"role": "tool", "tool_call_id": call["id"], "content": "From bob@acme.example: hi. " * 10})
    return out[:length]


def bench_binding(quick: bool) -> list[dict[str, Any]]:
    """Microseconds per request of each part of binding, by conversation length."""
    return [asyncio.run(binding_row(length, 300 if quick else 3000)) for length in (4, 16, 64)]


async def binding_row(length: int, repeat: int) -> dict[str, Any]:
    from taskgate.authz.conversations import Bound, MemoryBindings, call_key, conversation_key, extend
    from taskgate.authz.conversations import principal_digest as start

    messages, store, entry = conversation(length), MemoryBindings(100_000), Bound("t", "e").dump()
    answer = {"role": "assistant", "content": "Bob wrote hi; I replied."}

    def digests() -> tuple[bytes, list[str]]:
        digest, keys = start("acme", "alice"), []
        for m in messages:
            digest = extend(digest, m)
            if m["role"] == "assistant":
                keys.append(conversation_key(digest))
        return digest, keys

    digest, keys = digests()
    await store.add([(k, entry, 60) for k in keys])
    samples: dict[str, list[float]] = {"digest": [], "lookup": [], "bind": [], "call": []}
    for _ in range(repeat):
        t0 = time.perf_counter()
        digests()
        t1 = time.perf_counter()
        await store.get(keys)
        t2 = time.perf_counter()
        await store.add([(conversation_key(extend(digest, answer)), entry, 60)])
        t3 = time.perf_counter()
        call_key("acme", "alice", "mail__read", {"folder": "inbox", "page": 3})
        t4 = time.perf_counter()
        for key, (a, b) in zip(samples, ((t0, t1), (t1, t2), (t2, t3), (t3, t4)), strict=True):
            samples[key].append((b - a) * 1e6)
    p50 = {key: pct(values, 0.5) for key, values in samples.items()}
    return {
        "messages": length, "chars": sum(len(json.dumps(m)) for m in messages), "digest_us_p50": p50["digest"],
        "lookup_us_p50": p50["lookup"], "bind_us_p50": p50["bind"], "call_key_us_p50": p50["call"],
        "total_us_p50": p50["digest"] + p50["lookup"] + p50["bind"],
    }  # fmt: skip


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def bench_mcp(calls: int) -> list[dict[str, Any]]:
    from mcp.server import MCPServer

    from taskgate.demo.tools import serving

    upstream = MCPServer("mail")

    @upstream.tool()
    def read(folder: str = "inbox") -> str:
        """Read the newest message."""
        return f"[{folder}] the quarterly numbers are attached"

    async with serving(upstream) as upstream_url:
        return await _compare(upstream_url, calls)


async def _compare(upstream_url: str, calls: int) -> list[dict[str, Any]]:
    import httpx2
    import jwt
    from aiohttp import web
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    from taskgate.gateway.config import parse_config
    from taskgate.gateway.gateway import GATEWAY
    from taskgate.proxy.app import create_app, default_registry

    secret = "bench-hmac-secret-of-thirty-two-characters!"
    os.environ.update({"BENCH_IDP_SECRET": secret, "TASKGATE_TASK_KEY": secret + "-tasks"})
    folder = Path(tempfile.mkdtemp())
    (folder / "policy.csv").write_text(
        seal("p, role:reader, acme, mail__*, call, r1\np, profile:default, *, mail__read, call, p1\n")
    )
    raw = {
        "authz": {
            "jwt": {"issuer": "idp", "audience": "taskgate", "algorithms": ["HS256"],
                    "keys": [{"algorithm": "HS256", "secret_env": "BENCH_IDP_SECRET"}]},
            "policy": {"file": str(folder / "policy.csv")},
            "tasks": {},
        },
        "mcp": {"servers": [{"name": "mail", "url": upstream_url}]},
        "steps": [
            {"name": "authn", "type": "authz.authenticate"},
            {"name": "authorize", "type": "authz.authorize"},
            {"name": "pii", "type": "guards.pii", "params": {"backend": "patterns"}},
        ],
        "pipelines": {"mcp": ["authn", "authorize", "pii"]},
        "logging": {"evidence": False, "level": "warning"},
    }  # fmt: skip
    registry = default_registry()
    runner = web.AppRunner(create_app(parse_config(raw, "<bench>", registry), registry), access_log=None)
    await runner.setup()
    gateway_port = free_port()
    await web.TCPSite(runner, "127.0.0.1", gateway_port).start()
    now = int(time.time())
    token = jwt.encode(
        {"iss": "idp", "aud": "taskgate", "sub": "alice", "tenant": "acme", "roles": ["reader"], "exp": now + 3600},
        secret, algorithm="HS256",
    )  # fmt: skip
    rows = []
    bearer = {"Authorization": f"Bearer {token}"}
    ours = f"http://127.0.0.1:{gateway_port}/mcp"
    targets: list[tuple[str, str, dict[str, str], Any, bool]] = [
        ("direct to the MCP server", upstream_url, {}, "legacy", False),
        ("through taskgate /mcp", ours, bearer, "legacy", False),
        ("through taskgate, 2026-07-28", ours, bearer, "2026-07-28", False),
        ("through taskgate, relayed", ours, bearer, "legacy", True),
    ]

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        return None

    for name, url, headers, mode, relayed in targets:
        tool = "read" if "direct" in name else "mail__read"
        on_progress = progress if relayed else None
        async with (
            httpx2.AsyncClient(headers=headers) as http,
            Client(streamable_http_client(url, http_client=http), mode=mode) as client,
        ):
            first = await client.call_tool(tool, {"folder": "inbox"})  # a modern client carries its task
            meta = cast(Any, first.meta) if mode != "legacy" and first.meta else None
            for _ in range(20):
                await client.call_tool(tool, {"folder": "inbox"}, progress_callback=on_progress, meta=meta)
            samples = []
            for _ in range(calls):
                started = time.perf_counter()
                result = await client.call_tool(tool, {"folder": "inbox"}, progress_callback=on_progress, meta=meta)
                samples.append((time.perf_counter() - started) * 1000)
                assert not result.is_error
        row = {"target": name, "p50_ms": pct(samples, 0.5), "p99_ms": pct(samples, 0.99),
               "mean_ms": statistics.fmean(samples)}  # fmt: skip
        if "direct" not in name:  # this target's calls are the newest records
            records = runner.app[GATEWAY].evidence.records()
            legs = [r["dispatch"]["ms"] for r in records if r.get("dispatch", {}).get("tool") == "read"]
            row["upstream_leg_p50_ms"] = pct(legs[-calls:], 0.5)
        rows.append(row)
    await runner.cleanup()
    return rows


def tables(result: dict[str, Any]) -> str:
    lines = [
        "policy lines   load ms   grant ms (40 tools)   check us p50   check us p99   constraints   casbin enforce us",
    ]
    for row in result["policy"]:
        lines.append(
            f"{row['lines']:>12} {row['load_ms']:9.1f} {row['grant_ms_p50']:21.2f} {row['check_us_p50']:14.2f} "
            f"{row['check_us_p99']:14.2f} {row['constraints_on_tool']:13d} {row['casbin_enforce_us']:19.0f}"
        )
    lines += [
        "",
        "with provenance labels and flow rules (notify__send: 7 rules, 8 rows, a flow rule over every argument and",
        "a text rule; seen: instruction, 200 contacts, 20 messages, a profile with a passport and 5 cards, a private",
        "file of 40 lines)",
        "policy lines   check us p50   check us p99   2 KB body us p50   p99   gather all us p50   next call us p50",
    ]
    for row in result["policy"]:
        lines.append(f"{row['lines']:>12} {row['labelled_check_us_p50']:14.2f} {row['labelled_check_us_p99']:14.2f} "
                     f"{row['flow_long_body_us_p50']:18.1f} {row['flow_long_body_us_p99']:5.0f} "
                     f"{row['gather_us_p50']:19.0f} {row['next_call_us_p50']:16.0f}")  # fmt: skip
    lines += ["", "MCP tools/call, one at a time     p50 ms   p99 ms"]
    for row in result["mcp"]:
        lines.append(f"{row['target']:32} {row['p50_ms']:8.2f} {row['p99_ms']:8.2f}")
    direct, gateway = result["mcp"][0], result["mcp"][1]
    added = (gateway["p50_ms"] - direct["p50_ms"], gateway["p99_ms"] - direct["p99_ms"])
    lines.append(f"{'taskgate adds':32} {added[0]:8.2f} {added[1]:8.2f}")
    lines.append(f"{'  of which its upstream call':32} {gateway['upstream_leg_p50_ms']:8.2f}")
    lines += ["", "binding, per request without a token (us p50)",
              "messages    chars   digest   lookup   bind answer   total   MCP call key"]  # fmt: skip
    for row in result["binding"]:
        lines.append(
            f"{row['messages']:>8} {row['chars']:>8} {row['digest_us_p50']:8.1f} {row['lookup_us_p50']:8.1f} "
            f"{row['bind_us_p50']:13.1f} {row['total_us_p50']:7.1f} {row['call_key_us_p50']:14.1f}"
        )
    return "\n".join(lines)


def plot(result: dict[str, Any], path: Path) -> None:
    """What taskgate adds to an MCP call, then the totals, then the checks' own cost by policy size, labelled."""
    mcp, policy = result["mcp"], result["policy"]
    direct, through = mcp[0], mcp[1:]
    targets = [r["target"] for r in mcp]
    sizes = [f"{r['lines']:,} policy lines" for r in policy]

    def column(key: str, rows: list[dict[str, Any]], scale: float = 1.0) -> list[float | None]:
        return [r[key] * scale for r in rows]

    added = {q: minus(column(f"{q}_ms", through), direct[f"{q}_ms"]) for q in ("p50", "p99")}
    checks = {
        "check on the grant, p50": column("check_us_p50", policy),
        "check on the grant, p99": column("check_us_p99", policy),
        "with provenance labels, p50": column("labelled_check_us_p50", policy),
        "with provenance labels, p99": column("labelled_check_us_p99", policy),
    }
    once = {
        "grant for a task (40 tools), p50": column("grant_ms_p50", policy, 1000),
        "gather a decision's data, p50": column("gather_us_p50", policy),
        "pycasbin enforce, one check": column("casbin_enforce_us", policy),
        "load the policy (once)": column("load_ms", policy, 1000),
    }
    totals = {q: column(f"{q}_ms", mcp) for q in ("p50", "p99")}
    binding = result["binding"]
    parts = {label: [r[key] for r in binding] for label, key in (
        ("digest of the conversation", "digest_us_p50"), ("lookup of its assistant turns", "lookup_us_p50"),
        ("bind the answer", "bind_us_p50"), ("in all", "total_us_p50"))}  # fmt: skip
    panels = [
        Bars("What binding adds to a request without a token", "µs per request, p50",
             [f"{r['messages']} messages" for r in binding], parts, "{:.1f}"),
        Bars("What taskgate adds to an MCP tools/call", "ms per call, through taskgate − direct", targets[1:], added,
             "{:+.2f}"),
        Bars("MCP tools/call, one at a time", "ms per call", targets, totals),
        Bars("What authorization adds to each call, by policy size", "µs per check", sizes, checks, "{:.1f}"),
        Bars("Per task and per policy, for scale", "µs (log)", sizes, once, "{:,.0f}", log=True),
    ]  # fmt: skip
    title = f"taskgate authorization ({platform.processor() or platform.machine()}, 2 cores, in-process)"
    save(path, title, panels, columns=2)


def main() -> int:
    needs.plotting()
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    RESULTS.mkdir(exist_ok=True)
    result = {
        "policy": [bench_policy(n, args.quick) for n in (100, 1_000, 10_000)],
        "mcp": asyncio.run(bench_mcp(50 if args.quick else 300)),
        "binding": bench_binding(args.quick),
    }
    print(tables(result))
    (RESULTS / "authz.json").write_text(json.dumps(result, indent=2))
    plot(result, RESULTS / "authz.png")
    print(f"\nsaved {RESULTS / 'authz.png'} and authz.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
