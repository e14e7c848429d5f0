"""The `authz.authorize` step: the task, its grant and token; the chat request's tools narrowed to the grant.

A request either presents a task token (its task, bound to the caller, not
revoked, nor any task it is a subtask of) or starts a task: an id from the
task header or a new one, and its intent profile (pinned by the caller's
token or a policy rule, else the classifier's: one per part of a request
with several). The grant comes from the policy; the answer carries the task
id and a task token for the agent's later calls. Arguments are judged with
what the task has seen, by trust label (provenance.py); a call a `hold` rule
stops waits for its user's approval (holds.py).
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import structlog
from casbin.util import key_match
from pydantic import Field, field_validator

from taskgate.plugins import (
    GRANT,
    MCP_ITEMS,
    META_APPROVAL,
    META_ASSERTION,
    META_PURPOSE,
    META_TASK,
    META_TASK_TOKEN,
    REQUEST,
    TASK_HEADERS,
    Inputs,
    Params,
    Reject,
    RequestContext,
    ResponseFilter,
    Step,
    Surface,
)

from .authorizer import Authorizer, authorizer, profile_scopes, tool_scopes
from .binding import Binder, Binding, Recognised, answer_message, judge_others
from .grant import PROFILE_JOIN, Decision, Grant, GrantSpec, ToolVerdict
from .holds import call_digest
from .identity import IDENTITY, Identity
from .labels import Seen
from .provenance import (
    REFERENCE_CALL,
    REFERENCE_SEARCH,
    consulted,
    gather,
    message_text,
    result_record,
    searched,
    turn_record,
)
from .removed import why_removed
from .tasks import TaskTokenError, new_task_id
from .toolcalls import ToolCallGuard
from .trust import UNREAD

log = structlog.get_logger("taskgate.authz")
MAX_DECISIONS_KEPT = 100
_HOST = re.compile(r"[A-Za-z0-9.\-]{1,253}(?::\d{1,5})?")  # a Host header fit for an approval link
MCP = Surface.MCP
REMOVED_HEADER = "x-taskgate-tools-removed"  # the request's tools the model was not offered, named
MAX_REMOVED_HEADER = 2048
INTENT = "intent"  # the classifier's key; read by name, its value duck-typed (`.profile`)
PLACEHOLDER = "{value}"  # in a searching reference's arguments: the value the rule refused
CONSULT_ROUNDS = 4  # reference reads for one call: each may vouch for one more refused value


class ReferenceSearch(Params):
    """A reference that is searched: `arguments` with `{value}` standing for the value the rule refused."""

    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)

    @field_validator("arguments")
    @classmethod
    def _placeholder(cls, arguments: dict[str, Any]) -> dict[str, Any]:
        if PLACEHOLDER not in json.dumps(arguments):
            raise ValueError(f"a searching reference's arguments name the value searched for as {PLACEHOLDER!r}")
        return arguments


class AuthorizeParams(Params):
    default_profile: str = "default"  # the task's profile when no classifier ran
    max_narrowing: int = Field(default=64, ge=1)  # patterns a caller may list in the narrowing header
    # tools taskgate reads for a task itself when a provenance rule refuses an MCP call and the rule accepts a
    # label their results carry: a name (called with no arguments: the user's contacts, payees), or
    # {tool, arguments} searched for the refused value (`{value}`): look the recipient up
    references: list[str | ReferenceSearch] = Field(default_factory=list, max_length=32)
    reference_timeout_s: float = Field(default=5.0, gt=0, le=60)
    reference_searches: int = Field(default=8, ge=0, le=256)  # searches one task may have taskgate make
    # when the chat guard blocks every tool call of a whole answer, the model is given the refusals as the calls'
    # results and asked again, at most this many times, so the client gets its next step; 0: the note, as before
    ask_again: int = Field(default=2, ge=0, le=8)

    @field_validator("references")
    @classmethod
    def _tool_names(cls, found: list[str | ReferenceSearch]) -> list[str | ReferenceSearch]:
        names = [r if isinstance(r, str) else r.tool for r in found]
        bad = [n for n in names if "__" not in n or any(c in n for c in "*?{[") or not n.isprintable()]
        if bad:
            raise ValueError(f"references are tool names as the gateway lists them (SERVER__TOOL), not {bad}")
        return found


@dataclass
class TaskGrant:
    """The step's value: edits the body's tools, guards the answer's tool calls, names the task in headers."""

    grant: Grant
    spec: GrantSpec
    token: str
    expires: float
    purpose: str | None
    new_task: bool
    surface: str
    authorizer: Authorizer
    kept_tools: list[Any] | None = None  # the request's tools the grant allows (None: the request had none)
    kept_functions: list[Any] | None = None  # the same for the legacy `functions` list
    removed_tools: list[str] = field(default_factory=list)
    offered: set[str] | None = None  # names the model was offered; None: the request offered none
    model_verdict: ToolVerdict | None = None
    decisions: list[Decision] = field(default_factory=list)
    profile_source: str | None = None  # a new task's: "token", "policy" (pinned), "classifier" or "default"
    profile_uncertain: bool = False  # the classifier was unsure: the task got the narrowest profile
    identity: Identity | None = None
    data: tuple[str, ...] = ()  # what the task had seen before this request (the store's records)
    body: Any = None  # a chat request's body: its user turns and tool results are seen too
    references: list[dict[str, Any]] = field(default_factory=list)  # reference sources read for this request
    warnings: list[dict[str, Any]] = field(default_factory=list)  # results a field declaration could not read
    _seen: Seen | None = None
    # binding.py: how a request without a task token was recognised, and what its answer binds to the task
    recognised: Recognised | None = None
    binder: Binder | None = None
    ask_again: int = 0
    _guard: ToolCallGuard | None = None

    def allows(self, name: str, kind: str = "tool") -> bool:
        """Whether the tool `name` (or the `resource` or `prompt`) is in the task's grant at all (a tool's
        arguments are judged per call)."""
        return self.grant.tool(name).allowed if kind == "tool" else self.grant.feature(kind, name).allowed

    def decide_feature(self, kind: str, name: str) -> Decision:
        """Judge one read of a resource or get of a prompt; kept for the evidence like a tool call."""
        verdict = self.grant.feature(kind, name)
        rule = str(verdict.sources.get("profile")) if verdict.allowed else None
        decision = Decision(name, verdict.allowed, verdict.reason, rule, None, verdict.sources, kind=kind)
        self.authorizer.decisions.labels(self.surface, "allow" if verdict.allowed else "deny", decision.code).inc()
        if len(self.decisions) < MAX_DECISIONS_KEPT:
            self.decisions.append(decision)
        return decision

    def seen(self) -> Seen:
        """What the task has seen, by trust label; gathered on the first decision that needs it."""
        if self._seen is None:
            claims = self.identity.claims if self.identity is not None else ()
            policy, spec = self.authorizer.policy.current, self.spec
            if self.body is None:  # the task's own data: kept between its calls, extended by what is new
                key = (spec.tenant, spec.subject, spec.task, policy.generation, self.purpose, claims, spec.labels)
                self._seen = self.authorizer.seen.get(key, policy.trust, self.purpose, self.data, claims, spec.labels)
            else:
                self._seen = gather(policy.trust, self.purpose, self.data, claims, self.body, spec.labels)
        return self._seen

    def admitted_values(self) -> frozenset[str]:
        """Strings this request's allowed calls had admitted by a provenance rule: trusted, so not redacted.

        Only single values (an address, an IBAN), never a text with spaces: the
        PII policy still reads every sentence.
        """
        return frozenset(
            m.value for d in self.decisions if d.allowed for m in d.matches
            if isinstance(m.value, str) and m.value.strip() and not any(c.isspace() for c in m.value.strip())
        )  # fmt: skip

    async def observe_result(self, tool: str, call: str | None, result: Mapping[str, Any], arguments: Any) -> None:
        """Keep a forwarded tool result, so the task's later calls are judged with what it showed.

        The call has run: a store that cannot keep it now only means later calls
        cannot count on what it showed (they fail closed), so this never raises.
        """
        trust = self.authorizer.policy.current.trust
        record = result_record(tool, call, result, arguments, trust.for_tool(tool).key_fields)
        if record is None:
            return
        unread = trust.unreadable(json.loads(record))
        if unread is not None:  # a field declaration that cannot read the result vouches for nothing: say so
            self.authorizer.unread.labels(unread).inc()
            log.warning("result_unread", task=self.spec.task, tool=tool, reason=UNREAD[unread])
            self.warnings.append({"tool": tool, "call": call, "reason": UNREAD[unread]})
        also = self.recognised.also if self.recognised is not None else []  # other tasks that emitted the call
        try:
            for spec in (self.spec, *(task.spec for task in also)):
                await self.authorizer.observe(spec, [record])
        except TaskTokenError as exc:
            log.warning("task_result_not_kept", task=self.spec.task, tool=tool, reason=exc.message)

    def upstream_session(self) -> tuple[str, str, str]:
        """Whose session a stateful upstream serves this call in: the task's, in its owner's namespace."""
        return (self.spec.tenant, self.spec.subject, self.spec.task)

    def upstream_meta(self, audience: str, tool: str, arguments: Any) -> Mapping[str, str]:
        """The `_meta` an upstream MCP server gets with a call: taskgate's signed assertion of who, which task
        and which call."""
        signer = self.authorizer.assertions
        return {META_ASSERTION: signer.mint(self.spec, audience, tool, arguments)} if signer is not None else {}

    def decide(self, tool: str, arguments: Any) -> Decision:
        """Judge one call; kept for the evidence (a held one too: its approval replaces it when spent)."""
        if self.offered is not None and tool not in self.offered:  # exactly the names the model was given
            verdict = self.grant.tool(tool)
            why = "" if verdict.allowed else f" ({verdict.reason})"
            decision = Decision(tool, False, f"the model was not offered a tool of that name in this request{why}")
            self.authorizer.decisions.labels(self.surface, "deny", decision.code).inc()
        else:
            needs = any(rule.needs_data() for rule in self.grant.tool(tool).constraints)
            seen = self.seen() if needs else None
            decision = self.authorizer.decide(self.grant, tool, arguments, seen, self.surface)
        if len(self.decisions) < MAX_DECISIONS_KEPT:
            self.decisions.append(decision)
        return decision

    def edit_body(self, body: dict[str, Any]) -> bool:
        if not self.removed_tools:
            return False
        for key, kept, forced in (
            ("tools", self.kept_tools, "tool_choice"),
            ("functions", self.kept_functions, "function_call"),
        ):
            if kept is None:
                continue
            if kept:
                body[key] = kept
            else:
                body.pop(key, None)
                body.pop(forced, None)
                if key == "tools":
                    body.pop("parallel_tool_calls", None)
        return True

    def response_filter(self, surface: str) -> ResponseFilter | None:
        if surface != Surface.CHAT:
            return None
        self._guard = ToolCallGuard(self.decide, recording=self.binder is not None)
        return self._guard

    async def settle(self, answer: bytes | None) -> None:
        """The client's answer is complete (`answer`: a whole one, as it got it; None: a stream the guard saw):
        bind it to the task, so the runtime's next calls are recognised (binding.py)."""
        if self.binder is not None:
            guard = self._guard
            await self.binder.settle(answer_message(answer) if answer else guard.answered() if guard else None)

    def refusals(self, turn: int) -> list[dict[str, Any]] | None:
        """A whole answer whose every tool call the guard blocked: the messages to ask the model again with (for the
        `turn`th time, within `ask_again`)."""
        blocked = self._guard.blocked if self._guard is not None and turn <= self.ask_again else None
        return blocked.messages() if blocked is not None else None

    def response_headers(self) -> Mapping[str, str]:
        tasks = self.authorizer.tasks
        headers = {tasks.header: self.spec.task, tasks.token_header: self.token}
        if self.removed_tools:  # never silently: the client learns which of its tools the model was not offered
            headers[REMOVED_HEADER] = ", ".join(dict.fromkeys(self.removed_tools))[:MAX_REMOVED_HEADER]
        return headers

    def response_meta(self) -> Mapping[str, str]:
        """An MCP result's `_meta`: the task and its token, so a client that opened it there carries it on."""
        return {META_TASK: self.spec.task, META_TASK_TOKEN: self.token}

    def evidence(self) -> Mapping[str, Any]:
        out = {
            "task": self.spec.task,
            "new_task": self.new_task,
            "subject": self.spec.subject,
            "tenant": self.spec.tenant,
            "token_expires_in_s": round(self.expires - time.time()),
            **self.grant.evidence(),
        }
        if self.profile_source is not None:
            out["profile_source"] = self.profile_source
        if self.profile_uncertain:
            out["profile_uncertain"] = True
        if self.removed_tools:
            out["tools_removed"] = self.removed_tools
            out["tools_removed_why"] = {n: why_removed(self.grant, n) for n in dict.fromkeys(self.removed_tools)}
        if self.model_verdict is not None and self.model_verdict.sources:
            out["model"] = {"name": self.model_verdict.tool, **self.model_verdict.sources}
        if self.decisions:
            out["decisions"] = [d.evidence() for d in self.decisions]
        if self.references:
            out["references"] = self.references
        warnings = [*self.warnings, *(w for w in (self._seen.unread if self._seen else ()) if w not in self.warnings)]
        if warnings:
            out["warnings"] = warnings[:16]
        if self.recognised is not None:
            out["binding"] = self.recognised.evidence()
        return out


