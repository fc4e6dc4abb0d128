# Two commands do all set-up: `make run` starts the bot, `make test` runs the whole suite.
# `make play` tries the games at this terminal first, with no Discord application at all.
# `make web` serves the web pages from the bot's database (127.0.0.1:8080 unless WEB_HOST/WEB_PORT).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
RUNTIME := $(VENV)/.runtime-installed
DEV     := $(VENV)/.dev-installed

.PHONY: run play web demo test lint bench clean

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

# `parlor play GAME ARGS`: against the built-in player unless ARGS says otherwise, e.g.
# make play GAME=safe ARGS="--level hard", or ARGS= for two people at one keyboard.
GAME ?= crown
ARGS ?= --vs-bot
play: $(RUNTIME)
	$(BIN)/python -m bot.cli play $(GAME) $(ARGS)

web: $(RUNTIME)
	$(BIN)/parlor web

# Made-up matches in parlor-demo.db, and the web pages served from it.
demo: $(RUNTIME)
	$(BIN)/python -m bot.cli demo --serve

test: $(DEV)
	$(BIN)/python -m pytest

lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy games db bot web bench tests

bench: $(DEV)
	$(BIN)/python -m bench.engine
	$(BIN)/python -m bench.players
	$(BIN)/python -m bench.pairing
	$(BIN)/python -m bench.queue
	$(BIN)/python -m bench.service
	$(BIN)/python -m bench.queries
	$(BIN)/python -m bench.web
	$(BIN)/python -m bench.e2e
	$(BIN)/python -m bench.chart
	$(BIN)/python -m bench.i18n
	$(BIN)/python -m bench.review
	$(BIN)/python -m bench.puzzle_press
	$(BIN)/python -m bench.review_language
	$(BIN)/python -m bench.puzzle_yield
	$(BIN)/python -m bench.metrics
	$(BIN)/python -m bench.review_load

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
