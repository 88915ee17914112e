# The README's two commands. Both install what is missing first (scripts/install-deps).
CARGO ?= cargo

.PHONY: demo test deps build

deps:
	@scripts/install-deps

build: deps
	$(CARGO) build --release --locked -p metron -p metron-probe

demo: build
	./target/release/metron demo

test: deps
	$(CARGO) test --workspace --locked
