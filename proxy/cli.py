"""The `taskgate` command: serve, check, policy, sim, demo."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from taskgate import __version__
from taskgate.errors import TaskgateError
from taskgate.sim.cli import add_command as sim_command


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; a known error prints one line and exits 2, never a traceback."""
    args = _parser().parse_args(argv)
    try:
        return int(args.run(args) or 0)
    except TaskgateError as exc:
        print(f"taskgate: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # output piped into `head` and the like: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="taskgate", description="Agentic-workflow proxy with per-task authorization.")
    parser.add_argument("--version", action="version", version=f"taskgate {__version__}")
    sub = parser.add_subparsers(required=True, metavar="COMMAND")
    serve = sub.add_parser("serve", help="run the proxy")
    serve.add_argument(
        "-c", "--config", default=os.environ.get("TASKGATE_CONFIG"), help="YAML config file (default: $TASKGATE_CONFIG)"
    )
    serve.add_argument("--host", help="override server.host")
    serve.add_argument("--port", type=int, help="override server.port")
    serve.set_defaults(run=_serve)
    check = sub.add_parser("check", help="validate a config and print the compiled plans")
    check.add_argument("config", help="YAML config file")
    check.add_argument(
        "--probe", action="store_true", help="also ask each endpoint's /v1/models whether it serves its pool's models"
    )
    check.set_defaults(run=_check)
    policy = sub.add_parser("policy", help="seal or verify a Casbin policy file (docs/authz.md)")
    policy.add_argument("action", choices=["seal", "verify"], help="seal: check it and write its seal; verify: check")
    policy.add_argument("file", help="the policy file (CSV)")
    policy.add_argument("--model", help="the Casbin model (default: the one taskgate ships)")
    policy.set_defaults(run=_policy)
    sim_command(sub)
    explain = sub.add_parser("explain", help="show the plan a request would run and each step's decision, offline")
    explain.add_argument("-c", "--config", default=os.environ.get("TASKGATE_CONFIG"), help="YAML config file")
    explain.add_argument("request", help="the request body as JSON: a file, or - for stdin")
    explain.add_argument("--surface", default="chat", help="chat (default), completions, embeddings or mcp")
    explain.add_argument(
        "-H", "--header", action="append", default=[], help="a request header, NAME: VALUE (repeatable)"
    )
    explain.set_defaults(run=_explain)
    demo = sub.add_parser("demo", help="run simulated engines and the proxy, drive an agent workload, summarise")
    demo.add_argument(
        "--stay", action="store_true", help="keep the gateway up afterwards and print its dashboard's URL and a token"
    )
    demo.set_defaults(run=_demo)
    return parser


def _serve(args: argparse.Namespace) -> int:
    from .server import serve

    serve(args.config, args.host, args.port)
    return 0


def _check(args: argparse.Namespace) -> int:
    from taskgate.logs import configure_logging

    from .explain import check, probe

    configure_logging("warning")  # on stderr: stdout is the report

    print("\n".join(check(args.config)))
    if not args.probe:
        return 0
    lines, problems = probe(args.config)
    print("\n".join(lines))
    return 1 if problems else 0


def _policy(args: argparse.Namespace) -> int:
    from taskgate.authz.cli import policy

    return policy(args.action, args.file, args.model)


def _explain(args: argparse.Namespace) -> int:
    from taskgate.logs import configure_logging

    from .explain import explain, render

    configure_logging("warning")  # on stderr: stdout is the report, JSON

    headers = {}
    for header in args.header:
        name, sep, value = header.partition(":")
        if not sep or not name.strip():
            raise TaskgateError(f"--header {header!r}: use NAME: VALUE")
        headers[name.strip()] = value.strip()
    print(render(explain(args.config, args.request, args.surface, headers)))
    return 0


def _demo(args: argparse.Namespace) -> int:
    from taskgate.demo.run import run_demo

    return run_demo(args.stay)
