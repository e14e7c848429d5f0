"""What agent runtimes meet when a platform team puts taskgate in front of them, as processes on 127.0.0.1.

`desk_stack(workdir)` starts a Redis (the task store and the bindings, as
replicas share them), the desk tool server (tests/agents/desk.py), a scripted
engine (`taskgate sim --script`) and `taskgate serve` in front of both. A
runtime is configured only as a user would: the model's base URL, an API key
(the caller's JWT), the MCP URL and its headers. `Stack.run(snippet, ...)`
runs one of docs/agents.md's snippets in the runtimes' own virtualenv.

    python -m tests.agents.stack      # start it all and print the URLs (Ctrl-C stops it)
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jwt
import yaml

from taskgate.authz.seal import seal

from ..conformance.processes import PYTHON, ROOT, free_port, started
from .desk import EVE

ISSUER = "https://idp.desk.test"
AUDIENCE = "taskgate"
SECRETS = {
    "DESK_IDP_SECRET": "desk-idp-hmac-secret-0123456789abcdef",
    "DESK_TASK_KEY": "desk-task-signing-key-0123456789abcdef",
}
MODEL = "m"
RUNTIMES = ROOT / ".agents"  # the runtimes' own virtualenvs (tests/agents/install.sh): they need mcp < 2
ADK = ROOT / ".agents-adk"

# Who may do what: alice's role may use the desk's tools, and so may a task's default profile (no classifier
# runs); a mail's recipient must come from the user's instruction.
POLICY = """\
p, role:desk-user, acme, desk__*, call, r-desk
p, profile:default, *, desk__*, call, prof-desk
p2, desk__send_email, *, to, provenance, instruction, c-recipient-from-user
g, alice, role:desk-user, acme
"""

# The scripted model, rule by rule on the conversation's last message (a runtime may hand it a tool's result as
# text or wrapped in JSON): it asks for the weather the user names, obeys an instruction it finds in a tool
# result, mails Bob a forecast, and answers once a mail went out or a call was refused.
SCRIPT = [
    {"match": "taskgate refused", "role": "tool", "reply": "I could not do all of it: taskgate refused a tool call."},
    {
        "match": r"([\w.]+@evil\.example)",
        "role": "tool",
        "tool_calls": [{"name": "desk__send_email", "arguments": {"to": r"\1", "subject": "Forecast", "body": "fwd"}}],
    },
    {"match": r"sent to \S+@", "role": "tool", "reply": "Done: the forecast went out."},
    {
        "match": r"(\w+): \d+ degrees",
        "role": "tool",
        "tool_calls": [
            {
                "name": "desk__send_email",
                "arguments": {"to": "bob@acme.example", "subject": r"Weather in \1", "body": r"\1 today: see above"},
            }
        ],
    },
    {
        "match": r"weather in (\w+)",
        "role": "user",
        "tool_calls": [{"name": "desk__get_weather", "arguments": {"city": r"\1"}}],
    },
]


@dataclass
class Stack:
    taskgate: str  # http://127.0.0.1:PORT
    engine: str  # the scripted engine's base URL, for runs whose model is not behind taskgate
    key: str  # alice's JWT: the API key
    log: Path  # taskgate's log: one JSON object a line, evidence among them
    record: Path  # the desk's calls

    def run(
        self, snippet: str, prompt: str, *, direct: bool = False, adk: bool = False, env: dict[str, str] | None = None
    ) -> subprocess.Popen[str]:
        """Start one of docs/agents.md's snippets on `prompt` (`direct`: the model called directly, only the tools
        behind taskgate); read its output with `finish`."""
        python = (ADK if adk else RUNTIMES) / "bin" / "python"
        if not python.exists():
            raise RuntimeError(f"{python} is missing: `make test-deps` installs the runtimes (tests/agents/install.sh)")
        settings = {
            "TASKGATE_URL": self.taskgate, "TASKGATE_API_KEY": self.key, "MODEL": MODEL, "PROMPT": prompt,
            **({"MODEL_URL": self.engine + "/v1", "MODEL_API_KEY": "unused"} if direct else {}), **(env or {}),
        }  # fmt: skip
        environment = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI", "VIRTUAL_ENV"))}
        return subprocess.Popen(
            [str(python), "-c", snippet], cwd=tempfile.gettempdir(), env={**environment, **settings},
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL,
        )  # fmt: skip

    def calls(self) -> list[dict[str, Any]]:
        """Every call that reached the desk, oldest first."""
        if not self.record.exists():
            return []
        return [json.loads(line) for line in self.record.read_text().splitlines() if line.strip()]

    def records(self) -> list[dict[str, Any]]:
        """taskgate's evidence records so far."""
        out = []
        for line in self.log.read_text(errors="replace").splitlines():
            if '"evidence"' in line:
                with contextlib.suppress(ValueError):
                    record = json.loads(line)
                    if record.get("event") == "evidence":
                        out.append(record)
        return out


