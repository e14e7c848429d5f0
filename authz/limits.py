"""The `authz.limits` step: per-tenant and per-task rate limits and budgets, shared by replicas through Redis.

A rate limit (`requests_per_s`, with a `burst`) is a GCRA: a steady rate and
how many requests may come at once. A budget (`tokens` and/or `cost` per
`window_s`) counts what answers took, as the proxy reports it once an
answer's usage is known (the step's value is a Meter: `charge`); a request
is refused once the window's budget is spent, until the window renews. So a
budget may be overrun by the answers in flight when it runs out, never by a
request that starts after.

Every check of one request is one round trip (a Lua script in Redis, whose
clock it uses, so replicas agree), all or nothing: a request refused by one
limit does not use up another's. Refusals are 429 with `Retry-After`. When
the store cannot answer (down, slow, refusing writes), the request is
refused with 503 (`on_store_error: deny`, the default) or let through
unchecked (`allow`); the evidence says which and why.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import AsyncIterator, Awaitable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

import structlog
from prometheus_client import Counter
from pydantic import Field, model_validator

from taskgate.plugins import GRANT, IDENTITY, Inputs, Params, Principal, Reject, Services, Step, Usage
from taskgate.plugins.redis import RedisUrl, connect

LIMITS = "limits"
log = structlog.get_logger("taskgate.authz")


class Limit(Params):
    """What one tenant, or each task, may use."""

    requests_per_s: float | None = Field(default=None, gt=0)
    burst: int | None = Field(default=None, ge=1)  # requests at once; default: the rate rounded up
    tokens: int | None = Field(default=None, ge=1)  # prompt and completion tokens per window
    cost: float | None = Field(default=None, gt=0)  # at the pools' prices (routing.pools[].price), per window
    window_s: int = Field(default=3600, ge=1, le=31 * 86_400)

    @model_validator(mode="after")
    def _limits_something(self) -> Limit:
        if self.requests_per_s is None and self.tokens is None and self.cost is None:
            raise ValueError("give requests_per_s, tokens or cost (a limit that limits nothing is a typo)")
        if self.burst is not None and self.requests_per_s is None:
            raise ValueError("burst needs requests_per_s")
        return self

    @property
    def at_once(self) -> int:
        return self.burst or max(1, math.ceil(self.requests_per_s or 1))


class LimitsParams(Params):
    tenants: dict[str, Limit] = Field(default_factory=dict)  # by tenant; "*": every tenant not named
    tasks: Limit | None = None  # each task's own, whoever runs it
    store: Literal["memory", "redis"] = "memory"  # memory: this replica only
    redis_url: RedisUrl = "redis://127.0.0.1:6379/0"  # or redis+sentinel://HOST:PORT[,...]/SERVICE[/DB]
    key_prefix: str = "taskgate:limits:"
    timeout_ms: float = Field(default=100.0, gt=0)  # a store slower than this cannot decide
    on_store_error: Literal["deny", "allow"] = "deny"

    @model_validator(mode="after")
    def _some_limit(self) -> LimitsParams:
        if not self.tenants and self.tasks is None:
            raise ValueError("give `tenants` (by tenant, or '*') or `tasks`: with neither the step limits nothing")
        return self


@dataclass(frozen=True, slots=True)
class Check:
    """One limit applied to one request: whose it is and what it allows."""

    scope: Literal["tenant", "task"]
    owner: str
    limit: Limit

    @property
    def label(self) -> str:
        return f"{self.scope} {self.owner!r}"


@dataclass(frozen=True, slots=True)
class Verdict:
    refused: int | None  # the index of the check that refused (None: admitted)
    reason: Literal["requests", "tokens", "cost"] | None
    retry_ms: int
    spent: tuple[tuple[int, float], ...]  # per check, what its current window has used (tokens, cost)


class LimitStore(Protocol):
    async def admit(self, checks: list[Check]) -> Verdict: ...

    async def charge(self, checks: list[Check], tokens: int, cost: float) -> None: ...

    async def close(self) -> None: ...


class StoreUnavailable(Exception):
    """The limits' store cannot answer."""


