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
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kontext/kontext/internal/testrepo"
)

// The release the tests read, built once for the package (a build is a
// cross-build of kontext per platform): the host platform's archive and
// the Windows .zip of version 1.2.3, with a stand-in npm tarball, from
// SOURCE_DATE_EPOCH releaseEpoch. Tests copy what they change.
var shared struct {
	once       sync.Once
	dir, dist  string // dir holds dist and the npm tarball; TestMain removes it
	npm        string
	err        error
	target     string
	targets    []string
	sourceDate time.Time
}

const (
	releaseEpoch = 1767225600
	windows      = "windows/amd64"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// sharedRelease returns the dist directory of the shared release.
func sharedRelease(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("cross-builds kontext")
	}
	shared.once.Do(func() {
		shared.target = runtime.GOOS + "/" + runtime.GOARCH
		shared.targets = []string{shared.target, windows}
		shared.sourceDate = time.Unix(releaseEpoch, 0).UTC()
		if shared.dir, shared.err = os.MkdirTemp("", "kontext-release-test-"); shared.err != nil {
			return
		}
		shared.npm = filepath.Join(shared.dir, "kontext-engine-1.2.3.tgz")
		if shared.err = os.WriteFile(shared.npm, []byte("not really a package, only bytes to checksum"), 0o644); shared.err != nil {
			return
		}
		shared.dist = filepath.Join(shared.dir, "dist")
		old, had := os.LookupEnv("SOURCE_DATE_EPOCH")
		os.Setenv("SOURCE_DATE_EPOCH", strconv.Itoa(releaseEpoch))
		shared.err = Build(Options{Version: "v1.2.3", Out: shared.dist, Targets: shared.targets, NPM: shared.npm, Root: testrepo.Root()})
		if had {
			os.Setenv("SOURCE_DATE_EPOCH", old)
		} else {
			os.Unsetenv("SOURCE_DATE_EPOCH")
		}
	})
	if shared.err != nil {
		t.Fatal(shared.err)
	}
	return shared.dist
}

