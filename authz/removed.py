"""Why a tool the request offered was removed from what the model sees, and which policy rows would grant it.

A tool is granted when a role row and a profile row match it (and the
token's scopes and the caller's narrowing leave it); the rows this says are
missing are the ones an operator would add, with the task's own subject or
role, tenant and profile filled in (`RULE_ID` left to name). Scopes and
narrowing are the caller's, so no row lifts them; a name outside the tool-name
alphabet, or one that imitates a granted name, needs renaming, not a row.
"""

from __future__ import annotations

from typing import Any

from .grant import Grant


def why_removed(grant: Grant, name: str) -> dict[str, Any]:
    """The grant's reason for refusing `name`, and what would grant it."""
    verdict, spec = grant.tool(name), grant.spec
    out: dict[str, Any] = {"reason": verdict.reason}
    if "role" not in verdict.sources and verdict.reason.startswith("no role"):
        roles = [p for p in grant.principals if p.startswith("role:")]
        who = roles[-1] if roles else spec.subject
        out["would_grant"] = [f"p, {who}, {spec.tenant}, {name}, call, RULE_ID"]
        out["would_grant"] += [f"p, profile:{p}, *, {name}, call, RULE_ID" for p in spec.profiles]
    elif "profile" not in verdict.sources and "profile" in verdict.reason:
        out["would_grant"] = [f"p, profile:{p}, *, {name}, call, RULE_ID" for p in spec.profiles]
    elif "scopes" in verdict.reason:
        out["not_by_policy"] = "the caller's token scopes leave it out: a token with a tool: scope for it"
    elif "narrowed" in verdict.reason:
        out["not_by_policy"] = "the request narrowed the task to other tools (x-taskgate-tools)"
    else:
        out["not_by_policy"] = "rename the tool: no policy row grants a name like this one"
    return out
