# `make run` starts Baeum with everything set up; `make test` runs the whole suite. Both set up first.
VENV := .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: setup run test stop lint e2e-deps

setup: $(VENV)/.installed

$(VENV)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	touch $@

run: setup
	$(PY) scripts/run.py

# The browser tests drive Debian's chromium (never a downloaded browser); install it when missing.
e2e-deps:
	@command -v chromium >/dev/null 2>&1 || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium fonts-noto-cjk; }

test: setup e2e-deps
	$(PY) -m pytest

stop: setup
	$(PY) scripts/run.py --stop

lint: setup
	$(VENV)/bin/ruff check .
	$(PY) manage.py makemigrations --check --dry-run
