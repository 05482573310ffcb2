# The two commands: `make run` and `make test`. Both set up what is missing first.
SHELL := /bin/bash
VENV  ?= .venv
BIN   := $(VENV)/bin

# GGUF files are assembled into the repo's models/ (git-ignored).
export RILAI_MODELS_DIR ?= $(CURDIR)/models

.PHONY: run test setup models-test models-all lint typecheck importlint unit clean-venv bench eval-replies

setup:
	@./tools/setup.sh

# All three tiers for the tests too (~1.6 GB): the large one is the default voice, and the
# e2e tests run the default settings.
models-test: setup
	@$(BIN)/rilai models install small medium large

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
	@echo "== mypy (strict on contracts/, store/, llm/, memory/, turn/, daemon/ and app/)"
	@$(BIN)/mypy rilai_desktop

importlint:
	@echo "== import-linter (the layers: clients > app > engine packages > leaves > contracts; no Qt outside ui/)"
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

# The real turn over the scripted conversations (docs/eval.md): many minutes on the real
# models, not part of `make test`. The JSON report and the side-by-side go to eval-out/.
eval-replies: setup models-test
	@mkdir -p eval-out
	@$(BIN)/rilai eval replies --json --side-by-side eval-out/replies-side-by-side.md \
		> eval-out/replies.json
	@$(BIN)/python -c 'import json; r = json.load(open("eval-out/replies.json")); print(json.dumps(r["bars"], indent=1)); print("failed bars:", ", ".join(r["failed_bars"]) or "none")'
	@echo "eval-out/replies.json, eval-out/replies-side-by-side.md"

clean-venv:
	rm -rf $(VENV)
