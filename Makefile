# The two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
HOST   ?= 127.0.0.1
PORT   ?= 8000

# `make test` uses PostgreSQL when TEST_DATABASE_URL or DATABASE_URL points at one, SQLite otherwise.
TEST_DATABASE_URL ?= $(DATABASE_URL)
export TEST_DATABASE_URL

# The dependencies are locked with hashes (pip-tools): requirements/run.txt for running,
# requirements/dev.txt (the same runtime versions plus the tools) for developing and CI. Plain
# pip installs them with --require-hashes, so a fresh machine needs only Python. The ranges in
# pyproject.toml stay; `make lock` picks the newest versions within them, on purpose only.
LOCK      := requirements/run.txt
LOCK_DEV  := requirements/dev.txt
INSTALL   := $(BIN)/pip install --quiet --require-hashes --no-deps
# The project itself: editable, its build backend (setuptools) taken from the lock.
INSTALL_PROJECT := $(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
COMPILE   := $(BIN)/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
             --no-emit-index-url --no-emit-find-links --no-emit-trusted-host --upgrade

.PHONY: run test test-fast lint bench screenshots clean lock

run: $(VENV)/.installed
	$(BIN)/drachenhort serve --host $(HOST) --port $(PORT)

# The suite in two parts: everything but the `serial` tests on TEST_WORKERS pytest-xdist workers
# (each worker has its own database, server and Chromium; a browser test mostly waits on its page
# and server, so a third worker on two cores fills those waits), then the `serial` tests alone
# (they time answers, kill or restart servers, or keep every core busy on their own). Both parts
# always run; either one failing fails the target. `TEST_WORKERS=0` runs the first part in one
# process; pytest exits 5 when a part selects nothing (PYTEST_ARGS naming only the other part).
TEST_WORKERS ?= 3
test: $(VENV)/.installed-dev
	status=0; \
	$(BIN)/pytest -n $(TEST_WORKERS) --dist worksteal --serial=skip $(PYTEST_ARGS) || [ $$? -eq 5 ] || status=1; \
	$(BIN)/pytest --serial=only $(PYTEST_ARGS) || [ $$? -eq 5 ] || status=1; \
	exit $$status

test-fast: $(VENV)/.installed-dev
	$(BIN)/pytest -m "not slow and not browser" $(PYTEST_ARGS)

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check app tests bench
	$(BIN)/ruff format --check app tests bench
	$(BIN)/mypy

# The move path beside boardgame.io, statements, a long match, engines; then the bot tournaments
# (200 games per pairing at 100 search iterations a decision, the same whatever the machine's load;
# the levels' own 2 s would take days on two cores).
BOTS_ARGS ?= --games 200 --iterations 100
bench: $(VENV)/.installed-dev
	$(BIN)/python bench/run.py $(BENCH_ARGS)
	$(BIN)/python bench/bots.py $(BOTS_ARGS)

# PNGs of every board (and page) at 1366 px and 390 px, German and English, for people to look at.
screenshots: $(VENV)/.installed-dev
	$(BIN)/python -m tests.browser.screenshots $(SHOTS_ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

lock: $(VENV)/.installed-dev
	$(COMPILE) -o $(LOCK) pyproject.toml requirements/build.in
	$(COMPILE) --extra dev -o $(LOCK_DEV) pyproject.toml requirements/build.in requirements/dev.in
	@echo "locked: review 'git diff requirements/', then 'rm -rf $(VENV) && make test'"

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.installed: pyproject.toml $(LOCK) | $(VENV)/bin/python
	$(INSTALL) -r $(LOCK)
	$(INSTALL_PROJECT)
	touch $@

$(VENV)/.installed-dev: pyproject.toml $(LOCK_DEV) | $(VENV)/bin/python
	$(INSTALL) -r $(LOCK_DEV)
	$(INSTALL_PROJECT)
	touch $(VENV)/.installed $@
