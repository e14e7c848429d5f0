"""`taskgate sim`: one simulated engine from a named profile."""

from __future__ import annotations

import dataclasses

from taskgate.errors import TaskgateError


def run_sim(profile: str, host: str, port: int, name: str | None, models: list[str] | None) -> None:
    from taskgate.sim import PROFILES, serve

    if profile not in PROFILES:
        raise TaskgateError(f"unknown sim profile {profile!r} (known: {', '.join(sorted(PROFILES))})")
    chosen = PROFILES[profile]
    if models:
        chosen = dataclasses.replace(chosen, models=tuple(models))
    serve(host, port, chosen, name or profile)
