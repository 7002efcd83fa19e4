# The two commands: `make dev` (the store locally) and `make test` (every test).
SHELL := /bin/bash
VENV := .venv
TOOLS := $(VENV)/.installed
export SAM_CLI_TELEMETRY := 0
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

BENCH_VENV := .venv-bench
# The Node.js peer of make bench (bench/node/README.md): its SDK and Node.js 22 itself, from npm.
NODE_ARCH := $(if $(filter aarch64 arm64,$(shell uname -m)),arm64,x64)
BENCH_NODE := bench/node/node_modules/.installed
BENCH_NODE_BIN := bench/node/node_modules/node-linux-$(NODE_ARCH)/bin/node
# The same handler bundled and minified with esbuild (npm), as AWS's guidance ships Node.js.
BENCH_NODE_BUNDLE := bench/node/dist/handlers.mjs
# checkov has a venv of its own: its pins must not move SAM CLI's or cfn-lint's.
CHECKOV_VENV := .venv-checkov
CHECKOV := $(CHECKOV_VENV)/.installed
# localstripe (make dev's payment provider) has one too: its aiohttp pins are its own.
PAYMENTS_VENV := .venv-payments
PAYMENTS := $(PAYMENTS_VENV)/.installed
# moto's server (make dev's EventBridge, SQS and SES) in its own, for the same reason.
EVENTS_VENV := .venv-events
EVENTS := $(EVENTS_VENV)/.installed
comma := ,
space := $(empty) $(empty)
READ_FUNCTIONS := get-customer list-customer-orders get-order-items list-orders-by-status

.PHONY: template help dev token pay events test chromium checkov contract readme-session checkout-load stripe-params client-compare lint build sam-local deploy bench bench-links load migrate query tools clean

help:
	@echo "make dev     run the store locally: DynamoDB engine on 127.0.0.1:8000, HTTP API on 127.0.0.1:3000"
	@echo "make token   a bearer token make dev accepts: make token CUSTOMER=c1 | make token STAFF=1"
	@echo "make pay     pay for a hold at make dev's provider, localstripe: make -s pay ORDER=<orderId> [CARD=declined]"
	@echo "make events  the store's events as make dev's bus delivers them: make -s events [WAIT=2] [ORDER=<orderId>] [JSON=1]"
	@echo "make test    all tests: keys, handlers on an embedded engine, faults, events/, template checks, the API contract, the explorer in Chromium, the README's session"
	@echo "make checkov  the security scanner on template.yaml (part of make test)"
	@echo "make contract  schemathesis against a fresh make dev, from api/openapi.yaml (part of make test)"
	@echo "make readme-session  the README's first session against a fresh make dev, each output as shown (part of make test)"
	@echo "make checkout-load  500 checkouts by 50 customers against make dev, every hold accounted for (part of make test)"
	@echo "make lint    rustfmt, clippy, unused dependencies, README/docs links, as CI runs them"
	@echo "make template  write template.yaml's functions, their roles and alarms from their declarations (shared::permissions)"
	@echo "make build   sam build (release binaries for Lambda, arm64 by default)"
	@echo "make sam-local  every function under sam local invoke, every route under start-api (after make build)"
	@echo "make deploy  sam build, then sam deploy (first time: sam deploy --guided)"
	@echo "make bench   release Lambdas vs the source design's boto3 code: cold start, latency, memory, size"
	@echo "make bench-links  the read functions and the floor linked -no-pie and static-pie, measured beside make bench's build"
	@echo "make load    make dev under 100,000 orders: POST latency and idle CPU as the file grows"
	@echo "make query   a read-only PartiQL SELECT that never scans by accident: make query Q=\"SELECT ...\""
	@echo "make migrate every pending data migration, on make dev's engine (or TABLE_NAME's table); MIGRATE_ARGS=..."

# make dev's binaries, the tools around it, the checkout load and the template's tools, built with
# the whole workspace's features as cargo test and clippy resolve them. Built with -p, each
# selection resolves its own (store-ops' aws-config turns on the SDK's test-util, the bench's
# crates others), and a fresh make test compiled the SDK crates once more for each selection:
# minutes of CI on two cores.
WORKSPACE_BUILD := cargo build --locked --workspace
LOCAL_BUILD := $(WORKSPACE_BUILD) --bin store-local --bin store-token --bin store-pay \
	--bin store-events --bin store-checkout-load

dev: $(PAYMENTS) $(EVENTS)
	$(LOCAL_BUILD)
	target/debug/store-local

