"""Shared resources a step may use: validated config sections, the HTTP client."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import aiohttp
from prometheus_client import CollectorRegistry
from pydantic import BaseModel

from taskgate.errors import TaskgateError

from .types import DEFAULT_SESSION_HEADER, DEFAULT_TASK_HEADERS, SESSION_HEADER, TASK_HEADERS

S = TypeVar("S", bound=BaseModel)
T = TypeVar("T")
Lifespan = Callable[[], AbstractAsyncContextManager[None]]


@dataclass
class Services:
    """Built at start-up; the HTTP session is attached when the app starts."""

    sections: Mapping[str, BaseModel] = field(default_factory=dict)
    _http: aiohttp.ClientSession | None = None
    scorers: Mapping[str, Any] = field(default_factory=dict)  # registered Scorer classes by type
    filters: Mapping[str, Any] = field(default_factory=dict)  # registered Filter classes by type
    pickers: Mapping[str, Any] = field(default_factory=dict)  # registered Picker classes by type
    _shared: dict[str, Any] = field(default_factory=dict)
    lifespans: dict[str, Lifespan] = field(default_factory=dict)
    metrics: CollectorRegistry = field(default_factory=CollectorRegistry)
    """The app's Prometheus registry: steps add their own counters here (through `shared`, once)."""

    def shared(self, key: str, factory: Callable[[], T]) -> T:
        """One object per app under `key` (state several steps share), created on first use."""
        if key not in self._shared:
            self._shared[key] = factory()
        return self._shared[key]  # type: ignore[no-any-return]

    def found(self, key: str) -> Any:
        """What a room shared under `key`, if one did (None otherwise); nothing is created."""
        return self._shared.get(key)

    def lifespan(self, key: str, run: Lifespan) -> None:
        """Run `run()` (an async context manager) while the app runs; registered once per key.

        Entered after the HTTP session opens, exited in reverse order before it closes:
        background scrapers, store connections.
        """
        self.lifespans.setdefault(key, run)

    def section(self, name: str, model: type[S]) -> S:
        """A validated config section, of the type its room registered."""
        value = self.sections.get(name)
        if not isinstance(value, model):
            raise TaskgateError(f"config section {name!r} is not loaded; register it before building steps")
        return value

    def task_headers(self) -> tuple[str, str]:
        """Where a task's id and its token travel, lower case: as the step that grants tasks set them (else the
        defaults)."""
        found: tuple[str, str] = self.shared(TASK_HEADERS, lambda: DEFAULT_TASK_HEADERS)
        return found

    def session_header(self) -> str:
        """The header, lower case, that names a client's session for routing (routing sets it; else the default)."""
        found: str = self.shared(SESSION_HEADER, lambda: DEFAULT_SESSION_HEADER)
        return found

    @property
    def http(self) -> aiohttp.ClientSession:
        if self._http is None:
            raise TaskgateError("the HTTP client session exists only while the app runs")
        return self._http

    def attach_http(self, session: aiohttp.ClientSession | None) -> None:
        self._http = session
