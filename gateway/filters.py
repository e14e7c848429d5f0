"""Output guards in a chain: what each lets through goes to the next, whole, chunk by chunk, or flushed early."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from taskgate.plugins import ChecksToolCalls, Flushes, OutputRefused, ResponseFilter

DEFAULT_FLUSH_AFTER_S = 0.05  # for a filter that holds text and does not say how long it may


class FilterChain:
    """Output guards in plan order; each sees what the one before it let through.

    `flush_after_s` is the shortest wait any of them allows held text (None:
    none can flush, held text waits for the next chunk); `flush` releases
    what those hold, through the guards after each.
    """

    def __init__(self, filters: Sequence[ResponseFilter]):
        self.filters = list(filters)
        self._flushing: list[tuple[int, Callable[[], bytes]]] = []
        waits = []
        for position, f in enumerate(self.filters):
            if isinstance(f, Flushes) and f.flush_after_s is not None:
                self._flushing.append((position, f.flush))
                waits.append(float(f.flush_after_s))
        self.flush_after_s = min(waits) if waits else None

    def whole(self, body: bytes) -> bytes:
        for f in self.filters:
            body = f.whole(body)
        return body

    def chunk(self, data: bytes) -> bytes:
        return self._through(data, 0)

    def _through(self, data: bytes, start: int) -> bytes:
        for position in range(start, len(self.filters)):
            try:
                data = self.filters[position].chunk(data)
            except OutputRefused as exc:  # what this guard let through still passes the guards after it
                exc.partial = self._through(exc.partial, position + 1) if exc.partial else b""
                raise
        return data

    def end(self) -> bytes:
        out = b""
        for f in self.filters:
            out = f.chunk(out) + f.end() if out else f.end()
        return out

    def flush(self) -> bytes:
        """The next chunk is late: what the filters that can flush hold, released now (b"" if nothing)."""
        out = b""
        for position, flush in self._flushing:
            try:
                released = flush()
            except OutputRefused as exc:
                exc.partial = out + (self._through(exc.partial, position + 1) if exc.partial else b"")
                raise
            if not released:
                continue
            try:
                out += self._through(released, position + 1)
            except OutputRefused as exc:
                exc.partial = out + exc.partial
                raise
        return out


def without_tool_call_checks(filters: Sequence[ResponseFilter]) -> list[ResponseFilter]:
    """The filters of an answer whose tool calls taskgate runs itself (each is decided when it runs)."""
    return [f for f in filters if not (isinstance(f, ChecksToolCalls) and f.checks_tool_calls())]
