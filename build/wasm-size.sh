#!/usr/bin/env bash
# wasm-size.sh — the size budget of the WASM engine: fails, with the
# numbers, when a kontext.wasm built with -trimpath -ldflags='-s -w' is over
# 2 MiB gzip (gzip -9), the download the review console can afford.
#
#   build/wasm-size.sh [WASM]   # without WASM: builds ./cmd/wasm to a temp file
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
limit=$((2 * 1024 * 1024))

wasm=${1:-}
if [ -z "$wasm" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	wasm=$tmp/kontext.wasm
	GOOS=js GOARCH=wasm "$GO" build -trimpath -ldflags='-s -w' -o "$wasm" ./cmd/wasm
fi

raw=$(wc -c <"$wasm")
gz=$(gzip -9 -n -c "$wasm" | wc -c)
if [ "$gz" -gt "$limit" ]; then
	echo "error: kontext.wasm is $gz bytes gzip ($raw raw), over the budget of $limit bytes (2 MiB) by $((gz - limit)) bytes." >&2
	echo "       Find what the change linked into cmd/wasm (GOOS=js GOARCH=wasm go list -deps ./cmd/wasm) and keep it out of the engine." >&2
	exit 1
fi
echo "wasm size: $gz bytes gzip ($raw raw), budget $limit bytes: $((limit - gz)) to spare"
