# kontext — the two commands of the README are `make demo` and `make test`.
SHELL := /bin/bash
GO ?= go
BIN := bin/kontext
DEMO := .demo

export GIT_CONFIG_GLOBAL := /dev/null
export GIT_CONFIG_NOSYSTEM := 1
# A -race binary sleeps a second when it exits (the race runtime's
# atexit_sleep_ms), so every test binary and every kontext a script test
# launches would cost a second of nothing. Races are still reported.
export GORACE ?= atexit_sleep_ms=0

.PHONY: sarif-schema build assets web demo test test-go test-bin test-edge test-mcp-http tools node-deps cross-check assets-check vet wasm-check wasm test-wasm test-web bench fuzz stress generate clean release

# A static binary (no cgo): it starts sooner than one that loads libc,
# and it runs on any Linux. (go test -race keeps cgo.)
# It embeds the review console and the engine (make assets).
build: assets
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/kontext

# The review console: web/src/ (ES modules) and the engine's JS bundled into
# one module, web/app.js, by esbuild's Go API (build/webbundle; esbuild is a
# build tool only, never linked into kontext or the wasm).
web: wasm
	$(GO) run ./build/webbundle

# The assets internal/review embeds with go:embed: the built console →
# internal/review/assets/web/, the engine → .../assets/engine/. They are
# committed, so `go build ./cmd/kontext` and `go install …/cmd/kontext@v`
# give a working `kontext review`; TestAssetsUpToDate fails when they are
# stale. Needs only Go (the wasm build and esbuild's Go API).
ASSETS := internal/review/assets

assets:
	$(GO) run ./build/webbundle -assets

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
	@echo
	@echo '$$ kontext -C $(DEMO) drift'
	@$(BIN) -C $(DEMO) drift

# Everything: formatting, vet, the engine's purity under js/wasm, the npm
# package's Node tests, the edge worker under workerd, the MCP conformance
# suite, the console in Chromium, and every Go test (test-go).
test: vet assets-check cross-check wasm-check test-wasm test-edge test-mcp-http test-web tools sarif-schema test-go

# Every Go package's tests, the packages with concurrency under the race
# detector. build/raceset draws the line by a rule over each package's Go
# files, tests included: a package runs with -race when it has a go
# statement, a channel, a select, sync's Mutex/RWMutex/WaitGroup/Cond/Map,
# sync/atomic, golang.org/x/sync, t.Parallel, exec.Cmd.Start (a child
# process beside the test), httptest or testscript (scripts in parallel);
# the rest (sync.Once alone included) run without it. The two lists are
# disjoint and together are ./...
test-go:
	@race=$$($(GO) run ./build/raceset) && plain=$$($(GO) run ./build/raceset -plain) || exit 1; \
	  echo "go test: $$(echo $$plain | wc -w) packages without -race, $$(echo $$race | wc -w) with -race"; \
	  $(GO) test -count=1 -timeout 30m $$plain; a=$$?; \
	  $(GO) test -race -count=1 -timeout 30m $$race; b=$$?; \
	  [ $$a = 0 ] && [ $$b = 0 ]

# The official SARIF 2.1.0 schema (from npm @microsoft/sarif-multitool's
# Linux package, SHA-256 checked) for the SARIF validation test, in .cache/.
sarif-schema:
	@bash build/sarif-schema.sh

# The ADR tools the log tests drive (cmd/kontext/adrtools_test.go), as users
# install them: Debian's adr-tools, and MADR 2/3/4 and log4brains (root
# devDependencies). In CI (CI=true) a missing tool fails those tests.
tools: node-deps
	@if ! command -v adr >/dev/null; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y adr-tools; \
	  else echo "the ADR log tests need adr-tools: run 'sudo apt-get install -y adr-tools' (Debian) and retry"; exit 1; fi; \
	fi

# The root devDependencies (package-lock.json) every Node-driven test needs:
# playwright-core (never downloads a browser), typescript, madr 2/3/4,
# log4brains, workerd and wrangler (the edge worker's tests; workerd's
# binary comes in its platform package), esbuild (the browser-bundling test
# of the npm package), @modelcontextprotocol/conformance and node@22 (the
# MCP conformance suite, which needs Node 22; nothing else runs on that
# node). Installed once, when any of them is missing.
node-deps:
	@if [ ! -d node_modules/playwright-core ] || [ ! -x node_modules/.bin/tsc ] || [ ! -d node_modules/madr2 ] || [ ! -x node_modules/.bin/log4brains ] || [ ! -x node_modules/.bin/workerd ] || [ ! -x node_modules/.bin/wrangler ] || [ ! -x node_modules/.bin/esbuild ] || [ ! -d node_modules/@modelcontextprotocol/conformance ] || [ ! -x node_modules/.bin/node ]; then \
	  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund; fi

