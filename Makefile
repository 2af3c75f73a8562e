# The two commands of the README: `make run` and `make test`. Both create the virtualenv, install
# the project, and make sure a redis-server binary is on the PATH. Each long step says what it
# does and about how long it takes before it starts (`==>` lines): pip and apt-get stay quiet,
# and a first run is minutes of silence otherwise.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
PYTEST_ARGS ?=
# The suite runs on this many pytest-xdist workers (0: in pytest's own process); tests/conftest.py
# says which tests share a worker.
TEST_WORKERS ?= 2

.PHONY: run test install lock compiler pure-engines redis-server node chromium lint format proto clean

# The table page is served by the web gateway: open http://localhost:8080/ (docs/browser.md).
WEB_PORT ?= 8080
# The address `make run` listens on: loopback, as it has no operator key (anyone who reaches it
# could create games). The server's own variable, so that `make run CROUPIER_HOST='[::]'` (every
# interface) reads as `croupier-server --host '[::]'` does.
CROUPIER_HOST ?= 127.0.0.1

run: install redis-server
	@echo "==> Starting croupier-server on $(CROUPIER_HOST) and its store (a few seconds)."
	@echo "    It keeps this terminal until Ctrl-C; run make test in another one."
	$(BIN)/croupier-server --host $(CROUPIER_HOST) --log-format console --web-port $(WEB_PORT)

test: install redis-server node chromium lint
	@echo "==> Running the test suite on $(TEST_WORKERS) pytest-xdist workers, against redis-server and"
	@echo "    croupier-server processes it starts on loopback ports (the whole suite: 10-11 minutes on 2 cores)"
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

install: $(STAMP)

# The engines are compiled in place by mypyc when the project is installed (setup.py), so an
# edited engine is compiled again before the next run or test.
ENGINE_SOURCES := $(shell find engines -name '*.py')

# Every package at the version deploy/constraints.txt pins: a release made since changes nothing
# until `make lock` takes it.
CONSTRAINTS := deploy/constraints.txt

# Installed in two steps that each say what they do: every package, the engines left as Python
# (pip's own output is quiet), then the project alone again with its engines compiled.
PURE_ENGINES := [ -n "$${CROUPIER_PURE_ENGINES:-}" ] && [ "$$CROUPIER_PURE_ENGINES" != 0 ]

$(STAMP): pyproject.toml clients/python/pyproject.toml setup.py $(CONSTRAINTS) $(ENGINE_SOURCES) | compiler
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (set PYTHON=...)")'
	@echo "==> Installing the Python packages into $(VENV), at the versions of $(CONSTRAINTS)"
	@echo "    (about a minute the first time, more on a slow network; seconds once they are there)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade -c $(CONSTRAINTS) pip
	@if $(PURE_ENGINES); then find engines clients/python -name '*.so' -delete; fi
	CROUPIER_PURE_ENGINES=1 $(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e clients/python -e '.[dev]'
	@if $(PURE_ENGINES); then echo "==> The engines stay Python (CROUPIER_PURE_ENGINES)"; else \
	  echo "==> Compiling the rule engines to C with mypyc (about a minute on 2 cores)"; \
	  $(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) --no-deps -e .; fi
	@$(BIN)/python -c 'from croupier.engines.core import rng; import sys; \
	  print("engines:", "Python (not compiled)" if rng.__file__.endswith(".py") else "compiled")'
	touch $(STAMP)

# deploy/constraints.txt written again (its comment kept): the newest releases within the ranges
# of pyproject.toml, installed in a virtualenv of their own. `make test` then says whether the
# suite passes with them.
LOCK_VENV := .venv-lock

lock: | compiler
	rm -rf $(LOCK_VENV)
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LOCK_VENV)/bin/python -m pip install --quiet -e clients/python -e '.[dev]'
	{ grep '^#' $(CONSTRAINTS); $(LOCK_VENV)/bin/python -m pip freeze --all --exclude-editable; } \
	  > $(CONSTRAINTS).new
	mv $(CONSTRAINTS).new $(CONSTRAINTS)
	rm -rf $(LOCK_VENV)

# A C compiler and Python's headers for the compiled engines (setup.py): Debian's packages when
# they are missing and this is root. Without them the install keeps the engines as Python: the
# same moves, about a quarter slower (docs/decisions.md, "Compiled engines").
compiler:
	@command -v cc >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  echo "==> Installing a C compiler for the engines: Debian's gcc (about a minute)" && \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc libc6-dev >/dev/null; } || \
	  echo "no C compiler: the engines stay pure Python (apt-get install gcc)"
	@$(PYTHON) -c 'import sysconfig, os, sys; sys.exit(not os.path.isfile(sysconfig.get_paths()["include"] + "/Python.h"))' || \
	  { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	    echo "==> Installing Python's headers for the engines: Debian's python3-dev (about a minute)" && \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	    "python$$($(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')-dev" >/dev/null; } || \
	  echo "no Python headers: the engines stay pure Python (apt-get install python3-dev)"

# Run the engines as Python, until an engine's source changes and `make install` compiles them
# again (with CROUPIER_PURE_ENGINES=1 in the environment it never does).
pure-engines:
	find engines clients/python -name '*.so' -delete

# A real Redis for the default store and the tests: Debian's package when none is installed.
redis-server:
	@if command -v redis-server >/dev/null 2>&1; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
		echo "==> redis-server not found: installing Debian's redis-server (about half a minute)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; \
	elif command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then \
		echo "==> redis-server not found: installing Debian's redis-server with sudo (about half a minute)"; \
		sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null; \
	else \
		echo "redis-server is needed: install it (Debian/Ubuntu: apt-get install redis-server;"; \
		echo "macOS: brew install redis) and run make again"; exit 1; \
	fi; \
	command -v redis-server >/dev/null 2>&1 || { echo "redis-server is still not on the PATH"; exit 1; }

# The TypeScript client's packages, from its lockfile (npm ci also generates its code).
node: clients/typescript/node_modules/.package-lock.json

clients/typescript/node_modules/.package-lock.json: clients/typescript/package-lock.json
	@command -v npm >/dev/null 2>&1 || { echo "Node.js 20+ and npm are needed for the TypeScript client"; exit 1; }
	@echo "==> Installing the TypeScript client's packages and generating its code (npm ci, about a minute)"
	cd clients/typescript && npm ci --no-audit --no-fund

# Headless Chromium for the browser tests: Debian's package when none is installed. A Korean
# font too (Debian's fonts-nanum, when root), so the table's screenshots show its Korean labels;
# the tests pass without it.
chromium:
	@command -v chromium >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && \
	  echo "==> Installing Debian's chromium for the browser tests (one to two minutes)" && apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  { echo "chromium is needed for tests/e2e/test_browser.py and test_table.py (apt-get install chromium)"; exit 1; }
	@[ -n "$$(fc-list :lang=ko 2>/dev/null)" ] || [ "$$(id -u)" != 0 ] || \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-nanum >/dev/null || true

lint: install
	@echo "==> Linting: ruff, mypy (half a minute the first time), buf lint"
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/buf lint protos

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Regenerate the committed Python code of the API after editing protos/.
proto: install
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/python protos/generate.py

clean: pure-engines
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis build
	rm -rf clients/typescript/node_modules clients/typescript/src/gen
