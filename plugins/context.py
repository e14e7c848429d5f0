"""The request as steps see it: identity, raw body, parsed JSON on demand."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .jsonbody import loads

REQUEST = "request"
"""The seed key under which every plan receives the RequestContext."""


@dataclass(slots=True)
class RequestContext:
    """One inbound request. The raw body is kept; JSON is parsed once, lazily."""

    id: str
    surface: str
    path: str
    headers: Mapping[str, str]
    body: bytes
    _json: Any = field(default=None, repr=False)
    _parsed: bool = field(default=False, repr=False)

    @classmethod
    def parsed(
        cls, id: str, surface: str, path: str, headers: Mapping[str, str], body: bytes, value: Any
    ) -> RequestContext:
        """A context whose body the caller has parsed already: steps read that parse."""
        return cls(id, surface, path, headers, body, value, True)

    def json(self) -> Any:
        """The body parsed as JSON (cached), strictly (jsonbody.loads); raises BodyError if it may not be read."""
        if not self._parsed:
            self._json = loads(self.body)
            self._parsed = True
        return self._json

    @property
    def model(self) -> str | None:
        body = self.json()
        value = body.get("model") if isinstance(body, dict) else None
        return value if isinstance(value, str) else None

    @property
    def stream(self) -> bool:
        body = self.json()
        return isinstance(body, dict) and body.get("stream") is True
