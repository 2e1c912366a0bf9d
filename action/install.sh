#!/usr/bin/env bash
# install.sh — the GitHub Action's install step: download the kontext
# release archive for this runner, check it against the release's
# SHA256SUMS, unpack it and put kontext on the PATH.
#
# Environment:
#   KONTEXT_VERSION   1.2.3 or v1.2.3 (the action passes its input, else its
#                     own ref); empty: the tag in GITHUB_ACTION_PATH
#   KONTEXT_RELEASES  where releases are: <url>/v<version>/<file>; default
#                     $KONTEXT_SERVER/$KONTEXT_REPOSITORY/releases/download.
#                     Any URL curl reads, file:// included (the offline test).
#   RUNNER_OS, RUNNER_ARCH  Linux|macOS|Windows, X64|ARM64 (else uname)
#   RUNNER_TEMP, GITHUB_PATH  set by the runner
set -euo pipefail

fail() {
	echo "::error title=kontext install::$*" >&2
	exit 1
}

version=${KONTEXT_VERSION:-}
if [ -z "$version" ] && [ -n "${GITHUB_ACTION_PATH:-}" ]; then
	# …/_actions/<owner>/<repo>/<ref>: the ref the workflow used.
	version=$(basename "$GITHUB_ACTION_PATH")
fi
version=${version#v}
case "$version" in
[0-9]*.[0-9]*.[0-9]*) ;;
*) fail "cannot tell which kontext to install from '${KONTEXT_VERSION:-}': use the action at a release tag (kontext/kontext@v1.2.3) or set its version input" ;;
esac

case "${RUNNER_OS:-$(uname -s)}" in
Linux) goos=linux ;;
macOS | Darwin) goos=darwin ;;
Windows | MINGW* | MSYS* | CYGWIN*) goos=windows ;;
*) fail "no kontext release for the OS ${RUNNER_OS:-$(uname -s)}" ;;
esac
case "${RUNNER_ARCH:-$(uname -m)}" in
X64 | x86_64 | amd64) goarch=amd64 ;;
ARM64 | arm64 | aarch64) goarch=arm64 ;;
*) fail "no kontext release for the architecture ${RUNNER_ARCH:-$(uname -m)}" ;;
esac

releases=${KONTEXT_RELEASES:-}
if [ -z "$releases" ]; then
	[ -n "${KONTEXT_REPOSITORY:-}" ] || fail "KONTEXT_RELEASES or KONTEXT_REPOSITORY must be set"
	releases="${KONTEXT_SERVER:-https://github.com}/$KONTEXT_REPOSITORY/releases/download"
fi
base="kontext_${version}_${goos}_${goarch}"
archive="$base.tar.gz"
exe=kontext
if [ "$goos" = windows ]; then
	archive="$base.zip"
	exe=kontext.exe
fi

work=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/kontext-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
fetch() {
	curl --fail --silent --show-error --location --retry 3 --output "$work/$1" "$releases/v$version/$1" ||
		fail "could not download $releases/v$version/$1"
}
fetch SHA256SUMS
fetch "$archive"

want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$work/SHA256SUMS")
[ -n "$want" ] || fail "SHA256SUMS of v$version does not list $archive"
if command -v sha256sum >/dev/null 2>&1; then
	got=$(sha256sum "$work/$archive" | cut -d' ' -f1)
else
	got=$(shasum -a 256 "$work/$archive" | cut -d' ' -f1) # macOS
fi
[ "$got" = "$want" ] || fail "$archive has SHA-256 $got, SHA256SUMS says $want: not installed"

mkdir -p "$work/x"
if [ "$goos" = windows ]; then
	unzip -q "$work/$archive" -d "$work/x"
else
	tar -xzf "$work/$archive" -C "$work/x"
fi
[ -f "$work/x/$base/$exe" ] || fail "$archive holds no $base/$exe"

dest=${KONTEXT_INSTALL_DIR:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/kontext-$version/bin}
mkdir -p "$dest"
mv "$work/x/$base/$exe" "$dest/$exe"
chmod +x "$dest/$exe"
if [ -n "${GITHUB_PATH:-}" ]; then
	echo "$dest" >>"$GITHUB_PATH"
fi
"$dest/$exe" --version
