"""A bad config names the file, the key path and the reason; the CLI exits 2, no traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from taskgate.gateway.config import load_config, parse_config
from taskgate.gateway.errors import ConfigError
from taskgate.plugins import Registry
from taskgate.proxy.app import create_app

GOOD = """
routing:
  pools:
    - name: fast
      endpoints: [{name: fast-0, url: "http://127.0.0.1:9001"}]
      models: [{name: m}]
"""


POOL = (
    "routing:\n  pools:\n    - name: a\n"
    "      endpoints: [{{name: e, url: '{url}'{extra}}}]\n      models: [{{name: m}}]\n"
)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "taskgate.yaml"
    path.write_text(text)
    return path


def error_of(tmp_path: Path, text: str, registry: Registry) -> ConfigError:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        create_app(load_config(path, registry), registry)
    assert info.value.source == str(path)
    return info.value


def test_good_config_loads(tmp_path: Path, registry: Registry) -> None:
    config = load_config(write(tmp_path, GOOD), registry)
    assert config.pipeline("chat") == ["state", "route"]


@pytest.mark.parametrize(
    ("text", "path", "reason"),
    [
        (GOOD + "server:\n  port: 70000\n", "server.port", "less than or equal to 65535"),
        (GOOD + "server:\n  prot: 80\n", "server.prot", "unknown key"),
        (
            POOL.format(url="not a url", extra=""),
            "routing.pools[0].endpoints[0].url",
            "URL",
        ),
        (
            "routing:\n  pools:\n    - {name: a, endpoints: [{name: e, url: 'http://x:1'}]}\n",
            "routing.pools[0].models",
            "required key is missing",
        ),
        ("routign: {}\n", "routign", "unknown section"),
        (GOOD + "steps:\n  - name: r2\n    type: routing.nope\n", "steps[0].type", "unknown step type 'routing.nope'"),
        (
            GOOD + "steps:\n  - name: r2\n    type: routing.route\n    params: {x: 1}\n",
            "steps[0].params.x",
            "unknown key",
        ),
        (GOOD + "pipelines:\n  chat: [route, ghost]\n", "pipelines.chat[1]", "no step named 'ghost'"),
        (GOOD + "pipelines:\n  chat: []\n", "pipelines.chat", "no step provides 'placement'"),
        (GOOD + "pipelines:\n  chats: [route]\n", "pipelines.chats", "Input should be"),
        ("server:\n  port: [1, 2\n", "line 3, column 1", "not valid YAML"),
        ("- just\n- a list\n", "", "top level must be a mapping"),
    ],
)
def test_config_error_names_file_key_path_and_reason(
    tmp_path: Path, registry: Registry, text: str, path: str, reason: str
) -> None:
    error = error_of(tmp_path, text, registry)
    assert error.path == path
    assert reason in error.reason
    assert str(error).startswith(f"{tmp_path / 'taskgate.yaml'}: ")


def test_missing_file_is_a_config_error(tmp_path: Path, registry: Registry) -> None:
    with pytest.raises(ConfigError, match="cannot read the file"):
        load_config(tmp_path / "absent.yaml", registry)


def test_two_steps_providing_one_key_fail_at_start_up(registry: Registry) -> None:
    raw: dict[str, Any] = {
        "steps": [{"name": "r2", "type": "routing.route"}],
        "pipelines": {"chat": ["state", "route", "r2"]},
    }
    with pytest.raises(
        ConfigError, match=r"pipelines.chat: plan 'chat': steps 'route' and 'r2' both provide 'placement'"
    ):
        create_app(parse_config(raw, "<t>", registry), registry)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "taskgate", *args], capture_output=True, text=True, timeout=60, check=False
    )


def test_cli_check_prints_the_compiled_plans(tmp_path: Path) -> None:
    result = run_cli("check", str(write(tmp_path, GOOD)))
    assert result.returncode == 0, result.stderr
    assert "plan 'chat'" in result.stdout
    assert "route: request, cluster, allowed_regions?, request_class? -> placement" in result.stdout


def test_cli_check_on_a_bad_config_exits_2_with_one_line_and_no_traceback(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD + "server:\n  port: -1\n")
    result = run_cli("check", str(path))
    assert result.returncode == 2
    assert result.stderr.strip() == f"taskgate: error: {path}: server.port: Input should be greater than or equal to 0"
    assert "Traceback" not in result.stderr


def test_cli_serve_on_a_bad_config_exits_2_before_listening(tmp_path: Path) -> None:
    result = run_cli("serve", "-c", str(write(tmp_path, "pipelines:\n  chat: [nobody]\n")))
    assert result.returncode == 2
    assert "pipelines.chat[0]: no step named 'nobody'" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_example_config_in_examples_compiles() -> None:
    example = Path(__file__).parents[2] / "examples" / "taskgate.yaml"
    result = run_cli("check", str(example))
    assert result.returncode == 0, result.stderr
    assert "plan 'embeddings'" in result.stdout


def test_the_agent_gateway_example_compiles(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = Path(__file__).parents[2] / "examples" / "agent-gateway"
    monkeypatch.setenv("TASKGATE_TASK_KEY", "example-task-signing-secret-0123456789")
    monkeypatch.setenv("IDP_HS_SECRET", "example-idp-signing-secret-0123456789")
    monkeypatch.chdir(folder)
    result = run_cli("check", "taskgate.yaml")
    assert result.returncode == 0, result.stderr
    assert "plan 'mcp'" in result.stdout


def test_a_file_that_is_not_utf8_is_a_config_error(tmp_path: Path, registry: Registry) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes("server:\n  host: caf\xe9\n".encode("latin-1"))
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        load_config(path, registry)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("steps:\n  - name: route\n    type: routing.route\n    on_error: open\n", "must fail closed"),
        ("steps:\n  - name: route\n    type: routing.route\n    on_error: optional\n", "must fail closed"),
    ],
)
def test_the_placement_provider_may_not_fail_open(tmp_path: Path, registry: Registry, text: str, reason: str) -> None:
    error = error_of(tmp_path, GOOD + text, registry)
    assert error.path == "pipelines.chat"
    assert reason in error.reason


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://127.0.0.1:9001/v1", "without path"),
        ("http://127.0.0.1:9001/?a=1", "query"),
        ("http://x:1#f", "fragment"),
    ],
)
def test_endpoint_url_must_be_a_base_url(tmp_path: Path, registry: Registry, url: str, reason: str) -> None:
    error = error_of(tmp_path, POOL.format(url=url, extra=""), registry)
    assert error.path == "routing.pools[0].endpoints[0].url"
    assert reason in error.reason


def test_an_unset_api_key_variable_is_a_start_up_error(
    tmp_path: Path, registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TASKGATE_TEST_KEY", raising=False)
    error = error_of(tmp_path, POOL.format(url="http://x:1", extra=", api_key_env: TASKGATE_TEST_KEY"), registry)
    assert error.path == "routing.pools[0].endpoints[0].api_key_env"
    assert "TASKGATE_TEST_KEY is not set" in error.reason


def test_a_step_that_fails_to_start_names_its_config_path(registry: Registry) -> None:
    raw = {"steps": [{"name": "route", "type": "routing.route"}]}  # needs the routing section
    config = parse_config(raw, "<t>", registry)
    sections = dict(config.sections)
    sections.pop("routing")
    broken = type(config)(config.source, config.core, sections)
    with pytest.raises(
        ConfigError, match=r"<t>: steps\[0\]: step 'route' \(routing.route\) refused to start: config section 'routing'"
    ):
        create_app(broken, registry)


def test_cli_serve_on_a_busy_port_exits_2_with_one_line(tmp_path: Path) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_cli("serve", "-c", str(write(tmp_path, GOOD)), "--port", str(port))
    assert result.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_agent_gateway_example_runs_end_to_end() -> None:
    """The example's one command: its SDK tool servers, the gateway, and a hijacked agent, every decision
    as the policy says (the script exits non-zero otherwise)."""
    script = Path(__file__).parents[2] / "examples" / "agent-gateway" / "run.py"
    done = subprocess.run(
        [sys.executable, str(script), "--free-ports"], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "every decision as the policy says" in done.stdout
    assert "bank__send_money(iban=GB33BUKB20201555555555, amount=900) -> denied" in done.stdout
    assert "the mail server verified taskgate's assertion: sub=alice" in done.stdout


def test_a_reference_source_must_be_a_tool_name(tmp_path: Path, registry: Registry) -> None:
    text = "steps:\n  - name: authorize\n    type: authz.authorize\n    params: {references: ['mail__*']}\n"
    error = error_of(tmp_path, GOOD + text, registry)
    assert error.path.startswith("steps[0].params.references")
    assert "SERVER__TOOL" in error.reason
