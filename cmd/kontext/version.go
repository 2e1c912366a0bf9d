package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/kontext/kontext/engine"
)

// License is the SPDX expression kontext is released under (LICENSE-MIT,
// LICENSE-APACHE).
const License = "MIT OR Apache-2.0"

// devVersion is engine.Version when no -ldflags -X set it: then the
// version comes from the build info (`go install …@v1.2.3` stamps v1.2.3, a
// build in a git checkout a pseudo-version).
const devVersion = "0.1.0-dev"

// versionInfo is `kontext version --json`.
type versionInfo struct {
	Version    string `json:"version"`
	APIVersion int    `json:"api_version"`
	License    string `json:"license"`
	Commit     string `json:"commit,omitempty"`
	Modified   bool   `json:"modified,omitempty"`
	Go         string `json:"go"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
}

// stampVersion sets engine.Version from the build info when the build did
// not set it, so every surface (status, the console, version) reports the
// same version.
func stampVersion() {
	if engine.Version != devVersion {
		return
	}
	if v := moduleVersion(); v != "" {
		engine.Version = v
	}
}

func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		return ""
	}
	return strings.TrimPrefix(v, "v")
}

func currentVersion() versionInfo {
	vi := versionInfo{Version: engine.Version, APIVersion: engine.APIVersion, License: License,
		Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				vi.Commit = s.Value
			case "vcs.modified":
				vi.Modified = s.Value == "true"
			}
		}
	}
	return vi
}

func runVersionCmd(ctx context.Context, g *factory, args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(g.io.ErrOut, "kontext version: takes no arguments\n")
		return exitUsage
	}
	vi := currentVersion()
	return emit(g, g.io.Out, vi, func(w io.Writer) {
		fmt.Fprintf(w, "kontext %s (api %d, %s/%s, %s)\nLicense: %s\n", vi.Version, vi.APIVersion, vi.OS, vi.Arch, vi.Go, vi.License)
		if vi.Commit != "" {
			mod := ""
			if vi.Modified {
				mod = " (modified)"
			}
			fmt.Fprintf(w, "Commit: %s%s\n", vi.Commit, mod)
		}
	})
}
