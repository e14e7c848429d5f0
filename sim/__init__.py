"""A simulated OpenAI-compatible inference engine (vLLM-like) for tests and benchmarks."""

from taskgate.sim.profile import PROFILES, EngineProfile
from taskgate.sim.server import ENGINE, ENGINE_HEADER, create_app, serve

__all__ = ["ENGINE", "ENGINE_HEADER", "PROFILES", "EngineProfile", "create_app", "serve"]
