"""The most recent evidence records, kept in memory for the demo and for inspection."""

from __future__ import annotations

from collections import deque
from typing import Any


class EvidenceLog:
    """The most recent records, kept in memory for the demo and for inspection."""

    def __init__(self, size: int):
        self._records: deque[dict[str, Any]] = deque(maxlen=size)

    def add(self, record: dict[str, Any]) -> None:
        self._records.append(record)

    def find(self, request_id: str) -> dict[str, Any] | None:
        return next((r for r in reversed(self._records) if r["request_id"] == request_id), None)

    def records(self) -> list[dict[str, Any]]:
        return list(self._records)
