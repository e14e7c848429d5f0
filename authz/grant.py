"""A task's grant: computed once from the policy, then every tool call is checked against it in constant time.

The grant is the intersection of four things: what the subject's roles
allow in its tenant, what the task's intent profile needs, the token's
`tool:` scopes (when it has any), and every narrowing the caller asked for.
Each tool's verdict is computed on first use and memoised; a call then costs a
dictionary lookup plus that tool's argument constraints. A tool name that is
not canonical, or imitates a name the grant's rules mention, is refused in
that same first judgement (names.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from casbin.util import key_match

from .constraints import ArgumentRule, Match
from .labels import Seen
from .names import PolicyNames
from .policy import Policy, Rule

PROFILE_JOIN = "+"
FEATURES = ("resource", "prompt")  # the policy actions for MCP resources and prompts (tools: `call`)
MEMO_LIMIT = 4096
EVIDENCE_LIMIT = 64


@dataclass(frozen=True, slots=True)
class GrantSpec:
    """What defines a task's grant; a task token carries exactly this."""

    task: str
    subject: str
    tenant: str
    profile: str
    roles: tuple[str, ...] = ()
    scopes: tuple[str, ...] = ()  # tool patterns from the token's `tool:` scopes; empty: scopes do not narrow
    narrowing: tuple[tuple[str, ...], ...] = ()  # each layer: tool patterns; a tool must match one in every layer
    labels: tuple[str, ...] = ()  # trust labels the task may count (a subtask's); empty: every label
    parents: tuple[str, ...] = ()  # a subtask's ancestors, the root task first

    @property
    def profiles(self) -> tuple[str, ...]:
        """A task of a request with several parts has several profiles: `mail+payments`."""
        return tuple(self.profile.split(PROFILE_JOIN))

    def narrowed(self, tools: tuple[str, ...]) -> GrantSpec:
        return dataclasses.replace(self, narrowing=(*self.narrowing, tools))


@dataclass(frozen=True, slots=True)
class ToolVerdict:
    tool: str
    allowed: bool
    reason: str
    sources: Mapping[str, Any]
    constraints: tuple[ArgumentRule, ...] = ()


@dataclass(frozen=True, slots=True)
class Decision:
    """One tool call judged: allow, deny or hold; the rule that decided, and for a refusal the unmet condition.

    `matches` are the values provenance-kind rules accepted and where each had
    been seen; `refused` is the value that failed one, and where else it was seen.
    """

    tool: str
    allowed: bool
    reason: str
    rule: str | None = None
    condition: str | None = None
    sources: Mapping[str, Any] = field(default_factory=dict)
    held: bool = False
    matches: tuple[Match, ...] = ()
    refused: Match | None = None
    approval: Mapping[str, Any] | None = None  # a held call its user approved: who, when
    kind: str = "tool"  # or `resource`, `prompt`: what was asked for
    accepts: tuple[str, ...] = ()  # the labels the failed rule accepts: where the value was not found

    def approved(self, approval: Mapping[str, Any]) -> Decision:
        """This held decision, allowed by its user's approval."""
        who = approval.get("decided_by")
        return dataclasses.replace(self, allowed=True, held=False, reason=f"approved by {who}", approval=approval)

    @property
    def code(self) -> str:
        if self.allowed:
            return "approved" if self.approval is not None else "allowed"
        if self.held:
            return "held"
        return "argument_constraint" if self.condition else "not_granted"

    def evidence(self) -> dict[str, Any]:
        outcome = "allow" if self.allowed else "hold" if self.held else "deny"
        out: dict[str, Any] = {self.kind: self.tool, "outcome": outcome, "reason": self.reason}
        if self.rule:
            out["rule"] = self.rule
        if self.condition:
            out["condition"] = self.condition
        if self.sources:
            out["sources"] = dict(self.sources)
        if self.matches:
            out["provenance"] = [m.evidence() for m in self.matches]
        if self.refused is not None:
            out["refused"] = self.refused.evidence()
        if self.approval is not None:
            out["approval"] = dict(self.approval)
        return out


