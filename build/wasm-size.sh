#!/usr/bin/env bash
# wasm-size.sh — the size budget of the WASM engines: fails, with the
# numbers, when a .wasm built with -trimpath -ldflags='-s -w' is over
# 2 MiB gzip (gzip -9), the download the review console can afford.
#
#   build/wasm-size.sh [WASM...]   # without WASM: builds ./cmd/wasm, the full
#                                  # and the reader engine, to a temp directory
set -euo pipefail

cd "$(dirname "$0")/.."
GO=${GO:-go}
limit=$((2 * 1024 * 1024))

wasms=("$@")
if [ ${#wasms[@]} -eq 0 ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	GOOS=js GOARCH=wasm "$GO" build -trimpath -ldflags='-s -w' -o "$tmp/kontext.wasm" ./cmd/wasm
	GOOS=js GOARCH=wasm "$GO" build -tags kontextreader -trimpath -ldflags='-s -w' -o "$tmp/kontext-reader.wasm" ./cmd/wasm
	wasms=("$tmp/kontext.wasm" "$tmp/kontext-reader.wasm")
fi

status=0
for wasm in "${wasms[@]}"; do
	name=$(basename "$wasm")
	raw=$(wc -c <"$wasm")
	gz=$(gzip -9 -n -c "$wasm" | wc -c)
	if [ "$gz" -gt "$limit" ]; then
		echo "error: $name is $gz bytes gzip ($raw raw), over the budget of $limit bytes (2 MiB) by $((gz - limit)) bytes." >&2
		echo "       Find what the change linked into cmd/wasm (GOOS=js GOARCH=wasm go list -deps ./cmd/wasm) and keep it out of the engine." >&2
		status=1
		continue
	fi
	echo "wasm size: $name $gz bytes gzip ($raw raw), budget $limit bytes: $((limit - gz)) to spare"
done
exit $status
