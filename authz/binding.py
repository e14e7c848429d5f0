"""A request that presents no task token: which task it belongs to, recognised from what taskgate answered.

The first that applies wins (a task token, handled by the authorize step,
always wins over all of these):

1. MCP, a purpose stated in the `x-taskgate-purpose` header (a runtime's MCP
   client is configured once for a conversation): the task this caller opened
   on that purpose, or a new one bound to it. A purpose stated in `_meta` is a
   client written for taskgate opening a task: it is always a new one;
2. MCP `tools/call`: the task whose model turn emitted this call (same caller,
   tool and arguments, within `call_ttl_s`). Several tasks emitted it: the call
   runs in the newest, and every one of their grants must allow it;
3. chat (and Responses, translated): the task of the longest prefix of the
   conversation that ends in an assistant turn taskgate answered; the user
   turns after it are new instructions of that task;
4. otherwise a new task, as before: for chat, its answer is bound when it is
   complete (`Binder.settle`), before its last bytes reach the client.

Only requests that could belong to a runtime's task pay for any of this: a
chat request that offers no tools and carries no tool call or result, and
every request with a task token, cost nothing more.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import structlog

from taskgate.plugins import META_PURPOSE, PURPOSE_HEADER, RequestContext, Surface
from taskgate.plugins.context import MAX_PURPOSE_HEADER

from .authorizer import Authorizer, PresentedTask, tool_scopes
from .conversations import (
    Bound,
    ConversationConfig,
    Entry,
    Kind,
    call_key,
    conversation_key,
    extend,
    matching,
    principal_digest,
    purpose_key,
    session_hint,
    text_of,
)
from .errors import TaskTokenError
from .grant import Decision, GrantSpec
from .identity import Identity
from .provenance import gather, turn_record
from .tasks import task_key

if TYPE_CHECKING:
    from .authorize import TaskGrant

log = structlog.get_logger("taskgate.authz")
MCP = Surface.MCP
MCP_PATH = "/mcp"


@dataclass
class Recognised:
    """The task a request was recognised as part of; `also`: other tasks that emitted the same call."""

    kind: Kind
    task: PresentedTask
    token: str
    also: list[PresentedTask] = field(default_factory=list)
    at: int | None = None  # conversation: the index of the assistant turn it continues
    turns: list[str] = field(default_factory=list)  # conversation: the user turns after it (new instructions)

    def evidence(self) -> dict[str, Any]:
        out: dict[str, Any] = {"by": self.kind}
        if self.at is not None:
            out["message"] = self.at
        if self.turns:
            out["new_instructions"] = len(self.turns)
        if self.also:
            out["tasks"] = [self.task.spec.task, *(t.spec.task for t in self.also)]
        return out


@dataclass
class Binder:
    """What a chat answer will bind, once it is complete: the conversation so far, and the task."""

    bindings: Binding
    tenant: str
    subject: str
    digest: bytes  # of the request's messages, chained from the principal
    entry: Bound

    async def settle(self, message: Mapping[str, Any] | None) -> None:
        """Bind the assistant turn the client got (and the tool calls it asked for) to the task; never raises
        (the answer is good: a later call that is not recognised runs as a new task)."""
        if message is None:
            return
        config, raw = self.bindings.config, self.entry.dump()
        entries: list[Entry] = [(conversation_key(extend(self.digest, message)), raw, config.ttl_s)]
        for name, arguments in tool_calls(message):
            entries.append((call_key(self.tenant, self.subject, name, arguments), raw, config.call_ttl_s))
        try:
            await self.bindings.store.add(entries)
        except TaskTokenError as exc:
            log.warning("answer_not_bound", task=self.entry.task, reason=exc.message)


class Binding:
    """Recognising requests' tasks for one authorize step (the app's bindings store, its config)."""

    def __init__(self, authorizer: Authorizer, config: ConversationConfig):
        self.authorizer, self.config = authorizer, config
        self.store = authorizer.bindings

    def wanted(self, context: RequestContext) -> bool:
        """The cheap check: could this request belong to a runtime's task (and is binding on)?"""
        if not self.config.enabled:
            return False
        body = context.json()
        if context.surface == MCP:  # at /mcp (opening a task explicitly, POST /v1/tasks/open, always opens one)
            return context.path == MCP_PATH and isinstance(body, dict) and isinstance(body.get("method"), str)
        return context.surface == Surface.CHAT and isinstance(body, dict) and _agentic(body)

    async def recognise(self, context: RequestContext, identity: Identity) -> tuple[Recognised | None, bytes | None]:
        """The task `context` belongs to (None: a new one), and a chat request's conversation digest (reused for
        what its answer binds, so the messages are read once)."""
        if context.surface != MCP:
            return await self._conversation(context.json()["messages"], identity)
        return await self._mcp(context, identity), None

    async def _mcp(self, context: RequestContext, identity: Identity) -> Recognised | None:
        if context.surface == MCP:
            purpose = configured_purpose(context)
            if purpose is not None:  # what tells two conversations on one purpose apart: a session header
                hint = session_hint(context.headers, self.config.session_headers)
                return await self._one("purpose", purpose_key(identity.tenant, identity.subject, purpose), identity,
                                       hint)  # fmt: skip
            body = context.json()
            params = body.get("params") if body.get("method") == "tools/call" else None
            name = params.get("name") if isinstance(params, dict) else None
            if not isinstance(params, dict) or not isinstance(name, str):
                return None
            key = call_key(identity.tenant, identity.subject, name, params.get("arguments") or {})
            return await self._emitted(key, identity)
        return None

    async def bind_purpose(self, context: RequestContext, spec: GrantSpec, epoch: str) -> None:
        """A task opened on a stated purpose: later calls stating it join it (for `ttl_s`)."""
        purpose = configured_purpose(context)
        if purpose is None:
            return
        hint = session_hint(context.headers, self.config.session_headers)
        entry = Bound(spec.task, epoch, hint).dump()
        await self.store.add([(purpose_key(spec.tenant, spec.subject, purpose), entry, self.config.ttl_s)])

    def binder(self, spec: GrantSpec, epoch: str, digest: bytes) -> Binder:
        """What a chat request's answer will bind to its task (`digest`: of its messages, from `recognise`)."""
        return Binder(self, spec.tenant, spec.subject, digest, Bound(spec.task, epoch))

    async def _one(self, kind: Kind, key: str, identity: Identity, hint: str | None) -> Recognised | None:
        (found,) = await self.store.get([key])
        candidates = matching(_loaded(found), hint)
        if len(candidates) != 1:
            return None
        return await self._resumed(kind, candidates, identity)

    async def _emitted(self, key: str, identity: Identity) -> Recognised | None:
        (found,) = await self.store.get([key])
        candidates = matching(_loaded(found), None)
        return await self._resumed("model_turn", candidates, identity) if candidates else None

    async def _conversation(self, messages: list[Any], identity: Identity) -> tuple[Recognised | None, bytes]:
        """The task of the longest prefix ending in an assistant turn taskgate answered (a prefix answered in two
        tasks, identical conversations, joins neither), and the digest of all the messages. The digest tells
        conversations apart, so no session hint is read."""
        digest = principal_digest(identity.tenant, identity.subject)
        keys: list[tuple[int, str]] = []
        for index, message in enumerate(messages):
            message = message if isinstance(message, Mapping) else {}
            digest = extend(digest, message)
            if message.get("role") == "assistant":
                keys.append((index, conversation_key(digest)))
        found = await self.store.get([key for _, key in keys]) if keys else []
        for (index, _), entries in zip(reversed(keys), reversed(found), strict=True):
            candidates = matching(_loaded(entries), None)
            if len(candidates) > 1:  # the same conversation answered in two tasks: join neither
                return None, digest
            if candidates:
                recognised = await self._resumed("conversation", candidates, identity)
                if recognised is not None:
                    recognised.at = index
                    recognised.turns = _user_turns(messages[index + 1 :])
                return recognised, digest
        return None, digest

    async def _resumed(self, kind: Kind, candidates: list[Bound], identity: Identity) -> Recognised | None:
        resumed = [found for bound in candidates if (found := await self.resume(bound, identity)) is not None]
        if not resumed:
            return None
        token, expires = self.authorizer.tokens.mint(resumed[0].spec, resumed[0].epoch)
        return Recognised(kind, dataclasses.replace(resumed[0], expires=expires), token, resumed[1:])

    async def resume(self, bound: Bound, identity: Identity) -> PresentedTask | None:
        """The bound task, as the caller continues it now; None if the store has forgotten it (expired: a new task
        is safe, since a revocation outlives every binding). Revoked, or the store's state lost: refused."""
        state = await self.authorizer.store.state(task_key(identity.tenant, identity.subject, bound.task))
        if state.revoked:
            raise TaskTokenError(403, "task_revoked", "the task this conversation belongs to was revoked")
        if state.epoch != bound.epoch:
            raise TaskTokenError(
                403, "task_state_lost",
                "the task store has lost its state since this conversation began, so a revocation of its task "
                "cannot be ruled out: start a new conversation",
                details={"task_store": {"bound_epoch": bound.epoch, "store_epoch": state.epoch}},
            )  # fmt: skip
        if state.info is None:
            return None
        spec = GrantSpec(
            bound.task, identity.subject, identity.tenant, state.info.profile, identity.roles, tool_scopes(identity)
        )
        return PresentedTask(spec, 0.0, state.epoch, state.info, state.data)  # expires: when a token is minted

    async def new_turns(self, recognised: Recognised) -> list[str]:
        """Keep a continued conversation's new user turns with its task: instructions its tool calls may use."""
        records = [turn_record(text) for text in recognised.turns]
        if records:
            await self.authorizer.observe(recognised.task.spec, records)
        return records


