"""The gateway the dashboard tests look at: real JWTs, the PII and classify guards beside each other, a sim engine."""

from __future__ import annotations

from typing import Any

from tests.authz.conftest import Keys, jwt_section

from ..conftest import upstreams

PROMPT = (
    "Write to jane.porter@example.com and +1 212-555-0147 about the delayed refund; "
    + "the customer waited since Friday and asks what happened to the order. " * 8
)


def dashboard_config(keys: Keys | None, engine_url: str, **ui: Any) -> dict[str, Any]:
    """authn (when `keys`), pii and classify (no input of one another: they run in parallel), state, route."""
    guards: list[dict[str, Any]] = [
        {"name": "pii", "type": "guards.pii", "params": {"backend": "patterns"}},
        {"name": "classify", "type": "guards.classify"},
    ]
    authn: list[dict[str, Any]] = [{"name": "authn", "type": "authz.authenticate"}] if keys else []
    config: dict[str, Any] = upstreams(engine_url, "m") | {
        "steps": [*authn, *guards],
        "pipelines": {"chat": [*(s["name"] for s in (*authn, *guards)), "state", "route"]},
        "logging": {"evidence": False},
        "ui": ui,
    }
    config["routing"]["state"] = {"scrape_interval_s": 0.05}
    if keys:
        config["authz"] = {"jwt": jwt_section(keys)}
    return config


def chat(text: str = PROMPT) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": text}], "max_tokens": 8}


def overlapping(steps: list[dict[str, Any]]) -> tuple[str, str]:
    """Two steps of an evidence record that ran at the same time."""
    spans = [(s["step"], s["start_ms"], s["start_ms"] + s["duration_ms"]) for s in steps]
    pair = next(((a, b) for a, s, e in spans for b, s2, e2 in spans if a < b and s < e2 and s2 < e), None)
    assert pair is not None, f"no two steps overlap in {spans}"
    return pair
