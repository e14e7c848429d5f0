"""structlog set-up: one JSON object per line, on stderr."""

from __future__ import annotations

import logging
import sys
from collections.abc import MutableMapping
from typing import Any

import structlog

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}
EVIDENCE = "evidence"


class LevelFilter:
    """Drops events below the configured level, except evidence: `logging.evidence` governs that."""

    def __init__(self, level: str):
        self.minimum = _LEVELS[level]

    def __call__(self, logger: Any, method: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
        if event.get("event") != EVIDENCE and _LEVELS.get(method, logging.INFO) < self.minimum:
            raise structlog.DropEvent
        return event


def configure_logging(level: str = "info") -> None:
    """JSON logs with ISO timestamps; call once, at process start."""
    structlog.configure(
        processors=[
            LevelFilter(level),
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(min(_LEVELS[level], logging.INFO)),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=True,
    )
