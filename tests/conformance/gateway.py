"""taskgate in front of our everything server, for running the conformance suite through the MCP gateway.

`taskgate_in_front(upstream, workdir)` starts `python -m taskgate serve -c CONFIG`
with a generated config whose `mcp.servers` is the one upstream (named
`everything`, its names served unprefixed, as the scenarios call them), and a
policy that grants every tool, resource and prompt. The suite's client sends
no Authorization header, so the MCP pipeline's authenticate step runs in its
anonymous mode: a caller without a token is the configured conformance caller
(a token, had it sent one, would still be verified).

    python -m tests.conformance.gateway [-o DIR]

runs the whole chain (suite -> taskgate -> everything server) once and prints
each scenario's verdict; DIR keeps the configs, logs and checks.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import jwt
import yaml

from taskgate.authz.seal import seal

from .processes import PYTHON, everything_server, free_port, started
from .suite import SuiteNotInstalled, run_server_scenarios

__all__ = ["Gateway", "taskgate_config", "taskgate_in_front"]

SERVER = "everything"
ISSUER = "https://idp.conformance.test"
AUDIENCE = "taskgate"
CALLER = "conformance-suite"
TENANT = "conformance"
IDP_SECRET_ENV = "CONFORMANCE_IDP_SECRET"
TASK_KEY_ENV = "CONFORMANCE_TASK_KEY"
ANONYMOUS = {"subject": CALLER, "tenant": TENANT}  # who a caller without a token is
ENV = {
    IDP_SECRET_ENV: "conformance-idp-hmac-secret-0123456789abcdef",
    TASK_KEY_ENV: "conformance-task-signing-key-0123456789abcdef",
}

# The upstream's names are served as it names them (the scenarios call tools, prompts and
# resources by exact name). The caller's role may call every tool, read every resource and get
# every prompt, and so may the profile a task gets when no classifier runs (`default`): a grant
# needs both.
POLICY = f"""\
p, role:conformance, *, *, call, r-tools
p, role:conformance, *, *, resource, r-resources
p, role:conformance, *, *, prompt, r-prompts
p, profile:default, *, *, call, prof-tools
p, profile:default, *, *, resource, prof-resources
p, profile:default, *, *, prompt, prof-prompts
g, anonymous:{CALLER}, role:conformance, {TENANT}
"""


@dataclass(frozen=True)
class Gateway:
    url: str  # taskgate's /mcp
    token: str  # the caller's Bearer token
    config: Path
    log: Path


def caller_token(ttl_s: int = 3600) -> str:
    now = int(time.time())
    claims = {"iss": ISSUER, "aud": AUDIENCE, "sub": CALLER, "tenant": TENANT, "iat": now, "exp": now + ttl_s}
    return jwt.encode(claims, ENV[IDP_SECRET_ENV], algorithm="HS256", headers={"kid": "idp"})


def taskgate_config(upstream: str, workdir: Path, port: int) -> Path:
    """Write the policy and the config for taskgate on 127.0.0.1:`port` in front of `upstream`; the config's path."""
    workdir.mkdir(parents=True, exist_ok=True)
    policy = workdir / "policy.csv"
    policy.write_text(seal(POLICY))
    config = {
        "server": {"host": "127.0.0.1", "port": port},
        "logging": {"level": "info", "evidence": True},
        "authz": {
            "jwt": {
                "issuer": ISSUER,
                "audience": AUDIENCE,
                "algorithms": ["HS256"],
                "keys": [{"kid": "idp", "algorithm": "HS256", "secret_env": IDP_SECRET_ENV}],
            },
            "policy": {"file": str(policy)},
            "tasks": {"signing_secret_env": TASK_KEY_ENV},
        },
        "steps": [
            {"name": "authn", "type": "authz.authenticate", "params": {"anonymous": ANONYMOUS}},
            {"name": "authorize", "type": "authz.authorize"},
        ],
        "pipelines": {"mcp": ["authn", "authorize"]},
        "mcp": {"servers": [{"name": SERVER, "url": upstream, "prefix": False}]},
    }
    path = workdir / "taskgate.yaml"
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


@contextlib.contextmanager
def taskgate_in_front(upstream: str, workdir: Path) -> Iterator[Gateway]:
    """taskgate serving /mcp in front of the MCP server at `upstream`, as a process of its own."""
    port = free_port()
    config = taskgate_config(upstream, workdir, port)
    log = workdir / "taskgate.log"
    argv = [PYTHON, "-m", "taskgate", "serve", "-c", str(config)]
    with started("taskgate", argv, port, log, env=ENV):
        yield Gateway(f"http://127.0.0.1:{port}/mcp", caller_token(), config, log)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the conformance suite through taskgate, once.")
    parser.add_argument("-o", "--output-dir", type=Path, help="keep configs, logs and results here")
    options = parser.parse_args(argv)
    with contextlib.ExitStack() as stack:
        workdir = options.output_dir or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="gateway-")))
        upstream = stack.enter_context(everything_server(workdir))
        gateway = stack.enter_context(taskgate_in_front(upstream, workdir))
        url = gateway.url
        try:
            run = run_server_scenarios(url, output_dir=workdir / "results")
        except SuiteNotInstalled as exc:
            print(exc, file=sys.stderr)
            return 2
    print(run.report())
    print(f"({run.seconds:.1f} s; suite -> {url} -> {upstream})")
    return 0 if run.results and not run.failed else 1


if __name__ == "__main__":
    sys.exit(main())
