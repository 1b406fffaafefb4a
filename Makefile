# The two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

# `make test` uses PostgreSQL when TEST_DATABASE_URL or DATABASE_URL points at one, SQLite otherwise.
TEST_DATABASE_URL ?= $(DATABASE_URL)
export TEST_DATABASE_URL

.PHONY: run test test-fast lint bench screenshots clean

run: $(VENV)/.installed
	$(BIN)/drachenhort serve --host $(HOST) --port $(PORT)

test: $(VENV)/.installed-dev
	$(BIN)/pytest $(PYTEST_ARGS)

test-fast: $(VENV)/.installed-dev
	$(BIN)/pytest -m "not slow and not browser" $(PYTEST_ARGS)

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check app tests bench
	$(BIN)/ruff format --check app tests bench
	$(BIN)/mypy

bench: $(VENV)/.installed-dev
	$(BIN)/python bench/run.py

# PNGs of every board (and page) at 1366 px and 390 px, German and English, for people to look at.
screenshots: $(VENV)/.installed-dev
	$(BIN)/python -m tests.browser.screenshots $(SHOTS_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(VENV)/bin/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(VENV)/bin/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(VENV)/.installed $@
