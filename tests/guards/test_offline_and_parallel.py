"""No network at start-up or while scanning; classify and pii run side by side."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from typing import Any

from taskgate.gateway.gateway import GATEWAY
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim
from taskgate.sim.script import Rule, Script

OFFLINE = textwrap.dedent(
    """
    import json, socket
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(repr(args[1:] if len(args) > 1 else args)[:200])
        raise OSError("network disabled for this test")

    socket.socket.connect = refuse
    socket.socket.connect_ex = refuse
    socket.getaddrinfo = refuse
    socket.create_connection = refuse

    from taskgate.proxy.app import create_app, default_registry
    from taskgate.gateway.config import parse_config

    registry = default_registry()
    raw = {
        "steps": [
            {"name": "pii", "type": "guards.pii", "params": {"backend": "ner"}},
            {"name": "classify", "type": "guards.classify"},
        ],
        "pipelines": {"chat": ["classify", "pii", "state", "route"]},
    }
    app = create_app(parse_config(raw, "<offline>", registry), registry)
    from taskgate.gateway.gateway import GATEWAY
    plan = app[GATEWAY].plans["chat"]
    text = "Write to Dana Whitfield at dana.whitfield@mail.example.co.uk or +44 20 7946 0958."
    findings = plan.steps["pii"].scanner.analyze(text)
    label = plan.steps["classify"].local.predict("summarise this thread in two lines")[0]
    print(json.dumps({"attempts": attempts, "entities": sorted({f.entity for f in findings}), "label": label}))
    """
)


def test_start_up_and_scanning_make_no_network_attempt(tmp_path: Any) -> None:
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "TLDEXTRACT_CACHE": str(tmp_path / "tld")}
    done = subprocess.run(
        [sys.executable, "-c", OFFLINE], capture_output=True, text=True, timeout=120, env=env, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["attempts"] == []
    assert {"EMAIL_ADDRESS", "PERSON", "PHONE_NUMBER"} <= set(result["entities"])
    assert result["label"] == "summarise"
    assert not any(tmp_path.iterdir()), list(tmp_path.iterdir())  # nothing cached or downloaded under HOME


async def test_classify_and_pii_together_cost_about_the_slower_not_the_sum(proxy: Any, aiohttp_server: Any) -> None:
    profile = dataclasses.replace(PROFILES["instant"], models=("m",))
    classifier = await aiohttp_server(create_sim(profile, "classifier", Script([Rule(".", "summarise", delay_s=0.3)])))
    engine = await aiohttp_server(create_sim(profile, "engine"))
    pool = {
        "name": "default",
        "endpoints": [{"name": "e", "url": str(engine.make_url("")).rstrip("/")}],
        "models": [{"name": "m"}],
    }
    # send: raw lets the classifier call run beside pii (by default it waits for the redacted text)
    model = {"urls": [str(classifier.make_url("")).rstrip("/")], "model": "m", "timeout_s": 5, "send": "raw"}
    client = await proxy(
        {
            "routing": {"pools": [pool]},
            "steps": [
                {"name": "classify", "type": "guards.classify", "params": {"mode": "model", "model": model}},
                {"name": "pii", "type": "guards.pii", "params": {"backend": "ner", "cache_entries": 0}},
            ],
            "pipelines": {"chat": ["classify", "pii", "state", "route"]},
            "logging": {"evidence": False},
        }
    )
    # a few hundred ms of NER (about 1.3 ms per repetition on this suite's machine): long enough to compare with
    # the classifier's 0.3 s model call
    text = "Summarise the following notes from the planning meeting with the regional team. " * 200
    resp = await client.post(
        "/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": text}], "max_tokens": 2}
    )
    assert resp.status == 200
    record = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert record is not None
    steps = {s["step"]: s for s in record["steps"]}
    classify, pii = steps["classify"], steps["pii"]
    assert record["decisions"]["intent"]["classifier"] == "model:m"
    assert classify["duration_ms"] >= 290
    assert pii["duration_ms"] >= 150, pii
    both = classify["duration_ms"] + pii["duration_ms"]
    slower = max(classify["duration_ms"], pii["duration_ms"])
    # they started together and overlapped; the plan reached dispatch in about the slower one's time
    assert abs(classify["start_ms"] - pii["start_ms"]) < 20
    before_dispatch = record["dispatch"]["started_ms"]
    assert before_dispatch < slower + 0.35 * (both - slower), (before_dispatch, classify, pii)