class Rules:
    """What one set of principals may do under one profile, scopes and narrowing, from one policy generation.

    Tasks of the same caller and profile share it (their specs differ only in
    the task id): the rows are selected once and each tool is judged once.
    """

    def __init__(self, spec: GrantSpec, policy: Policy):
        self.spec = spec
        self.generation = policy.generation
        tenant = spec.tenant
        principals = [spec.subject, *(f"role:{r}" for r in spec.roles)]
        inherited: list[str] = []
        for principal in principals:
            inherited += [r for r in policy.roles(principal, tenant) if r not in principals and r not in inherited]
        self.principals = (*principals, *inherited)
        self._role_rules = [rule for p in self.principals for rule in policy.rules_for(p, tenant)]
        profiles = spec.profiles
        self._profile_rules = [r for p in profiles for r in policy.rules_for(f"profile:{p}", tenant)]
        self._model_rules = [rule for p in self.principals for rule in policy.rules_for(p, tenant, "use")]
        self._profile_model_rules = [r for p in profiles for r in policy.rules_for(f"profile:{p}", tenant, "use")]
        self._governs_models = policy.governs_models
        self._features = {
            action: (
                [rule for p in self.principals for rule in policy.rules_for(p, tenant, action)],
                [r for p in profiles for r in policy.rules_for(f"profile:{p}", tenant, action)],
            )
            for action in FEATURES
        }
        self._policy = policy
        self._memo: dict[str, ToolVerdict] = {}
        self._names: PolicyNames | None = None  # built on the first tool judged

    def model(self, name: str) -> ToolVerdict:
        """Whether the task may use model `name` (rows `p, SUBJECT, TENANT, model:NAME, use, ID`).

        A policy with no `use` rows leaves models to routing; once it has one,
        a model needs a role row and a profile row like a tool does.
        """
        if not self._governs_models:
            return ToolVerdict(name, True, "the policy does not restrict models", {})
        target = f"model:{name}"
        role = _first(self._model_rules, target)
        if role is None:
            return ToolVerdict(name, False, f"no role of {self.spec.subject!r} may use model {name!r}", {})
        profile = _first(self._profile_model_rules, target)
        if profile is None:
            return ToolVerdict(
                name,
                False,
                f"the task's intent profile {self.spec.profile!r} does not use model {name!r}",
                {"role": role.id},
            )
        return ToolVerdict(name, True, "granted", {"role": f"{role.subject} ({role.id})", "profile": profile.id})

    def feature(self, action: str, name: str) -> ToolVerdict:
        """Whether the task may `action` (`resource`: read, `prompt`: get) the MCP item `name` as served.

        Like a tool, an item needs a role row and a profile row; with neither it is not granted (a
        policy that names no resources grants none).
        """
        if name.startswith("profile:") or not name.isprintable():
            return ToolVerdict(name, False, f"{name[:64]!r} is not a name an MCP server serves", {})
        roles, profiles = self._features[action]
        role = _first(roles, name)
        if role is None:
            return ToolVerdict(name, False, f"no role of {self.spec.subject!r} may {action} {name!r}", {})
        profile = _first(profiles, name)
        if profile is None:
            reason = f"the task's intent profile {self.spec.profile!r} does not need {action} {name!r}"
            return ToolVerdict(name, False, reason, {"role": role.id})
        return ToolVerdict(name, True, "granted", {"role": f"{role.subject} ({role.id})", "profile": profile.id})

    def tool(self, name: str) -> ToolVerdict:
        found = self._memo.get(name)
        if found is None:
            found = self._judge(name)
            if len(self._memo) < MEMO_LIMIT:  # names are caller-chosen: the memo must not grow without bound
                self._memo[name] = found
        return found

    def _judge(self, name: str) -> ToolVerdict:
        spec = self.spec
        refused = self._policy_names().refusal(name)
        if refused is not None:
            return ToolVerdict(name, False, refused, {})
        role = _first(self._role_rules, name)
        if role is None:
            return ToolVerdict(name, False, f"no role of {spec.subject!r} in tenant {spec.tenant!r} allows it", {})
        sources: dict[str, Any] = {"role": f"{role.subject} ({role.id})"}
        profile = _first(self._profile_rules, name)
        if profile is None:
            return ToolVerdict(name, False, f"the task's intent profile {spec.profile!r} does not need it", sources)
        granting = tuple(dict.fromkeys(
            r.subject.removeprefix("profile:") for r in self._profile_rules if key_match(name, r.tools)
        ))  # fmt: skip
        sources["profile"] = f"{granting[0]} ({profile.id})"
        if spec.scopes:
            if not any(key_match(name, s) for s in spec.scopes):
                return ToolVerdict(name, False, "the token's tool scopes do not include it", sources)
            sources["scope"] = "tool scopes"
        for layer in spec.narrowing:
            if not any(key_match(name, t) for t in layer):
                return ToolVerdict(name, False, "the task was narrowed to other tools", sources)
        if spec.narrowing:
            sources["narrowing"] = [list(layer) for layer in spec.narrowing]
        constraints = tuple(self._policy.constraints_for(name, granting))  # every granting profile's rules
        return ToolVerdict(name, True, "granted", sources, constraints)

    def _policy_names(self) -> PolicyNames:
        """Every tool name and pattern this grant's decisions key on: rules, constraints, scopes, narrowing."""
        if self._names is None:
            spec = self.spec
            self._names = PolicyNames(
                [
                    *(c.tools for c in self._policy.constraints),
                    *(r.tools for r in (*self._role_rules, *self._profile_rules)),
                    *spec.scopes,
                    *(t for layer in spec.narrowing for t in layer),
                ]
            )
        return self._names

    def check(self, name: str, arguments: Any, seen: Seen | None) -> Decision:
        """Decide one call: the tool must be granted and its arguments must meet every rule.

        A failed `deny` rule refuses the call; failed `hold` rules alone hold it
        for the task's user to approve. `seen` is the data the task has seen, by
        label, for provenance-kind rules (None: unknown, and such rules fail).
        """
        verdict = self.tool(name)
        if not verdict.allowed:
            return Decision(name, False, verdict.reason, None, None, verdict.sources)
        held: Decision | None = None
        accepted: list[Match] = []
        for rule in verdict.constraints:
            unmet, matches = rule.judge(arguments, seen)
            if unmet is None:
                accepted += matches
                continue
            reason = f"{unmet.reason} (rule {rule.id})"
            hold = rule.effect == "hold" and not (
                rule.untrusted_deny and unmet.match is not None and rule.only_untrusted(unmet.match, seen)
            )
            if rule.effect == "hold" and not hold:
                reason += "; its only source is untrusted data, so it is denied rather than held"
            decision = Decision(
                name, False, reason, rule.id, rule.condition, verdict.sources, hold, refused=unmet.match,
                accepts=tuple(sorted(rule.labels)),
            )  # fmt: skip
            if not decision.held:
                return decision
            held = held or decision
        if held is not None:
            return held
        rule_text = verdict.sources.get("profile", "")
        rule_id = rule_text.rsplit("(", 1)[-1].rstrip(")") if rule_text else None
        return Decision(name, True, "granted", rule_id, None, verdict.sources, matches=tuple(accepted))


