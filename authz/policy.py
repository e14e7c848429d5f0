"""The Casbin policy, loaded, checked, indexed and hot-reloaded; a broken file never replaces a good one.

Casbin owns the model, the policy rows and the role graph (users and roles
per tenant). A task's grant is computed from them once; see grant.py. A file
is only loaded whole: its last line must be the seal over its rows (seal.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path

import casbin
import structlog
from casbin.persist import StringAdapter
from casbin.util import key_match

from taskgate.plugins.redis import connect

from .constraints import KINDS, ArgumentRule, Constraint, ConstraintError, compile_row, group
from .errors import PolicyError
from .flow import SECRET
from .labels import UNTRUSTED
from .seal import seal, unseal
from .trust import TrustMap, TrustRule, field_form
from .writers import SETTLE_S, check_settled, signature, writers

__all__ = [
    "KINDS", "ArgumentRule", "Constraint", "Policy", "PolicyError", "PolicyStore", "Rule", "load", "parse",
    "seal_file",
]  # fmt: skip
log = structlog.get_logger("taskgate.authz")
DEFAULT_MODEL = files("taskgate.authz") / "model.conf"
ROWS = ("p", "p2", "p3", "g")
PROFILE_ACTIONS = ("pin", "base", "add")  # p rows whose object is profile:NAME
_FIELD = re.compile(r"[^.\[\]\s]+(?:\[\])*(?:\.[^.\[\]\s]+(?:\[\])*)*")


@dataclass(frozen=True, slots=True)
class Rule:
    """A `p` row: `subject` may `action` tools matching `tools` in `tenant` ("*": any)."""

    subject: str
    tenant: str
    tools: str
    action: str
    id: str


@dataclass
class Policy:
    """One loaded generation: the enforcer, its rules indexed by subject, argument rules and trust declarations."""

    enforcer: casbin.Enforcer
    generation: int
    rules: dict[str, list[Rule]]
    constraints: list[ArgumentRule]
    source: str
    governs_models: bool = False  # any `use` rows: without one, models are not restricted
    trust: TrustMap = field(default_factory=lambda: TrustMap(()))
    rows: tuple[str, ...] = ()  # the rows as sealed: a reload logs what changed

    def roles(self, principal: str, tenant: str) -> list[str]:
        """Every role `principal` holds in `tenant`, inherited ones included."""
        return list(self.enforcer.get_implicit_roles_for_user(principal, tenant))

    def rules_for(self, subject: str, tenant: str, action: str = "call") -> list[Rule]:
        return [r for r in self.rules.get(subject, ()) if r.action == action and r.tenant in (tenant, "*")]

    def constraints_for(self, tool: str, profiles: tuple[str, ...]) -> list[ArgumentRule]:
        return [
            c for c in self.constraints
            if key_match(tool, c.tools) and (c.profile == "*" or any(key_match(p, c.profile) for p in profiles))
        ]  # fmt: skip

    def pinned(self, principals: tuple[str, ...], tenant: str, action: str = "pin") -> tuple[str, ...]:
        """The profiles `p, SUBJECT, TENANT, profile:NAME, pin, ID` rows pin these principals' tasks to; with
        `base`, the base profiles their tasks start from; with `add`, the (patterns of) profiles the classifier
        may add to a base."""
        found = (r.tools.removeprefix("profile:") for p in principals for r in self.rules_for(p, tenant, action))
        return tuple(dict.fromkeys(found))


def load(model: Path | None, policy: Path, generation: int, require_seal: bool = True) -> Policy:
    """Load and check a policy; any problem is a PolicyError naming the file, the row and the fix.

    The file is read once and that snapshot is what loads, and only the rows
    its seal vouches for: a file caught mid-write (or overwritten in place over
    a longer old one) has no matching seal and is refused instead of loading half.
    """
    return parse(policy, read(policy), _model_text(policy, model), generation, require_seal)


def read(policy: Path) -> str:
    try:
        return policy.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyError(f"{policy}: cannot read the policy: {exc}") from None


def _model_text(policy: Path, model: Path | None) -> str:
    try:
        return model.read_text(encoding="utf-8") if model is not None else DEFAULT_MODEL.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyError(f"{policy}: cannot read the model {model}: {exc}") from None


def parse(policy: Path, text: str, model_text: str, generation: int, require_seal: bool = True) -> Policy:
    """The policy of `text` (the content of file `policy`), checked row by row."""
    sealed = unseal(policy, text, require_seal)
    _check_lines(policy, text)
    try:
        casbin_model = casbin.model.Model()
        casbin_model.load_model_from_text(model_text)
        enforcer = casbin.Enforcer(casbin_model, StringAdapter(sealed.text()))
    except Exception as exc:  # casbin raises whatever its parser hit: IndexError, RuntimeError, ...
        raise PolicyError(f"{policy}: cannot load the policy: {type(exc).__name__}: {exc}") from None
    rules: dict[str, list[Rule]] = {}
    for number, row in enumerate(enforcer.get_named_policy("p"), 1):
        if len(row) != 5:
            raise PolicyError(f"{policy}: p row {number} has {len(row)} fields, not 5 (sub, dom, obj, act, id): {row}")
        rule = Rule(*row)
        rules.setdefault(rule.subject, []).append(rule)
    trust = _trust(policy, enforcer, sealed.text())
    labels = {r.label for r in trust.rules}  # trust labels, and `secret:NAME` for the flow kind
    rows = enforcer.get_named_policy("p2")
    compiled = [_constraint(policy, number, row, labels) for number, row in enumerate(rows, 1)]
    try:
        constraints = group(compiled)
    except ConstraintError as exc:
        raise PolicyError(f"{policy}: p2 rows: {exc}") from None
    for subject in rules.values():
        for rule in subject:
            if rule.action in PROFILE_ACTIONS and not rule.tools.startswith("profile:"):
                raise PolicyError(
                    f"{policy}: {rule.action} row {rule.id}: its object must be profile:NAME, not {rule.tools!r}"
                )
    for number, row in enumerate(enforcer.get_named_grouping_policy("g"), 1):
        if len(row) != 3:
            raise PolicyError(f"{policy}: g row {number} has {len(row)} fields, not 3 (user, role, tenant): {row}")
    try:
        enforcer.enforce("probe", "probe", "probe", "call")  # a model whose matcher cannot run fails here
    except Exception as exc:
        raise PolicyError(f"{policy}: the model's matcher fails: {exc}") from None
    governs = any(r.action == "use" for subject in rules.values() for r in subject)
    return Policy(enforcer, generation, rules, constraints, str(policy), governs, trust, sealed.rows)


def seal_file(policy: Path, model: Path | None = None, settle_s: float = SETTLE_S) -> Policy:
    """Check `policy` and rewrite it with a seal over its rows, atomically (a rename into place).

    A file with a broken row is refused before anything is written: a seal
    vouches for a policy that loads. So is a file still being written (open
    for writing, or changing for `settle_s`), and one that changes between
    the read and the rename.
    """
    settled = check_settled(policy, settle_s)
    sealed = seal(read(policy))
    checked = parse(policy, sealed, _model_text(policy, model), 1)
    folder = policy.resolve().parent
    handle, temporary = tempfile.mkstemp(prefix=f".{policy.name}.", suffix=".sealing", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(sealed)
            out.flush()
            os.fsync(out.fileno())
        with contextlib.suppress(OSError):
            os.chmod(temporary, policy.stat().st_mode & 0o7777)
        if signature(policy) != settled or writers(policy):
            raise PolicyError(f"{policy}: not sealed: it changed while it was being sealed (a writer is at work)")
        os.replace(temporary, policy.resolve())
    except (OSError, PolicyError) as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, PolicyError):
            raise
        raise PolicyError(f"{policy}: cannot write the sealed policy: {exc}") from None
    return checked


def _check_lines(policy: Path, text: str) -> None:
    """Every row is a p, p2, p3 or g row; a policy without p rows is refused (it would deny everything)."""
    rules = 0
    for number, line in enumerate(text.splitlines(), 1):
        row = line.strip()
        if not row or row.startswith("#"):
            continue
        kind, comma, _ = row.partition(",")
        if not comma or kind.strip() not in ROWS:
            raise PolicyError(f"{policy}: line {number}: not a p, p2, p3 or g row: {row[:80]!r}")
        rules += kind.strip() == "p"
    if rules == 0:
        raise PolicyError(f"{policy}: the policy has no p rows; a policy without rules would deny everything")


def _constraint(policy: Path, number: int, row: list[str], labels: set[str]) -> Constraint:
    try:
        return compile_row(row, labels)
    except ConstraintError as exc:
        rule = f" ({row[-1]})" if row else ""
        raise PolicyError(f"{policy}: p2 row {number}{rule}: {exc}") from None


def _trust(policy: Path, enforcer: casbin.Enforcer, text: str) -> TrustMap:
    """The p3 rows (trust declarations); a model without `p3` would drop them silently, so that is refused."""
    declared = sum(1 for line in text.splitlines() if line.strip().partition(",")[0].strip() == "p3")
    try:
        rows = enforcer.get_named_policy("p3") if declared else []
    except KeyError:
        rows = []
    if len(rows) != declared:
        raise PolicyError(
            f"{policy}: the policy has p3 rows (trust declarations) but its model does not define p3: add "
            "`p3 = obj, field, label, id` to [policy_definition] (taskgate's own model has it)"
        )
    rules = []
    for number, row in enumerate(rows, 1):
        if len(row) != 4:
            raise PolicyError(f"{policy}: p3 row {number} has {len(row)} fields, not 4 (obj, field, label, id): {row}")
        tools, raw_field, label, rule_id = row
        word = label.removeprefix(SECRET)
        if not word or not word.replace("-", "").replace("_", "").isalnum():
            raise PolicyError(
                f"{policy}: p3 row {number} ({rule_id}): a label is a word (letters, digits, - and _), or "
                "`secret:WORD` for confidential data"
            )
        if word in ("instruction", "claims", UNTRUSTED) and label != word:
            raise PolicyError(f"{policy}: p3 row {number} ({rule_id}): {label!r}: name a confidential kind of data")
        if label in ("instruction", "claims"):
            raise PolicyError(f"{policy}: p3 row {number} ({rule_id}): {label!r} is taskgate's own label, not a tool's")
        field, prefixes = field_form(raw_field)
        if (field and _FIELD.fullmatch(field) is None) or ("keys:" in prefixes and not field):
            raise PolicyError(
                f"{policy}: p3 row {number} ({rule_id}): bad field {raw_field!r}: names, each optionally followed "
                "by [], joined by dots (`messages[].sender`), `*` for the whole result; before it `text:` for free "
                "text, `keys:` for the keys of a map (`keys:shared_with`), `yaml:` for a field of a YAML answer"
            )
        rules.append(TrustRule(tools, field, label, rule_id, "text:" in prefixes, "keys:" in prefixes,
                               "yaml:" in prefixes))  # fmt: skip
    return TrustMap(rules)


MAX_ROWS_LOGGED = 50


def changes(before: Policy, after: Policy) -> dict[str, object]:
    """The rows a new generation removed and added (at most MAX_ROWS_LOGGED of each named)."""
    old, new = set(before.rows), set(after.rows)
    removed = [r for r in before.rows if r not in new]
    added = [r for r in after.rows if r not in old]
    return {"rows_removed": len(removed), "rows_added": len(added), "removed": removed[:MAX_ROWS_LOGGED],
            "added": added[:MAX_ROWS_LOGGED], "previous_generation": before.generation}  # fmt: skip


def widening(before: Policy, after: Policy) -> dict[str, object]:
    """The changed rows that can allow what `before` denied: grants and roles added (p, g), argument rules
    removed (p2), trust declared (p3 added) or carved-out fields un-carved (p3 untrusted removed); empty when
    the new generation only narrows."""
    old, new = set(before.rows), set(after.rows)

    def kind(row: str) -> str:
        return row.partition(",")[0].strip()

    removed = [r for r in before.rows if r not in new and (kind(r) == "p2" or (kind(r) == "p3" and "untrusted" in r))]
    added = [r for r in after.rows if r not in old and kind(r) in ("p", "g", "p3") and "untrusted" not in r]
    if not removed and not added:
        return {}
    return {"rows_removed": removed[:MAX_ROWS_LOGGED], "rows_added": added[:MAX_ROWS_LOGGED],
            "previous_generation": before.generation}  # fmt: skip


Signature = tuple[int, int, int]  # the file's mtime (ns), size and inode; -1s when it cannot be read


class PolicyStore:
    """The current policy, swapped only for a newer one that loaded cleanly.

    A background task checks the file's modification time, size and inode;
    while the file on disk is one that was refused (a writer that has not
    finished: no matching seal yet), it is read again at every check, so the
    complete file loads even if its last write left the timestamp unchanged.
    With Redis, a successful reload is announced on a channel so other
    replicas reload their copy at once instead of at their next check.
    """

    def __init__(
        self,
        model: Path | None,
        path: Path,
        interval_s: float,
        redis_url: str | None,
        channel: str,
        on_reload: Callable[[str], None] | None = None,
        require_seal: bool = True,
    ):
        self.model, self.path, self.interval_s, self.require_seal = model, path, interval_s, require_seal
        self._on_reload = on_reload or (lambda result: None)
        self.redis_url, self.channel = redis_url, channel
        self._seen = self._stat()
        self.current = load(model, path, 1, require_seal)
        self._loaded = self._seen
        self._refused: str | None = None  # the digest (or read error) of the file last refused
        self.reloads = {"ok": 0, "refused": 0}
        self._lock = asyncio.Lock()  # one reload at a time: the newest file wins, generations only go up

    def _stat(self) -> Signature:
        try:
            stat = self.path.stat()
        except OSError:
            return (-1, -1, -1)
        return (stat.st_mtime_ns, stat.st_size, stat.st_ino)

    async def reload(self, announce: bool = True) -> bool:
        """Load the file again; keep the old policy, loudly, if the new one is broken (once per broken file)."""
        async with self._lock:
            return await self._reload(announce)

    async def _reload(self, announce: bool) -> bool:
        signature = self._stat()
        try:
            fresh = await asyncio.to_thread(self._fresh, self.current.generation + 1)
        except PolicyError as exc:
            self.reloads["refused"] += 1
            self._on_reload("refused")
            log.error("policy_reload_refused", file=str(self.path), reason=str(exc), kept=self.current.generation)
            return False
        if fresh is None:
            return False  # the file refused last time, unchanged: already logged and counted
        before = self.current
        self.current, self._loaded, self._refused = fresh, signature, None
        self.reloads["ok"] += 1
        self._on_reload("ok")
        log.warning("policy_reloaded", file=str(self.path), generation=fresh.generation, **changes(before, fresh))
        widened = widening(before, fresh)
        if widened:  # what the last generation denied may be allowed now: name the rows that did it
            log.warning("policy_widened", file=str(self.path), generation=fresh.generation, **widened)
        if announce and self.redis_url:
            await self._announce()
        return True

    def _fresh(self, generation: int) -> Policy | None:
        """The file's policy; None if it is exactly the file refused last time (refused, logged, counted once)."""
        try:
            text = read(self.path)
        except PolicyError as exc:
            if str(exc) == self._refused:
                return None
            self._refused = str(exc)
            raise
        digest = hashlib.sha256(text.encode()).hexdigest()
        if digest == self._refused:
            return None
        try:
            return parse(self.path, text, _model_text(self.path, self.model), generation, self.require_seal)
        except PolicyError:
            self._refused = digest
            raise

    async def _announce(self) -> None:
        client = connect(self.redis_url or "", timeout_s=1.0)
        try:
            await client.publish(self.channel, str(self.current.generation))
        except Exception as exc:  # an unreachable Redis must not undo a good local reload
            log.warning("policy_announce_failed", reason=str(exc))
        finally:
            await client.aclose()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Watch the file (and the channel) while the app runs."""
        tasks = []
        if self.interval_s > 0:
            tasks.append(asyncio.create_task(self._watch_file(), name="policy-watch"))
        if self.redis_url:
            tasks.append(asyncio.create_task(self._watch_channel(), name="policy-channel"))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    async def _watch_file(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            signature = self._stat()
            if signature != self._seen or self._refused is not None:
                self._seen = signature
                try:
                    await self.reload()
                except Exception:  # the watcher must outlive any surprise; the old policy keeps serving
                    log.exception("policy_reload_failed", file=str(self.path))

    async def _watch_channel(self) -> None:
        while True:
            client = connect(self.redis_url or "", timeout_s=None)  # a subscriber waits on its channel
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.subscribe(self.channel)
                    async for message in pubsub.listen():
                        if message.get("type") == "message" and self._stat() != self._loaded:
                            self._seen = self._stat()  # a replica's own announcement finds nothing new
                            await self.reload(announce=False)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("policy_channel_lost", reason=str(exc))
                await asyncio.sleep(1.0)
            finally:
                await client.aclose()