# A token from make dev's local issuer (its key beside STORE_DATA_FILE), valid for an hour. With
# `make -s` the token is the only line on stdout: C1=$$(make -s token CUSTOMER=c1).
token:
	@$(LOCAL_BUILD) --quiet && target/debug/store-token \
		$(if $(STAFF),--staff,) $(if $(CUSTOMER),--customer $(CUSTOMER),) $(if $(SUB),--sub $(SUB),)

# Pays for a hold at make dev's payment provider (localstripe on PAYMENT_PORT) with a test card;
# the provider itself signs and sends the webhook. make -s pay ORDER=<id> [CARD=declined]
# SELF_SIGNED=1 signs payment_intent.succeeded here instead (with the endpoint secret beside
# STORE_DATA_FILE, or PAYMENT_WEBHOOK_SECRET), for payments no provider would send:
# make -s pay ORDER=<id> SELF_SIGNED=1 [AMOUNT=<cents>]
pay:
	@$(LOCAL_BUILD) --quiet && target/debug/store-pay $(ORDER) \
		$(if $(CARD),--card $(CARD)) $(if $(SELF_SIGNED),--self-signed) $(if $(AMOUNT),--amount $(AMOUNT))

# The store's events as make dev's bus delivers them, a line each (local/dev/src/events_tail.rs):
# make -s events [WAIT=<seconds without an event before it stops>] [ORDER=<id>] [JSON=1]
events:
	@$(LOCAL_BUILD) --quiet && target/debug/store-events \
		$(if $(WAIT),--wait $(WAIT)) $(if $(ORDER),--order $(ORDER)) $(if $(filter 1,$(JSON)),--json)

# Each test notes the declared requests it sent (local/engine/src/declared.rs) in SENDS_USED;
# declared-unused then lists those no test sent, and fails on any.
SENDS_USED := $(CURDIR)/target/sends-used

test: $(TOOLS) $(CHECKOV) $(PAYMENTS) $(EVENTS) chromium
	rm -rf $(SENDS_USED)
	STORE_SENDS_USED=$(SENDS_USED) cargo test --workspace --locked
	$(WORKSPACE_BUILD) --quiet --bin declared-unused
	STORE_SENDS_USED=$(SENDS_USED) target/debug/declared-unused
	sam validate --lint
	cfn-lint template.yaml
	$(MAKE) checkov
	$(MAKE) contract
	$(MAKE) readme-session
	$(MAKE) checkout-load

# Headless Chromium for the explorer's browser test (local/dev/tests/api/explorer.rs): Debian's
# package, installed once (~20 s) when the machine lacks it.
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		echo "installing Debian's chromium for the explorer's browser test"; \
		$$SUDO apt-get install -y -q chromium >/dev/null 2>&1 \
			|| { $$SUDO apt-get update -q >/dev/null && $$SUDO apt-get install -y -q chromium >/dev/null; }; }

# A security scanner nobody here wrote: any finding fails the run. The checks that do not fit
# the functions are skipped once for all of them in .checkov.yaml, each with why; those that do
# not fit another resource, in that resource's Metadata, saying why.
# --skip-download: the checks are all in the package; without it checkov asks Prisma Cloud
# for guideline links (no network in CI: a long traceback, then the same result).
checkov: $(CHECKOV)
	$(CHECKOV_VENV)/bin/checkov --file template.yaml --framework cloudformation --compact --quiet --skip-download --config-file .checkov.yaml

# The HTTP API against its contract: schemathesis generates requests from api/openapi.yaml
# (api/schemathesis.toml says how, and why each exception) against a fresh make dev.
contract: $(TOOLS) $(PAYMENTS) $(EVENTS)
	$(LOCAL_BUILD)
	python3 local/contract_check.py

# The README's first session, pasted as a newcomer would, against a fresh make dev on ports of
# its own: each command's output held to what the README shows (local/readme_session.py).
readme-session: $(TOOLS) $(PAYMENTS) $(EVENTS)
	$(LOCAL_BUILD)
	python3 local/readme_session.py

# Checkout under load against a fresh make dev (bench/src/checkout_load.rs): 500 checkouts by 50
# customers at once, a third paid, a third left to expire, a third paid after expiry; fails unless
# every hold is placed, expired, or expired with its payment due for refund, stock is start minus
# placed and every customer's statistics are exact. CHECKOUTS=n CUSTOMERS=n for other counts.
# The provider's description of the requests the client sends (provider/tests/openapi.rs holds
# them to it), from stripe-node STRIPE_NODE: its declarations are generated from stripe/openapi,
# and its pinned API version is the one the client sends (provider/src/client.rs API_VERSION).
STRIPE_NODE ?= 22.6.2
stripe-params:
	rm -rf target/stripe-node && mkdir -p target/stripe-node
	cd target/stripe-node && npm pack --silent stripe@$(STRIPE_NODE) && tar xzf stripe-$(STRIPE_NODE).tgz
	python3 local/stripe_params.py target/stripe-node/package > provider/tests/stripe-params.json