class AuthorizeStep(Step[AuthorizeParams]):
    type = "authz.authorize"
    requires = (REQUEST, IDENTITY)
    optional = (INTENT,)
    provides = GRANT
    Params = AuthorizeParams

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.authorizer = authorizer(self.services)
        tasks = self.authorizer.tasks
        self.binding = Binding(self.authorizer, tasks.conversations)
        self.services.shared(TASK_HEADERS, lambda: (tasks.header.lower(), tasks.token_header.lower()))

    async def run(self, inputs: Inputs) -> TaskGrant:
        context: RequestContext = inputs[REQUEST]
        identity: Identity = inputs[IDENTITY]
        tasks = self.authorizer.tasks
        narrowing = self._narrowing(context.headers.get(tasks.narrow_header))
        presented = context.headers.get(tasks.token_header) or context.meta(META_TASK_TOKEN)
        named = context.headers.get(tasks.header) or (context.meta(META_TASK) if context.surface == MCP else None)
        binds = not presented and not named and self.binding.wanted(context)  # cheap: a runtime's task, recognised?
        try:
            data: tuple[str, ...] = ()
            uncertain = False
            recognised, digest = await self.binding.recognise(context, identity) if binds else (None, None)
            if presented:
                task = await self.authorizer.task_for_token(presented, identity)
                spec, expires, purpose, data = task.spec, task.expires, task.info.purpose, task.data
                asked = context.headers.get(tasks.header) or context.meta(META_TASK)
                if asked and asked != spec.task:
                    raise TaskTokenError(403, "task_token_mismatch", "the task token belongs to another task")
                token, new_task, epoch = presented, False, task.epoch
            elif recognised is not None:
                found = recognised.task
                spec, expires, purpose, data = found.spec, found.expires, found.info.purpose, found.data
                token, new_task, epoch = recognised.token, False, found.epoch
            else:
                spec, purpose, source = self._new_spec(context, identity, inputs.get(INTENT))
                uncertain = bool(getattr(inputs.get(INTENT), "uncertain", False)) and source == "classifier"
                info, epoch = await self.authorizer.start(spec, purpose)
                if narrowing:  # a new task's narrowing is part of its token
                    spec, narrowing = spec.narrowed(narrowing), ()
                purpose, new_task = info.purpose, True
                token, expires = self.authorizer.tokens.mint(spec, epoch)
        except TaskTokenError as exc:
            raise exc.reject() from None
        if narrowing:  # this request only; a narrower token comes from the exchange endpoint
            spec = spec.narrowed(narrowing)
        grant = self.authorizer.grant(spec)
        value = TaskGrant(grant, spec, token, expires, purpose, new_task, context.surface, self.authorizer)
        value.profile_source = source if new_task else None
        value.profile_uncertain = new_task and uncertain
        value.identity, value.data = identity, data
        value.body = context.json() if context.surface == Surface.CHAT else None
        value.ask_again = self.params.ask_again if context.surface == Surface.CHAT else 0
        if binds:
            await self._bind(context, value, recognised, epoch, digest)
        self._check_model(context, value)
        self._narrow_tools(context, value)
        if context.surface == MCP:
            await self._user_turn(context, value, presented)
            await self._decide_mcp_call(context, value)
        return value

    async def _bind(
        self, context: RequestContext, value: TaskGrant, recognised: Recognised | None, epoch: str, digest: bytes | None
    ) -> None:
        """binding.py: how the task was recognised, a continued conversation's new instructions kept with it, a
        stated purpose bound to a new task, and what a chat answer will bind."""
        value.recognised = recognised
        try:
            if recognised is not None and recognised.turns:
                value.data = (*value.data, *await self.binding.new_turns(recognised))
            elif recognised is None and context.surface == MCP:
                await self.binding.bind_purpose(context, value.spec, epoch)
        except TaskTokenError as exc:
            raise exc.reject() from None
        if digest is not None:  # a chat request: its answer will be bound to the task
            value.binder = self.binding.binder(value.spec, epoch, digest)

    async def _user_turn(self, context: RequestContext, value: TaskGrant, presented: str | None) -> None:
        """A later MCP call's stated purpose is a new user turn of the task: kept, and trusted as instruction."""
        stated = context.meta(META_PURPOSE)
        if presented and stated and stated != value.purpose:
            record = turn_record(stated)
            value.data = (*value.data, record)
            try:
                await self.authorizer.observe(value.spec, [record])
            except TaskTokenError as exc:
                raise exc.reject() from None

    @staticmethod
    def _decide_feature(body: dict[str, Any], value: TaskGrant) -> None:
        _, kind, field = MCP_ITEMS[body["method"]]
        params = body.get("params")
        target = params.get(field) if isinstance(params, dict) else None
        if kind == "ref":  # completion/complete: of a prompt's argument, or of a resource template's
            ref = target if isinstance(target, dict) else {}
            kind, target = (
                ("prompt", ref.get("name")) if ref.get("type") == "ref/prompt" else ("resource", ref.get("uri"))
            )
        if not isinstance(target, str):
            return  # the gateway answers a malformed request with invalid params
        decision = value.decide_feature(kind, target)
        if not decision.allowed:
            message = f"{kind} {target[:256]!r} denied: {decision.reason}"
            details = {"decision": decision.evidence()}
            raise Reject(403, f"{kind}_denied", message, "permission_error", details=details)

    def _check_model(self, context: RequestContext, value: TaskGrant) -> None:
        """The model a request asks for must be one the task may use (when the policy governs models)."""
        if context.surface == MCP:
            return
        model = context.model
        if model is None:
            return
        verdict = value.grant.model(model)
        value.model_verdict = verdict
        if not verdict.allowed:
            raise Reject(
                403, "model_not_granted", f"this task may not use model {model!r}: {verdict.reason}", "permission_error"
            )

    async def _decide_mcp_call(self, context: RequestContext, value: TaskGrant) -> None:
        """Enforcement point (d): an MCP tools/call is decided on the tool and its arguments; a resource read
        or prompt get on the item it names."""
        body = context.json()
        if isinstance(body, dict) and body.get("method") in MCP_ITEMS:
            return self._decide_feature(body, value)
        if not isinstance(body, dict) or body.get("method") != "tools/call":
            return None
        params = body.get("params")
        name = params.get("name") if isinstance(params, dict) else None
        if not isinstance(name, str):
            return  # the gateway answers a malformed call with invalid params
        arguments = params.get("arguments") if isinstance(params, dict) else None
        arguments = arguments if arguments is not None else {}
        decision = value.decide(name, arguments)
        for _ in range(CONSULT_ROUNDS):  # each read may vouch for one refused value; the next may need another
            if decision.allowed or not await self._consult(context, value, decision):
                break
            decision = value.decide(name, arguments)
        if value.recognised is not None and value.recognised.also:  # several tasks emitted it: all must allow it
            decision = judge_others(value, name, arguments, decision)
        if decision.allowed:
            context.vouched.update(value.admitted_values())  # trusted and admitted: the pii step keeps them
            return
        opened = dict(value.response_meta()) if value.new_task else {}  # the client carries the task on
        details: dict[str, Any] = {"decision": decision.evidence()}
        if value.references:
            details["references"] = value.references
        if not decision.held:
            message = f"tool {name!r} denied: {decision.reason}"
            raise Reject(403, "tool_denied", message, "permission_error", details=details, public=opened)
        holds, tasks = self.authorizer.holds, self.authorizer.tasks
        reference = context.headers.get(tasks.approval_header) or context.meta(META_APPROVAL)
        try:
            if reference:
                spent = await holds.redeem(value.spec, reference, name, arguments)
                self.authorizer.held.labels("run").inc()
                value.decisions[-1] = decision.approved(spent.evidence())
                return
            hold = await holds.hold(value.spec, decision, arguments)
        except TaskTokenError as exc:
            raise exc.reject() from None
        self.authorizer.held.labels("held").inc()
        host = context.headers.get("host", "")
        base = tasks.public_url or f"http://{host if _HOST.fullmatch(host) else '127.0.0.1'}"
        raise Reject(
            403, "approval_required",
            f"{hold.question} Tool {name!r} is held until the task's user approves it: {decision.reason}; approve "
            f"it at {hold.public(base)['url']}, then retry the call with {META_APPROVAL!r} = {hold.id!r} in _meta",
            "permission_error", details={**details, "hold": hold.evidence()},
            public={"approval": hold.public(base), **opened},
        )  # fmt: skip

    async def _consult(self, context: RequestContext, value: TaskGrant, decision: Decision) -> bool:
        """Read the task's reference sources that could satisfy the rule that refused `decision`; True if one
        was read (the call is judged again with what it showed).

        A reference is read once per task, as the task (its grant must allow the
        call; the upstream gets the task's assertion), and its result is kept like
        any the task saw. A searching reference is called with the refused value,
        once per value, at most `reference_searches` times per task. One that fails
        or times out is left out: the refusal stands.
        """
        call = context.call_tool
        if call is None or decision.rule is None or not self.params.references:
            return False
        accepted = {
            label for rule in value.grant.tool(decision.tool).constraints if rule.id == decision.rule
            for row in rule.rows for label in row.labels
        }  # fmt: skip
        trust, read = self.authorizer.policy.current.trust, consulted(value.data)
        plain = [r for r in self.params.references if isinstance(r, str)]
        wanted: list[tuple[str, dict[str, Any], str]] = [
            (r, {}, REFERENCE_CALL) for r in plain if r not in read and trust.for_tool(r).labels & accepted
        ]
        wanted += self._searches(value, decision, accepted)
        wanted = [w for w in wanted if value.decide(w[0], w[1]).allowed]
        if not wanted:
            return False
        timeout = self.params.reference_timeout_s
        results = await asyncio.gather(
            *(asyncio.wait_for(call(tool, arguments, value), timeout) for tool, arguments, _ in wanted),
            return_exceptions=True,
        )
        records = []
        for (tool, arguments, call_id), result in zip(wanted, results, strict=True):
            record = None
            if not isinstance(result, BaseException):
                tool_trust = trust.for_tool(tool)
                kept = tool_trust.declares if arguments else None  # a search's declared fields may hold its query
                record = result_record(tool, call_id, result, arguments, tool_trust.key_fields, kept)
            # a search that answers with an error found nothing (a file that does not exist yet): expected
            nothing = record is None and bool(arguments) and not isinstance(result, BaseException)
            outcome = "read" if record else "not_found" if nothing else "failed"
            entry: dict[str, Any] = {"tool": tool, "outcome": outcome}
            value.references.append({**entry, "arguments": arguments} if arguments else entry)
            if nothing:
                log.debug("reference_found_nothing", task=value.spec.task, tool=tool, arguments=arguments)
            elif record is None:
                why = type(result).__name__ if isinstance(result, BaseException) else "an error result"
                log.warning("reference_not_read", task=value.spec.task, tool=tool, reason=why)
            else:
                records.append(record)
        if not records:
            return False
        try:
            await self.authorizer.observe(value.spec, records)
        except TaskTokenError as exc:
            raise exc.reject() from None
        value.data, value._seen = (*value.data, *records), None
        return True

    def _searches(
        self, value: TaskGrant, decision: Decision, accepted: set[str]
    ) -> list[tuple[str, dict[str, Any], str]]:
        """The searching references to call for the value `decision` refused: not searched for it before in
        this task, and within the task's budget."""
        refused = decision.refused.value if decision.refused is not None else None
        searches = [r for r in self.params.references if isinstance(r, ReferenceSearch)]
        if not isinstance(refused, str) or not refused.strip() or not searches:
            return []
        done = searched(value.data)
        left = self.params.reference_searches - len(done)
        trust = self.authorizer.policy.current.trust
        out = []
        for search in searches:
            if left <= 0 or not trust.for_tool(search.tool).labels & accepted:
                continue
            arguments = json.loads(json.dumps(search.arguments).replace(PLACEHOLDER, json.dumps(refused)[1:-1]))
            digest = call_digest(search.tool, arguments)[:24]
            if digest not in done:
                out.append((search.tool, arguments, f"{REFERENCE_SEARCH}{digest}"))
                left -= 1
        if left <= 0 and not out:
            value.references.append({"tool": searches[0].tool, "outcome": "over_budget"})
        return out

    def _new_spec(self, context: RequestContext, identity: Identity, intent: Any) -> tuple[GrantSpec, str | None, str]:
        task = context.headers.get(self.authorizer.tasks.header) or context.meta(META_TASK) or new_task_id()
        if len(task) > 128 or not task.isprintable():
            raise Reject(400, "invalid_task_id", "a task id is at most 128 printable characters")
        classified = getattr(intent, "profiles", None) or ((intent.profile,) if hasattr(intent, "profile") else ())
        pinned = profile_scopes(identity)
        source = "token"
        if not pinned:
            pinned, source = self.authorizer.pinned(identity), "policy"
        found = tuple(str(p) for p in classified)
        base = () if pinned else self.authorizer.pinned(identity, "base")
        if base:  # a base profile, plus what the classifier adds (of the profiles `add` rows name, if any)
            addable = self.authorizer.pinned(identity, "add")
            added = [p for p in found if p not in base and (not addable or any(key_match(p, a) for a in addable))]
            profile, source = PROFILE_JOIN.join((*base, *added)), "base+classifier" if added else "base"
        else:
            profile, source = _profile(found, pinned, source, self.params.default_profile)
        spec = GrantSpec(task, identity.subject, identity.tenant, profile, identity.roles, tool_scopes(identity))
        return spec, _instruction(context), source

    def _narrowing(self, header: str | None) -> tuple[str, ...]:
        if not header:
            return ()
        tools = tuple(t.strip() for t in header.split(",") if t.strip())
        if len(tools) > self.params.max_narrowing:
            raise Reject(400, "too_many_tools", f"narrow to at most {self.params.max_narrowing} tool patterns")
        return tools

    def _narrow_tools(self, context: RequestContext, value: TaskGrant) -> None:
        """Enforcement point (a): the model only sees the tools the grant allows (`tools`, and legacy `functions`)."""
        if context.surface != Surface.CHAT:
            return
        body = context.json()
        if not isinstance(body, dict):
            return
        lists = (("tools", "tool_choice", _tool_name), ("functions", "function_call", _function_name))
        for key, forced_key, name_of in lists:
            listed = body.get(key)
            if not isinstance(listed, list):
                continue
            kept = []
            offered = value.offered if value.offered is not None else set()
            for entry in listed:
                name = name_of(entry)
                if name is not None and value.grant.tool(name).allowed:
                    kept.append(entry)
                    offered.add(name)
                else:
                    value.removed_tools.append(name or "?")
            value.offered = offered
            if key == "tools":
                value.kept_tools = kept
            else:
                value.kept_functions = kept
            forced = body.get(forced_key)
            forced_name = name_of(forced) if isinstance(forced, dict) else None
            if forced_name is not None and forced_name not in offered:
                verdict = value.grant.tool(forced_name)
                reason = verdict.reason if not verdict.allowed else "it is not among the tools the request offers"
                message = f"{forced_key} names {forced_name!r}, which this task may not use: {reason}"
                raise Reject(403, "tool_not_granted", message, "permission_error")


