# The two commands: `make run` and `make test`. Both set up what is missing first.
SHELL := /bin/bash
VENV  ?= .venv
BIN   := $(VENV)/bin

# GGUF files are assembled into the repo's models/ (git-ignored).
export RILAI_MODELS_DIR ?= $(CURDIR)/models

.PHONY: run test setup models-test models-all lint typecheck importlint unit clean-venv bench

setup:
	@./tools/setup.sh

# small + medium for the tests (~590 MB); `make run` adds the large (~1.1 GB more).
models-test: setup
	@$(BIN)/rilai models install small medium

models-all: setup
	@$(BIN)/rilai models install all

run: setup models-all
	@$(BIN)/rilai

test: setup models-test lint typecheck importlint unit

lint:
	@echo "== ruff"
	@$(BIN)/ruff check rilai_desktop tests tools
	@$(BIN)/ruff format --check rilai_desktop tests tools

typecheck:
	@echo "== mypy (strict on contracts/, store/, memory/, turn/ and daemon/)"
	@$(BIN)/mypy rilai_desktop

importlint:
	@echo "== import-linter (no Qt outside ui/, light contracts/ and turn/, daemon/ on ports)"
	@$(BIN)/lint-imports

unit:
	@echo "== pytest"
	@$(BIN)/python -m pytest

bench: setup models-test
	@$(BIN)/rilai bench eventlog
	@$(BIN)/rilai bench llm
	@$(BIN)/rilai bench memory
	@$(BIN)/rilai bench turn
	@$(BIN)/rilai bench daemon

clean-venv:
	rm -rf $(VENV)
