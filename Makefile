# `make demo` and `make test` each create or refresh the virtualenv first, so a fresh
# machine with Python 3.11+ needs nothing else.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test screenshots bench docs venv clean

# Python keeps the project's compiled modules (in __pycache__, ignored by git) even where
# PYTHONDONTWRITEBYTECODE is set: without them every test worker and every command a test starts
# compiled the project's modules, and pytest rewrote every test file, from scratch.
unexport PYTHONDONTWRITEBYTECODE

venv: $(STAMP)

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "AgentRank needs Python 3.11 or newer; set PYTHON=python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/agentrank demo

# Lint, format check, type check, then the tests (tests/test_docs.py fails when a doc drifts from the code)
# on one more worker than the machine has cores (pytest-xdist; a file's tests stay on one worker, so
# its fixtures are built once). Many tests wait on a server or a child process, so the extra worker
# keeps the cores busy: on 2 cores, 3 workers took 154 s where 2 took 195 s and 4 took longer again.
TEST_WORKERS ?= $(shell $(PYTHON) -c 'import os; print(len(os.sched_getaffinity(0)) + 1)')
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

# The browser tests again, saving what each page looks like to test-artifacts/*.png (at desktop and
# phone widths) for a person to look at; `make test` leaves the screenshots out.
screenshots: $(STAMP)
	AGENTRANK_SCREENSHOTS=1 $(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile \
		tests/test_publish_browser.py tests/test_directory_browser.py tests/test_benchmark_browser.py

# Regenerate the tables and the CLI reference in README.md and docs/ from the code (cog).
docs: $(STAMP)
	$(BIN)/python -c "from agentrank.exporter import write_export_schema; write_export_schema()"
	$(BIN)/cog -r README.md docs/*.md

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) demo-output build *.egg-info
