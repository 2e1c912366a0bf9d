#!/usr/bin/env bash
# wasm.sh — build the npm package @kontext/engine (wasm/): the engine as
# WebAssembly (kontext.wasm, one raw .wasm: workers and bundlers import a
# .wasm as a module), Go's wasm_exec.js from the same toolchain, the
# licenses, and the package tarball. A gzip copy, kontext.wasm.gz, is made
# for the console (its pages fetch it and inflate it in the page), its
# tests and the benchmarks; it is not in the package.
#
#   build/wasm.sh [PACKDIR]     # PACKDIR defaults to .wasm-build/pack
#
# KONTEXT_NPM_VERSION=1.2.3 packs the package with that version (make
# release) without touching wasm/package.json.
#
# Every artefact is gitignored and rebuilt by `make test-wasm`.
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
packdir=${1:-.wasm-build/pack}

GOOS=js GOARCH=wasm "$GO" build -trimpath -buildvcs=false -ldflags='-s -w' -o wasm/kontext.wasm ./cmd/wasm

goroot=$("$GO" env GOROOT)
exec_js="$goroot/lib/wasm/wasm_exec.js"
[ -f "$exec_js" ] || exec_js="$goroot/misc/wasm/wasm_exec.js"
if [ ! -f "$exec_js" ]; then
	echo "error: wasm_exec.js not found under $goroot/lib/wasm or $goroot/misc/wasm" >&2
	exit 1
fi
cp "$exec_js" wasm/wasm_exec.js

rm -f wasm/kontext-reader.wasm wasm/kontext-reader.wasm.gz # left by an older build
chmod 644 wasm/kontext.wasm
gzip -9 -n -c wasm/kontext.wasm >wasm/kontext.wasm.gz

cp LICENSE-MIT LICENSE-APACHE wasm/

mkdir -p "$packdir"
rm -f "$packdir"/*.tgz
packabs=$(cd "$packdir" && pwd -P)
if [ -n "${KONTEXT_NPM_VERSION:-}" ]; then
	stage=$(mktemp -d)
	trap 'rm -rf "$stage"' EXIT
	cp -R wasm/. "$stage/"
	rm -rf "$stage/test" "$stage/bench"
	node -e 'const f=process.argv[1], fs=require("fs"); const p=JSON.parse(fs.readFileSync(f,"utf8")); p.version=process.argv[2]; fs.writeFileSync(f, JSON.stringify(p,null,2)+"\n")' "$stage/package.json" "$KONTEXT_NPM_VERSION"
	(cd "$stage" && npm pack --silent --pack-destination "$packabs" >/dev/null)
else
	(cd wasm && npm pack --silent --pack-destination "$packabs" >/dev/null)
fi

raw=$(wc -c <wasm/kontext.wasm)
gz=$(wc -c <wasm/kontext.wasm.gz)
echo "wasm: kontext.wasm $raw bytes ($gz gzip); package $(ls "$packabs"/*.tgz)"
# The budget is enforced by make wasm-check; here it is only reported, so
# the package still builds for the tests.
GO=$GO bash build/wasm-size.sh wasm/kontext.wasm || echo "warning: over the wasm size budget (make wasm-check fails)" >&2
