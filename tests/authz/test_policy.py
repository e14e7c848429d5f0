"""The policy: argument constraints, grants equal to Casbin's own decisions, hot reload that keeps a good policy."""

from __future__ import annotations

import asyncio
import itertools
import os
import random
from pathlib import Path
from typing import Any

import pytest

from taskgate.authz.constraints import Constraint, compile_row
from taskgate.authz.grant import Grant, GrantSpec
from taskgate.authz.labels import Seen, Where
from taskgate.authz.policy import PolicyError, load
from taskgate.authz.seal import seal
from taskgate.gateway.gateway import GATEWAY

from .conftest import Keys
from .policy import POLICY, authz_config, write_policy
from .test_tasks import ask, bearer
from .upstream import ToolCaller


def constraint(kind: str, value: str, argument: str = "x") -> Constraint:
    return compile_row(["*", "*", argument, kind, value, "rule"], ())


def unmet_condition(rule: Constraint, arguments: Any, trusted: str | None) -> str | None:
    """Why `arguments` fail `rule` when the task's instruction is `trusted` (None: unknown)."""
    seen = None
    if trusted is not None:
        seen = Seen()
        seen.add_text(trusted, Where("instruction", "instruction"))
    unmet = rule.judge(arguments, seen, [])
    return None if unmet is None else unmet.reason


@pytest.mark.parametrize(
    ("kind", "value", "ok", "bad"),
    [
        ("prefix", "/home/alice", ["/home/alice", "/home/alice/a.txt"], ["/home/alice/../b", "/home/alicex", "a", "/"]),
        ("regex", r"[^@]+@example\.com", ["bob@example.com"], ["bob@example.com.evil", "x@evil.example"]),
        ("min", "30", [30, 45.5], [29, "40", True, float("nan"), 10**400]),  # too big for a float: refused
        ("max", "10", [10, -1], [11]),
        ("in", "read|list", ["read", ["list", "read"]], ["write", ["read", "write"]]),
        ("provenance", "instruction", ["bob@Example.COM", ["bob@example.com"]],
         ["", "ob@example.com", "@example.com", "e"]),
        ("provenance", "instruction", ["invoice to"],
         ["bob@example.co", "bob@example.com.", "voice", "Bob@example.com"]),
    ],
)  # fmt: skip
def test_argument_constraints(kind: str, value: str, ok: list[Any], bad: list[Any]) -> None:
    trusted = "please forward the invoice to bob@example.com"
    rule = constraint(kind, value)
    for item in ok:
        assert unmet_condition(rule, {"x": item}, trusted) is None, item
    for item in bad:
        assert unmet_condition(rule, {"x": item}, trusted) is not None, item
    assert unmet_condition(rule, {}, trusted) == "is missing"  # a missing argument fails closed
    assert unmet_condition(rule, {"x": []}, trusted) == "is missing"  # and so does an empty list
    assert unmet_condition(constraint("provenance", "instruction"), {"x": "a"}, None) is not None


TRUSTED = "reply to sam@example.com and Kim@example.org about Jose\u0301's invoice"


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("\u017fam@example.com", "a long s (U+017F) folds to s"),
        ("\u212aim@example.org", "a Kelvin sign (U+212A) folds to k"),
        ("kim@example.org", "the local part of an address is the recipient's own: its case counts"),
        ("SAM@example.com", "nor in capitals"),
        ("\uff53am@example.com", "a fullwidth s is a compatibility form"),
        ("sam@exampl\u0435.com", "a Cyrillic e in the domain"),
        ("sam@example.co\u217f", "a Roman numeral one thousand (U+217F) is not an m"),
        ("Invoice", "a word in another case than the user wrote it"),
    ],
)
def test_provenance_compares_values_exactly_not_by_unicode_case_folding(value: str, why: str) -> None:
    assert unmet_condition(constraint("provenance", "instruction"), {"x": value}, TRUSTED) is not None, why


@pytest.mark.parametrize(
    "value", ["sam@example.com", "sam@EXAMPLE.com", "Kim@example.org", "Kim@Example.ORG", "Jos\u00e9's"]
)
def test_provenance_ignores_case_only_in_an_email_domain_and_composes_accents(value: str) -> None:
    assert unmet_condition(constraint("provenance", "instruction"), {"x": value}, TRUSTED) is None


def test_grants_agree_with_casbin_enforce(tmp_path: Path) -> None:
    """The grant matches pattern rows itself; it must decide exactly as Casbin's matcher does."""
    rng = random.Random(7)
    tools = [f"{s}__{v}" for s in ("mail", "files", "crm") for v in ("read", "list", "delete", "send")]
    lines = []
    for i in range(300):
        tenant = rng.choice(["acme", "globex", "*"])
        subject = rng.choice(["role:a", "role:b", "role:c", "bob", "profile:p1", "profile:p2"])
        pattern = rng.choice([*tools, "mail__*", "*__read", "crm__*", "*"])
        lines.append(f"p, {subject}, {tenant}, {pattern}, call, r{i}")
    lines += ["g, bob, role:a, acme", "g, role:a, role:b, acme", "g, bob, role:c, globex"]
    policy = load(None, write_policy(tmp_path, "\n".join(lines) + "\n"), 1)
    for tenant, profile, tool in itertools.product(["acme", "globex"], ["p1", "p2"], tools):
        grant = Grant(GrantSpec("t", "bob", tenant, profile), policy)
        by_role = policy.enforcer.enforce("bob", tenant, tool, "call")
        by_profile = policy.enforcer.enforce(f"profile:{profile}", tenant, tool, "call")
        assert grant.tool(tool).allowed == (by_role and by_profile), (tenant, profile, tool)


