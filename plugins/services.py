"""Shared resources a step may use: validated config sections, the HTTP client."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TypeVar

import aiohttp
from pydantic import BaseModel

from taskgate.errors import TaskgateError

S = TypeVar("S", bound=BaseModel)


@dataclass
class Services:
    """Built at start-up; the HTTP session is attached when the app starts."""

    sections: Mapping[str, BaseModel] = field(default_factory=dict)
    _http: aiohttp.ClientSession | None = None

    def section(self, name: str, model: type[S]) -> S:
        """A validated config section, of the type its room registered."""
        value = self.sections.get(name)
        if not isinstance(value, model):
            raise TaskgateError(f"config section {name!r} is not loaded; register it before building steps")
        return value

    @property
    def http(self) -> aiohttp.ClientSession:
        if self._http is None:
            raise TaskgateError("the HTTP client session exists only while the app runs")
        return self._http

    def attach_http(self, session: aiohttp.ClientSession | None) -> None:
        self._http = session
