# kontext — the two commands of the README are `make demo` and `make test`.
SHELL := /bin/bash
GO ?= go
BIN := bin/kontext
DEMO := .demo

export GIT_CONFIG_GLOBAL := /dev/null
export GIT_CONFIG_NOSYSTEM := 1

.PHONY: build demo test vet wasm-check bench fuzz generate clean

build:
	$(GO) build -trimpath -o $(BIN) ./cmd/kontext

# Build the demo repository (a real git repo under .demo/) and show which
# entries govern a file, with rule and specificity.
demo: build
	@bash build/demo-repo.sh $(DEMO) --force >/dev/null
	@echo "demo repository: $(DEMO)  (kontext -C $(DEMO) …)"
	@echo
	@echo '$$ kontext -C $(DEMO) governing src/billing/tax/vat.go'
	@$(BIN) -C $(DEMO) governing src/billing/tax/vat.go
	@echo
	@echo '$$ kontext -C $(DEMO) status'
	@$(BIN) -C $(DEMO) status

# Everything: formatting, vet, the engine's purity under js/wasm, and every
# Go test with the race detector.
test: vet wasm-check
	$(GO) test -race -count=1 ./...

vet:
	@unformatted=$$(find . -name '*.go' -not -path './node_modules/*' -not -path './.demo/*' -print0 | xargs -0 gofmt -l); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...

# The engine must build for js/wasm and must not link go-git.
wasm-check:
	GOOS=js GOARCH=wasm $(GO) build ./engine/...
	@if GOOS=js GOARCH=wasm $(GO) list -deps ./engine/... | grep -q '^github.com/go-git/go-git/'; then \
	  echo "engine links go-git under js/wasm; keep git behind the engine.Git interface"; exit 1; fi
	@echo "wasm-check: engine builds for js/wasm without go-git"

generate:
	$(GO) generate ./engine

bench:
	$(GO) run ./bench

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParseFrontmatter -fuzztime 60s ./engine/internal/entry
	$(GO) test -run '^$$' -fuzz FuzzParseADR -fuzztime 60s ./engine/internal/entry
	$(GO) test -run '^$$' -fuzz FuzzIndexEqualsNaive -fuzztime 60s ./engine/internal/match
	$(GO) test -run '^$$' -fuzz FuzzTokenize -fuzztime 60s ./engine/internal/search
	$(GO) test -run '^$$' -fuzz FuzzDecode -fuzztime 60s ./engine/internal/jsonin

clean:
	rm -rf bin $(DEMO)