# What each payment client adds to a function (docs/payment-client.md): the store's own and
# async-stripe, each built on the same base in a fresh target directory.
client-compare:
	bash bench/client-probes/measure.sh

checkout-load: $(PAYMENTS) $(EVENTS)
	$(LOCAL_BUILD)
	target/debug/store-checkout-load --bin-dir target/debug \
		--checkouts $(or $(CHECKOUTS),500) --customers $(or $(CUSTOMERS),50)

# cargo-machete: no crate declares a dependency it does not use. Built into .tools/ once
# (~75 s), pinned like the other tools.
MACHETE := .tools/bin/cargo-machete

lint: $(MACHETE)
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --locked -- -D warnings
	$(MACHETE)
	python3 local/check_docs.py

$(MACHETE):
	cargo install --locked --quiet --root .tools cargo-machete@0.9.2

# template.yaml's generated part (template-tests/src/generated.rs): one errors alarm per
# function, between its BEGIN and END lines; a test fails while it is not current.
template:
	$(WORKSPACE_BUILD) --quiet --bin template-gen && target/debug/template-gen

# sam build runs one `cargo lambda build --bin <name>` per function, one after another, and each
# is a whole-program (fat LTO) link of about a minute on one core. Built first in one cargo run,
# the links share the cores, and sam build's own runs find every binary current and copy it. Same
# directory (the functions' crate, the template's CodeUri) and flags as sam build's: arm64.
build: $(TOOLS)
	cd functions && cargo lambda build --release --arm64 --locked
	sam build

# Every function of template.yaml run by SAM CLI on real containers, from `make build`'s
# artifacts, against a fresh make dev engine: each sample event through `sam local invoke`, one
# request per route through `sam local start-api`. Needs a Docker-compatible engine (here:
# ../shared/tools/lambda-containers.sh); without one it fails under CI and skips elsewhere.
sam-local: $(TOOLS) $(PAYMENTS) $(EVENTS)
	$(LOCAL_BUILD)
	AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_REGION=us-east-1 \
		python3 local/sam_local_check.py

deploy: build
	sam deploy

# Cold start, warm latency, RSS and request counts of the release binaries (built for this
# machine, trusting the bench's TLS test root: shared/bench-build), the floor beside them
# (store-floor, and store-floor-sdk with the SDK in it; perf, from Debian's linux-perf, splits their init CPU), the Python and Node.js peers
# beside them, each memory size's CPU share, and the stripped sizes of the Lambda builds.
bench: $(TOOLS) $(BENCH_VENV)/.installed $(BENCH_NODE_BUNDLE) $(EVENTS) $(PAYMENTS)
	@command -v perf >/dev/null 2>&1 || { SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get install -y -q linux-perf >/dev/null 2>&1 || { $$SUDO apt-get update -q >/dev/null && $$SUDO apt-get install -y -q linux-perf >/dev/null; } || echo "no perf: the init section prints no user/kernel split"; }
	cargo build --release --locked -p functions -p store-bench -p local-dev --features shared/bench-build
	cargo lambda build --release --arm64 --lambda-dir target/lambda-arm64 $(addprefix --bin ,$(READ_FUNCTIONS))
	cargo lambda build --release --x86-64 --lambda-dir target/lambda-x86_64 $(addprefix --bin ,$(READ_FUNCTIONS))
	target/release/store-bench --bin-dir target/release --python $(BENCH_VENV)/bin/python --callgrind \
		--node $(BENCH_NODE_BIN) \
		--size-dir-arm64 target/lambda-arm64 --size-dir-x86-64 target/lambda-x86_64

