# Two set-up commands (see README): `make run` and `make test`. Everything installs from this repo's files.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 5000
export RULEKB_HOME ?= $(CURDIR)/.rulekb

.PHONY: run test test-fast bench lint browser-deps clean

AXE_VERSION := 4.14.1
AXE := tests/.deps/axe-core-$(AXE_VERSION)/axe.min.js

UV_VERSION := 0.13.8
# The extras as variables: a comma written inside $(call ...) would split its argument.
APP_EXTRAS := '.[semantic]'
TEST_EXTRAS := '.[test,semantic]'
# Install into the venv with uv (from PyPI; a fresh install in ~19 s where pip takes ~30), or with pip
# when uv cannot be had or cannot reach the index (pip reads pip.conf: mirrors, find-links).
# --compile-bytecode as pip does: with PYTHONDONTWRITEBYTECODE set, every process would otherwise
# compile Janome's 100 MB dictionary modules again (a fresh build ~20 s slower).
INSTALL = $(BIN)/uv pip install --quiet --compile-bytecode --python $(BIN)/python $(1) \
	|| $(BIN)/python -m pip install --quiet $(1)

# The project's own modules as bytecode (an editable install leaves them as source): where
# PYTHONDONTWRITEBYTECODE is set, every `rulekb` process would compile them again (~0.15 s a command).
# Only changed files are compiled again; a stale file is read from source, as without it.
COMPILE = $(BIN)/python -m compileall -q kb ingest web >/dev/null

# What `make run` needs (the app, semantic ranking); the tests' tools come on top, for `make test`.
$(BIN)/rulekb: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet uv==$(UV_VERSION) || true
	$(call INSTALL,-e $(APP_EXTRAS))
	$(COMPILE)
	touch $@

$(VENV)/.test-deps: $(BIN)/rulekb pyproject.toml
	$(call INSTALL,-e $(TEST_EXTRAS))
	touch $@

## Build the KB from the bundled corpus/ and serve the web app on http://$(HOST):$(PORT)/
## (on a first run it serves today's editions after half the build, and the whole KB when it is built)
run: $(BIN)/rulekb
	$(COMPILE)
	$(BIN)/rulekb serve --build --host $(HOST) --port $(PORT)

## Debian's Chromium and CJK fonts for the browser tests (Playwright drives /usr/bin/chromium).
browser-deps:
	@if [ ! -x /usr/bin/chromium ] || ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK"; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium fonts-noto-cjk >/dev/null; \
	fi

## axe-core (the accessibility checker the browser tests inject), from the npm registry; not committed.
$(AXE):
	rm -rf tests/.deps/axe-tmp && mkdir -p tests/.deps/axe-tmp
	cd tests/.deps/axe-tmp && npm pack --silent axe-core@$(AXE_VERSION) >/dev/null && tar xzf axe-core-$(AXE_VERSION).tgz
	mkdir -p $(dir $(AXE)) && mv tests/.deps/axe-tmp/package/axe.min.js tests/.deps/axe-tmp/package/LICENSE $(dir $(AXE))
	rm -rf tests/.deps/axe-tmp

## Lint and layout, then the whole test suite (unit, end-to-end CLI, browser).
test: $(VENV)/.test-deps browser-deps $(AXE)
	$(BIN)/ruff check kb ingest web tests bench
	$(BIN)/ruff format --check kb ingest web tests bench
	$(BIN)/python -m pytest -n 2 --dist loadfile

## Lint, then the tests without a browser, the whole corpus or a heavy fixture (markers `browser`, `slow`,
## `heavy`): a check in under a minute on 2 cores. `make test` stays the full run.
test-fast: $(VENV)/.test-deps
	$(BIN)/ruff check kb ingest web tests bench
	$(BIN)/ruff format --check kb ingest web tests bench
	$(BIN)/python -m pytest -m "not browser and not slow and not heavy" -n 2 -q

bench: $(VENV)/.test-deps
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/search.py
	$(BIN)/python bench/relevance.py
	$(BIN)/python bench/terms.py
	$(BIN)/python bench/versions.py
	$(BIN)/python bench/link.py
	$(BIN)/python bench/adversarial.py
	$(BIN)/python bench/fuzz.py
	$(BIN)/python bench/web.py

clean:
	rm -rf $(VENV) .rulekb .pytest_cache tests/artifacts tests/.deps
