# The two README commands: `make run` (main job on the embedded default) and `make test` (every test).
PY      ?= python3
VENV    ?= .venv
BIN     := $(VENV)/bin
EXTRAS  ?= test,torch,lora,ray,service,e2e

.PHONY: run test venv clean validate bench

$(BIN)/suanli: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[$(EXTRAS)]'
	touch $(BIN)/suanli

venv: $(BIN)/suanli

run: venv
	$(BIN)/suanli plan --file examples/lora-7b.yaml --save

test: venv
	$(BIN)/python -m mypy
	$(BIN)/ruff check src tests scripts
	$(BIN)/python -m pytest

validate: venv
	$(BIN)/suanli validate

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
