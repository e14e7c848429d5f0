"""The authorization service one app shares: policy, task store, task tokens, grant cache, decision metrics."""

from __future__ import annotations

import contextlib
import dataclasses
import time
from collections import OrderedDict
from collections.abc import AsyncIterator
from dataclasses import dataclass

from prometheus_client import Counter, Gauge

from taskgate.errors import TaskgateError
from taskgate.plugins import Services

from .assertion import Assertions
from .config import AuthzConfig, TaskConfig
from .conversations import Bindings, MemoryBindings, RedisBindings
from .grant import Decision, Grant, GrantSpec, Rules
from .holds import Holds
from .identity import Identity
from .keys import published
from .labels import Seen
from .policy import Policy, PolicyStore
from .provenance import SeenCache
from .tasks import (
    MemoryTaskStore,
    RedisTaskStore,
    TaskInfo,
    TaskState,
    TaskToken,
    TaskTokenError,
    TaskTokens,
    new_task_id,
    task_key,
)

SCOPE_PREFIX = "tool:"
PROFILE_PREFIX = "profile:"


def profile_scopes(identity: Identity) -> tuple[str, ...]:
    """The intent profiles a caller's signed `profile:` scopes pin its tasks to, in the token's order."""
    named = (s[len(PROFILE_PREFIX) :] for s in identity.scopes if s.startswith(PROFILE_PREFIX))
    return tuple(name for name in named if name)


def tool_scopes(identity: Identity) -> tuple[str, ...]:
    """The tool patterns a caller's `tool:` scopes name; empty if it has none (scopes then do not narrow)."""
    return tuple(s[len(SCOPE_PREFIX) :] for s in identity.scopes if s.startswith(SCOPE_PREFIX))


GRANTS_KEPT = 10_000
RULES_KEPT = 2_048  # distinct callers x profiles x narrowings whose judged rules are kept
MAX_PURPOSE_CHARS = 32_768  # of a task's instruction kept for provenance: a value past it is not found (denied)
MAX_DEPTH = 8  # subtasks of subtasks


@dataclass(frozen=True, slots=True)
class PresentedTask:
    """A task token that passed every check: its spec (as narrow as the caller now is), expiry, epoch, record."""

    spec: GrantSpec
    expires: float
    epoch: str
    info: TaskInfo
    data: tuple[str, ...] = ()  # what the task has seen (the store's records)


