"""structlog set-up for every room: one JSON object per line, on stderr (stdlib logging routed through it)."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import MutableMapping, Sequence
from datetime import UTC, datetime
from typing import Any, BinaryIO

import orjson
import structlog

_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}
EVIDENCE = "evidence"
_SINK: BinaryIO | None = None  # where configure_logging's JSON lines go: evidence lines are written there directly


class LevelFilter:
    """Drops events below the configured level, except evidence: `logging.evidence` governs that."""

    def __init__(self, level: str):
        self.minimum = _LEVELS[level]

    def __call__(self, logger: Any, method: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
        if event.get("event") != EVIDENCE and _LEVELS.get(method, logging.INFO) < self.minimum:
            raise structlog.DropEvent
        return event


def configure_logging(level: str = "info") -> None:
    """JSON logs with ISO timestamps, ours and the libraries' (aiohttp, the MCP SDK) alike; call once, at start."""
    global _SINK
    _SINK = sys.stderr.buffer
    _route_standard_logging(level)
    structlog.configure(
        processors=[
            LevelFilter(level),
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            # orjson: an evidence record (~1.4 KB) renders in ~6 us instead of ~40 us, on every request
            structlog.processors.JSONRenderer(serializer=_dumps),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(min(_LEVELS[level], logging.INFO)),
        logger_factory=structlog.BytesLoggerFactory(file=sys.stderr.buffer),
        cache_logger_on_first_use=True,
    )


def _dumps(event: Any, default: Any = None) -> bytes:
    return dumps(event, default)


def loads(data: bytes) -> Any:
    """What `dumps` wrote, read back (an integer past 64 bits included)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return json.loads(data)


def write_evidence(records: Sequence[bytes]) -> None:
    """Evidence records (their JSON bytes, rendered once) as log lines: with `configure_logging`'s JSON logs, the
    same line structlog would write, in one write for the batch; otherwise through structlog (a test's capture,
    the console in development)."""
    if _SINK is None:
        logger = structlog.get_logger("taskgate")
        for record in records:
            logger.info(EVIDENCE, **loads(record))
        return
    stamp = datetime.now(tz=UTC).isoformat().replace("+00:00", "Z")
    tail = b',"event":"evidence","level":"info","timestamp":"' + stamp.encode() + b'"}\n'
    _SINK.write(b"".join(record[:-1] + tail for record in records))
    _SINK.flush()


def dumps(value: Any, default: Any = None) -> bytes:
    """JSON bytes of anything a log line or a record holds: orjson, else the standard library for what orjson
    refuses (an integer past 64 bits that a client sent), so no record is ever lost to its own contents."""
    try:
        return orjson.dumps(value, default=default, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:
        return json.dumps(value, default=default or repr, separators=(",", ":")).encode()


def _route_standard_logging(level: str) -> None:
    """Records of the standard `logging` module become the same one-line JSON objects on stderr."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.JSONRenderer(),
            ],
            foreign_pre_chain=[
                structlog.stdlib.add_log_level,
                structlog.stdlib.add_logger_name,
                structlog.processors.TimeStamper(fmt="iso", utc=True),
                structlog.processors.format_exc_info if level == "debug" else _exception_in_one_line,
            ],
        )
    )
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(max(_LEVELS[level], logging.WARNING))  # libraries' INFO chatter stays out


def _exception_in_one_line(logger: Any, method: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """A library's exception as its type and message: its traceback is its own business (level debug shows it)."""
    info = event.pop("exc_info", None)
    if info:
        error = info[1] if isinstance(info, tuple) else sys.exc_info()[1]
        if isinstance(error, BaseException):
            event["exception"] = f"{type(error).__name__}: {error}"[:500]
    return event
