# The two commands: `make dev` (the store locally) and `make test` (every test).
SHELL := /bin/bash
VENV := .venv
TOOLS := $(VENV)/.installed
export SAM_CLI_TELEMETRY := 0
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: help dev test lint build deploy tools clean

help:
	@echo "make dev     run the store locally: DynamoDB engine on 127.0.0.1:8000, HTTP API on 127.0.0.1:3000"
	@echo "make test    all tests: keys, handlers on an embedded engine, events/, template checks"
	@echo "make lint    rustfmt and clippy, as CI runs them"
	@echo "make build   sam build (release binaries for Lambda, arm64 by default)"
	@echo "make deploy  sam build, then sam deploy (first time: sam deploy --guided)"

dev:
	cargo run --locked -p local-dev --bin store-local

test: $(TOOLS)
	cargo test --workspace --locked
	sam validate --lint
	cfn-lint template.yaml

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --locked -- -D warnings

build: $(TOOLS)
	sam build

deploy: build
	sam deploy

tools: $(TOOLS)

# SAM CLI, cfn-lint and cargo-lambda live in a virtualenv of the repo: installed system-wide,
# SAM upgrades botocore and breaks the system's awscli.
$(TOOLS): local/tools-requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r local/tools-requirements.txt
	touch $@

clean:
	cargo clean
	rm -rf .aws-sam
