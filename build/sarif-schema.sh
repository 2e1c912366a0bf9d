#!/usr/bin/env bash
# sarif-schema.sh — fetch the official SARIF 2.1.0 JSON schema for the SARIF
# validation test (internal/report/sarif_test.go).
#
# The schema is the sarif-2.1.0.json that @microsoft/sarif-multitool ships.
# The multitool's npm package only points at per-platform packages, and the
# schema file is inside them next to a ~150 MB .NET build, so the package is
# not a devDependency: npm pack fetches the Linux package once (npm's cache
# keeps it), only the schema is extracted, and its SHA-256 is checked.
#
#   build/sarif-schema.sh [DEST]   (default .cache/sarif-2.1.0.json)
set -euo pipefail
dest=${1:-.cache/sarif-2.1.0.json}
pkg=@microsoft/sarif-multitool-linux@5.7.0
want=1c49a0f2b60444c71bb14878e21e0d882198eff4c539861b133093ad89ed798c

sum() {
	if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

if [ -f "$dest" ] && [ "$(sum "$dest")" = "$want" ]; then
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "$pkg" >/dev/null)
tar -xzf "$tmp"/*.tgz -C "$tmp" package/sarif-2.1.0.json
got=$(sum "$tmp/package/sarif-2.1.0.json")
if [ "$got" != "$want" ]; then
	echo "sarif-schema.sh: $pkg ships a sarif-2.1.0.json with SHA-256 $got, expected $want" >&2
	exit 1
fi
mkdir -p "$(dirname "$dest")"
mv "$tmp/package/sarif-2.1.0.json" "$dest"
echo "sarif-schema.sh: $dest from $pkg"