def configured_purpose(context: RequestContext) -> str | None:
    """A purpose stated in the `x-taskgate-purpose` header, as a runtime's MCP client is configured once for a
    whole conversation; None where the request states one in `_meta` (a client written for taskgate opening a
    task, which carries its token on) or none at all."""
    if context.meta(META_PURPOSE) is not None:
        return None
    stated = context.headers.get(PURPOSE_HEADER)
    return stated.strip() or None if stated and len(stated) <= MAX_PURPOSE_HEADER else None


def judge_others(value: TaskGrant, tool: str, arguments: Any, decision: Decision) -> Decision:
    """A call several tasks' model turns emitted runs only if every one of their grants allows it (each with what
    its task has seen): the first refusal, a hold included, refuses it, naming how many tasks emitted it and
    whose grant refused; the evidence keeps each decision."""
    recognised, authorizer = value.recognised, value.authorizer
    if recognised is None or not recognised.also:
        return decision
    policy = authorizer.policy.current
    claims = value.identity.claims if value.identity is not None else ()
    refused = None if decision.allowed else (value.spec.task, decision)
    for other in recognised.also if refused is None else ():
        grant = authorizer.grant(other.spec)
        needs = any(rule.needs_data() for rule in grant.tool(tool).constraints)
        seen = gather(policy.trust, other.info.purpose, other.data, claims, None, other.spec.labels) if needs else None
        theirs = authorizer.decide(grant, tool, arguments, seen, value.surface)
        if not theirs.allowed:
            refused = (other.spec.task, theirs)
            break
    if refused is None:
        return decision
    task, why = refused
    reason = (
        f"{1 + len(recognised.also)} tasks emitted this call, and task {task}'s grant does not allow it: {why.reason}"
    )
    out = dataclasses.replace(why, reason=reason, held=False)
    value.decisions.append(out)
    return out


