"""The official MCP conformance suite's 32 server scenarios, against our everything server directly.

Needs Node 22 and the suite from `bash tests/conformance/install.sh`; without
them the test fails and says so. It is one test: the suite runs every scenario
in one Node process (a few seconds), and the assertion names each scenario that
failed and why.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .gateway import taskgate_in_front
from .processes import everything_server
from .suite import SERVER_SCENARIOS, SuiteNotInstalled, require_installed, run_server_scenarios


def fail_unless_installed() -> None:
    """A failure (not a skip) that says how to install, when install.sh has not run."""
    try:
        require_installed()
    except SuiteNotInstalled as exc:
        problem = str(exc)
    else:
        return
    pytest.fail(problem, pytrace=False)


@pytest.mark.timeout(300)
def test_our_everything_server_passes_every_server_scenario_directly(tmp_path: Path) -> None:
    fail_unless_installed()
    with everything_server(tmp_path) as url:
        run = run_server_scenarios(url, output_dir=tmp_path / "results")
    assert len(SERVER_SCENARIOS) == 32
    assert sorted(run.results) == sorted(SERVER_SCENARIOS), run.output[-4000:]
    failures = [run.results[name].line() for name in run.failed]
    assert not failures, "\n".join(failures)
    assert run.returncode == 0, run.output[-4000:]


@pytest.mark.timeout(300)
def test_every_server_scenario_passes_through_taskgate_as_it_does_directly(tmp_path: Path) -> None:
    """suite -> taskgate (its own process; the suite's client sends no token, so the authenticate step's
    anonymous mode names the caller; the upstream's names served unprefixed, every item granted by policy rows)
    -> our everything server: the verdicts are the direct run's, all 32 passing."""
    fail_unless_installed()
    with everything_server(tmp_path) as upstream, taskgate_in_front(upstream, tmp_path / "taskgate") as gateway:
        run = run_server_scenarios(gateway.url, output_dir=tmp_path / "results")
    assert sorted(run.results) == sorted(SERVER_SCENARIOS), run.output[-4000:]
    failures = [run.results[name].line() for name in run.failed]
    assert not failures, "\n".join(failures)
    assert run.returncode == 0, run.output[-4000:]
