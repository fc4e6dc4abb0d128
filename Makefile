# Two commands do all set-up: `make run` starts the bot, `make test` runs the whole suite.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUNTIME := $(VENV)/.runtime-installed
DEV     := $(VENV)/.dev-installed

.PHONY: run test lint bench clean

# The bot's own dependencies only.
$(RUNTIME): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $(RUNTIME)

# The test, lint and benchmark tools as well.
$(DEV): $(RUNTIME)
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(DEV)

run: $(RUNTIME)
	$(BIN)/python -m bot

test: $(DEV)
	$(BIN)/python -m pytest

lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy games db bot bench tests

bench: $(DEV)
	$(BIN)/python -m bench.engine
	$(BIN)/python -m bench.players
	$(BIN)/python -m bench.service
	$(BIN)/python -m bench.queries
	$(BIN)/python -m bench.e2e
	$(BIN)/python -m bench.chart

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
