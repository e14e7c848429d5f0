"""Holds for approval: a call a `hold` rule stopped waits for the task's own user; approved, it runs once.

A held call is not executed. Its hold (the tool, a digest of its arguments,
the rule and why) is kept in the task store under the task's owner, so only
that user can see or answer it: another user's request finds nothing. The
user approves or refuses (`POST /v1/tasks/{task}/approvals/{id}`); the client
then retries the identical call naming the approval, and the approval is
spent by a compare-and-set, so two retries cannot both run it. A hold
expires after `tasks.hold_ttl_s`; an answer or a retry after that is refused.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
import uuid
from dataclasses import dataclass
from typing import Any, Literal

from .errors import TaskTokenError
from .grant import Decision, GrantSpec
from .labels import UNTRUSTED
from .tasks import MemoryTaskStore, RedisTaskStore, task_key

State = Literal["pending", "approved", "refused", "used"]
KEEP_EXPIRED_S = 3600
PREVIEW_CHARS = 2_000  # an expired hold is remembered this long, so its answer says "expired", not "unknown"


@dataclass(frozen=True, slots=True)
class Hold:
    id: str
    task: str
    tool: str
    digest: str
    rule: str | None
    reason: str
    created: float
    expires: float
    state: State = "pending"
    decided_by: str | None = None
    decided_at: float | None = None
    used_at: float | None = None
    preview: str = ""  # the call's arguments, cut to PREVIEW_CHARS: what its user approves (never in evidence)
    value: Any = None  # what is new in the call: the value the rule could not vouch for
    seen: dict[str, Any] | None = None  # where the task saw it (tool, field, label), None: nowhere
    accepts: tuple[str, ...] | list[str] = ()  # where it was looked for and not found (the rule's labels)
    question: str = ""  # the sentence a person judges the call by

    def dumps(self) -> str:
        return json.dumps(dataclasses.asdict(self), sort_keys=True)

    @classmethod
    def loads(cls, raw: str) -> Hold | None:
        try:
            return cls(**json.loads(raw))
        except (ValueError, TypeError):
            return None

    @property
    def expired(self) -> bool:
        return time.time() > self.expires

    def public(self, base_url: str) -> dict[str, Any]:
        """What the client is told of the hold: enough to ask its user, nothing of the policy beyond the rule id."""
        return {
            "id": self.id, "task": self.task, "tool": self.tool, "rule": self.rule, "state": self.state,
            "url": f"{base_url.rstrip('/')}/v1/tasks/{self.task}/approvals/{self.id}",
            "expires_at": int(self.expires), "question": self.question, "value": self.value, "seen": self.seen,
            "not_in": list(self.accepts), "reason": self.reason,
        }  # fmt: skip

    def evidence(self) -> dict[str, Any]:
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None and k not in ("digest", "preview")}


def question(decision: Decision) -> str:
    """What a person is asked, in one sentence: the new value, where the task saw it, where it is not."""
    refused = decision.refused
    if refused is None:
        return f"Run {decision.tool}? It was held because {decision.reason}."
    where = refused.where
    value = refused.evidence()["value"]
    if where is None:
        source = "the task has not seen it anywhere"
    else:
        field = f", field {where.field}" if where.field else ""
        if where.label == UNTRUSTED:
            source = f"the task saw it only in {where.source}{field} (untrusted data: anyone could have written it)"
        else:
            source = f"the task saw it in {where.source}{field} ({where.label} data)"
    missing = " or ".join(_place(label) for label in decision.accepts) or "anything the rule trusts"
    return f"Run {decision.tool} with {value!r}? It is new: {source}; it is not in {missing}."


def _place(label: str) -> str:
    return {"instruction": "your instruction", "claims": "your account's details"}.get(
        label, f"your {label.replace('-', ' ').replace('_', ' ')}"
    )


def call_digest(tool: str, arguments: Any) -> str:
    """The call a hold is for: its tool and arguments, canonically serialised."""
    text = json.dumps([tool, arguments], sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


class Holds:
    def __init__(self, store: MemoryTaskStore | RedisTaskStore, ttl_s: float):
        self.store, self.ttl_s = store, ttl_s

    @staticmethod
    def _key(tenant: str, subject: str, task: str, hold: str) -> str:
        return task_key(tenant, subject, task) + "#" + hold

    async def hold(self, spec: GrantSpec, decision: Decision, arguments: Any) -> Hold:
        now = time.time()
        preview = json.dumps(arguments, ensure_ascii=False, default=str)[:PREVIEW_CHARS]
        refused = decision.refused
        hold = Hold(
            uuid.uuid4().hex, spec.task, decision.tool, call_digest(decision.tool, arguments), decision.rule,
            decision.reason, now, now + self.ttl_s, preview=preview,
            value=refused.evidence()["value"] if refused is not None else None,
            seen=refused.where.evidence() if refused is not None and refused.where is not None else None,
            accepts=decision.accepts, question=question(decision),
        )  # fmt: skip
        key = self._key(spec.tenant, spec.subject, spec.task, hold.id)
        await self.store.put_hold(key, hold.dumps(), self.ttl_s + KEEP_EXPIRED_S)
        return hold

    async def get(self, tenant: str, subject: str, task: str, hold_id: str) -> tuple[str, str, Hold]:
        key = self._key(tenant, subject, task, hold_id)
        raw = await self.store.get_hold(key) if len(hold_id) <= 64 else None
        found = Hold.loads(raw) if raw is not None else None
        if raw is None or found is None:
            raise TaskTokenError(404, "approval_not_found", "no such approval for this user's task")
        return key, raw, found

    async def answer(self, tenant: str, subject: str, task: str, hold_id: str, approve: bool) -> Hold:
        """The task's user approves or refuses a pending hold."""
        key, raw, found = await self.get(tenant, subject, task, hold_id)
        if found.expired:
            raise TaskTokenError(410, "approval_expired", "the held call waited too long; it expired unanswered")
        if found.state != "pending":
            raise TaskTokenError(409, "approval_answered", f"the held call was already {found.state}")
        state: State = "approved" if approve else "refused"
        answered = dataclasses.replace(found, state=state, decided_by=subject, decided_at=time.time())
        if not await self.store.swap_hold(key, raw, answered.dumps()):
            raise TaskTokenError(409, "approval_answered", "the held call was answered meanwhile")
        return answered

    async def redeem(self, spec: GrantSpec, hold_id: str, tool: str, arguments: Any) -> Hold:
        """Spend an approval on the call it was given for; any other call, or a second use, is refused."""
        key, raw, found = await self.get(spec.tenant, spec.subject, spec.task, hold_id)
        if found.expired:
            raise TaskTokenError(410, "approval_expired", "the approval expired before the call was retried")
        if found.digest != call_digest(tool, arguments) or found.tool != tool:
            raise TaskTokenError(403, "approval_mismatch", "the approval is for another call (tool or arguments)")
        if found.state == "pending":
            raise TaskTokenError(403, "approval_pending", "the held call has not been approved yet")
        if found.state == "refused":
            raise TaskTokenError(403, "approval_refused", f"{found.decided_by} refused the held call")
        if found.state == "used":
            raise TaskTokenError(409, "approval_used", "the approved call has run already; it runs once")
        used = dataclasses.replace(found, state="used", used_at=time.time())
        if not await self.store.swap_hold(key, raw, used.dumps()):
            raise TaskTokenError(409, "approval_used", "the approved call has run already; it runs once")
        return used
