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

import math
import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from casbin.util import key_match

from .names import PolicyNames
from .policy import Constraint, Policy, Rule
from .provenance import appears_in

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

    def narrowed(self, tools: tuple[str, ...]) -> GrantSpec:
        return GrantSpec(
            self.task, self.subject, self.tenant, self.profile, self.roles, self.scopes, (*self.narrowing, tools)
        )


@dataclass(frozen=True, slots=True)
class ToolVerdict:
    tool: str
    allowed: bool
    reason: str
    sources: Mapping[str, Any]
    constraints: tuple[Constraint, ...] = ()


@dataclass(frozen=True, slots=True)
class Decision:
    """One tool call judged: allow or deny, the rule that decided, and for a denial the unmet condition."""

    tool: str
    allowed: bool
    reason: str
    rule: str | None = None
    condition: str | None = None
    sources: Mapping[str, Any] = field(default_factory=dict)

    @property
    def code(self) -> str:
        if self.allowed:
            return "allowed"
        return "argument_constraint" if self.condition else "not_granted"

    def evidence(self) -> dict[str, Any]:
        out: dict[str, Any] = {"tool": self.tool, "outcome": "allow" if self.allowed else "deny", "reason": self.reason}
        if self.rule:
            out["rule"] = self.rule
        if self.condition:
            out["condition"] = self.condition
        if self.sources:
            out["sources"] = dict(self.sources)
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
        self._profile_rules = policy.rules_for(f"profile:{spec.profile}", tenant)
        self._model_rules = [rule for p in self.principals for rule in policy.rules_for(p, tenant, "use")]
        self._profile_model_rules = policy.rules_for(f"profile:{spec.profile}", tenant, "use")
        self._governs_models = policy.governs_models
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
        sources["profile"] = f"{spec.profile} ({profile.id})"
        if spec.scopes:
            if not any(key_match(name, s) for s in spec.scopes):
                return ToolVerdict(name, False, "the token's tool scopes do not include it", sources)
            sources["scope"] = "tool scopes"
        for layer in spec.narrowing:
            if not any(key_match(name, t) for t in layer):
                return ToolVerdict(name, False, "the task was narrowed to other tools", sources)
        if spec.narrowing:
            sources["narrowing"] = [list(layer) for layer in spec.narrowing]
        constraints = tuple(self._policy.constraints_for(name, spec.profile))
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

    def check(self, name: str, arguments: Any, trusted: str | None) -> Decision:
        """Decide one call: the tool must be granted and its arguments must meet every constraint."""
        verdict = self.tool(name)
        if not verdict.allowed:
            return Decision(name, False, verdict.reason, None, None, verdict.sources)
        for constraint in verdict.constraints:
            unmet = unmet_condition(constraint, arguments, trusted)
            if unmet is not None:
                reason = f"argument {constraint.argument!r} {unmet} (rule {constraint.id})"
                return Decision(
                    name, False, reason, constraint.id, f"{constraint.kind} {constraint.argument}", verdict.sources
                )
        rule = verdict.sources.get("profile", "")
        return Decision(
            name, True, "granted", rule.rsplit("(", 1)[-1].rstrip(")") if rule else None, None, verdict.sources
        )


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

    def check(self, name: str, arguments: Any, trusted: str | None) -> Decision:
        self.tool(name)
        return self.rules.check(name, arguments, trusted)

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
        }


def _first(rules: list[Rule], tool: str) -> Rule | None:
    return next((r for r in rules if key_match(tool, r.tools)), None)


def unmet_condition(constraint: Constraint, arguments: Any, trusted: str | None) -> str | None:
    """Why the arguments fail the constraint, or None if they meet it. Missing arguments fail (closed)."""
    value = _argument(arguments, constraint.argument)
    if value is _MISSING:
        return "is missing"
    values = value if isinstance(value, list) else [value]
    if not values:
        return "is empty"
    kind, expected = constraint.kind, constraint.value
    for item in values:
        if kind == "prefix":
            if not isinstance(item, str) or not _under(item, expected):
                return "is outside the allowed path"
        elif kind == "regex":
            if not isinstance(item, str) or constraint.pattern is None or not constraint.pattern.fullmatch(item):
                return "does not have the allowed form"
        elif kind in ("min", "max"):
            try:
                number = float(item) if isinstance(item, int | float) and not isinstance(item, bool) else math.nan
            except OverflowError:  # an integer too large for a float is out of any range
                return "is out of the allowed range"
            if not math.isfinite(number):
                return "is not a number"
            if (kind == "min" and number < float(expected)) or (kind == "max" and number > float(expected)):
                return "is out of the allowed range"
        elif kind == "in":
            if str(item) not in expected.split("|"):
                return "is not one of the allowed values"
        elif kind == "provenance":
            if trusted is None:
                return "cannot be checked: the task's trusted input is unknown"
            if not isinstance(item, str) or not appears_in(item, trusted):
                return "does not come from the task's trusted input"
    return None


_MISSING = object()


def _argument(arguments: Any, path: str) -> Any:
    value = arguments
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def _under(path: str, prefix: str) -> bool:
    """Whether `path`, normalised (no `..` escapes), lies under `prefix`.

    Relative paths (against an absolute prefix), backslashes, percent-escapes and
    NUL bytes are refused: the tool, not taskgate, would decide what they mean.
    """
    if any(c in path for c in ("\x00", "\\", "%")) or (prefix.startswith("/") and not path.startswith("/")):
        return False
    normal = posixpath.normpath(path)
    root = prefix.rstrip("/") or "/"
    return normal == root or normal.startswith(root if root.endswith("/") else root + "/")