class LimitsStep(Step[LimitsParams]):
    """Refuses a request over its tenant's or task's rate or budget; its value charges the answer's usage."""

    type = "authz.limits"
    requires = (IDENTITY,)
    optional = (GRANT,)
    provides = LIMITS
    Params = LimitsParams

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        p = self.params
        self.store = RedisLimits(p.redis_url, p.key_prefix, p.timeout_ms) if p.store == "redis" else MemoryLimits()
        self.refusals, self.charge_failures = counters(self.services)
        self.services.lifespan(f"authz.limits.{self.name}", self._closing)

    async def run(self, inputs: Inputs) -> Allowance:
        return await self.admit(inputs[IDENTITY], _task(inputs.get(GRANT)))

    async def admit(self, identity: Principal, task: str | None) -> Allowance:
        checks = self._checks(identity.tenant, task)
        allowance = Allowance(self, identity.tenant, task, checks)
        if not checks:
            return allowance
        try:
            async with asyncio.timeout(self.params.timeout_ms / 1000):
                verdict = await self.store.admit(checks)
        except (StoreUnavailable, TimeoutError) as exc:
            reason = str(exc) or f"no answer within {self.params.timeout_ms:g} ms"
            if self.params.on_store_error == "allow":
                allowance.unchecked = reason
                return allowance
            self.refusals.labels("any", "store").inc()
            raise _store_away(reason) from None
        if verdict.refused is not None:
            check = checks[verdict.refused]
            self.refusals.labels(check.scope, verdict.reason).inc()
            raise _over(check, verdict)
        allowance.spent = verdict.spent
        return allowance

    def _checks(self, tenant: str, task: str | None) -> list[Check]:
        tenants, checks = self.params.tenants, []
        own = tenants.get(tenant) or tenants.get("*")
        if own is not None:
            checks.append(Check("tenant", tenant, own))
        if task is not None and self.params.tasks is not None:
            checks.append(Check("task", task, self.params.tasks))
        return checks

    @contextlib.asynccontextmanager
    async def _closing(self) -> AsyncIterator[None]:
        try:
            yield
        finally:
            await self.store.close()


