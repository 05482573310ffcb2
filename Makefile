# The two commands: `make run` and `make test`. Both set up what is missing first.
SHELL := /bin/bash
VENV  ?= .venv
BIN   := $(VENV)/bin

# GGUF files are assembled into the repo's models/ (git-ignored).
export RILAI_MODELS_DIR ?= $(CURDIR)/models

.PHONY: run test check screenshots setup models-test models-all lint typecheck importlint unit clean-venv bench eval-replies \
	package package-test understanding-model reliability

# set-up also exports the embedding model to ONNX once (the app embeds on onnxruntime, no
# torch at run time: docs/notes/embedding-onnx.md); a second run checks it in a second
setup:
	@./tools/setup.sh
	@OMP_NUM_THREADS=1 $(BIN)/python tools/export_embedding_onnx.py --if-needed

# All three tiers for the tests too (~1.6 GB): the large one is the default voice, and the
# e2e tests run the default settings.
models-test: setup
	@$(BIN)/rilai models install small medium large

models-all: setup
	@$(BIN)/rilai models install all

run: setup models-all
	@$(BIN)/rilai

# The whole suite, then the Linux installers built (make package) and tested installed
# offline (make package-test): about ten minutes more than the suite alone.
test: setup models-test lint typecheck importlint unit package package-test

# The inner loop (issue 31): lint, types, layers, then every test that needs no real model
# (-m "not e2e"; tests/conftest.py marks what does, and RILAI_CHECK=1 fails a test that opens
# an installed model unmarked). Two workers: the two cores. CI runs `make test`.
check: setup lint typecheck importlint
	@echo "== pytest (no real model)"
	@RILAI_CHECK=1 $(BIN)/python -m pytest -q -m "not e2e" -n 2 -p no:cacheprovider \
		--ignore=tests/e2e

lint:
	@echo "== ruff"
	@$(BIN)/ruff check rilai_desktop tests tools packaging
	@$(BIN)/ruff format --check rilai_desktop tests tools packaging

typecheck:
	@echo "== mypy (strict on contracts/, store/, llm/, memory/, turn/, daemon/ and app/)"
	@$(BIN)/mypy rilai_desktop

importlint:
	@echo "== import-linter (the layers: clients > app > engine packages > leaves > contracts; no Qt outside ui/)"
	@$(BIN)/lint-imports

unit:
	@echo "== pytest"
	@$(BIN)/python -m pytest --ignore=tests/e2e/test_package_real.py

bench: setup models-test
	@$(BIN)/rilai bench eventlog
	@$(BIN)/rilai bench llm
	@$(BIN)/rilai bench memory
	@$(BIN)/rilai bench turn
	@$(BIN)/rilai bench daemon

# The reliability proofs at full scale (docs/reliability.md): crash, hostile input, malformed
# model output, soak, offline, permissions, corruption, threads, two writers, injection.
# About 76 minutes on 2 cores (docs/reliability.md); not part of `make test`, which runs a
# few iterations of each. Writes reliability-report.json and prints the table.
reliability: setup models-test
	@rm -rf reliability-out
	@RILAI_RELIABILITY=full RILAI_RELIABILITY_OUT=$(CURDIR)/reliability-out \
		$(BIN)/python -m pytest tests/reliability -q -p no:cacheprovider; rc=$$?; \
		$(BIN)/python tools/reliability_report.py reliability-out reliability-report.json || rc=1; \
		exit $$rc

