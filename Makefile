# Two commands set everything up on a fresh machine: `make demo` and `make test`.
VENV    ?= .venv
PY      := $(VENV)/bin/python
STAMP   := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: demo test lint typecheck unit clean container

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/gauntlet demo --out demo-out

lint: $(STAMP)
	$(VENV)/bin/ruff check src tests bench docker
	$(VENV)/bin/ruff format --check src tests bench docker
	$(VENV)/bin/hadolint Dockerfile
	$(VENV)/bin/actionlint .github/workflows/*.yml examples/workflows/*.yml

typecheck: $(STAMP)
	$(VENV)/bin/mypy --strict src

unit: $(STAMP)
	$(VENV)/bin/pytest -q -m "not slow"

test: lint typecheck $(STAMP)
	$(VENV)/bin/pytest -q

# The image built on a local stand-in base in a private dockerd, run as the Actions runner runs it (also in `test`).
container: $(STAMP)
	$(VENV)/bin/pytest -q tests/container

clean:
	rm -rf $(VENV) build dist .pytest_cache .mypy_cache .ruff_cache