@dataclass
class Allowance:
    """The step's value: what was checked, and the Meter the proxy tells what the answer took."""

    step: LimitsStep
    tenant: str
    task: str | None
    checks: list[Check]
    spent: tuple[tuple[int, float], ...] = ()
    unchecked: str | None = None  # the store could not answer and the operator allows that: why
    charged: dict[str, Any] | None = None  # what the answer is charged (written to the store in the background)

    def charge(self, usage: Usage, cost: float | None) -> Awaitable[None]:
        """Count the answer against every budget checked: recorded at once, written when awaited (in the
        background); a store that fails then is logged and recorded, never raised."""
        budgets = [c for c in self.checks if c.limit.tokens is not None or c.limit.cost is not None]
        if budgets:
            self.charged = {"tokens": usage.total, "cost": cost}
        return self._charge(budgets, usage, cost)

    async def _charge(self, budgets: list[Check], usage: Usage, cost: float | None) -> None:
        if not budgets:
            return
        try:
            async with asyncio.timeout(self.step.params.timeout_ms / 1000):
                await self.step.store.charge(budgets, usage.total, cost or 0.0)
        except (StoreUnavailable, TimeoutError) as exc:  # after the record was written: logged and counted
            reason = str(exc) or "the store did not answer in time"
            self.step.charge_failures.inc()
            log.warning("limits_charge_failed", tenant=self.tenant, task=self.task, reason=reason)

    def evidence(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tenant": self.tenant, "task": self.task}
        out["checked"] = [
            {"scope": c.scope, "owner": c.owner, **c.limit.model_dump(exclude_none=True)} for c in self.checks
        ]
        if self.spent:
            out["spent"] = [{"tokens": tokens, "cost": round(cost, 8)} for tokens, cost in self.spent]
        for key in ("unchecked", "charged"):
            if (value := getattr(self, key)) is not None:
                out[key] = value
        return out


def _task(grant: Any) -> str | None:
    spec = getattr(grant, "spec", None)  # authz's TaskGrant; another room's grant names no task here
    task = getattr(spec, "task", None)
    return task if isinstance(task, str) else None


def _over(check: Check, verdict: Verdict) -> Reject:
    limit, retry_s = check.limit, max(1, math.ceil(verdict.retry_ms / 1000))
    if verdict.reason == "requests":
        code = "rate_limit_exceeded"
        message = (
            f"{check.label} is over its rate of {limit.requests_per_s:g} requests per second (burst {limit.at_once})"
        )
    else:
        code = "budget_exceeded"
        allowed = f"{limit.tokens} tokens" if verdict.reason == "tokens" else f"a cost of {limit.cost:g}"
        message = f"{check.label} has used its budget of {allowed} per {limit.window_s} s"
    return Reject(
        429, code, f"{message}; retry in {retry_s} s", "rate_limit_error", headers={"Retry-After": str(retry_s)},
        details={"limits": {"scope": check.scope, "owner": check.owner, "limit": verdict.reason, "retry_s": retry_s}},
    )  # fmt: skip


def _store_away(reason: str) -> Reject:
    return Reject(
        503, "limits_unavailable", "taskgate cannot check this request's limits right now; retry shortly",
        "api_error", headers={"Retry-After": "1"}, details={"limits": {"store": reason[:300]}},
    )  # fmt: skip


def counters(services: Services) -> tuple[Counter, Counter]:
    """Refusals by scope and limit, and charges the store did not take, on the app's registry (once per app)."""

    def made() -> tuple[Counter, Counter]:
        refused = "Requests refused by a rate limit or budget (limit `store`: the store could not answer)"
        failed = "Answers whose charge the limits' store did not take (the budget undercounts them)"
        return (
            Counter("taskgate_limit_refusals", refused, ["scope", "limit"], registry=services.metrics),
            Counter("taskgate_limit_charge_failures", failed, registry=services.metrics),
        )

    return services.shared("authz.limits.counters", made)


# The memory store and the Redis script decide alike. Rates: a GCRA's theoretical arrival time (ms) per key.
# Budgets: per key and window, the tokens and cost spent. Time is the store's: Redis's TIME, so replicas agree.


@dataclass
class MemoryLimits:
    """Limits of this replica alone (store: memory)."""

    tats: dict[str, float] = field(default_factory=dict)
    windows: dict[str, list[float]] = field(default_factory=dict)
    max_keys: int = 100_000  # past this, the oldest are forgotten first (a task's budget with them)
    _pruned: float = 0.0

    async def admit(self, checks: list[Check]) -> Verdict:
        now = time.time() * 1000
        self._forget(now)
        arrivals: dict[str, float] = {}
        spent: list[tuple[int, float]] = []
        for index, check in enumerate(checks):
            limit = check.limit
            if limit.requests_per_s is not None:
                interval = 1000 / limit.requests_per_s
                arrival = max(self.tats.get(_key("rate", check), now), now) + interval
                allowed_at = arrival - limit.at_once * interval
                if now < allowed_at:
                    return Verdict(index, "requests", math.ceil(allowed_at - now), ())
                arrivals[_key("rate", check)] = arrival
            if limit.tokens is not None or limit.cost is not None:
                window, renews = _window(check, now)
                tokens, cost = self.windows.get(window, [0.0, 0.0, 0.0])[:2]
                if (limit.tokens is not None and tokens >= limit.tokens) or (
                    limit.cost is not None and cost >= limit.cost
                ):
                    reason: Literal["tokens", "cost"] = (
                        "tokens" if limit.tokens is not None and tokens >= limit.tokens else "cost"
                    )
                    return Verdict(index, reason, math.ceil(renews - now), ())
                spent.append((int(tokens), cost))
        self.tats.update(arrivals)
        return Verdict(None, None, 0, tuple(spent))

    async def charge(self, checks: list[Check], tokens: int, cost: float) -> None:
        now = time.time() * 1000
        for check in checks:
            window, renews = _window(check, now)
            counts = self.windows.setdefault(window, [0.0, 0.0, renews])
            counts[0] += tokens
            counts[1] += cost

    async def close(self) -> None:
        return None

    def _forget(self, now: float) -> None:
        """Rates caught up with and windows past go, once a second at most; beyond `max_keys`, the oldest."""
        if now - self._pruned >= 1000:
            self._pruned = now
            self.tats = {k: v for k, v in self.tats.items() if v > now}
            self.windows = {k: v for k, v in self.windows.items() if v[2] > now}
        for kept in (self.tats, self.windows):
            while len(kept) > self.max_keys:
                del kept[next(iter(kept))]  # dicts keep insertion order: the first is the oldest


def _key(kind: str, check: Check) -> str:
    return f"{kind}:{check.scope}:{check.owner}"


def _window(check: Check, now_ms: float) -> tuple[str, float]:
    """The budget's current window's key, and when it renews (ms)."""
    span = check.limit.window_s * 1000
    index = int(now_ms // span)
    return f"budget:{check.scope}:{check.owner}:{check.limit.window_s}:{index}", (index + 1) * span


_ADMIT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local arrivals = {}
local spent = {}
for i = 1, #KEYS do
  local base = (i - 1) * 5
  local interval, burst = tonumber(ARGV[base + 1]), tonumber(ARGV[base + 2])
  local window, tokens_limit, cost_limit = tonumber(ARGV[base + 3]), tonumber(ARGV[base + 4]), tonumber(ARGV[base + 5])
  if interval > 0 then
    local tat = tonumber(redis.call('GET', KEYS[i] .. ':rate') or now)
    if tat < now then tat = now end
    local arrival = tat + interval
    local allowed_at = arrival - burst * interval
    if now < allowed_at then return {i, math.ceil(allowed_at - now), 'requests'} end
    arrivals[i] = arrival
  end
  if window > 0 then
    local span = window * 1000
    local index = math.floor(now / span)
    local counts = redis.call('HMGET', KEYS[i] .. ':budget:' .. window .. ':' .. index, 'tokens', 'cost')
    local tokens, cost = tonumber(counts[1] or '0'), tonumber(counts[2] or '0')
    local renews = (index + 1) * span - now
    if tokens_limit >= 0 and tokens >= tokens_limit then return {i, renews, 'tokens'} end
    if cost_limit >= 0 and cost >= cost_limit then return {i, renews, 'cost'} end
    table.insert(spent, tostring(tokens))
    table.insert(spent, tostring(cost))
  end
end
for i, arrival in pairs(arrivals) do
  redis.call('SET', KEYS[i] .. ':rate', tostring(arrival), 'PX', math.ceil(arrival - now) + 1000)
end
return {0, 0, '', unpack(spent)}
"""

_CHARGE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i = 1, #KEYS do
  local window = tonumber(ARGV[i])
  local span = window * 1000
  local key = KEYS[i] .. ':budget:' .. window .. ':' .. math.floor(now / span)
  redis.call('HINCRBY', key, 'tokens', ARGV[#KEYS + 1])
  redis.call('HINCRBYFLOAT', key, 'cost', ARGV[#KEYS + 2])
  redis.call('PEXPIRE', key, span * 2)
end
return 1
"""


class RedisLimits:
    """Limits shared by every replica on one Redis (store: redis)."""

    def __init__(self, url: str, prefix: str, timeout_ms: float):
        self._redis = connect(url, timeout_s=timeout_ms / 1000)  # redis:// or redis+sentinel://
        self._prefix = prefix
        self._admit = self._redis.register_script(_ADMIT)
        self._charge = self._redis.register_script(_CHARGE)

    async def admit(self, checks: list[Check]) -> Verdict:
        args: list[Any] = []
        for check in checks:
            limit = check.limit
            budget = limit.tokens is not None or limit.cost is not None
            args += [
                1000 / limit.requests_per_s if limit.requests_per_s else 0, limit.at_once,
                limit.window_s if budget else 0, -1 if limit.tokens is None else limit.tokens,
                -1 if limit.cost is None else limit.cost,
            ]  # fmt: skip
        with _reached():
            found = await self._admit(keys=[self._owner(c) for c in checks], args=args)
        refused, retry_ms, reason = int(found[0]), int(found[1]), found[2].decode() if found[2] else None
        if refused:
            return Verdict(refused - 1, reason, retry_ms, ())
        values = [float(v) for v in found[3:]]
        return Verdict(None, None, 0, tuple((int(values[i]), values[i + 1]) for i in range(0, len(values), 2)))

    async def charge(self, checks: list[Check], tokens: int, cost: float) -> None:
        with _reached():
            windows = [c.limit.window_s for c in checks]
            await self._charge(keys=[self._owner(c) for c in checks], args=[*windows, tokens, repr(cost)])

    async def close(self) -> None:
        with contextlib.suppress(Exception):  # closing a connection to a Redis that went away
            await self._redis.aclose()

    def _owner(self, check: Check) -> str:
        return f"{self._prefix}{check.scope}:{check.owner}"


@contextlib.contextmanager
def _reached() -> Iterator[None]:
    import redis

    try:
        yield
    except redis.RedisError as exc:
        raise StoreUnavailable(f"redis: {type(exc).__name__}: {exc}"[:300]) from None


if TYPE_CHECKING:  # the hooks the gateway reads from the step's value (plugins.hooks)
    from taskgate.plugins import HasEvidence, Meter

    _: tuple[type[Meter], type[HasEvidence]] = (Allowance, Allowance)