def finish(process: subprocess.Popen[str], timeout_s: float = 90) -> str:
    """A snippet's printed answer; its stderr in the failure if it did not end well."""
    try:
        out, err = process.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"the run did not end within {timeout_s} s:\n{err[-3000:]}") from None
    if process.returncode != 0:
        raise AssertionError(f"the run failed ({process.returncode}):\n{err[-4000:]}")
    return out.strip()


def token(subject: str = "alice", tenant: str = "acme", ttl_s: int = 3600) -> str:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": subject, "tenant": tenant, "iat": now, "exp": now + ttl_s}
    return jwt.encode(claims, SECRETS["DESK_IDP_SECRET"], algorithm="HS256", headers={"kid": "idp"})


def config(workdir: Path, port: int, engine: str, desk: str, redis: str) -> Path:
    policy = workdir / "policy.csv"
    policy.write_text(seal(POLICY))
    body = {
        "server": {"host": "127.0.0.1", "port": port},
        "logging": {"level": "info", "evidence": True},
        "routing": {
            "pools": [{"name": "p", "endpoints": [{"name": "sim", "url": engine}], "models": [{"name": MODEL}]}]
        },
        "authz": {
            "jwt": {
                "issuer": ISSUER,
                "audience": AUDIENCE,
                "algorithms": ["HS256"],
                "keys": [{"kid": "idp", "algorithm": "HS256", "secret_env": "DESK_IDP_SECRET"}],
            },
            "policy": {"file": str(policy)},
            "tasks": {"signing_secret_env": "DESK_TASK_KEY", "store": "redis", "redis_url": redis},
        },
        "steps": [{"name": "authn", "type": "authz.authenticate"}, {"name": "authorize", "type": "authz.authorize"}],
        "pipelines": {"chat": ["authn", "authorize", "state", "route"], "mcp": ["authn", "authorize"]},
        "mcp": {"servers": [{"name": "desk", "url": desk}]},
    }
    path = workdir / "taskgate.yaml"
    path.write_text(yaml.safe_dump(body, sort_keys=False, allow_unicode=True))
    return path


@contextlib.contextmanager
def desk_stack(workdir: Path) -> Iterator[Stack]:
    """Redis, the desk, the scripted engine and taskgate, each a process on a free port; stopped after. Each port is
    picked right before its process starts, so another test's server has the least time to take it meanwhile."""
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "script.yaml").write_text(yaml.safe_dump(SCRIPT, allow_unicode=True))
    record, log = workdir / "desk.jsonl", workdir / "taskgate.log"
    redis_server = shutil.which("redis-server") or "redis-server"
    with contextlib.ExitStack() as running:
        port = free_port()
        argv = [redis_server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        running.enter_context(started("redis", argv, port, workdir / "redis.log"))
        redis = f"redis://127.0.0.1:{port}/0"
        port = free_port()
        argv = [PYTHON, "-m", "tests.agents.desk", "--port", str(port), "--record", str(record)]
        running.enter_context(started("the desk", argv, port, workdir / "desk.log"))
        desk = f"http://127.0.0.1:{port}/mcp"
        port = free_port()
        argv = [
            PYTHON, "-m", "taskgate", "sim", "instant", "--port", str(port), "--model", MODEL,
            "--script", str(workdir / "script.yaml"), "--default-max-tokens", "512",
        ]  # fmt: skip
        running.enter_context(started("the scripted engine", argv, port, workdir / "engine.log"))
        engine = f"http://127.0.0.1:{port}"
        port = free_port()
        argv = [PYTHON, "-m", "taskgate", "serve", "-c", str(config(workdir, port, engine, desk, redis))]
        running.enter_context(started("taskgate", argv, port, log, env=SECRETS))
        yield Stack(f"http://127.0.0.1:{port}", engine, token(), log, record)


__all__ = ["EVE", "Stack", "desk_stack", "finish", "token"]


if __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="desk-") as where, desk_stack(Path(where)) as stack:
        print(json.dumps({"taskgate": stack.taskgate, "engine": stack.engine, "key": stack.key, "dir": where}))
        sys.stdout.flush()
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)