# Two links the release profile does not use, each measured alone beside the build as shipped
# (docs/performance.md, "Where a cold start's CPU goes"): the read functions and the floor linked
# as a fixed-address executable (-no-pie), and statically with glibc (static-pie); then the init
# and 128 MB on-demand sections for each of the three builds. After make bench (its release build).
LINK_VARIANTS := target/link-variants
bench-links:
	for f in $(READ_FUNCTIONS); do cargo rustc --release --locked -p functions --bin $$f --features shared/bench-build \
		--target x86_64-unknown-linux-gnu --target-dir $(LINK_VARIANTS)/no-pie -- -C link-arg=-no-pie || exit 1; done
	cargo rustc --release --locked -p store-bench --bin store-floor --features shared/bench-build \
		--target x86_64-unknown-linux-gnu --target-dir $(LINK_VARIANTS)/no-pie -- -C link-arg=-no-pie
	RUSTFLAGS="-C target-feature=+crt-static" cargo build --release --locked -p functions -p store-bench \
		$(addprefix --bin ,$(READ_FUNCTIONS)) --bin store-floor --features shared/bench-build \
		--target x86_64-unknown-linux-gnu --target-dir $(LINK_VARIANTS)/static-pie
	for dir in target/release $(LINK_VARIANTS)/no-pie/x86_64-unknown-linux-gnu/release \
		$(LINK_VARIANTS)/static-pie/x86_64-unknown-linux-gnu/release; do echo "## $$dir"; \
		target/release/store-bench --bin-dir $$dir --only init --runs 20 --functions $(subst $(space),$(comma),$(READ_FUNCTIONS)) && \
		target/release/store-bench --bin-dir $$dir --only memory --memory-sizes 128 --memory-runs 5 --memory-warm 20 || exit 1; done

# make dev as its data grows: 100,000 orders through the local HTTP API (ORDERS=n for another
# count); POST p50/p99 and idle CPU at 0, 10% and 100% of them, then one TTL sweep's cost.
load:
	cargo build --release --locked -p local-dev --bins -p store-bench
	target/release/store-load --bin-dir target/release --orders $(or $(ORDERS),100000)

# Every pending data migration (store-migrate, docs/adding-an-access-pattern.md): against make
# dev's engine, or, with TABLE_NAME set, against that table with the standard AWS configuration
# (credentials, region, AWS_ENDPOINT_URL_DYNAMODB). Flags through MIGRATE_ARGS, e.g.
# MIGRATE_ARGS="--segments 8 --max-wcu 50 --json".
migrate:
	cargo build --quiet --locked -p store-ops --bin store-migrate
	@if [ -z "$$TABLE_NAME" ]; then \
		export TABLE_NAME=AppTable AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:$${DYNAMODB_PORT:-8000} \
			AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_REGION=us-east-1; \
	fi; target/debug/store-migrate $(MIGRATE_ARGS)

# A read-only PartiQL SELECT (store-query, docs/partiql.md), on make dev's engine or, with
# TABLE_NAME set, that table: only SELECT, and never a full scan unless QUERY_ARGS=--allow-scan.
# make query Q="SELECT * FROM \"AppTable\" WHERE PK = 'CUSTOMER#c1'" QUERY_ARGS="--limit 10 --json"
query:
	cargo build --quiet --locked -p store-ops --bin store-query
	@if [ -z "$$TABLE_NAME" ]; then \
		export TABLE_NAME=AppTable AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:$${DYNAMODB_PORT:-8000} \
			AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local AWS_REGION=us-east-1; \
	fi; target/debug/store-query $(QUERY_ARGS) "$$Q"

# The Node.js peer, pinned by its package-lock.json.
$(BENCH_NODE): bench/node/package.json bench/node/package-lock.json
	@command -v npm >/dev/null 2>&1 || { SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get install -y -q npm >/dev/null 2>&1 || { $$SUDO apt-get update -q >/dev/null && $$SUDO apt-get install -y -q npm >/dev/null; }; }
	cd bench/node && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(BENCH_NODE_BUNDLE): $(BENCH_NODE) bench/node/handlers.mjs
	cd bench/node && npm run -s bundle

$(BENCH_VENV)/.installed: bench/python/requirements.txt
	python3 -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install --quiet --disable-pip-version-check -r bench/python/requirements.txt
	touch $@

tools: $(TOOLS)

# SAM CLI, cfn-lint, cargo-lambda and schemathesis live in a virtualenv of the repo: installed system-wide,
# SAM upgrades botocore and breaks the system's awscli.
$(TOOLS): local/tools-requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r local/tools-requirements.txt
	touch $@

# localstripe, make dev's payment provider (local/payment_provider.py runs it), in its own venv.
$(PAYMENTS): local/payments-requirements.txt
	python3 -m venv $(PAYMENTS_VENV)
	$(PAYMENTS_VENV)/bin/pip install --quiet --disable-pip-version-check -r local/payments-requirements.txt
	touch $@

# moto's server, make dev's EventBridge, SQS and SES (local_engine::bus runs it).
$(EVENTS): local/events-requirements.txt
	python3 -m venv $(EVENTS_VENV)
	$(EVENTS_VENV)/bin/pip install --quiet --disable-pip-version-check -r local/events-requirements.txt
	touch $@

$(CHECKOV): local/checkov-requirements.txt
	python3 -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/pip install --quiet --disable-pip-version-check -r local/checkov-requirements.txt
	touch $@

clean:
	cargo clean
	rm -rf .aws-sam
