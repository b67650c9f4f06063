# The few commands a person types. Each one creates .venv on first use.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin

.PHONY: serve test lint openapi clean

serve: $(VENV)/.installed  ## install, then run the service on http://127.0.0.1:8000
	$(BIN)/referee serve

test: $(VENV)/.installed-dev  ## install with the test tools, then run the whole suite
	$(BIN)/pytest

lint: $(VENV)/.installed-dev  ## ruff and mypy (strict on service/rules)
	$(BIN)/ruff check service tests
	$(BIN)/ruff format --check service tests
	$(BIN)/mypy service

openapi: $(VENV)/.installed  ## regenerate openapi.yaml from the code
	$(BIN)/referee openapi -o openapi.yaml

$(VENV)/bin/pip:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(VENV)/bin/pip
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(VENV)/bin/pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
