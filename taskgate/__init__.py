"""taskgate: an agentic-workflow proxy with per-task authorization."""

__version__ = "0.1.0"