class Authorizer:
    def __init__(self, config: AuthzConfig, services: Services):
        if config.policy is None or config.tasks is None:
            raise TaskgateError("authorization needs the `authz.policy` and `authz.tasks` sections")
        p = config.policy
        registry = services.metrics
        reloads = Counter("taskgate_authz_policy_reloads", "Policy reloads by result", ["result"], registry=registry)
        self.policy = PolicyStore(
            p.model, p.file, p.reload_interval_s, p.redis_url, p.channel, lambda result: reloads.labels(result).inc(),
            p.require_seal,
        )  # fmt: skip
        self.tasks: TaskConfig = config.tasks
        self.tokens = TaskTokens(config.tasks)
        tasks = config.tasks
        self.store: MemoryTaskStore | RedisTaskStore = (
            RedisTaskStore(tasks.redis_url, tasks.key_prefix, tasks.timeout_ms / 1000) if tasks.store == "redis"
            else MemoryTaskStore(tasks.max_tasks)
        )  # fmt: skip
        self._grants: OrderedDict[tuple[GrantSpec, int], Grant] = OrderedDict()
        self._shared_rules: OrderedDict[tuple[GrantSpec, int], Rules] = OrderedDict()
        self.decisions = Counter(
            "taskgate_authz_decisions", "Tool-call decisions by surface, outcome and reason",
            ["surface", "outcome", "reason"], registry=registry,
        )  # fmt: skip
        self.holds = Holds(self.store, config.tasks.hold_ttl_s)
        self.bindings = _bindings(config.tasks)  # what runtimes send back, recognised as their tasks (binding.py)
        self.seen = SeenCache()
        self.assertions = Assertions(config.assertions) if config.assertions.enabled else None
        self.jwks = _published(self.tokens, self.assertions)
        self.held = Counter("taskgate_authz_holds", "Held calls by what became of them", ["event"], registry=registry)
        self.unread = Counter(
            "taskgate_authz_results_unread", "Tool results a field declaration could not read, by why (text, yaml, "
            "shape)", ["reason"], registry=registry,
        )  # fmt: skip
        generation = Gauge("taskgate_authz_policy_generation", "The policy generation in use", registry=registry)
        generation.set_function(lambda: self.policy.current.generation)

    def grant(self, spec: GrantSpec) -> Grant:
        """The grant for `spec` under the current policy; one per task and policy generation.

        Its rules are shared by every task with the same caller, profile,
        scopes and narrowing, so a task costs a few hundred bytes, not the rows.
        """
        policy = self.policy.current
        key = (spec, policy.generation)
        found = self._grants.get(key)
        if found is None:
            found = self._grants[key] = Grant(spec, policy, self._rules(spec, policy))
            while len(self._grants) > GRANTS_KEPT:
                self._grants.popitem(last=False)
        return found

    def _rules(self, spec: GrantSpec, policy: Policy) -> Rules:
        shape = (dataclasses.replace(spec, task=""), policy.generation)
        found = self._shared_rules.get(shape)
        if found is None:
            found = self._shared_rules[shape] = Rules(shape[0], policy)
            while len(self._shared_rules) > RULES_KEPT:
                self._shared_rules.popitem(last=False)
        else:
            self._shared_rules.move_to_end(shape)
        return found

    def decide(self, grant: Grant, tool: str, arguments: object, seen: Seen | None, surface: str) -> Decision:
        decision = grant.check(tool, arguments, seen)
        self.decisions.labels(surface, "allow" if decision.allowed else "deny", decision.code).inc()
        return decision

    async def task_for_token(self, token: str, identity: Identity) -> PresentedTask:
        """A presented task token: verified, bound to the caller, its task known and not revoked, no wider than
        the caller now is. One read of the store (one Redis round trip).

        The caller's current token limits it too: roles it no longer has are
        dropped, and its tool scopes become one more narrowing layer.
        """
        verified = self.tokens.verify(token)
        spec = verified.spec
        if spec.subject != identity.subject or spec.tenant != identity.tenant:
            raise TaskTokenError(403, "task_token_mismatch", "the task token belongs to another subject or tenant")
        parents = tuple(task_key(spec.tenant, spec.subject, p) for p in spec.parents)
        state = await self.store.state(task_key(spec.tenant, spec.subject, spec.task), parents)
        info = _usable(verified, state)
        roles = tuple(r for r in spec.roles if r in identity.roles)
        narrowed = dataclasses.replace(spec, roles=roles)
        scopes = tool_scopes(identity)
        if scopes:
            narrowed = narrowed.narrowed(scopes)
        return PresentedTask(narrowed, verified.expires, verified.epoch, info, state.data)

    def pinned(self, identity: Identity, action: str = "pin") -> tuple[str, ...]:
        """The profiles a policy rule (`p, SUBJECT, TENANT, profile:NAME, pin, ID`) pins the caller's tasks to;
        `base`: the profiles they start from, to which the classifier's are added; `add`: which it may add."""
        policy = self.policy.current
        principals = [identity.subject, *(f"role:{r}" for r in identity.roles)]
        for principal in list(principals):
            principals += [r for r in policy.roles(principal, identity.tenant) if r not in principals]
        return policy.pinned(tuple(principals), identity.tenant, action)

    async def observe(self, spec: GrantSpec, records: list[str]) -> None:
        """Keep what the task has seen (tool results, user turns) for its later decisions."""
        await self.store.observe(task_key(spec.tenant, spec.subject, spec.task), records, self.tasks.ttl_s * 4)

    async def open_subtask(
        self, parent: PresentedTask, tools: tuple[str, ...], labels: tuple[str, ...] | None
    ) -> tuple[GrantSpec, str, float]:
        """A subtask of `parent`: a new task whose grant is a subset of the parent's; revoking the parent revokes it.

        Its tools are a narrowing layer over the parent's (a tool the parent lacks
        is refused, naming it); its trust labels a subset of the parent's. It sees
        what the parent has seen so far, and its own calls' results from then on.
        """
        spec = parent.spec
        if len(spec.parents) >= MAX_DEPTH:
            raise TaskTokenError(400, "subtask_too_deep", f"subtasks nest at most {MAX_DEPTH} deep")
        grant = self.grant(spec)
        wider = sorted({t for t in tools if any(c in t for c in "*?{") or not grant.tool(t).allowed})
        if wider:
            raise TaskTokenError(403, "subtask_wider", f"a subtask can only narrow; the task may not use {wider}")
        if labels is not None and spec.labels and not set(labels) <= set(spec.labels):
            extra = sorted(set(labels) - set(spec.labels))
            raise TaskTokenError(403, "subtask_wider", f"a subtask can only narrow; the task lacks the labels {extra}")
        child = dataclasses.replace(
            spec, task=new_task_id(), narrowing=(*spec.narrowing, tools) if tools else spec.narrowing,
            labels=tuple(labels) if labels is not None else spec.labels, parents=(*spec.parents, spec.task),
        )  # fmt: skip
        _, epoch = await self.start(child, parent.info.purpose)
        if parent.data:
            await self.observe(child, list(parent.data))
        token, expires = self.tokens.mint(child, epoch, not_after=parent.expires)
        return child, token, expires

    async def start(self, spec: GrantSpec, purpose: str | None) -> tuple[TaskInfo, str]:
        """Record a new task, and the store epoch its tokens carry; a task id used (or revoked) cannot start again."""
        key = task_key(spec.tenant, spec.subject, spec.task)
        epoch, revoked = await self.store.begin(key)
        if revoked:
            raise TaskTokenError(403, "task_revoked", "the task was revoked")
        kept = purpose[:MAX_PURPOSE_CHARS] if purpose is not None else None  # what provenance checks read
        info = TaskInfo(spec.subject, spec.tenant, spec.profile, kept, time.time())
        if not await self.store.put(key, info, self.tasks.ttl_s * 4):
            raise TaskTokenError(
                403, "task_exists", "this task has started already: present its task token to continue it"
            )
        return info, epoch

    async def revoke(self, identity: Identity, task: str) -> bool:
        """Revoke the caller's own task until any token of it has expired; whether the task was known."""
        key = task_key(identity.tenant, identity.subject, task)
        lasts = max(self.tasks.ttl_s, self.tasks.conversations.ttl_s)  # past every token and every binding of it
        return await self.store.revoke(key, time.time() + lasts + 60)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        async with self.policy.running():
            try:
                yield
            finally:
                await self.store.close()
                await self.bindings.close()


