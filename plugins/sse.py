"""Server-sent events as OpenAI-compatible streams use them: split a byte stream into events, read, rewrite.

For output guards: events may end in `\\n\\n`, `\\r\\n\\r\\n` or `\\r\\r`, carry
`id:`/`event:` lines and several `data:` lines, and the stream may start with a
byte-order mark. An event that grows past `max_bytes` without an end is
refused (OutputRefused): a guard cannot check what it cannot parse, and must
not pass it on unchecked.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .errors import OutputRefused

_EVENT_END = re.compile(rb"\r\n\r\n|\n\n|\r\r")
_LINES = re.compile(rb"\r\n|\r|\n")
MAX_EVENT_BYTES = 8 << 20


class EventSplitter:
    """Feed bytes as they arrive; get back the complete events, each with its terminator."""

    def __init__(self, max_bytes: int = MAX_EVENT_BYTES):
        self._buffer = b""
        self._scanned = 0  # the buffer before this holds no event end: searched once, not at every feed
        self._started = False
        self._max = max_bytes

    def feed(self, data: bytes) -> list[bytes]:
        if not self._started and data:
            self._started = True
            data = data.removeprefix(b"\xef\xbb\xbf")  # a byte-order mark would hide the first field
        self._buffer += data
        events = []
        while (end := _EVENT_END.search(self._buffer, max(0, self._scanned - 3))) is not None:
            events.append(self._buffer[: end.end()])
            self._buffer = self._buffer[end.end() :]
            self._scanned = 0
        self._scanned = len(self._buffer)
        if len(self._buffer) > self._max:
            raise OutputRefused(f"an event of the answer exceeds {self._max} bytes; it cannot be checked")
        return events

    def rest(self) -> bytes:
        """What is left when the stream ends (an event without its blank line), or b""."""
        rest, self._buffer, self._scanned = self._buffer, b"", 0
        return rest


_ENDS = (b"\n\n", b"\r\n\r\n", b"\r\r")


class EventRewriter:
    """A ResponseFilter for event streams: events mentioning `marker` go through `event`, every other byte passes
    on as it came.

    It holds back only the part of a chunk after its last complete event (which
    no SSE client could read yet anyway) and parses nothing unless an event
    mentions the marker.
    """

    marker: bytes = b""

    def __init__(self) -> None:
        self._held = b""  # the start of an event whose end has not arrived

    def whole(self, body: bytes) -> bytes:
        return body

    def chunk(self, data: bytes) -> bytes:
        data = self._held + data
        if data.endswith(_ENDS):
            self._held = b""
        else:
            cut = last_end(data)
            data, self._held = data[:cut], data[cut:]
        return self._rewritten(data) if self.marker in data else data

    def end(self) -> bytes:
        rest, self._held = self._held, b""
        return self._rewritten(rest) if self.marker in rest else rest

    def event(self, event: bytes) -> bytes:
        """One complete event that mentions the marker, as it should go on (b"": dropped)."""
        return event

    def _rewritten(self, data: bytes) -> bytes:
        splitter = EventSplitter(max_bytes=len(data) + 1)
        events = [*splitter.feed(data), splitter.rest()]
        return b"".join(self.event(event) if self.marker in event else event for event in events if event)


def last_end(data: bytes) -> int:
    """Where the bytes after the last complete event begin (0: no event has ended)."""
    ends = [data.rfind(end) + len(end) for end in _ENDS if end in data]
    return max(ends, default=0)


def each_event(splitter: EventSplitter, data: bytes, handle: Callable[[bytes], bytes]) -> bytes:
    """Feed `data` and pass each complete event through `handle`, joined.

    If `handle` refuses an event, what the events before it became rides on
    the refusal as `partial`, so a client still gets the part of the answer
    that was checked.
    """
    out: list[bytes] = []
    try:
        for event in splitter.feed(data):
            out.append(handle(event))
    except OutputRefused as exc:
        exc.partial = b"".join(out) + exc.partial
        raise
    return b"".join(out)


def parse(event: bytes) -> tuple[list[bytes], bytes | None]:
    """An event's other field lines, and its data (several data lines joined by \\n), or None if it has none."""
    fields: list[bytes] = []
    data: list[bytes] = []
    for line in _LINES.split(event):
        if line.startswith(b"data:"):
            data.append(line[6:] if line.startswith(b"data: ") else line[5:])
        elif line:
            fields.append(line)
    return fields, (b"\n".join(data) if data else None)


def format_event(fields: list[bytes], data: bytes) -> bytes:
    """An event with these other fields and this data, ended by a blank line."""
    lines = [*fields, *(b"data: " + line for line in data.split(b"\n"))]
    return b"\n".join(lines) + b"\n\n"
