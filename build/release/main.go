// Command release builds kontext's release: for each platform an archive
// kontext_<version>_<goos>_<goarch>.tar.gz (.zip for Windows) holding the
// binary, the licenses, the README and its guides (docs/*.md), shell
// completions (bash, zsh, fish, PowerShell), the man pages (kontext.1 and
// one per command) and a manifest.json {name, version, api_version, os,
// arch, sha256, size}; a manifest.json for the whole release; the npm
// package tarball when given; and SHA256SUMS over every file. The same
// inputs give the same bytes:
// binaries are built with -trimpath and no VCS stamp, archive entries are
// sorted with fixed modes, owners and mtimes (SOURCE_DATE_EPOCH, else the
// HEAD commit's time), and gzip carries no name or time.
//
//	go run ./build/release -version 1.2.3 [-out dist] [-targets linux/amd64,…] [-npm pkg.tgz]
//
// `make release` runs it for every platform after building the npm package.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

// Targets are the platforms a release is built for (Go's GOOS/GOARCH).
var Targets = []string{"darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64", "windows/amd64", "windows/arm64"}

func main() {
	var o Options
	var targets string
	flag.StringVar(&o.Version, "version", "", "the release version (1.2.3; a leading v is dropped)")
	flag.StringVar(&o.Out, "out", "dist", "the output directory (emptied first)")
	flag.StringVar(&targets, "targets", strings.Join(Targets, ","), "comma-separated GOOS/GOARCH list")
	flag.StringVar(&o.NPM, "npm", "", "the npm package tarball to ship with the release (make wasm builds it)")
	flag.StringVar(&o.Root, "root", ".", "the kontext checkout")
	flag.Parse()
	o.Targets = strings.Split(targets, ",")
	if err := Build(o); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}