def _usable(token: TaskToken, state: TaskState) -> TaskInfo:
    """The task's record, if the store still vouches for the token; fail closed if it lost what it knew."""
    if state.revoked:
        raise TaskTokenError(403, "task_revoked", "the task was revoked")
    if state.epoch != token.epoch:
        raise TaskTokenError(
            403, "task_state_lost",
            "the task store has lost its state since this token was issued (it restarted empty or was reset), "
            "so a revocation of the task cannot be ruled out: start a new task",
            details={"task_store": {"token_epoch": token.epoch, "store_epoch": state.epoch}},
        )  # fmt: skip
    if state.info is None:
        raise TaskTokenError(
            403, "task_state_lost",
            "the task store no longer has this task (forgotten or lost), so a revocation of it cannot be ruled "
            "out: start a new task",
            details={"task_store": {"token_epoch": token.epoch, "task_record": "missing"}},
        )  # fmt: skip
    return state.info


def _bindings(tasks: TaskConfig) -> Bindings:
    """Bindings live where tasks do: in Redis beside them (every replica recognises every conversation), or here."""
    if tasks.store == "redis":
        return RedisBindings(tasks.redis_url, tasks.key_prefix + "bind:", tasks.timeout_ms / 1000)
    return MemoryBindings(tasks.conversations.max_entries)


def _published(tokens: TaskTokens, assertions: Assertions | None) -> dict[str, object]:
    """One JWKS for what taskgate signs: the public keys of task tokens and of per-task assertions."""
    rings = [tokens.ring] if assertions is None else [tokens.ring, assertions.ring]
    try:
        return published(rings)
    except ValueError as exc:
        raise TaskgateError(f"authz.tasks.keys: {exc} (the assertion key's kid is its RFC 7638 thumbprint)") from None


def authorizer(services: Services) -> Authorizer:
    """The app's one Authorizer, created on first use and run with the app."""
    found = services.shared("authz.authorizer", lambda: Authorizer(services.section("authz", AuthzConfig), services))
    services.lifespan("authz.authorizer", found.running)
    return found
