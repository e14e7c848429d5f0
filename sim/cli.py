"""`taskgate sim`: one simulated engine from a named profile, with optional field overrides."""

from __future__ import annotations

import dataclasses
import math
import re
from typing import TYPE_CHECKING, Any

from taskgate.errors import TaskgateError

if TYPE_CHECKING:
    from taskgate.sim import EngineProfile
    from taskgate.sim.script import Script

# The override flags (argparse dests): profile field, whether 0 is allowed, and the unit factor.
OVERRIDES: dict[str, tuple[str, bool, float]] = {
    "time_scale": ("time_scale", True, 1.0),
    "max_num_seqs": ("max_num_seqs", False, 1.0),
    "kv_blocks": ("kv_capacity_blocks", False, 1.0),
    "prefill_tps": ("prefill_tokens_per_s", False, 1.0),
    "tpot_ms": ("tpot_s", True, 0.001),
    "block_size": ("block_size", False, 1.0),
    "prefill_chunk_tokens": ("prefill_chunk_tokens", True, 1.0),
    "default_max_tokens": ("default_max_tokens", False, 1.0),
    "kv_bytes_per_token": ("kv_bytes_per_token", False, 1.0),
    "kv_transfer_gb_per_s": ("kv_transfer_gb_per_s", False, 1.0),
}
SETTINGS = ("role", "prefill_stalls_decode")  # profile fields given as they are (a role, a switch)


def run_sim(
    profile: str,
    host: str,
    port: int,
    name: str | None,
    models: list[str] | None,
    overrides: dict[str, float | int | str | bool | None] | None = None,
    script: str | None = None,
) -> None:
    from taskgate.sim import serve

    built = build_profile(profile, models, overrides or {})
    serve(host, port, built, name or profile, load_script(script) if script else None)


def load_script(path: str) -> Script:
    """Scripted replies from a YAML list; every problem names the file and the rule."""
    import yaml

    from taskgate.sim.script import Rule, Script, ToolCall

    try:
        with open(path, encoding="utf-8") as handle:
            raw = yaml.safe_load(handle)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise TaskgateError(f"{path}: cannot read the script: {exc}") from None
    if not isinstance(raw, list):
        raise TaskgateError(f"{path}: a script is a list of rules ({{match, reply, tool_calls, role, delay_s}})")
    rules = []
    for index, item in enumerate(raw):
        try:
            if not isinstance(item, dict) or set(item) - {"match", "reply", "delay_s", "tool_calls", "role"}:
                raise ValueError(
                    "a rule has `match` and `reply` or `tool_calls`, optionally `role`, `delay_s`; nothing else"
                )
            calls = tuple(
                ToolCall(str(c["name"]), dict(c.get("arguments") or {})) for c in item.get("tool_calls") or []
            )
            role = item.get("role")
            rules.append(
                Rule(str(item["match"]), str(item.get("reply", "")), float(item.get("delay_s", 0.0)), calls,
                     str(role) if role is not None else None)
            )  # fmt: skip
        except (KeyError, ValueError, TypeError, re.error) as exc:
            raise TaskgateError(f"{path}: rule [{index}]: {exc}") from None
    return Script(rules)


def build_profile(
    profile: str, models: list[str] | None, overrides: dict[str, float | int | str | bool | None]
) -> EngineProfile:
    """The named profile with `models` and the overrides applied; None keeps the profile's value."""
    from taskgate.sim import PROFILES

    if profile not in PROFILES:
        raise TaskgateError(f"unknown sim profile {profile!r} (known: {', '.join(sorted(PROFILES))})")
    changes: dict[str, object] = {"models": tuple(models)} if models else {}
    for flag, value in overrides.items():
        if value is None:
            continue
        if flag in SETTINGS:
            changes[flag] = value
            continue
        if flag not in OVERRIDES or isinstance(value, (str, bool)):
            raise TaskgateError(f"unknown sim override {flag!r}")
        field, zero_ok, unit = OVERRIDES[flag]
        option = "--" + flag.replace("_", "-")
        if not math.isfinite(value) or value < 0 or (value == 0 and not zero_ok):
            raise TaskgateError(f"{option} must be {'zero or more' if zero_ok else 'positive'} and finite, got {value}")
        changes[field] = value * unit if unit != 1.0 else value
    try:
        return dataclasses.replace(PROFILES[profile], **changes)  # type: ignore[arg-type]
    except ValueError as exc:
        raise TaskgateError(f"invalid sim profile: {exc}") from None


def add_command(sub: Any) -> None:
    """Add the `sim` command to the `taskgate` CLI's subcommands."""
    sim = sub.add_parser("sim", help="run a simulated OpenAI-compatible inference engine")
    sim.add_argument("profile", nargs="?", default="h100", help="engine profile (default: h100)")
    sim.add_argument("--port", type=int, default=9000)
    sim.add_argument("--host", default="127.0.0.1")
    sim.add_argument("--name", help="engine name reported in x-sim-engine (default: the profile)")
    sim.add_argument("--model", action="append", help="model name to serve (repeatable)")
    sim.add_argument("--script", help="YAML list of scripted replies: {match: REGEX, reply: TEXT, delay_s: N}")
    tuning = sim.add_argument_group("profile overrides (default: the profile's value)")
    tuning.add_argument("--time-scale", type=float, help="multiplier on every simulated delay; 0 disables them")
    tuning.add_argument("--max-num-seqs", type=int, help="concurrent sequences")
    tuning.add_argument("--kv-blocks", type=int, help="KV-cache size in blocks")
    tuning.add_argument("--prefill-tps", type=float, help="prefill throughput, tokens per second")
    tuning.add_argument("--tpot-ms", type=float, help="milliseconds per output token, alone")
    tuning.add_argument("--block-size", type=int, help="tokens per KV block")
    tuning.add_argument(
        "--prefill-chunk-tokens", type=int, help="prefill long prompts in chunks of this many tokens (0: whole)"
    )
    tuning.add_argument("--default-max-tokens", type=int, help="tokens a reply may take when the request sets none")
    tuning.add_argument("--kv-bytes-per-token", type=int, help="KV bytes of one token (a remote prefill's size)")
    tuning.add_argument("--kv-transfer-gb-per-s", type=float, help="GB/s at which a remote prefill's KV arrives")
    tuning.add_argument(
        "--prefill-stalls-decode",
        action="store_true",
        default=None,
        help="a decode step waits for the prefill chunk computing (one batch per step, as a GPU runs it)",
    )
    sim.add_argument(
        "--role",
        choices=("prefill", "decode", "both"),
        help="disaggregated serving: prefill only (answers with kv_transfer_params), decode only (takes them), "
        "or both (default)",
    )
    sim.set_defaults(run=_run)


def _run(args: Any) -> int:
    overrides = {flag: getattr(args, flag) for flag in (*OVERRIDES, *SETTINGS)}
    run_sim(args.profile, args.host, args.port, args.name, args.model, overrides, args.script)
    return 0
