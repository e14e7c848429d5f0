# The two commands the README opens with:
#   make demo   install taskgate and run the demo on embedded defaults
#   make test   install everything the tests need and run ruff, the import contracts, mypy and pytest
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PIP := $(BIN)/python -m pip install --disable-pip-version-check -q

.PHONY: demo test install test-deps system-deps lint typecheck pytest bench clean

demo: install
	$(BIN)/taskgate demo

install: $(BIN)/python
	$(PIP) -e .

test: test-deps lint typecheck pytest

test-deps: system-deps $(BIN)/python
	$(PIP) -e '.[test]'
	$(PIP) ./examples/keyword-guard
	bash tests/conformance/install.sh
	bash tests/agents/install.sh

# Redis backs shared cluster state (redis-sentinel: the failover test), haproxy balances replicas, chromium
# renders the dashboard (the suite starts its own servers on 127.0.0.1); npm fetches Node 22 and the MCP
# conformance suite (tests/conformance/install.sh). Only what is missing is installed: a machine whose
# Node came from elsewhere (NodeSource bundles npm) must not be asked for Debian's npm, which conflicts.
SYSTEM_DEPS := redis-server:redis-server redis-sentinel:redis-sentinel haproxy:haproxy chromium:chromium npm:npm
system-deps:
	@missing=$$(for dep in $(SYSTEM_DEPS); do command -v $${dep%%:*} >/dev/null || echo $${dep##*:}; done); \
	[ -z "$$missing" ] || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing >/dev/null; }

lint:
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache

typecheck:
	$(BIN)/mypy

pytest:
	$(BIN)/pytest -n 2

bench: $(BIN)/python
	$(PIP) -e '.[bench]'
	$(BIN)/python bench/overhead.py

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

clean:
	rm -rf $(VENV) build *.egg-info bench/results .conformance .agents .agents-adk