# docs/screenshots/size-*.png: the real window on the real models under Xvfb at 1280x800 and
# 1024x768 with the Conversations and Inspector docks open, and at 1280x800 under
# QT_SCALE_FACTOR=2 (tools/window_screenshot.py; tests/e2e/test_window_real.py checks the same).
screenshots: setup models-test
	@rm -rf .screenshots && mkdir -p docs/screenshots
	@env -u QT_QPA_PLATFORM RILAI_HOME=$(CURDIR)/.screenshots/home RILAI_SHOT_INSPECTOR=1 \
		RILAI_SHOT_SIZES=1280x800,1024x768 xvfb-run -a -s "-screen 0 1920x1200x24" \
		$(BIN)/python tools/window_screenshot.py .screenshots/one \
		"hi, I'm Dana. I just moved to Lisbon for a new job." \
		"honestly it's been lonely. evenings are hard."
	@env -u QT_QPA_PLATFORM RILAI_HOME=$(CURDIR)/.screenshots/home2 QT_SCALE_FACTOR=2 \
		RILAI_SHOT_SIZES=1280x800 xvfb-run -a -s "-screen 0 2600x1700x24" \
		$(BIN)/python tools/window_screenshot.py .screenshots/two \
		"hi, I'm Dana. I just moved to Lisbon for a new job."
	@cp .screenshots/one/size-*.png .screenshots/two/size-*.png docs/screenshots/
	@rm -rf .screenshots

# The real turn over the scripted conversations (docs/eval.md): many minutes on the real
# models, not part of `make test`. The JSON report and the side-by-side go to eval-out/.
eval-replies: setup models-test
	@mkdir -p eval-out
	@$(BIN)/rilai eval replies --json --side-by-side eval-out/replies-side-by-side.md \
		> eval-out/replies.json
	@$(BIN)/python -c 'import json; r = json.load(open("eval-out/replies.json")); print(json.dumps(r["bars"], indent=1)); print("failed bars:", ", ".join(r["failed_bars"]) or "none")'
	@echo "eval-out/replies.json, eval-out/replies-side-by-side.md"

# The understanding model (docs/sensors.md, "The understanding model"): nine sensor heads
# and the intent classifier, fitted on the corpus's train part and chosen on its dev part
# (tests/data/corpus/gold.jsonl); deterministic, about a minute (the encoders' vectors are
# cached in data/corpus-embeddings/). Writes rilai_desktop/turn/understanding/model.npz.
understanding-model: setup
	@$(BIN)/python tools/train_understanding.py

# The Linux installers (docs/packaging.md): the PyInstaller bundle, then the .deb and the
# .tar.gz made from it, then the report (sizes, glibc, first paint bundle vs source) in
# DIST/report.json. MODELS=0: a bundle without the GGUFs, everything in dist/nomodels/,
# named -nomodels.
DIST ?= dist
MODELS ?= 1
ifeq ($(MODELS),0)
PKG_DIST   := $(DIST)/nomodels
PKG_SUFFIX := -nomodels
PKG_BUILD  := --no-models
PKG_DEPS   := setup
else
PKG_DIST   := $(DIST)
PKG_SUFFIX :=
PKG_BUILD  :=
PKG_DEPS   := setup models-all
endif

package: $(PKG_DEPS)
	@$(BIN)/python packaging/build.py $(PKG_BUILD) --dist $(PKG_DIST)
	@$(BIN)/python packaging/linux/build_deb.py --bundle $(PKG_DIST)/rilai --out $(PKG_DIST) --suffix=$(PKG_SUFFIX)
	@$(BIN)/python packaging/linux/build_tarball.py --bundle $(PKG_DIST)/rilai --out $(PKG_DIST) --suffix=$(PKG_SUFFIX)
	@$(BIN)/python packaging/report.py --dist $(DIST) --measure $(PKG_DIST)/rilai \
		--write $(PKG_DIST)/report.json

# The packaging tests: the unit ones on a fake bundle, then the real artefacts of
# `make package` (installed offline, self-test, licences, the window under Xvfb).
# (`make test` runs the unit ones with the rest of pytest, then `package` and this.)
package-test: setup
	@echo "== the installers, installed and run offline (tests/e2e/test_package_real.py)"
	@RILAI_DIST=$(DIST) RILAI_PACKAGE_REQUIRED=1 RILAI_TEST_ARTIFACTS=$(DIST)/test-artifacts \
		$(BIN)/python -m pytest -p no:cacheprovider \
		-rs tests/e2e/test_package_real.py \
		tests/packaging/test_measure_depends.py::test_the_checked_in_snapshot_matches_the_real_bundle

clean-venv:
	rm -rf $(VENV)
