"""The classify step: the local model's accuracy and speed, rules, header policy, model mode and its fallback."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

import numpy as np
import pytest

from taskgate.gateway.gateway import GATEWAY
from taskgate.guards.classifier import HELD_OUT, bundled
from taskgate.guards.classify import MIN_PART_WORDS, PARTS, trained_model
from taskgate.sim import PROFILES
from taskgate.sim import create_app as create_sim
from taskgate.sim.script import Rule, Script

from ..conftest import CARD, EMAIL

# Measured on the bundled held-out split (240 examples written apart from the training set): 0.95.
HELD_OUT_ACCURACY_FLOOR = 0.93


def test_the_local_model_keeps_its_measured_accuracy_on_the_held_out_split() -> None:
    model = trained_model(())
    held_out = bundled(HELD_OUT)
    assert {e.label for e in held_out} == {"chat", "code", "summarise", "extract"}
    accuracy = model.accuracy(held_out)
    assert accuracy >= HELD_OUT_ACCURACY_FLOOR, accuracy
    training = {e.text for e in bundled()}
    assert not training & {e.text for e in held_out}  # no example is in both


def test_the_packaged_model_is_fitted_on_the_bundled_examples_as_they_are_now() -> None:
    """The model shipped in data/ is fitted at build time; a change of the examples or of the features makes it
    stale: refit it with `python -m taskgate.guards.classifier`."""
    from taskgate.guards.classifier import LocalModel, digest

    packaged = LocalModel.packaged()
    assert packaged.fitted_on == digest(bundled()), "stale: run python -m taskgate.guards.classifier"
    fresh = LocalModel.train(bundled())
    texts = [e.text for e in bundled(HELD_OUT)][:60]
    assert (
        np.abs(np.array([packaged.probabilities(t) for t in texts]) - [fresh.probabilities(t) for t in texts]).max()
        < 1e-6
    )


def test_importing_the_guards_does_not_import_scikit_learn() -> None:
    import subprocess
    import sys

    code = "import sys, taskgate.guards; from taskgate.guards.classify import trained_model; trained_model(()); " \
        "print(sorted(m for m in sys.modules if m.startswith('sklearn')))"  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "[]"


def test_fast_prediction_is_the_fitted_pipeline_exactly_and_faster() -> None:
    from taskgate.guards.classifier import LocalModel

    model = LocalModel.train(bundled())
    texts = [e.text for e in bundled(HELD_OUT)]
    reference = model.pipeline.predict_proba(texts)
    ours = np.array([model.probabilities(t) for t in texts])
    assert np.abs(reference - ours).max() < 1e-9
    # timed against the fitted pipeline in the same run, so a busy machine slows both alike
    fast, fitted = [], []
    for text in texts:
        started = time.perf_counter()
        model.predict(text)
        fast.append(time.perf_counter() - started)
        started = time.perf_counter()
        model.pipeline.predict_proba([text])
        fitted.append(time.perf_counter() - started)
    per_call, pipeline_call = sum(fast) / len(texts), sum(fitted) / len(texts)
    assert per_call * 4 < pipeline_call, f"{per_call * 1e6:.0f} us per prediction, {pipeline_call * 1e6:.0f} us fitted"
    # no absolute bound: on a machine as busy as two test workers make it, only the comparison means anything
    # (bench/guards.py measures the prediction itself)


def classify_config(url: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    pool = {"name": "default", "endpoints": [{"name": "up", "url": url}], "models": [{"name": "m"}]}
    return {
        "routing": {"pools": [pool]},
        "steps": [{"name": "classify", "type": "guards.classify", "params": params or {}}],
        "pipelines": {"chat": ["classify", "state", "route"], "embeddings": ["classify", "state", "route"]},
        "logging": {"evidence": False},
    }


async def intent_of(client: Any, body: dict[str, Any], **headers: str) -> dict[str, Any]:
    path = "/v1/embeddings" if "input" in body else "/v1/chat/completions"
    resp = await client.post(path, json=body, headers=headers)
    assert resp.status == 200, await resp.text()
    record = client.app[GATEWAY].evidence.find(resp.headers["x-taskgate-request-id"])
    assert record is not None
    return dict(record["decisions"]["intent"])


def chat(text: str, **extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": text}], "max_tokens": 2, **extra}


@pytest.fixture
async def sim_url(aiohttp_server: Any) -> Any:
    async def start(*rules: Rule) -> str:
        profile = dataclasses.replace(PROFILES["instant"], models=("m",))
        server = await aiohttp_server(create_sim(profile, "sim", Script(rules) if rules else None))
        return str(server.make_url("")).rstrip("/")

    return start


async def test_local_intents_rules_and_the_class_they_map_to(proxy: Any, sim_url: Any) -> None:
    client = await proxy(classify_config(await sim_url()))
    code = await intent_of(client, chat("Fix this Python: def f(x) return x+1  # SyntaxError on line 1"))
    assert code["task_type"] == "code"
    assert code["request_class"] == "interactive"
    assert code["classifier"] == "local"
    summary = await intent_of(client, chat("tl;dr of the attached meeting notes please, five bullet points"))
    assert summary["task_type"] == "summarise"
    assert summary["request_class"] == "batch"
    assert summary["output_tokens"] == 2  # the request's own max_tokens wins over the default
    # a task's turns keep the class of its instruction (the first user message), tool turns included
    turn = chat("Summarise the attached quarterly report in five bullet points.")
    call = {"id": "1", "type": "function", "function": {"name": "fetch_report", "arguments": "{}"}}
    turn["messages"] += [
        {"role": "assistant", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "1", "content": "Q3"},
    ]
    tool_turn = await intent_of(client, turn)
    assert tool_turn["task_type"] == "agent_tool_step"
    assert tool_turn["instruction_type"] == "summarise"
    assert tool_turn["request_class"] == "batch"
    assert tool_turn["profile"] == "summarise"
    turn["messages"] += [
        {"role": "assistant", "content": "Here it is."},
        {"role": "user", "content": "thanks, nice job!"},
    ]
    assert (await intent_of(client, turn))["task_type"] == "summarise"
    long = await intent_of(client, chat("Please review this contract. " + "Clause text goes on. " * 2000))
    assert long["task_type"] == "long_document"
    assert long["classifier"] == "rules"
    assert long["prompt_tokens"] > 8000
    embed = await intent_of(client, {"model": "m", "input": ["hello"]})
    assert embed["task_type"] == "embedding"


async def test_the_class_header_may_lower_urgency_but_never_raise_it(proxy: Any, sim_url: Any) -> None:
    client = await proxy(classify_config(await sim_url()))
    code = "Write a bash one-liner that counts lines in every .py file"
    lowered = await intent_of(client, chat(code), **{"x-taskgate-class": "background"})
    assert lowered["request_class"] == "background"
    assert lowered["class_source"] == "header"
    raised = await intent_of(
        client, chat("Summarise this report in three sentences: ..."), **{"x-taskgate-class": "interactive"}
    )
    assert raised["request_class"] == "batch"
    assert raised["class_source"] == "task_type"
    pinned_off = await proxy(classify_config(await sim_url(), {"task_types": {"code": {"caller_class": "off"}}}))
    assert (await intent_of(pinned_off, chat(code), **{"x-taskgate-class": "background"}))[
        "request_class"
    ] == "interactive"


async def test_model_mode_asks_the_pool_and_parses_its_answer_strictly(proxy: Any, sim_url: Any) -> None:
    # the sim's rules match the last message: the user's text, which the classifier sends last
    url = await sim_url(Rule("quarterly", "extract"), Rule("poem", "I think this is chat, probably."))
    client = await proxy(classify_config(url, {"mode": "model", "model": {"pool": "default", "model": "m"}}))
    asked = await intent_of(client, chat("Draft the quarterly update for the board"))
    assert asked["task_type"] == "extract"  # the model's answer, not the local model's guess
    assert asked["classifier"] == "model:m"
    assert "fallback" not in asked
    chatty = await intent_of(client, chat("write me a poem about autumn"))
    assert chatty["classifier"] == "local"
    assert "not one of the labels" in chatty["fallback"]


async def test_model_mode_falls_back_to_the_local_model_on_timeout(proxy: Any, sim_url: Any) -> None:
    slow = await sim_url(Rule(".", "code", delay_s=1.0))
    params = {"mode": "model", "model": {"urls": [slow], "model": "m", "timeout_s": 0.2}}
    client = await proxy(classify_config(await sim_url(), params))
    started = time.perf_counter()
    intent = await intent_of(client, chat("give me the key points of this article about bees"))
    assert time.perf_counter() - started < 0.9  # the step did not wait for the slow model
    assert intent["classifier"] == "local"
    assert intent["task_type"] == "summarise"
    assert intent["fallback"] == "no answer within 0.2 s"


async def test_model_mode_falls_back_when_the_server_is_down(proxy: Any, sim_url: Any) -> None:
    from ..conftest import closed_port

    down = f"http://127.0.0.1:{closed_port()}"
    params = {"mode": "model", "model": {"urls": [down], "model": "m"}}
    client = await proxy(classify_config(await sim_url(), params))
    intent = await intent_of(client, chat("extract the invoice number and total as JSON"))
    assert intent["classifier"] == "local"
    assert down in intent["fallback"]


async def test_operators_add_labels_with_their_own_examples(proxy: Any, sim_url: Any, tmp_path: Any) -> None:
    import json

    lines = [
        json.dumps({"text": t, "label": "translate"})
        for t in [f"translate this into {lang}: {s}" for lang in ("French", "German", "Spanish", "Italian", "Dutch")
                  for s in ("good morning", "where is the station", "the invoice is attached", "see you tomorrow",
                            "thank you for your order", "the meeting moved to noon")]
    ]  # fmt: skip
    examples = tmp_path / "translate.jsonl"
    examples.write_text("\n".join(lines))
    params = {
        "examples": [str(examples)],
        "task_types": {"translate": {"request_class": "batch", "profile": "language"}},
    }
    client = await proxy(classify_config(await sim_url(), params))
    intent = await intent_of(client, chat("translate into Portuguese: the parcel arrives on Monday"))
    assert intent["task_type"] == "translate"
    assert intent["profile"] == "language"
    assert intent["request_class"] == "batch"


async def test_model_mode_sends_the_redacted_instruction_and_nothing_when_pii_blocks(
    proxy: Any, sim_url: Any, aiohttp_server: Any
) -> None:
    from .conftest import Scripted

    recorder = Scripted(pieces=["extract"])
    classifier = await aiohttp_server(recorder.app())
    model = {"urls": [str(classifier.make_url("")).rstrip("/")], "model": "m"}
    config = classify_config(await sim_url(), {"mode": "model", "model": model})
    rules = {"EMAIL_ADDRESS": {"action": "redact"}, "CREDIT_CARD": {"action": "block"}}
    config["steps"].append({"name": "pii", "type": "guards.pii", "params": {"backend": "patterns", "entities": rules}})
    config["pipelines"]["chat"] = ["classify", "pii", "state", "route"]
    client = await proxy(config)
    intent = await intent_of(client, chat(f"pull the order ids from the mail of {EMAIL}"))
    assert intent["task_type"] == "extract"
    sent = recorder.bodies[-1]["messages"][-1]["content"]
    assert EMAIL not in sent
    assert "<EMAIL_ADDRESS>" in sent
    asked = len(recorder.bodies)
    resp = await client.post("/v1/chat/completions", json=chat(f"charge {CARD} and file it"))
    assert resp.status == 400
    assert len(recorder.bodies) == asked  # blocked before the classifier was asked


async def test_a_malformed_body_is_classified_without_failing_the_request(proxy: Any, sim_url: Any) -> None:
    client = await proxy(classify_config(await sim_url()))
    for body in ({"model": "m", "messages": 5}, {"model": "m", "messages": [7, {"role": "user", "content": 3}]}):
        resp = await client.post("/v1/chat/completions", json=body)
        assert resp.status != 503, await resp.text()  # the upstream judges the body; classify does not crash


SUPPORT = [
    "summarise the support tickets from today", "summarise this customer complaint",
    "give me a summary of the open tickets", "summarise the ticket queue", "triage the incoming support requests",
    "summarise what the customer is asking for in this ticket", "sum up the escalated tickets",
    "summarise the bug reports customers filed", "short summary of each new support ticket",
    "triage these tickets by urgency",
]  # fmt: skip
SUPPORT_KEPT_APART = [
    "summarise the latest customer tickets", "what are the support tickets about, in short",
    "summarise the complaints in the queue", "give me the gist of the new support requests",
    "summarise ticket 4411 for me", "sum up what customers reported today", "briefly summarise the escalations",
    "recap the open support cases", "summarise the helpdesk inbox", "overview of the urgent tickets please",
]  # fmt: skip


def test_operator_examples_outweigh_the_bundled_ones_on_a_set_the_operator_kept_apart() -> None:
    """Ten operator examples of a type that overlaps a bundled one ("summarise the tickets" is support
    triage here) lose to 300 bundled summaries when they count once each; weighted, they win, and the
    bundled types keep their accuracy on their own held-out split."""
    from taskgate.guards.classifier import Example, LocalModel

    own = [Example(t, "support_triage") for t in SUPPORT]
    apart = [Example(t, "support_triage") for t in SUPPORT_KEPT_APART]
    appended = LocalModel.train([*bundled(), *own])
    weighted = LocalModel.with_operator(own)
    assert appended.accuracy(apart) <= 0.3  # what counting them once gives: the bundled type wins
    assert weighted.accuracy(apart) >= 0.8
    held_out = bundled(HELD_OUT)
    assert weighted.accuracy(held_out) >= appended.accuracy(held_out) - 0.02


async def test_a_request_with_several_parts_names_each_part_s_profile(proxy: Any, sim_url: Any, tmp_path: Any) -> None:
    import json

    examples = tmp_path / "support.jsonl"
    examples.write_text("\n".join(json.dumps({"text": t, "label": "support_triage"}) for t in SUPPORT))
    client = await proxy(classify_config(await sim_url(), {"examples": [str(examples)]}))
    both = await intent_of(client, chat("fix this python function that crashes, then triage the incoming tickets"))
    assert set(both["profiles"]) == {"code", "support_triage"}
    assert both["profiles"][0] == both["profile"]
    one = await intent_of(client, chat("fix this python function that crashes on empty input"))
    assert "profiles" not in one
    # what the user pastes or quotes is not theirs to split: it adds no profile
    pasted = "summarise this message for me:\nfix this python function that crashes, then triage the incoming tickets"
    assert "profiles" not in await intent_of(client, chat(pasted))


def test_a_request_s_parts_meet_at_commas_and_connectives_but_not_inside_an_amount() -> None:
    def parts(text: str) -> list[str]:
        return [p for p in PARTS.split(text) if len(p.split()) >= MIN_PART_WORDS]

    # a payment named first and briefly is a part of its own, not the start of the filing part
    assert parts("pay jonas, save the receipt in invoices/paid.md and email ben for it") == [
        "pay jonas", "save the receipt in invoices/paid.md", "email ben for it"]  # fmt: skip
    assert parts("summarise the thread, then forward the summary to my manager") == [
        "summarise the thread", "forward the summary to my manager"]  # fmt: skip
    assert parts("tomás covered my pizza, 12.50, send it to him") == ["tomás covered my pizza, 12.50", "send it to him"]


async def test_an_unsure_classification_falls_to_the_narrowest_profile(proxy: Any, sim_url: Any) -> None:
    params = {"min_confidence": 0.9, "uncertain_profile": "minimal"}
    client = await proxy(classify_config(await sim_url(), params))
    unsure = await intent_of(client, chat("hmm"))
    assert (unsure["profile"], unsure["profile_uncertain"]) == ("minimal", True)
    sure = await intent_of(client, chat("Fix this Python: def f(x) return x+1  # SyntaxError on line 1"))
    assert sure["profile"] == "code"
    assert "profile_uncertain" not in sure
