"""The policy the authz tests share: mail tools per role and per intent profile, argument constraints."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

from taskgate.authz.seal import seal

from .conftest import Keys, jwt_section

POLICY = """\
p, role:mail-user, acme, mail__*, call, r-mail
p, role:mail-user, acme, files__read, call, r-files
p, profile:summarise, *, mail__read, call, prof-summarise-read
p, profile:summarise, *, mail__list, call, prof-summarise-list
p, profile:summarise, *, files__read, call, prof-summarise-files
p, profile:mail_cleanup, *, mail__*, call, prof-cleanup
p, profile:default, *, mail__list, call, prof-default
p2, mail__send, *, to, provenance, instruction, c-recipient-from-user
p2, files__read, *, path, prefix, /home/alice, c-home-only
p2, mail__delete, *, older_than_days, min, 30, c-old-mail-only
g, alice, role:mail-user, acme
"""

CLEANUP_EXAMPLES = [
    "clean up my inbox", "tidy my inbox please", "delete the old newsletters in my mailbox",
    "archive and delete promotional mail", "purge spam from my inbox", "get rid of old emails",
    "clear out my mailbox", "remove all the notification emails", "empty the junk folder",
    "delete emails older than a year", "declutter my email", "bulk delete marketing emails",
    "clean my mailbox of receipts", "trash every newsletter from last month", "inbox zero: delete the noise",
]  # fmt: skip


AS_ERRORS = {"refusals": "error"}
"""The MCP section's option these tests read a refusal by: its JSON-RPC error (-32003, -32044, with data). The
default, a result with isError true, is read by test_refusals.py and tests/agents."""


def write_policy(tmp_path: Path, text: str = POLICY) -> Path:
    """`text` as tmp_path/policy.csv, sealed as `taskgate policy seal` would (any seal it had is replaced)."""
    path = tmp_path / "policy.csv"
    path.write_text(seal(text))
    return path


def task_key(tmp_path: Path, kid: str = "task-1", algorithm: str = "ES256") -> dict[str, Any]:
    """A task-token key as config names it: a PEM file in tmp_path, made once per kid (replicas share it)."""
    path = tmp_path / f"{kid}.pem"
    if not path.exists():
        private = (
            ec.generate_private_key(ec.SECP256R1()) if algorithm == "ES256" else ed25519.Ed25519PrivateKey.generate()
        )
        pem = private.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
        path.write_bytes(pem)
    return {"kid": kid, "algorithm": algorithm, "private_key_file": str(path)}


def authz_config(keys: Keys, tmp_path: Path, upstream_url: str, **policy: Any) -> dict[str, Any]:
    examples = tmp_path / "cleanup.jsonl"
    examples.write_text("\n".join(json.dumps({"text": t, "label": "mail_cleanup"}) for t in CLEANUP_EXAMPLES))
    pool = {"name": "p", "endpoints": [{"name": "up", "url": upstream_url}], "models": [{"name": "m"}]}
    classify = {"examples": [str(examples)], "task_types": {"mail_cleanup": {"request_class": "batch"}}}
    return {
        "routing": {"pools": [pool]},
        "authz": {
            "jwt": jwt_section(keys),
            "policy": {"file": str(write_policy(tmp_path)), "reload_interval_s": 0.05, **policy},
            "tasks": {"keys": [task_key(tmp_path)]},  # one key file: replicas of a test verify each other's tokens
        },
        "steps": [
            {"name": "authn", "type": "authz.authenticate"},
            {"name": "classify", "type": "guards.classify", "params": classify},
            {"name": "authorize", "type": "authz.authorize"},
        ],
        "pipelines": {"chat": ["authn", "classify", "authorize", "state", "route"]},
        "logging": {"evidence": False},
    }
