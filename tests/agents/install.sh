#!/usr/bin/env bash
# Installs the agent runtimes tests/agents drives into virtualenvs of their own at the repository root:
# .agents/ (openai-agents, pydantic-ai, LangGraph; they resolve mcp < 2, taskgate pins mcp 2) and
# .agents-adk/ (Google ADK with LiteLLM, which pins openai < 3 where openai-agents needs 3). Every package is
# pinned by requirements*.txt beside this script and installed without resolving anything else (--no-deps).
# Idempotent: a virtualenv whose stamp matches its requirements file is left as it is.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${PYTHON:-python3}"

install() {  # install VENV REQUIREMENTS
    local venv="$root/$1" requirements="$here/$2"
    local stamp="$venv/.requirements"
    if [ -x "$venv/bin/python" ] && cmp -s "$requirements" "$stamp"; then
        echo "$1 already holds $2"
        return
    fi
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --disable-pip-version-check -q --no-deps -r "$requirements"
    "$venv/bin/python" -m pip check
    cp "$requirements" "$stamp"
    echo "installed $2 in $1"
}

install .agents requirements.txt
install .agents-adk requirements-adk.txt
