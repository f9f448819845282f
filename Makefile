# cardcat: the card-catalogue and price API.
GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X main.version=$(VERSION)
export CGO_ENABLED ?= 0

.PHONY: build run test lint sample bench clients fuzz

build: ## build bin/cardcat
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/cardcat ./cmd/cardcat

run: build ## serve the API on the embedded default (SQLite, sample data) at :8080
	./bin/cardcat serve

test: ## run every test, then say which skipped and why (suites need CARDCAT_TEST_POSTGRES_URL, _REDIS_URL, _S3_ENDPOINT, _CHROMIUM, _OPENAPI_LINT, _CLIENTS_TS, _MCP_TS; .ci/run sets them)
	$(GO) vet ./...
	$(GO) run ./tools/testsummary -go '$(GO)' -- -count=1 ./...

FUZZTIME ?= 30s
fuzz: ## run every fuzz target (func Fuzz* in a _test.go) for FUZZTIME each (default 30s) on top of its corpus; go test takes one package per -fuzz run
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' cmd internal | sort); do \
		for t in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' $$f); do \
			echo "$$t ./$$(dirname $$f)"; \
			$(GO) test -run '^$$' -fuzz "^$$t\$$" -fuzztime $(FUZZTIME) ./$$(dirname $$f); \
		done; \
	done

STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
lint: ## formatting, vet and staticcheck (its checks: staticcheck.conf)
	@files=$$(find . -name '*.go' -not -path './.git/*' -not -path '*/node_modules/*'); \
	test -n "$$files" || { echo "lint: no Go files found"; exit 1; }; \
	test -z "$$(gofmt -l $$files)" || { gofmt -l $$files; echo "gofmt needed"; exit 1; }
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

sample: ## regenerate the bundled sample from ../shared/data
	$(GO) run ./cmd/cardcat synth --from ../shared/data --out sample --seed 1

bench: ## load harness: 1M cards, cardcat vs a ceiling server and FTS5/pg_trgm, report in bench-report.md (BENCH_FLAGS, see bench/README.md)
	$(GO) run ./bench/cmd/loadbench -out bench-report.md $(BENCH_FLAGS)

clients: ## regenerate clients/: the OpenAPI document as a file, the TypeScript types, the Go client (needs node 20 and npm; see clients/README.md)
	clients/generate.sh
