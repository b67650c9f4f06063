# The few commands a person types. Each one creates .venv on first use.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: serve dev test lint openapi docs clients web bench bench-quick clean

serve: $(VENV)/.installed  ## install, then run the service on http://127.0.0.1:8000
	$(BIN)/referee serve

# For a front end in development on this machine (a Vite page on another
# port, a walk-through run many times): CORS allows localhost origins on any
# port and the per-address limits are lifted; it prints where /play, the
# guide and the API reference are. Loopback only (README: production).
dev: $(VENV)/.installed  ## the same for front-end development: localhost pages may call it, no per-address limits
	$(BIN)/referee serve --dev

# The web table's and the TypeScript client's tests need node's packages
# (web/package-lock.json, clients/typescript/package-lock.json); where npm is
# missing they are skipped.
NODE_DEPS := $(if $(shell command -v npm),web/node_modules/.installed clients/typescript/node_modules/.installed)

# The suite runs on two workers per core (pytest-xdist): the tests start
# their own Redis and gunicorn on free ports, so workers never share a
# server (each worker starts the session's own), and many tests wait on real
# time (deadlines, bots, streams, browsers) with a core idle. Each worker
# starts with its share of the longest tests (tests/conftest.py) and an idle
# one takes tests queued for a busy one (--dist worksteal). Here (2 cores)
# 4 workers took 4 min 16 s to 4 min 53 s, 3 took 5 min 15 s; `make test
# TEST_WORKERS=2` for fewer. The project's modules are compiled to bytecode
# first: the suite starts some 120 processes that import them (servers,
# workers, the CLI), and where PYTHONDONTWRITEBYTECODE is set (as on our CI
# machines) each one compiled them again (half a second of CPU each).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) * 2 )))

test: $(VENV)/.installed-dev $(NODE_DEPS)  ## install with the test tools, then run the whole suite
	@echo "make: running the test suite on $(TEST_WORKERS) workers (about 10 minutes on 2 cores with the browser tests, installs included: 10 min 16 s from a fresh clone on a quiet machine; about twice that with a second suite running beside it)"
	$(BIN)/python -m compileall -q -j 0 service benchmarks tests
	$(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal

lint: $(VENV)/.installed-dev  ## ruff, mypy (strict on service/games) and import-linter (no circles, no import up a floor)
	$(BIN)/ruff check service tests benchmarks
	$(BIN)/ruff format --check service tests benchmarks
	$(BIN)/mypy service benchmarks
	$(BIN)/lint-imports

openapi: $(VENV)/.installed  ## regenerate openapi.yaml from the code
	$(BIN)/referee openapi -o openapi.yaml

docs: $(VENV)/.installed  ## rewrite the docs' lists of games, presets and codes from the code
	$(BIN)/referee docs

clients: $(VENV)/.installed-dev web/node_modules/.installed clients/typescript/node_modules/.installed  ## generate the TypeScript and Python clients from openapi.yaml
	cd web && npm run -s client    # the types, web/src/api/schema.d.ts (committed)
	cd clients/typescript && npm run -s types && npm run -s build   # the package's types (src/schema.ts, committed) and dist/
	$(BIN)/openapi-python-client generate --path openapi.yaml --config clients/python-client.yaml \
	  --meta pdm --output-path clients/python --overwrite
	@echo "make: the Python client is in clients/python: pip install ./clients/python (with httpx and attrs)"

web: web/node_modules/.installed clients/typescript/node_modules/.installed  ## type-check and bundle the web table into service/site/static/play (committed)
	cd web && npm run -s check && npm run -s build

web/node_modules/.installed: web/package-lock.json
	@echo "make: installing the web table's node packages (web/package-lock.json) into web/node_modules"
	cd web && npm ci --no-audit --no-fund
	touch $@

# The TypeScript client package (card-referee-client): its own lockfile, as
# it is published on its own; /play is built from its sources.
clients/typescript/node_modules/.installed: clients/typescript/package-lock.json
	@echo "make: installing the TypeScript client's node packages into clients/typescript/node_modules"
	cd clients/typescript && npm ci --no-audit --no-fund
	touch $@

bench: $(VENV)/.installed-bench  ## measure the referee against the floors and boardgame.io (15 minutes or more on 2 cores)
	$(BIN)/python -m benchmarks $(BENCH_ARGS)

bench-quick: $(VENV)/.installed-bench  ## the same, a smoke run of about 6 minutes (writes to benchmarks/results/quick)
	$(BIN)/python -m benchmarks --quick $(BENCH_ARGS)

# Installing takes up to a minute the first time: pip shows what it fetches.
$(VENV)/bin/pip:
	@echo "make: creating $(VENV) with $(PYTHON)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip

$(VENV)/.installed: pyproject.toml | $(VENV)/bin/pip
	@echo "make: installing the service and its dependencies into $(VENV)"
	$(BIN)/pip install -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(VENV)/bin/pip
	@echo "make: installing the service with the test and lint tools into $(VENV)"
	$(BIN)/pip install -e '.[dev]'
	touch $@ $(VENV)/.installed

$(VENV)/.installed-bench: pyproject.toml | $(VENV)/bin/pip
	@echo "make: installing the service with the benchmark's tools into $(VENV)"
	$(BIN)/pip install -e '.[bench]'
	touch $@ $(VENV)/.installed

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .import_linter_cache .grimp_cache .hypothesis web/node_modules clients/python \
	  clients/typescript/node_modules clients/typescript/dist
