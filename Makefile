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

# Redis backs shared state and redis-sentinel fails it over, haproxy balances replicas (the suite starts its
# own on 127.0.0.1); npm fetches Node 22 and the MCP conformance suite (tests/conformance/install.sh).
system-deps:
	@{ command -v redis-server && command -v redis-sentinel && command -v haproxy && command -v npm; } >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq redis-server redis-sentinel haproxy npm >/dev/null; }

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
	rm -rf $(VENV) build *.egg-info bench/results .conformance
