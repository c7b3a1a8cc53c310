# LinkRunway: `make run` builds and serves with SQLite in this folder; `make test` runs every test.
SWIFT ?= swift
BUILD_DEPS := pkg-config libmicrohttpd-dev libssl-dev libsqlite3-dev libpq-dev libqrencode-dev zlib1g-dev libcurl4-openssl-dev libmaxminddb-dev
TEST_DEPS := python3 python3-venv postgresql zbar-tools nginx-light curl openssl jq chromium chromium-driver
BENCH_DEPS := wrk nginx-light postgresql linux-perf

.PHONY: deps build run test fuzz mutate bench soak docs docs-check clean

deps:
	@bash scripts/install-deps.sh $(BUILD_DEPS)

build: deps
	$(SWIFT) build -c release --product linkrunway

run: build
	.build/release/linkrunway serve

test: deps
	@bash scripts/install-deps.sh $(TEST_DEPS)
	# Expressions slower than 300 ms to type-check are named as warnings (they slow every build on two cores).
	$(SWIFT) build --build-tests -Xswiftc -Xfrontend -Xswiftc -warn-long-expression-type-checking=300
	# Public User-Agent corpora from PyPI for the classifier's test (.build/user-agents/, fetched once).
	bash scripts/user-agent-corpora.sh
	# A hung test fails the run after 20 minutes instead of holding CI.
	bash scripts/with-postgres.sh --no-fsync timeout 1200 $(SWIFT) test --skip-build --skip 'SlowClientTests|TransportTests'
	# Alone, so their thousands of connections and the stops and timings they watch do not wait behind the others'
	# tests for the machine's two cores (a graceful stop's handler starved past its 30 s grace there).
	timeout 600 $(SWIFT) test --skip-build --filter 'SlowClientTests|TransportTests'
	# The SDK package's own suite (stubbed network, fakes of Apple's frameworks).
	$(SWIFT) build --package-path sdk --build-tests
	timeout 600 $(SWIFT) test --package-path sdk --skip-build
	# The SDK's adapters to Apple's frameworks, type-checked against stand-ins of Apple's modules; AdAttributionKit weak.
	timeout 600 bash sdk/AppleStandIns/check.sh
	# Their @available and #available guards, type-checked for iOS 15.0-27.0, Mac Catalyst, tvOS 15 and macOS 12 and 27 (a minute
	# the first time, to compile the standard library from its interface; seconds after that).
	timeout 600 bash sdk/AppleStandIns/availability.sh
	# The parsers of outside input under libFuzzer and AddressSanitizer, briefly (15 s a target; make fuzz for longer).
	FUZZ_SECONDS=15 timeout 900 bash scripts/fuzz.sh
	# Every mutant of make mutate still applies to the code it names (the run itself is make mutate).
	python3 scripts/mutate.py --check
	# docs/benchmarks.md is what the saved results give, not hand-written.
	python3 bench/report.py --check
	# The guides' commands, against a real server.
	timeout 600 python3 scripts/docs_check.py .build/debug/linkrunway
	# Schemathesis against /openapi.json with real keys: no 500, every answer as documented.
	timeout 900 bash scripts/api-fuzz.sh .build/debug/linkrunway
	# The console in Chromium (screenshots in test-artifacts/console/).
	timeout 600 bash scripts/browser-tests.sh .build/debug/linkrunway
	# Upgrades from the released servers (each built once from its commit into .build/releases/): filled by 0.1.0 on
	# both backends and served by this build, and a rolling upgrade beside a 0.2.0 server on one PostgreSQL.
	timeout 900 bash scripts/build-releases.sh
	timeout 900 bash scripts/with-postgres.sh --no-fsync python3 scripts/upgrade_test.py .build/debug/linkrunway

# Runs the guides' commands against a real server (sh blocks), checks the operator's steps (bash blocks) and the links between docs.
docs-check: deps
	@bash scripts/install-deps.sh $(TEST_DEPS)
	$(SWIFT) build --product linkrunway
	python3 scripts/docs_check.py .build/debug/linkrunway

# Mutation testing of the critical logic: rebuilds once per mutant, so it is not part of make test (which only checks
# that every mutant in the list still applies). MUTATE_ARGS="--only id,id" runs some. See docs/testing.md.
mutate: deps
	@bash scripts/install-deps.sh $(TEST_DEPS)
	bash scripts/with-postgres.sh --no-fsync python3 scripts/mutate.py $(MUTATE_ARGS)

# The parsers under libFuzzer, then every route in-process with many more rounds than make test gives it.
fuzz: deps
	@bash scripts/install-deps.sh $(TEST_DEPS)
	FUZZ_SECONDS=$${FUZZ_SECONDS:-120} bash scripts/fuzz.sh
	$(SWIFT) build --build-tests
	LINKRUNWAY_FUZZ_ROUNDS=$${LINKRUNWAY_FUZZ_ROUNDS:-200} bash scripts/with-postgres.sh --no-fsync $(SWIFT) test --skip-build --filter RouteFuzzTests

# Rewrites the generated reference pages (docs/configuration.md, docs/cli.md, docs/api-reference.md) from the code.
docs: deps
	$(SWIFT) build --build-tests
	LINKRUNWAY_WRITE_DOCS=1 $(SWIFT) test --skip-build --filter DocumentationTests

bench: build
	@bash scripts/install-deps.sh $(BENCH_DEPS)
	bash scripts/with-postgres.sh bash bench/run.sh

# A mixed load for SOAK_SECONDS (default 120): errors, throughput, and the server's memory at the start and the end.
soak: build
	@bash scripts/install-deps.sh $(BENCH_DEPS)
	python3 bench/soak.py

clean:
	rm -rf .build sdk/.build
