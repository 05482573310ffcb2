# The two commands: `make run` and `make test`. Both set up what is missing first.
SHELL := /bin/bash
VENV  ?= .venv
BIN   := $(VENV)/bin

.PHONY: run test setup lint typecheck importlint unit clean-venv bench

setup:
	@./tools/setup.sh

run: setup
	@$(BIN)/rilai

test: setup lint typecheck importlint unit

lint:
	@echo "== ruff"
	@$(BIN)/ruff check rilai_desktop tests
	@$(BIN)/ruff format --check rilai_desktop tests

typecheck:
	@echo "== mypy (strict on contracts/ and store/)"
	@$(BIN)/mypy rilai_desktop

importlint:
	@echo "== import-linter (no Qt outside ui/, light contracts/ and turn/)"
	@$(BIN)/lint-imports

unit:
	@echo "== pytest"
	@$(BIN)/python -m pytest

bench: setup
	@$(BIN)/rilai bench eventlog

clean-venv:
	rm -rf $(VENV)
