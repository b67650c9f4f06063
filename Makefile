# The few commands a person types. Each one creates .venv on first use.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: serve test lint openapi docs bench bench-quick clean

serve: $(VENV)/.installed  ## install, then run the service on http://127.0.0.1:8000
	$(BIN)/referee serve

# The suite runs on every core (pytest-xdist); the tests start their own Redis
# and gunicorn on free ports, so workers never share a server (each worker
# starts the session's own). An idle worker takes tests queued for a busy one
# (--dist worksteal): the contract tests alone take minutes.
TEST_WORKERS ?= auto

test: $(VENV)/.installed-dev  ## install with the test tools, then run the whole suite
	@echo "make: running the test suite on $(TEST_WORKERS) workers (about 15 CPU-minutes: 7 or 8 minutes on 2 idle cores, far longer on a busy machine)"
	$(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal

lint: $(VENV)/.installed-dev  ## ruff and mypy (strict on service/games)
	$(BIN)/ruff check service tests benchmarks
	$(BIN)/ruff format --check service tests benchmarks
	$(BIN)/mypy service benchmarks

openapi: $(VENV)/.installed  ## regenerate openapi.yaml from the code
	$(BIN)/referee openapi -o openapi.yaml

docs: $(VENV)/.installed  ## rewrite the docs' lists of games, presets and codes from the code
	$(BIN)/referee docs

bench: $(VENV)/.installed-bench  ## measure the referee against the floors and boardgame.io (about 7 minutes)
	$(BIN)/python -m benchmarks $(BENCH_ARGS)

bench-quick: $(VENV)/.installed-bench  ## the same, a smoke run of about 1.5 minutes (writes to benchmarks/results/quick)
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
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