// TestRelease checks the shared release (the host platform's archive and
// the Windows .zip): it unpacks both, checks their manifests and
// SHA256SUMS against the bytes, runs the unpacked host binary (--version
// and an API call), and checks that the release is reproducible: the host
// binary built again is the same bytes, and the same binaries packed again
// give the same archives, manifest and sums. Only these two targets are
// built: the other platforms go through the same code.
func TestRelease(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the test unpacks the .tar.gz of a Unix host")
	}
	dist := sharedRelease(t)
	base := fmt.Sprintf("kontext_1.2.3_%s_%s", runtime.GOOS, runtime.GOARCH)
	archive := filepath.Join(dist, base+".tar.gz")

	// SHA256SUMS covers the archive, the npm tarball and the release manifest.
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	listed := 0
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok {
			t.Fatalf("SHA256SUMS line %q", line)
		}
		if got := sha256Hex(t, filepath.Join(dist, name)); got != sum {
			t.Errorf("SHA256SUMS: %s is %s, listed %s", name, got, sum)
		}
		listed++
	}
	if listed != 4 {
		t.Errorf("SHA256SUMS lists %d files, want the two archives, the npm tarball and manifest.json:\n%s", listed, sums)
	}
	if sumCmd, err := exec.LookPath("sha256sum"); err == nil {
		c := exec.Command(sumCmd, "-c", "SHA256SUMS")
		c.Dir = dist
		if out, err := c.CombinedOutput(); err != nil {
			t.Errorf("sha256sum -c: %v\n%s", err, out)
		}
	}

	// Unpack and check the manifest against the binary.
	files := untar(t, archive, t.TempDir())
	for _, want := range []string{"kontext", "manifest.json", "LICENSE-MIT", "LICENSE-APACHE", "README.md",
		"completions/kontext.bash", "completions/_kontext", "completions/kontext.fish", "completions/kontext.ps1", "man/kontext.1", "man/kontext-governing.1"} {
		if _, ok := files[base+"/"+want]; !ok {
			t.Errorf("archive lacks %s/%s", base, want)
		}
	}
	dir := filepath.Dir(files[base+"/kontext"])
	var m Manifest
	mj, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(mj, &m); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "kontext")
	info, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "kontext" || m.Version != "1.2.3" || m.APIVersion != 1 || m.OS != runtime.GOOS || m.Arch != runtime.GOARCH {
		t.Errorf("manifest %+v", m)
	}
	if m.Size != info.Size() || m.SHA256 != sha256Hex(t, bin) {
		t.Errorf("manifest says %d bytes sha256 %s; the binary is %d bytes sha256 %s", m.Size, m.SHA256, info.Size(), sha256Hex(t, bin))
	}
	if info.Mode().Perm()&0o111 == 0 {
		t.Errorf("the archived binary is not executable: %v", info.Mode())
	}

	// The unpacked binary runs: --version and one API call.
	out, err := exec.Command(bin, "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "kontext 1.2.3 (api 1)" {
		t.Errorf("kontext --version: %q %v", out, err)
	}
	testrepo.Env(t)
	repo := t.TempDir()
	testrepo.Git(t, repo, "init", "-q")
	c := exec.Command(bin, "-C", repo, "api", "status")
	out, err = c.Output()
	var env struct {
		OK     bool `json:"ok"`
		Result struct {
			Version string `json:"version"`
		} `json:"result"`
	}
	if err != nil || json.Unmarshal(out, &env) != nil || !env.OK || env.Result.Version != "1.2.3" {
		t.Errorf("kontext api status: %v\n%s", err, out)
	}

	// The Windows .zip: the same members, and a manifest that matches the
	// kontext.exe inside.
	winBase := "kontext_1.2.3_windows_amd64"
	zipFiles := unzip(t, filepath.Join(dist, winBase+".zip"))
	for _, want := range []string{"kontext.exe", "manifest.json", "LICENSE-MIT", "LICENSE-APACHE", "README.md",
		"completions/kontext.bash", "completions/_kontext", "completions/kontext.fish", "completions/kontext.ps1", "man/kontext.1", "man/kontext-governing.1"} {
		if _, ok := zipFiles[winBase+"/"+want]; !ok {
			t.Errorf("zip lacks %s/%s", winBase, want)
		}
	}
	var wm Manifest
	if err := json.Unmarshal(zipFiles[winBase+"/manifest.json"], &wm); err != nil {
		t.Fatalf("zip manifest: %v", err)
	}
	exe := zipFiles[winBase+"/kontext.exe"]
	exeSum := sha256.Sum256(exe)
	if wm.Name != "kontext" || wm.Version != "1.2.3" || wm.APIVersion != 1 || wm.OS != "windows" || wm.Arch != "amd64" ||
		wm.Binary != winBase+"/kontext.exe" || wm.Archive != winBase+".zip" {
		t.Errorf("zip manifest %+v", wm)
	}
	if wm.Size != int64(len(exe)) || wm.SHA256 != hex.EncodeToString(exeSum[:]) {
		t.Errorf("zip manifest says %d bytes sha256 %s; kontext.exe is %d bytes sha256 %x", wm.Size, wm.SHA256, len(exe), exeSum)
	}
	if len(exe) < 2 || string(exe[:2]) != "MZ" {
		t.Errorf("kontext.exe is not a Windows executable")
	}
	var rel Release
	if rj, err := os.ReadFile(filepath.Join(dist, "manifest.json")); err != nil || json.Unmarshal(rj, &rel) != nil {
		t.Fatalf("dist/manifest.json: %v", err)
	}
	if len(rel.Archives) != 2 {
		t.Fatalf("dist/manifest.json lists %d archives", len(rel.Archives))
	}
	for _, a := range rel.Archives {
		if a.ArchiveSHA256 != sha256Hex(t, filepath.Join(dist, a.Archive)) {
			t.Errorf("dist/manifest.json: %s archive_sha256 differs from the file", a.Archive)
		}
		if a.OS == "windows" && a.Manifest != wm {
			t.Errorf("dist/manifest.json has %+v for the zip, the zip's own manifest says %+v", a.Manifest, wm)
		}
	}

	// Reproducible: the host binary built again from the same sources is
	// the same bytes (-trimpath, no VCS stamp, no build id) …
	again := filepath.Join(t.TempDir(), "kontext")
	if err := goBuild(testrepo.Root(), "1.2.3", runtime.GOOS, runtime.GOARCH, again); err != nil {
		t.Fatal(err)
	}
	if sha256Hex(t, again) != sha256Hex(t, bin) {
		t.Errorf("kontext differs between two builds of the same sources")
	}
	// … and packing the same binaries and documents again gives the same
	// archives, manifest and sums.
	hostBin, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	var docs []file
	for name, p := range files {
		rel := strings.TrimPrefix(name, base+"/")
		if rel == "kontext" || rel == "manifest.json" {
			continue
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, file{rel, data, 0o644})
	}
	repacked := t.TempDir()
	if err := pack(Options{Version: "1.2.3", Out: repacked, Targets: shared.targets, NPM: shared.npm}, shared.sourceDate, docs,
		map[string][]byte{shared.target: hostBin, windows: exe}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{base + ".tar.gz", winBase + ".zip", "manifest.json", "SHA256SUMS"} {
		if sha256Hex(t, filepath.Join(dist, name)) != sha256Hex(t, filepath.Join(repacked, name)) {
			t.Errorf("%s differs between two packings of the same binaries", name)
		}
	}
}

func sha256Hex(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// untar unpacks a .tar.gz into dir and returns name → path of its files.
func untar(t *testing.T, archive, dir string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(archive)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	files := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(p, dir+string(filepath.Separator)) {
			t.Fatalf("archive member %q leaves the directory", h.Name)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		case tar.TypeReg:
			body, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, body, os.FileMode(h.Mode)); err != nil {
				t.Fatal(err)
			}
			files[h.Name] = p
		default:
			t.Fatalf("archive member %q has type %c", h.Name, h.Typeflag)
		}
	}
}

// unzip reads a .zip and returns name → content of its files, refusing a
// member that would leave its directory.
func unzip(t *testing.T, archive string) map[string][]byte {
	t.Helper()
	zr, err := zip.OpenReader(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	files := map[string][]byte{}
	for _, f := range zr.File {
		if strings.HasPrefix(f.Name, "/") || strings.Contains(f.Name, "..") || strings.Contains(f.Name, "\\") {
			t.Fatalf("zip member %q leaves the directory", f.Name)
		}
		if f.FileInfo().IsDir() {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		files[f.Name] = data
	}
	return files
}