# The committed console assets must match the sources before anything in
# make test rebuilds them (test-web runs make assets).
assets-check:
	$(GO) run ./build/webbundle -assets -check

# The release archives are built for Linux, macOS and Windows: the CLI must
# compile for each (platform code lives in *_unix.go / *_other.go files).
# With the release's flags (build/release), so its test reuses the
# compiled packages.
RELEASE_FLAGS := -trimpath -buildvcs=false

cross-check:
	CGO_ENABLED=0 GOOS=windows GOARCH=amd64 $(GO) build $(RELEASE_FLAGS) -o /dev/null ./cmd/kontext
	CGO_ENABLED=0 GOOS=darwin GOARCH=arm64 $(GO) build $(RELEASE_FLAGS) -o /dev/null ./cmd/kontext

vet:
	@unformatted=$$(find . -name '*.go' -not -path './node_modules/*' -not -path './.demo/*' -print0 | xargs -0 gofmt -l); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...

# The engine must build for js/wasm and must not link go-git; the WASM
# build must not link the write operations (engine/drafts) or the models;
# neither kontext nor the wasm may link esbuild; the CLI does not link the
# body renderer (engine/markdown: goldmark's extensions initialise at every
# start); the wasm must stay within 3 MiB gzip (build/wasm-size.sh).
wasm-check:
	GOOS=js GOARCH=wasm $(GO) build ./engine/... ./cmd/wasm
	GOOS=js GOARCH=wasm $(GO) vet ./cmd/wasm
	@if GOOS=js GOARCH=wasm $(GO) list -deps ./engine/... ./cmd/wasm | grep -q '^github.com/go-git/go-git/'; then \
	  echo "engine links go-git under js/wasm; keep git behind the engine.Git interface"; exit 1; fi
	@if { GOOS=js GOARCH=wasm $(GO) list -deps ./cmd/wasm; $(GO) list -deps ./cmd/kontext; } | grep -q '^github.com/evanw/esbuild'; then \
	  echo "esbuild is linked into kontext or the wasm; it belongs to build/webbundle only"; exit 1; fi
	@if GOOS=js GOARCH=wasm $(GO) list -deps ./cmd/wasm | grep -qE '^github.com/kontext/kontext/engine/(drafts|models)$$'; then \
	  echo "cmd/wasm links engine/drafts or engine/models; the WASM engine must not carry the writes or the model operations"; exit 1; fi
	@if $(GO) list -deps ./cmd/kontext | grep -q '^github.com/yuin/goldmark/extension$$'; then \
	  echo "cmd/kontext links goldmark/extension (engine/markdown, the body renderer): only the WASM engine renders, and every CLI call would initialise it"; exit 1; fi
	@GO=$(GO) bash build/wasm-size.sh
	@echo "wasm-check: engine and cmd/wasm build for js/wasm without go-git, the writes or the model operations, within 3 MiB gzip; esbuild only in build/webbundle; the CLI without the body renderer"

# The npm package @kontext/engine (wasm/): kontext.wasm, its gzip copy (for
# the console, not packed), Go's wasm_exec.js and the npm pack tarball (all
# gitignored).
WASM_BUILD := .wasm-build

wasm:
	GO=$(GO) bash build/wasm.sh $(WASM_BUILD)/pack

# The kontext the Node suites drive (test-wasm, test-edge, test-web),
# built once per make run: static, with the release's flags, embedding the
# console assets just built.
TEST_BIN := $(WASM_BUILD)/kontext

test-bin: assets
	CGO_ENABLED=0 $(GO) build $(RELEASE_FLAGS) -o $(TEST_BIN) ./cmd/kontext

