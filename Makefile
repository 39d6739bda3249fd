# jaxlearn: `make demo` and `make test` set everything up from the package registries.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test test-all bench lint docs clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install --quiet -e ".[plot,sklearn,progress,dev,docs]"
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

install: $(STAMP)

demo: install
	$(PY) -m jaxlearn demo

# tests/parallel runs on four CPU devices (XLA_FLAGS), apart: the rest of the suite keeps one device.
# `make test` leaves out the tests marked slow; `make test-all` runs every test.
MARKS ?= not slow
test: install
	$(PY) -m pytest -n auto -q --ignore=tests/parallel -m "$(MARKS)" --durations=30
	XLA_FLAGS=--xla_force_host_platform_device_count=4 $(PY) -m pytest -n 2 -q tests/parallel -m "$(MARKS)"

test-all:
	$(MAKE) test MARKS=

bench: install
	$(PY) -m pip install --quiet -e ".[bench]"
	$(PY) -m jaxlearn bench

lint: install
	$(PY) -m ruff format --check jaxlearn tests scripts conftest.py
	$(PY) -m ruff check jaxlearn tests scripts conftest.py

# The site (mkdocs-material, the API from the docstrings, the notebooks from their stored outputs).
docs: install
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
