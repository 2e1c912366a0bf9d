#!/usr/bin/env bash
# wasm-size.sh — the size budget of the WASM engine in the npm package:
# fails, with the numbers, when kontext.wasm built with -trimpath
# -ldflags='-s -w' is over 3 MiB gzip (gzip -9; spec 08). The edge
# deployable's budget (worker + engine, 3 MB gzip) is checked by the edge
# tests on `kontext edge build`.
#
#   build/wasm-size.sh [WASM]   # without WASM: builds ./cmd/wasm to a temp directory
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
limit=$((3 * 1024 * 1024))

wasm=${1:-}
if [ -z "$wasm" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	GOOS=js GOARCH=wasm "$GO" build -trimpath -ldflags='-s -w' -o "$tmp/kontext.wasm" ./cmd/wasm
	wasm="$tmp/kontext.wasm"
fi

name=$(basename "$wasm")
raw=$(wc -c <"$wasm")
gz=$(gzip -9 -n -c "$wasm" | wc -c)
if [ "$gz" -gt "$limit" ]; then
	echo "error: $name is $gz bytes gzip ($raw raw), over the budget of $limit bytes (3 MiB) by $((gz - limit)) bytes." >&2
	echo "       Find what the change linked into cmd/wasm (GOOS=js GOARCH=wasm go list -deps ./cmd/wasm) and keep it out of the engine." >&2
	exit 1
fi
echo "wasm size: $name $gz bytes gzip ($raw raw), budget $limit bytes: $((limit - gz)) to spare"
