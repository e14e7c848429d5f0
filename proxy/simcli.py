"""`taskgate sim`: one simulated engine from a named profile, with optional field overrides."""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING

from taskgate.errors import TaskgateError

if TYPE_CHECKING:
    from taskgate.sim import EngineProfile

# The override flags (argparse dests): profile field, whether 0 is allowed, and the unit factor.
OVERRIDES: dict[str, tuple[str, bool, float]] = {
    "time_scale": ("time_scale", True, 1.0),
    "max_num_seqs": ("max_num_seqs", False, 1.0),
    "kv_blocks": ("kv_capacity_blocks", False, 1.0),
    "prefill_tps": ("prefill_tokens_per_s", False, 1.0),
    "tpot_ms": ("tpot_s", True, 0.001),
    "block_size": ("block_size", False, 1.0),
}


def run_sim(
    profile: str,
    host: str,
    port: int,
    name: str | None,
    models: list[str] | None,
    overrides: dict[str, float | int | None] | None = None,
) -> None:
    from taskgate.sim import serve

    serve(host, port, build_profile(profile, models, overrides or {}), name or profile)


def build_profile(profile: str, models: list[str] | None, overrides: dict[str, float | int | None]) -> EngineProfile:
    """The named profile with `models` and the overrides applied; None keeps the profile's value."""
    from taskgate.sim import PROFILES

    if profile not in PROFILES:
        raise TaskgateError(f"unknown sim profile {profile!r} (known: {', '.join(sorted(PROFILES))})")
    changes: dict[str, object] = {"models": tuple(models)} if models else {}
    for flag, value in overrides.items():
        if value is None:
            continue
        if flag not in OVERRIDES:
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