def tool_calls(message: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """The (name, arguments) of an assistant turn's tool calls (and a legacy function call)."""
    out = []
    for call in message.get("tool_calls") or ():
        function = call.get("function") if isinstance(call, Mapping) else None
        if isinstance(function, Mapping) and isinstance(function.get("name"), str):
            out.append((function["name"], function.get("arguments")))
    legacy = message.get("function_call")
    if isinstance(legacy, Mapping) and isinstance(legacy.get("name"), str):
        out.append((legacy["name"], legacy.get("arguments")))
    return out


def answer_message(answer: bytes) -> Mapping[str, Any] | None:
    """A whole chat answer's first choice's message, as the client got it."""
    try:
        parsed = json.loads(answer)
    except (ValueError, RecursionError):
        return None
    choices = parsed.get("choices") if isinstance(parsed, dict) else None
    first = choices[0] if isinstance(choices, list) and choices and isinstance(choices[0], dict) else None
    message = first.get("message") if first is not None else None
    return message if isinstance(message, dict) else None


def _agentic(body: Mapping[str, Any]) -> bool:
    """A chat request that offers tools, or carries a tool call or a tool's result."""
    if body.get("tools") or body.get("functions"):
        return True
    messages = body.get("messages")
    return isinstance(messages, list) and any(
        isinstance(m, Mapping) and (m.get("role") in ("tool", "function") or m.get("tool_calls")) for m in messages
    )


def _user_turns(messages: list[Any]) -> list[str]:
    return [
        t for m in messages if isinstance(m, Mapping) and m.get("role") == "user" and (t := text_of(m.get("content")))
    ]


def _loaded(entries: list[str]) -> list[Bound]:
    return [bound for raw in entries if (bound := Bound.load(raw)) is not None]