def _function_name(function: Any) -> str | None:
    name = function.get("name") if isinstance(function, dict) else None
    return name if isinstance(name, str) else None


def _tool_name(tool: Any) -> str | None:
    function = tool.get("function") if isinstance(tool, dict) else None
    name = function.get("name") if isinstance(function, dict) else None
    return name if isinstance(name, str) else None


def _profile(classified: tuple[str, ...], pinned: tuple[str, ...], pinned_by: str, default: str) -> tuple[str, str]:
    """A new task's profile and where it came from: the profiles the caller's token or a policy rule pins it to
    (the classifier's picks among them, else the first), else the classifier's (one per part of a request with
    several, joined by `+`), else the default."""
    if pinned:
        chosen = [p for p in classified if p in pinned]
        return PROFILE_JOIN.join(chosen) if chosen else pinned[0], pinned_by
    return (PROFILE_JOIN.join(dict.fromkeys(classified)), "classifier") if classified else (default, "default")


def _instruction(context: RequestContext) -> str | None:
    """The task's trusted input: the conversation's user turns (or the prompt); what an MCP client states."""
    if context.surface == MCP:
        return context.purpose()
    body = context.json()
    if context.surface == Surface.CHAT:
        turns = [
            message_text(m.get("content")) for m in body.get("messages") or [] if isinstance(m, dict)
            and m.get("role") == "user"
        ]  # fmt: skip
        return "\n".join(t for t in turns if t) or None
    prompt = body.get("prompt") if isinstance(body, dict) else None
    return prompt if isinstance(prompt, str) else None


if TYPE_CHECKING:  # the hooks the gateway reads from a grant (plugins.hooks), checked by mypy
    from taskgate.plugins import (
        AddsHeaders,
        AddsMeta,
        AsksAgain,
        BodyEdit,
        CallsAs,
        HasEvidence,
        ObservesResults,
        OutputGuard,
        Settles,
    )

    _: tuple[
        type[BodyEdit], type[OutputGuard], type[AddsHeaders], type[AddsMeta], type[HasEvidence], type[CallsAs],
        type[ObservesResults], type[Settles], type[AsksAgain],
    ] = (TaskGrant, TaskGrant, TaskGrant, TaskGrant, TaskGrant, TaskGrant, TaskGrant, TaskGrant, TaskGrant)  # fmt: skip