# Node tests of the package through its public API, including the
# WASM/native parity test against `kontext api` on the demo repository.
test-wasm: wasm node-deps test-bin
	@bash build/demo-repo.sh --force $(WASM_BUILD)/demo >/dev/null
	KONTEXT_BIN=$(CURDIR)/$(TEST_BIN) KONTEXT_DEMO_REPO=$(CURDIR)/$(WASM_BUILD)/demo \
	  KONTEXT_PACK=$(CURDIR)/$(WASM_BUILD)/pack node --test wasm/test/*.test.mjs

# The edge worker (wasm/worker/) under a real workerd on 127.0.0.1 through
# `kontext edge serve`, and `wrangler deploy --dry-run` on `kontext edge
# build` (no network). KONTEXT_ASSETS: the binary serves this checkout's
# wasm/ (the worker and the engine just built).
test-edge: wasm node-deps test-bin
	@bash build/demo-repo.sh --force $(WASM_BUILD)/demo >/dev/null
	KONTEXT_ASSETS=$(CURDIR) KONTEXT_BIN=$(CURDIR)/$(TEST_BIN) KONTEXT_DEMO_REPO=$(CURDIR)/$(WASM_BUILD)/demo \
	  node --test wasm/worker/test/*.test.mjs

# The official MCP conformance suite (build/conformance.mjs: the pinned
# @modelcontextprotocol/conformance on the pinned node@22; every server
# scenario passes or is classified not applicable, docs/mcp.md) against
# `kontext mcp --http` on 127.0.0.1 over the demo repository. Another
# server is one more line: node build/conformance.mjs -- CMD… (or URL).
test-mcp-http: node-deps test-bin
	@bash build/demo-repo.sh --force $(WASM_BUILD)/mcp-demo >/dev/null
	node build/conformance.mjs -- $(CURDIR)/$(TEST_BIN) -C $(WASM_BUILD)/mcp-demo mcp --http 127.0.0.1:0

# End-to-end tests of the review console (web/) in headless Chromium:
# playwright-core (root devDependency, never downloads a browser) drives
# Debian's /usr/bin/chromium. Screenshots go to test-artifacts/web/. With
# them, the npm package in a browser (web/test/package.test.mjs): the pack
# tarball bundled by esbuild for the browser, and imported unbundled.
test-web: web assets node-deps test-bin
	@if [ ! -x /usr/bin/chromium ]; then \
	  if [ "$$(id -u)" = 0 ]; then apt-get update && apt-get install -y chromium; \
	  else echo "test-web needs /usr/bin/chromium: run 'sudo apt-get install -y chromium' (Debian) and retry"; exit 1; fi; \
	fi
	@bash build/demo-repo.sh --force $(WASM_BUILD)/review-demo >/dev/null
	KONTEXT_REVIEW_BIN=$(CURDIR)/$(TEST_BIN) KONTEXT_REVIEW_DEMO=$(CURDIR)/$(WASM_BUILD)/review-demo \
	  KONTEXT_PACK=$(CURDIR)/$(WASM_BUILD)/pack PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 node --test web/test/*.test.mjs

# The release (build/release): kontext_<version>_<goos>_<goarch>.tar.gz
# (.zip for Windows) for darwin, linux and windows × amd64, arm64, each with
# the binary, licenses, README, completions, man page and manifest.json; the
# npm package tarball; dist/manifest.json and dist/SHA256SUMS. Reproducible.
# VERSION defaults to the v* tag on HEAD.
VERSION ?= $(shell git describe --tags --exact-match --match 'v[0-9]*' 2>/dev/null | sed 's/^v//')

release:
	@if [ -z "$(VERSION)" ]; then echo "make release needs VERSION=x.y.z (or a v* tag on HEAD)"; exit 1; fi
	KONTEXT_NPM_VERSION=$(VERSION) GO=$(GO) bash build/wasm.sh $(WASM_BUILD)/release-pack
	$(GO) run ./build/release -version $(VERSION) -out dist -npm "$$(ls $(WASM_BUILD)/release-pack/*.tgz)"

# Regenerates what comes from the API's Go types (engine/api): the input
# schemas (engine/schemas.json) and wasm/index.d.ts; and the redaction's
# rules from the pinned gitleaks rule list (engine/internal/redact/rules_gen.go).
generate:
	$(GO) generate ./engine ./engine/internal/redact

bench: web assets node-deps
	$(GO) run ./bench

# Crash and race proof of the writes (not part of make test, which runs a
# small version of the same Go test): ≥ 100 kills (fault points of a
# -tags faultinject build and SIGKILL of child processes) across stage,
# capture, confirm and retire, 20 concurrent writers and same-id races, in
# temp repositories only; the table goes into bench/results.md.
stress:
	KONTEXT_STRESS=full KONTEXT_STRESS_OUT=$(CURDIR)/bench/results.md $(GO) test -count=1 -timeout 20m -run '^TestStress$$' -v ./native

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParseFrontmatter -fuzztime 60s ./engine/internal/entry
	$(GO) test -run '^$$' -fuzz FuzzParseADR -fuzztime 60s ./engine/internal/entry
	$(GO) test -run '^$$' -fuzz FuzzIndexEqualsNaive -fuzztime 60s ./engine/internal/match
	$(GO) test -run '^$$' -fuzz FuzzTokenize -fuzztime 60s ./engine/internal/search
	$(GO) test -run '^$$' -fuzz FuzzDecode -fuzztime 60s ./engine/internal/jsonin
	$(GO) test -run '^$$' -fuzz FuzzText -fuzztime 60s ./engine/internal/redact
	$(GO) test -run '^$$' -fuzz FuzzLinear -fuzztime 60s ./engine/internal/redact

clean:
	rm -rf bin dist $(DEMO) $(WASM_BUILD) wasm/kontext.wasm wasm/kontext.wasm.gz wasm/wasm_exec.js web/app.js