@pytest.mark.parametrize(
    ("broken", "reason"),
    [
        ("p, role:x, acme, mail__read, call\n", "p row 1 has 4 fields"),
        ("p, role:x, acme, mail__read, call, r1\np2, mail__send, *, to, sometimes, x, c1\n", "unknown kind"),
        ("p, role:x, acme, mail__read, call, r1\np2, mail__send, *, to, regex, *a, c1\n", "bad regular expression"),
        ("p, role:x, acme, mail__read, call, r1\ng, alice, role:x\n", "grouping policy"),
        ("", "no p rows"),
        ("# only a comment\n", "no p rows"),
        ("p, role:x, acme, mail__read, call, r1\n,,,\n", "not a p, p2, p3 or g row"),
        ("p, role:x, acme, mail__read, call, r1\np4, mail__send, *, to, in, a, c1\n", "line 2: not a p, p2, p3 or g"),
        ("p, role:x, acme, mail__read, call, r1\np 2, mail__send, *, to, in, a, c1\n", "not a p, p2, p3 or g row"),
        ("p\trole:x\tacme\tmail__read\tcall\tr1\n", "not a p, p2, p3 or g row"),
        ("p, role:x, acme, mail__read, call, r1\np3, mail__read, *, trusted\n", "p3 row 1 has 3 fields"),
        ("p, role:x, acme, mail__read, call, r1\np2, mail__send, *, to, provenance, contacts, c1\n", "unknown label"),
        (
            "p, role:x, acme, mail__read, call, r1\np2, mail__send, *, to, provenance, untrusted, c1\n",
            "never satisfies",
        ),
        ("p, role:x, acme, mail__read, call, r1\np2, mail__send, *, to, in, a, maybe, c1\n", "unknown effect"),
        ("p, role:x, acme, mail__read, call, r1\np2, mail__send, *, to..x, in, a, c1\n", "bad argument path"),
        ("p, role:x, acme, mail__read, call, r1\np2, files__read, *, path, prefix, docs, c1\n", "is relative"),
        (
            "p, role:x, acme, mail__read, call, r1\np2, bank__pay, *, amount, amount, instruction; tol=1, c1\n",
            "unknown option",
        ),
        (
            "p, role:x, acme, mail__read, call, r1\np2, mail__send, *, to, in, a, c1\np2, mail__*, *, cc, in, a, c1\n",
            "must name the same tools",
        ),
        ("p, role:x, acme, profile:x, pin, r1\np, role:x, acme, mail__send, pin, r2\n", "must be profile:NAME"),
    ],
)
def test_broken_policies_are_refused_with_the_file_and_row(tmp_path: Path, broken: str, reason: str) -> None:
    path = write_policy(tmp_path, broken)
    with pytest.raises(PolicyError, match=reason) as caught:
        load(None, path, 1)
    assert str(path) in str(caught.value)


async def test_hot_reload_applies_a_change_and_refuses_a_broken_file_keeping_the_old_policy(
    proxy: Any, aiohttp_server: Any, keys: Keys, tmp_path: Path
) -> None:
    upstream = ToolCaller()
    server = await aiohttp_server(upstream.app())
    client = await proxy(authz_config(keys, tmp_path, str(server.make_url("")).rstrip("/")))
    policy_file = tmp_path / "policy.csv"

    async def tools_seen() -> list[str]:
        resp = await client.post("/v1/chat/completions", json=ask("summarise my email"), headers=bearer(keys))
        assert resp.status == 200
        return [t["function"]["name"] for t in upstream.bodies[-1]["tools"]]

    async def wait_for(generation: int, refused: int = 0) -> None:
        store = client.app[GATEWAY].services._shared["authz.authorizer"].policy
        for _ in range(100):
            if store.current.generation >= generation and store.reloads["refused"] >= refused:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"no reload: generation {store.current.generation}, {store.reloads}")

    assert await tools_seen() == ["mail__read", "mail__list"]
    _touch(policy_file, POLICY.replace("p, profile:summarise, *, mail__list, call, prof-summarise-list\n", ""))
    await wait_for(2)
    assert await tools_seen() == ["mail__read"]
    _touch(policy_file, "p, this row, is, broken\n")
    await wait_for(2, refused=1)
    assert await tools_seen() == ["mail__read"]  # the last good policy keeps serving
    metrics = (await (await client.get("/metrics")).read()).decode()
    assert 'taskgate_authz_policy_reloads_total{result="refused"} 1.0' in metrics
    assert "taskgate_authz_policy_generation 2.0" in metrics


def _touch(path: Path, text: str) -> None:
    path.write_text(seal(text))
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # a visible change even within a tick