class Grant:
    """The tools a task may call, with the rules that say so: the shared Rules, and what this task had judged."""

    def __init__(self, spec: GrantSpec, policy: Policy, rules: Rules | None = None):
        self.spec = spec
        self.rules = rules if rules is not None else Rules(spec, policy)
        self.generation, self.principals = self.rules.generation, self.rules.principals
        self._checked: dict[str, ToolVerdict] = {}  # for this task's evidence

    def tool(self, name: str) -> ToolVerdict:
        verdict = self.rules.tool(name)
        if len(self._checked) < EVIDENCE_LIMIT:
            self._checked.setdefault(name, verdict)
        return verdict

    def model(self, name: str) -> ToolVerdict:
        return self.rules.model(name)

    def feature(self, action: str, name: str) -> ToolVerdict:
        return self.rules.feature(action, name)

    def check(self, name: str, arguments: Any, seen: Seen | None) -> Decision:
        self.tool(name)
        return self.rules.check(name, arguments, seen)

    def allowed(self, names: list[str]) -> list[str]:
        return [n for n in names if self.tool(n).allowed]

    def evidence(self) -> dict[str, Any]:
        spec = self.spec
        granted = sorted(n for n, v in self._checked.items() if v.allowed)
        denied = {n: v.reason for n, v in self._checked.items() if not v.allowed}
        return {
            "task": spec.task,
            "profile": spec.profile,
            "principals": list(self.principals),
            "policy_generation": self.generation,
            "tools_checked": {"granted": granted, "denied": denied},
            "scopes": list(spec.scopes),
            "narrowing": [list(layer) for layer in spec.narrowing],
            **({"labels": list(spec.labels)} if spec.labels else {}),
            **({"parents": list(spec.parents)} if spec.parents else {}),
        }


def _first(rules: list[Rule], tool: str) -> Rule | None:
    return next((r for r in rules if key_match(tool, r.tools)), None)
