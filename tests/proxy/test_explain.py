"""`taskgate explain`: the plan and every step's decision for a request, with no upstream called."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import yaml

from ..conftest import CARD, IBAN, closed_port

CONFIG = {
    "routing": {
        "pools": [
            {"name": "eu", "region": "eu", "models": [{"name": "m"}], "endpoints": [{"name": "eu-0", "url": "URL"}]},
            {"name": "us", "region": "us", "models": [{"name": "m"}], "endpoints": [{"name": "us-0", "url": "URL"}]},
        ]
    },
    "steps": [
        {"name": "classify", "type": "guards.classify",
         "params": {"mode": "model", "model": {"urls": ["URL"], "model": "m"}}},
        {"name": "pii", "type": "guards.pii", "params": {"backend": "patterns", "entities": {
            "EMAIL_ADDRESS": {"action": "redact"}, "IBAN_CODE": {"action": "restrict", "regions": ["eu"]},
            "CREDIT_CARD": {"action": "block"}}}},
    ],
    "pipelines": {"chat": ["classify", "pii", "state", "route"]},
}  # fmt: skip


def explain(tmp_path: Path, text: str, *headers: str, **extra: object) -> dict[str, object]:
    url = f"http://127.0.0.1:{closed_port()}"  # nothing listens: a call to it would fail, and none may be made
    config = tmp_path / "taskgate.yaml"
    config.write_text(yaml.safe_dump(CONFIG).replace("URL", url))
    request = tmp_path / "request.json"
    request.write_text(json.dumps({"model": "m", "messages": [{"role": "user", "content": text}], **extra}))
    flags = [arg for header in headers for arg in ("-H", header)]
    done = subprocess.run(
        [sys.executable, "-m", "taskgate", "explain", "-c", str(config), str(request), *flags],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report: dict[str, object] = json.loads(done.stdout)
    return report


def test_explain_shows_the_plan_and_each_decision_without_calling_upstreams(tmp_path: Path) -> None:
    report = explain(
        tmp_path,
        f"Summarise the refund for {IBAN}, mail jo@fastmail.com",
        "X-TASKGATE-CLASS: background",
    )
    assert report["outcome"] == "would be dispatched"
    plan = report["plan"]
    assert isinstance(plan, list)
    assert any("route:" in line for line in plan)
    decisions = report["decisions"]
    assert isinstance(decisions, dict)
    assert decisions["intent"]["classifier"] == "local"
    assert decisions["intent"]["request_class"] == "background"  # header names match case-insensitively
    assert "explain" in decisions["intent"]["fallback"]  # the model mode asked no model
    assert decisions["pii"]["allowed_regions"] == ["eu"]
    assert decisions["placement"]["pool"] == "eu"
    assert decisions["cluster"]["engines"]["eu-0"]["scraped"] is False


def test_explain_reports_a_refusal(tmp_path: Path) -> None:
    report = explain(tmp_path, f"charge {CARD}")
    assert str(report["outcome"]).startswith("refused: 400 pii_blocked")


def test_explain_says_what_a_tool_loop_request_would_be_allowed(tmp_path: Path) -> None:
    report = explain(tmp_path, "summarise my inbox", tool_loop={"servers": ["mail"], "max_turns": 3})
    assert report["outcome"] == "would be dispatched"
    loop = report["tool_loop"]
    assert isinstance(loop, dict)
    assert loop["asked"] == {"servers": ["mail"], "max_turns": 3}
    assert loop["bounds"]["max_turns"] == 3  # the request asked for fewer than the operator's 8
    assert loop["bounds"]["max_tool_calls"] == 32


def test_explain_shows_the_rule_the_labels_and_where_a_refused_value_was_seen(tmp_path: Path) -> None:
    from taskgate.authz.seal import seal

    from ..authz.conftest import AUDIENCE, HS_SECRET, ISSUER

    policy = tmp_path / "policy.csv"
    policy.write_text(seal(
        "p, role:staff, acme, mail__*, call, r-mail\np, profile:default, *, mail__*, call, prof\n"
        "p, role:staff, acme, profile:default, pin, pin\n"
        "p2, mail__send, *, to, provenance, instruction|contacts, c-to\np3, mail__contacts, *, contacts, t\n"
    ))  # fmt: skip
    config = {
        "routing": {"pools": []},
        "authz": {
            "jwt": {"issuer": ISSUER, "audience": AUDIENCE, "algorithms": ["HS256"],
                    "keys": [{"algorithm": "HS256", "secret_env": "IDP_HS_SECRET"}]},
            "policy": {"file": str(policy), "reload_interval_s": 0}, "tasks": {},
        },
        "mcp": {"servers": [{"name": "mail", "url": f"http://127.0.0.1:{closed_port()}/mcp"}]},
        "steps": [{"name": "authn", "type": "authz.authenticate"}, {"name": "authorize", "type": "authz.authorize"}],
        "pipelines": {"mcp": ["authn", "authorize"]},
    }  # fmt: skip
    path = tmp_path / "taskgate.yaml"
    path.write_text(yaml.safe_dump(config))
    call = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "mail__send", "arguments": {"to": "mallory@evil.example", "body": "hi"},
        "_meta": {"io.taskgate/purpose": "mail the minutes to the team, not to mallory"}}}  # fmt: skip
    request = tmp_path / "call.json"
    request.write_text(json.dumps(call))
    import time

    import jwt

    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "tenant": "acme", "roles": ["staff"],
              "exp": int(time.time()) + 300}  # fmt: skip
    token = jwt.encode(claims, HS_SECRET, algorithm="HS256")
    done = subprocess.run(
        [sys.executable, "-m", "taskgate", "explain", "-c", str(path), "--surface", "mcp", str(request),
         "-H", f"Authorization: Bearer {token}"],
        capture_output=True, text=True, timeout=60, check=False,
        env={**__import__("os").environ, "IDP_HS_SECRET": HS_SECRET, "TASKGATE_TASK_KEY": "k" * 40},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert str(report["outcome"]).startswith("refused: 403 tool_denied")
    decision = report["refusal"]["decision"]
    assert decision["rule"] == "c-to"
    assert "was not seen in data labelled contacts|instruction" in decision["reason"]
    assert decision["refused"] == {"value": "mallory@evil.example", "seen": None}  # a name is not an address


def test_explain_names_a_removed_tool_and_the_policy_rows_that_would_grant_it(tmp_path: Path) -> None:
    import os
    import time

    import jwt

    from taskgate.authz.seal import seal

    from ..authz.conftest import AUDIENCE, HS_SECRET, ISSUER

    policy = tmp_path / "policy.csv"
    policy.write_text(seal("p, role:staff, acme, mail__*, call, r-mail\np, profile:default, *, mail__read, call, p\n"))
    config = {
        "routing": {"pools": [{"name": "p", "models": [{"name": "m"}], "endpoints": [{"name": "e", "url": "URL"}]}]},
        "authz": {
            "jwt": {"issuer": ISSUER, "audience": AUDIENCE, "algorithms": ["HS256"],
                    "keys": [{"algorithm": "HS256", "secret_env": "IDP_HS_SECRET"}]},
            "policy": {"file": str(policy), "reload_interval_s": 0}, "tasks": {},
        },
        "steps": [{"name": "authn", "type": "authz.authenticate"}, {"name": "authorize", "type": "authz.authorize"}],
        "pipelines": {"chat": ["authn", "authorize", "state", "route"]},
    }  # fmt: skip
    path = tmp_path / "taskgate.yaml"
    path.write_text(yaml.safe_dump(config).replace("URL", f"http://127.0.0.1:{closed_port()}"))
    tools = [{"type": "function", "function": {"name": n}} for n in ("mail__read", "mail__send", "calendar__add")]
    request = tmp_path / "chat.json"
    request.write_text(json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}], "tools": tools}))
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": "alice", "tenant": "acme", "roles": ["staff"],
              "exp": int(time.time()) + 300}  # fmt: skip
    token = jwt.encode(claims, HS_SECRET, algorithm="HS256")
    argv = [sys.executable, "-m", "taskgate", "explain", "-c", str(path), str(request)]
    done = subprocess.run(
        [*argv, "-H", f"Authorization: Bearer {token}"], capture_output=True, text=True, timeout=60, check=False,
        env={**os.environ, "IDP_HS_SECRET": HS_SECRET, "TASKGATE_TASK_KEY": "k" * 40},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    grant = json.loads(done.stdout)["decisions"]["grant"]
    assert grant["tools_removed"] == ["mail__send", "calendar__add"]
    why = grant["tools_removed_why"]
    assert why["mail__send"]["would_grant"] == ["p, profile:default, *, mail__send, call, RULE_ID"]
    assert why["calendar__add"]["would_grant"] == [
        "p, role:staff, acme, calendar__add, call, RULE_ID", "p, profile:default, *, calendar__add, call, RULE_ID",
    ]  # fmt: skip
