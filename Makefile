# The README's two commands. Both install what is missing first (scripts/install-deps), and
# stop if a tool still cannot be found.
CARGO ?= cargo
SKIP_LOG := $(CURDIR)/target/skipped-tests.txt

.PHONY: demo test deps build lint

deps:
	@scripts/install-deps

build: deps
	$(CARGO) build --release --locked -p metron -p metron-probe

demo: build
	./target/release/metron demo

# Tests that need a missing tool fail under CI (CI=true or METRON_REQUIRE_TOOLS=1) and are
# skipped elsewhere; either way every skip is listed at the end (metron_measure::tool::testing).
test: deps
	@mkdir -p target && rm -f $(SKIP_LOG)
	METRON_SKIP_LOG=$(SKIP_LOG) $(CARGO) test --workspace --locked --no-fail-fast
	@if [ -s $(SKIP_LOG) ]; then \
	  echo; echo "== $$(wc -l < $(SKIP_LOG)) test(s) skipped their checks:"; cat $(SKIP_LOG); \
	else echo "== no test skipped"; fi

lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings
