package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kontext/kontext/engine"
)

// Options say what to build.
type Options struct {
	Version string   // semver without the leading v
	Out     string   // output directory
	Targets []string // GOOS/GOARCH
	NPM     string   // npm package tarball, optional
	Root    string   // the checkout
}

// Manifest describes one platform's binary, so an application can vendor
// the right one even when it packages for another platform.
type Manifest struct {
	Name       string `json:"name"`
	Version    string `json:"version"`
	APIVersion int    `json:"api_version"`
	OS         string `json:"os"`
	Arch       string `json:"arch"`
	SHA256     string `json:"sha256"`
	Size       int64  `json:"size"`
	Binary     string `json:"binary"`  // its path inside the archive
	Archive    string `json:"archive"` // the archive's file name
	License    string `json:"license"`
}

// Release is dist/manifest.json: every archive with its own checksum.
type Release struct {
	Name       string           `json:"name"`
	Version    string           `json:"version"`
	APIVersion int              `json:"api_version"`
	License    string           `json:"license"`
	Archives   []ReleaseArchive `json:"archives"`
	NPM        *ReleaseFile     `json:"npm,omitempty"`
}

// ReleaseArchive is one archive and the binary manifest it holds.
type ReleaseArchive struct {
	Manifest
	ArchiveSHA256 string `json:"archive_sha256"`
	ArchiveSize   int64  `json:"archive_size"`
}

// ReleaseFile is a file of the release with its checksum.
type ReleaseFile struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
	Size   int64  `json:"size"`
}

const license = "MIT OR Apache-2.0"

var semver = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// file is one archive member.
type file struct {
	name string
	data []byte
	mode int64
}

// Build writes the release into o.Out.
func Build(o Options) error {
	o.Version = strings.TrimPrefix(o.Version, "v")
	if !semver.MatchString(o.Version) {
		return fmt.Errorf("-version %q is not a semantic version such as 1.2.3", o.Version)
	}
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return err
	}
	mtime, err := sourceDate(root)
	if err != nil {
		return err
	}
	for _, t := range o.Targets {
		if _, _, ok := strings.Cut(t, "/"); !ok {
			return fmt.Errorf("target %q is not GOOS/GOARCH", t)
		}
	}
	if err := os.RemoveAll(o.Out); err != nil {
		return err
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "kontext-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	bins := map[string][]byte{}
	var host string // a binary for this platform, for the completions and the man page
	for _, t := range o.Targets {
		goos, goarch, _ := strings.Cut(t, "/")
		binPath := filepath.Join(work, goos+"_"+goarch, "kontext")
		if err := goBuild(root, o.Version, goos, goarch, binPath); err != nil {
			return err
		}
		if bins[t], err = os.ReadFile(binPath); err != nil {
			return err
		}
		if goos == runtime.GOOS && goarch == runtime.GOARCH {
			host = binPath
		}
	}
	if host == "" {
		// Completions and the man page come from a host binary of the same
		// sources (they do not depend on the platform).
		host = filepath.Join(work, "host", "kontext")
		if err := goBuild(root, o.Version, runtime.GOOS, runtime.GOARCH, host); err != nil {
			return err
		}
	}
	docs, err := docFiles(root, host, work, mtime)
	if err != nil {
		return err
	}
	return pack(o, mtime, docs, bins)
}

// docFiles are the members every archive holds beside the binary: the
// shell completions and the man pages (printed by the host binary, dated
// like the archive members), the licenses, the README and its guides.
func docFiles(root, host, work string, mtime time.Time) ([]file, error) {
	docEnv := append(os.Environ(), "SOURCE_DATE_EPOCH="+strconv.FormatInt(mtime.Unix(), 10))
	docs := []file{}
	for _, d := range []struct {
		name string
		args []string
	}{
		{"completions/kontext.bash", []string{"completion", "bash"}},
		{"completions/_kontext", []string{"completion", "zsh"}},
		{"completions/kontext.fish", []string{"completion", "fish"}},
		{"completions/kontext.ps1", []string{"completion", "powershell"}},
	} {
		cmd := exec.Command(host, d.args...)
		cmd.Env = docEnv
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("kontext %s: %w", strings.Join(d.args, " "), err)
		}
		docs = append(docs, file{d.name, out, 0o644})
	}
	// man/: kontext.1 (every command) and a page per command.
	manDir := filepath.Join(work, "man")
	cmd := exec.Command(host, "man", "--dir", manDir)
	cmd.Env = docEnv
	if out, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("kontext man --dir: %w\n%s", err, out)
	}
	pages, err := os.ReadDir(manDir)
	if err != nil {
		return nil, err
	}
	for _, p := range pages {
		data, err := os.ReadFile(filepath.Join(manDir, p.Name()))
		if err != nil {
			return nil, err
		}
		docs = append(docs, file{"man/" + p.Name(), data, 0o644})
	}
	texts, err := textFiles(root)
	if err != nil {
		return nil, err
	}
	for _, f := range texts {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			return nil, err
		}
		docs = append(docs, file{f, data, 0o644})
	}
	return docs, nil
}

// pack writes the archives (one per target of o.Targets, from its binary in
// bins), the npm tarball, manifest.json and SHA256SUMS into o.Out, which
// exists. o.Version has no leading v.
func pack(o Options, mtime time.Time, docs []file, bins map[string][]byte) error {
	rel := Release{Name: "kontext", Version: o.Version, APIVersion: engine.APIVersion, License: license}
	for _, t := range o.Targets {
		goos, goarch, _ := strings.Cut(t, "/")
		base := fmt.Sprintf("kontext_%s_%s_%s", o.Version, goos, goarch)
		exe := "kontext"
		if goos == "windows" {
			exe += ".exe"
		}
		bin, ok := bins[t]
		if !ok {
			return fmt.Errorf("no binary for %s", t)
		}
		sum := sha256.Sum256(bin)
		m := Manifest{Name: "kontext", Version: o.Version, APIVersion: engine.APIVersion, OS: goos, Arch: goarch,
			SHA256: hex.EncodeToString(sum[:]), Size: int64(len(bin)), Binary: base + "/" + exe, License: license}
		archive := base + ".tar.gz"
		if goos == "windows" {
			archive = base + ".zip"
		}
		m.Archive = archive
		mj, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			return err
		}
		members := append([]file{{exe, bin, 0o755}, {"manifest.json", append(mj, '\n'), 0o644}}, docs...)
		var data []byte
		if goos == "windows" {
			data, err = zipArchive(base, members, mtime)
		} else {
			data, err = tarGz(base, members, mtime)
		}
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(o.Out, archive), data, 0o644); err != nil {
			return err
		}
		as := sha256.Sum256(data)
		rel.Archives = append(rel.Archives, ReleaseArchive{Manifest: m, ArchiveSHA256: hex.EncodeToString(as[:]), ArchiveSize: int64(len(data))})
	}
	if o.NPM != "" {
		data, err := os.ReadFile(o.NPM)
		if err != nil {
			return fmt.Errorf("-npm: %w", err)
		}
		name := filepath.Base(o.NPM)
		if err := os.WriteFile(filepath.Join(o.Out, name), data, 0o644); err != nil {
			return err
		}
		s := sha256.Sum256(data)
		rel.NPM = &ReleaseFile{File: name, SHA256: hex.EncodeToString(s[:]), Size: int64(len(data))}
	}
	rj, err := json.MarshalIndent(rel, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(o.Out, "manifest.json"), append(rj, '\n'), 0o644); err != nil {
		return err
	}
	return writeSums(o.Out)
}

// sourceDate is the mtime of every archive member: SOURCE_DATE_EPOCH, else
// the HEAD commit's time, so a rebuild of one commit is byte-identical.
func sourceDate(root string) (time.Time, error) {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: %w", s, err)
		}
		return time.Unix(n, 0).UTC(), nil
	}
	cmd := exec.Command("git", "log", "-1", "--format=%ct")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		return time.Unix(0, 0).UTC(), nil // not a git checkout: the epoch, still fixed
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(n, 0).UTC(), nil
}

// goBuild builds cmd/kontext for one platform: static, -trimpath, no VCS
// stamp, the version set by -ldflags.
func goBuild(root, version, goos, goarch, out string) error {
	gotool := os.Getenv("GO")
	if gotool == "" {
		gotool = "go"
	}
	ld := "-s -w -buildid= -X github.com/kontext/kontext/engine.Version=" + version
	cmd := exec.Command(gotool, "build", "-trimpath", "-buildvcs=false", "-ldflags="+ld, "-o", out, "./cmd/kontext")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0", "GOFLAGS=")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building kontext for %s/%s: %w", goos, goarch, err)
	}
	return nil
}

func sorted(members []file) []file {
	out := append([]file(nil), members...)
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// dirs lists the directories the members need, parents first.
func dirs(members []file) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range members {
		for d := path.Dir(m.name); d != "."; d = path.Dir(d) {
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	sort.Strings(out)
	return out
}

func tarGz(base string, members []file, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(zw)
	hdr := func(name string, mode int64, size int64, typ byte) *tar.Header {
		return &tar.Header{Name: name, Mode: mode, Size: size, Typeflag: typ, ModTime: mtime, Format: tar.FormatPAX,
			Uid: 0, Gid: 0, Uname: "", Gname: ""}
	}
	if err := tw.WriteHeader(hdr(base+"/", 0o755, 0, tar.TypeDir)); err != nil {
		return nil, err
	}
	for _, d := range dirs(members) {
		if err := tw.WriteHeader(hdr(base+"/"+d+"/", 0o755, 0, tar.TypeDir)); err != nil {
			return nil, err
		}
	}
	for _, m := range sorted(members) {
		if err := tw.WriteHeader(hdr(base+"/"+m.name, m.mode, int64(len(m.data)), tar.TypeReg)); err != nil {
			return nil, err
		}
		if _, err := tw.Write(m.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func zipArchive(base string, members []file, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	add := func(name string, mode fs.FileMode, data []byte) error {
		h := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(mode)
		if mode.IsDir() {
			h.Method = zip.Store
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}
	if err := add(base+"/", fs.ModeDir|0o755, nil); err != nil {
		return nil, err
	}
	for _, d := range dirs(members) {
		if err := add(base+"/"+d+"/", fs.ModeDir|0o755, nil); err != nil {
			return nil, err
		}
	}
	for _, m := range sorted(members) {
		if err := add(base+"/"+m.name, fs.FileMode(m.mode), m.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeSums writes SHA256SUMS in `sha256sum -c` format over every file in
// dir (sorted).
func writeSums(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, e := range ents { // ReadDir sorts by name
		if e.IsDir() || e.Name() == "SHA256SUMS" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		s := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(s[:]), e.Name())
	}
	return os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(b.String()), 0o644)
}

// textFiles are the texts every archive carries besides the binary, by
// their slash path in the checkout: the licenses, the README and the
// guides it links to (docs/*.md), so the README's links work unpacked.
func textFiles(root string) ([]string, error) {
	guides, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	sort.Strings(guides)
	names := []string{"LICENSE-MIT", "LICENSE-APACHE", "README.md"}
	for _, g := range guides {
		names = append(names, "docs/"+filepath.Base(g))
	}
	return names, nil
}
