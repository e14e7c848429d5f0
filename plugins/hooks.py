"""The hooks the gateway reads from step outputs, each a Protocol, and `Outputs`: a plan's outputs sorted by them.

A step's value speaks to the gateway only through these. The gateway never
looks a hook up by name: `Outputs` sorts a plan's values once per request by
the hooks their classes implement (checked once per class, then remembered),
and each reader asks for the values of one hook:

    for edit in outputs.edits:
        edit.edit_body(body)

A step output declares the hooks it means to implement where mypy checks
them, as llm-d asserts a plugin's interface (`var _ Scorer = &LoadAware{}`):

    if TYPE_CHECKING:
        _: tuple[type[BodyEdit], type[OutputGuard]] = (Verdict, Verdict)

Every method of a hook is required: a class that lacks one does not
implement it, and the gateway passes it by.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

from .types import ResponseFilter, Usage


@runtime_checkable
class BodyEdit(Protocol):
    """Changes the JSON body before it is sent upstream.

    Every such value in a request's outputs is applied, in plan order, to one
    shallow copy of the client's body. Replace nested values (a new `messages`
    list) rather than mutating them: the parsed original is shared. Return
    whether anything changed; when nothing did, the client's bytes go as sent.
    """

    def edit_body(self, body: dict[str, Any]) -> bool: ...


@runtime_checkable
class OutputGuard(Protocol):
    """Wants to see the answer: gives a filter (`ResponseFilter`) for it on `surface`, or None."""

    def response_filter(self, surface: str) -> ResponseFilter | None: ...


@runtime_checkable
class AddsHeaders(Protocol):
    """Adds headers to the answer (the task's id and token)."""

    def response_headers(self) -> Mapping[str, str]: ...


@runtime_checkable
class AddsMeta(Protocol):
    """Adds fields to an MCP result's `_meta` (a task the request opened, so the client carries it on)."""

    def response_meta(self) -> Mapping[str, str]: ...


@runtime_checkable
class Meter(Protocol):
    """Told what an answer took once it is known (a budget charges it).

    `charge` records what it must at once (the request's evidence is written
    next) and returns the rest as an awaitable, which the gateway runs in the
    background so no answer waits for it; that must not raise.
    """

    def charge(self, usage: Usage, cost: float | None) -> Awaitable[None]: ...


@runtime_checkable
class HasEvidence(Protocol):
    """Describes itself in the evidence record, under `decisions.<key>` (read when the record is written)."""

    def evidence(self) -> Mapping[str, Any]: ...


@runtime_checkable
class CallsAs(Protocol):
    """Speaks for the task in the calls made upstream for it (MCP): the task's session on a stateful server, and
    the signed assertion an upstream receives in `_meta`."""

    def upstream_session(self) -> tuple[str, str, str]: ...

    def upstream_meta(self, audience: str, tool: str, arguments: Any) -> Mapping[str, str]: ...


@runtime_checkable
class ObservesResults(Protocol):
    """Keeps what a forwarded tool call returned, so the task's later calls are judged with it; never raises."""

    def observe_result(
        self, tool: str, call: str | None, result: Mapping[str, Any], arguments: Any
    ) -> Awaitable[None]: ...


@runtime_checkable
class Settles(Protocol):
    """Told the answer a client got, once it is complete and before its last bytes go out (authz binds it to the
    task, so an agent runtime's next calls are recognised): a whole chat answer's bytes as the client got them, or
    None for a stream (the value saw it through its own filter). It must not raise."""

    def settle(self, answer: bytes | None) -> Awaitable[None]: ...


@runtime_checkable
class AsksAgain(Protocol):
    """After a whole chat answer: the messages to append before asking the model again for the `turn`th time (the
    refusals of tool calls a guard blocked, each as its call's result), or None (nothing blocked, or past its bound)."""

    def refusals(self, turn: int) -> list[dict[str, Any]] | None: ...


@runtime_checkable
class Flushes(Protocol):
    """A ResponseFilter that holds streamed text back and can release it early.

    When the next chunk is later than `flush_after_s` (None: never early), the
    gateway calls `flush()` and sends what it returns: what the filter holds,
    checked as it stands, as if the stream had paused there; it must not
    refuse text it would let through at `end()`. Chunks keep arriving after a
    flush, to `chunk()` as before.
    """

    flush_after_s: float | None

    def flush(self) -> bytes: ...


@runtime_checkable
class ChecksToolCalls(Protocol):
    """A ResponseFilter that judges the tool calls of an answer for a client that will run them. Where taskgate
    runs the calls itself (the tool loop), each is decided when it runs, and such filters are left out."""

    def checks_tool_calls(self) -> bool: ...


HOOKS: tuple[type, ...] = (
    BodyEdit, OutputGuard, AddsHeaders, AddsMeta, Meter, HasEvidence, CallsAs, ObservesResults, Settles, AsksAgain,
)  # fmt: skip
"""The hooks of step outputs."""
_KNOWN: dict[type, frozenset[type]] = {}


def hooks_of(cls: type) -> frozenset[type]:
    """The hooks `cls` implements: checked once per class."""
    found = _KNOWN.get(cls)
    if found is None:
        found = _KNOWN[cls] = frozenset(hook for hook in HOOKS if issubclass(cls, hook))
    return found


class Outputs:
    """The values one plan run provided, in plan order, sorted by the hooks their classes implement."""

    __slots__ = ("_by", "values")

    def __init__(self, values: Iterable[Any]):
        self.values = list(values)
        self._by: dict[type, list[Any]] = {}
        for value in self.values:
            for hook in hooks_of(type(value)):
                self._by.setdefault(hook, []).append(value)

    def _of(self, hook: type) -> list[Any]:
        return list(self._by.get(hook, ()))  # a new list: the caller may keep it

    @property
    def edits(self) -> list[BodyEdit]:
        return self._of(BodyEdit)

    @property
    def guards(self) -> list[OutputGuard]:
        return self._of(OutputGuard)

    @property
    def headers(self) -> list[AddsHeaders]:
        return self._of(AddsHeaders)

    @property
    def meta(self) -> list[AddsMeta]:
        return self._of(AddsMeta)

    @property
    def meters(self) -> list[Meter]:
        return self._of(Meter)

    @property
    def speakers(self) -> list[CallsAs]:
        """The values that speak for the task in calls made upstream for it."""
        return self._of(CallsAs)

    @property
    def observers(self) -> list[ObservesResults]:
        return self._of(ObservesResults)

    @property
    def settlers(self) -> list[Settles]:
        return self._of(Settles)

    @property
    def askers(self) -> list[AsksAgain]:
        return self._of(AsksAgain)


NONE = Outputs(())
