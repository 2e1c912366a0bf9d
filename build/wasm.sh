#!/usr/bin/env bash
# wasm.sh — build the npm package @kontext/engine (wasm/): the engine as
# WebAssembly, Go's wasm_exec.js from the same toolchain, a gzip copy, and the
# package tarball.
#
#   build/wasm.sh [PACKDIR]     # PACKDIR defaults to .wasm-build/pack
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

gzip -9 -n -c wasm/kontext.wasm >wasm/kontext.wasm.gz

mkdir -p "$packdir"
rm -f "$packdir"/*.tgz
packabs=$(cd "$packdir" && pwd -P)
(cd wasm && npm pack --silent --pack-destination "$packabs" >/dev/null)

raw=$(wc -c <wasm/kontext.wasm)
gz=$(wc -c <wasm/kontext.wasm.gz)
echo "wasm: kontext.wasm $raw bytes ($gz gzip); package $(ls "$packabs"/*.tgz)"
