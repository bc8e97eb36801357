# sluice: build, test and demo. Run `make help` for the targets.
#
# `make test` is the one test command (README, .ci/run): it starts the sandbox servers and runs
# every unit and integration test against them. Integration tests never skip under `make test`
# (CI defaults to true here, so a missing database is a failure).

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

GO ?= go
BIN := bin/sluice
# Two cores: two test binaries at a time; within one, four parallel tests (mostly waiting on
# the database servers, which share the same two cores).
TEST_P ?= 2
TEST_PARALLEL ?= 4
TEST_TIMEOUT ?= 35m
TEST_FLAGS ?=

.PHONY: help build test test-matrix deps fmt-check vet sandbox sandbox-up sandbox-stop demo bench clean

help:
	@echo "make build         build $(BIN)"
	@echo "make test          start the sandbox, gofmt check, go vet, all unit + integration tests, then test-matrix"
	@echo "make test-matrix   the version matrix: MariaDB 11.8, PostgreSQL 17/18 pairs (docs/versions.md)"
	@echo "make demo          the main job on the sandbox: sysbench data, migrate under writes, verify"
	@echo "make bench         run bench/run.sh"
	@echo "make sandbox       start the sandbox MariaDB + MySQL 9.7 + PostgreSQL (scripts/sandbox start)"
	@echo "make sandbox-stop  stop the sandbox servers"
	@echo "make clean         remove bin/ (the sandbox is left alone: scripts/sandbox reset)"

# The version is the nearest tag (or "dev") and the commit, stamped into the binary.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT ?= $(shell git rev-parse --short HEAD 2>/dev/null)
LDFLAGS := -X github.com/sluice-db/sluice/internal/cli.Version=$(VERSION) -X github.com/sluice-db/sluice/internal/cli.Commit=$(COMMIT)

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/sluice

deps:
	$(GO) mod download

fmt-check:
	@unformatted="$$(find . -name '*.go' -not -path './.git/*' -not -path '*/testdata/*' -print0 | xargs -0 -r gofmt -l)"; \
	if [[ -n "$$unformatted" ]]; then echo "gofmt needed on:"; echo "$$unformatted"; exit 1; fi

vet:
	$(GO) vet ./...

sandbox:
	bash scripts/sandbox start

sandbox-stop:
	bash scripts/sandbox stop

# sandbox-up: start the sandbox (installing the Debian packages if needed), without printing the
# export lines.
sandbox-up:
	bash scripts/sandbox start >/dev/null

# The test binaries get the sandbox's admin URLs through the environment (internal/testenv).
# SLUICE_SOURCE/SLUICE_TARGET are removed so that no test depends on the caller's shell.
test: deps sandbox-up fmt-check vet
	eval "$$(bash scripts/sandbox env | grep '^export SLUICE_TEST_')"; \
	unset SLUICE_SOURCE SLUICE_TARGET; \
	CI="$${CI:-true}" $(GO) test -count=1 -timeout $(TEST_TIMEOUT) -p $(TEST_P) -parallel $(TEST_PARALLEL) $(TEST_FLAGS) \
		$$($(GO) list ./... | grep -v /crashtest); \
	CI="$${CI:-true}" $(GO) test -count=1 -timeout $(TEST_TIMEOUT) $(TEST_FLAGS) ./internal/pipeline/crashtest/...
	$(MAKE) --no-print-directory test-matrix

# test-matrix: the crash, fuzz, all-types and way-back tests on every newer source/target pair
# (scripts/test-matrix; it starts and, the first time, downloads the newer servers).
test-matrix: deps
	GO="$(GO)" TEST_FLAGS="$(TEST_FLAGS)" bash scripts/test-matrix
# The crash and 1 GB-transaction tests run alone, after the rest: their load (and a 20 s
# transaction) on the shared sandbox would make other tests' FLUSH TABLES WITH READ LOCK wait.

demo:
	bash scripts/demo

bench:
	@if [[ ! -x bench/run.sh && ! -f bench/run.sh ]]; then \
		echo "make bench: bench/run.sh does not exist yet (the benchmarks of issues 3, 4 and 5 add it)"; exit 1; fi
	bash bench/run.sh

clean:
	rm -rf bin
