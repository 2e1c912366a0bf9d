// Package edge builds the edge worker's deployable directory (the worker
// module over the npm package's engine, the wasm, the knowledge bundles and
// a wrangler config) and runs it on a local workerd (`kontext edge build`,
// `kontext edge serve`). The worker itself is wasm/worker/worker.js; the
// files it needs are embedded from the review console's assets.
package edge

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
)

// BundleMajor is the bundle format major version the worker's engine reads.
const BundleMajor = 1

// CompatibilityDate is the Workers compatibility date of the generated
// configs: a date the pinned workerd supports.
const CompatibilityDate = "2025-09-01"

var repoName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`) })

// workerName is what Cloudflare accepts as a Worker name.
var workerName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$`) })

// Repo is one knowledge bundle the worker serves, by name.
type Repo struct {
	Name   string
	File   string // where the bundle was read from
	Bundle []byte // the bundle's JSON text
}

// ReadRepos reads the bundles of --bundle [NAME=]FILE arguments. Without
// NAME a repository is named by the bundle's repository name, else by the
// file's stem. Every bundle is read and checked before anything is written.
func ReadRepos(args []string) ([]Repo, error) {
	var repos []Repo
	seen := map[string]string{}
	for _, arg := range args {
		name, file := "", arg
		if i := strings.Index(arg, "="); i > 0 && !strings.ContainsAny(arg[:i], `/\`) {
			name, file = arg[:i], arg[i+1:]
			if !repoName().MatchString(name) {
				return nil, apierr.Invalid("--bundle %s: the name %q is not [A-Za-z0-9._-] (1-100 characters, starting with a letter or digit)", arg, name)
			}
		}
		if file == "" {
			return nil, apierr.Invalid("--bundle %s names no file", arg)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, apierr.Wrap(apierr.InvalidInput, err, "--bundle %s: cannot read the bundle", arg)
		}
		doc, err := checkBundle(data)
		if err != nil {
			return nil, apierr.Wrap(apierr.CodeOf(err), err, "--bundle %s", arg)
		}
		if name == "" {
			name = doc.Repository.Name
			if !repoName().MatchString(name) {
				stem := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
				if !repoName().MatchString(stem) {
					return nil, apierr.Invalid("--bundle %s: neither the bundle's repository name %q nor the file name %q is a repository name ([A-Za-z0-9._-]); name it: --bundle NAME=%s", arg, name, stem, file)
				}
				name = stem
			}
		}
		if prev, ok := seen[name]; ok {
			return nil, apierr.Invalid("two bundles are named %s (%s and %s): name them with --bundle NAME=FILE", name, prev, file)
		}
		seen[name] = file
		repos = append(repos, Repo{Name: name, File: file, Bundle: data})
	}
	return repos, nil
}

type bundleDoc struct {
	Schema     string                `json:"schema"`
	Format     string                `json:"format_version"`
	Repository struct{ Name string } `json:"repository"`
	Files      json.RawMessage       `json:"files"`
	Snapshot   string                `json:"snapshot"`
}

var bundleSchema = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^kontext\.bundle/v(\d+)$`) })

// checkBundle refuses what the worker's engine would refuse at its first
// request: not a bundle, a newer major format, no files.
func checkBundle(data []byte) (*bundleDoc, error) {
	var doc bundleDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, apierr.Wrap(apierr.InvalidInput, err, "not a kontext bundle (JSON)")
	}
	m := bundleSchema().FindStringSubmatch(doc.Schema)
	if m == nil {
		return nil, apierr.Invalid("not a kontext bundle (schema %q; want kontext.bundle/v%d: write one with kontext bundle -o FILE)", doc.Schema, BundleMajor)
	}
	if major, _ := strconv.Atoi(m[1]); major > BundleMajor {
		return nil, apierr.New("unsupported_bundle", "the bundle is format v%d (%s), newer than this kontext's worker reads (v%d): upgrade kontext", major, doc.Format, BundleMajor)
	}
	if len(doc.Files) == 0 || doc.Files[0] != '{' {
		return nil, apierr.Invalid("the bundle has no files")
	}
	// The worker answers from the bundle's compiled snapshot: without one
	// it reads (none, corrupt, another version) every isolate would parse
	// every file on its first request, beyond the Workers CPU limit.
	if doc.Snapshot == "" {
		if string(bytes.TrimSpace(doc.Files)) != "{}" {
			return nil, apierr.New(apierr.UnsupportedOperation, "the bundle carries no compiled snapshot, and the worker answers only from one (parsing every file per isolate would exceed the Workers CPU limit): write the bundle with kontext bundle -o FILE")
		}
	} else if data, err := base64.StdEncoding.DecodeString(doc.Snapshot); err != nil || !engine.PortableSnapshotReadable(data) {
		return nil, apierr.New(apierr.UnsupportedOperation, "the bundle's compiled snapshot is corrupt or was written by another kontext version (this one is %s), and the worker answers only from one it reads: write the bundle again with this kontext (kontext bundle -o FILE)", engine.Version)
	}
	return &doc, nil
}

// Options says what Build writes.
type Options struct {
	Out   string // the deployable directory
	Name  string // the Worker's name in the wrangler config
	Repos []Repo // the first is the default repository
	// StoreOnly allows no bundled repository: every one is read from the
	// KONTEXT_STORE binding (KONTEXT_STORE_REPOS).
	StoreOnly bool
	// Force writes into a non-empty directory that no edge build wrote,
	// and over files there that kontext did not write (never over an
	// edited wrangler.toml).
	Force  bool
	Assets fs.FS // engine/index.js, engine/wasm_exec.js, engine/worker/worker.js, engine/kontext.wasm(.gz)
}

// Result describes a built directory.
type Result struct {
	Dir   string
	Files []string // what the build wrote, relative, sorted (the manifest not included)
	Bytes int64    // the modules a deployment uploads
	Gzip  int64    // the same, gzip-compressed (what the Workers size limits count)
	// WranglerNew is set when wrangler.toml was edited since kontext
	// wrote it: it is kept, and the new one is wrangler.toml.new.
	WranglerNew bool
	// Notes say what the build left alone, in CLI words.
	Notes []string
}

// ManifestName is the file in which a build records what it wrote: each
// path with its sha256. A later build rewrites only those files, and
// never a wrangler.toml whose sha256 differs from the record.
const ManifestName = ".kontext-build.json"

// ManifestSchema is the manifest's schema id.
const ManifestSchema = "kontext.edge-build/v1"

// legacyManifest marked a directory written by earlier versions.
const legacyManifest = "kontext-edge.json"

// Manifest is DIR/.kontext-build.json.
type Manifest struct {
	Schema string           `json:"schema"`
	Name   string           `json:"name"`
	Repos  []map[string]any `json:"repos"`
	// Files maps each file the build wrote (slash-separated, relative to
	// the directory) to the sha256 of what it wrote, in hex.
	Files map[string]string `json:"files"`
}

// ReadManifest reads dir's manifest; ok is false when there is none.
func ReadManifest(dir string) (m *Manifest, ok bool, err error) {
	data, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, apierr.Wrap(apierr.OperationFailed, err, "reading %s", filepath.Join(dir, ManifestName))
	}
	m = &Manifest{}
	if err := json.Unmarshal(data, m); err != nil || m.Schema != ManifestSchema || m.Files == nil {
		return nil, false, apierr.Invalid("%s is not a kontext edge build manifest (%s): remove it, or pass --force to write over the directory's files", filepath.Join(dir, ManifestName), ManifestSchema)
	}
	for rel := range m.Files {
		if !safeRel(rel) {
			return nil, false, apierr.Invalid("%s names %q, which is not a path inside the directory: remove the manifest, or pass --force", filepath.Join(dir, ManifestName), rel)
		}
	}
	return m, true, nil
}

// safeRel: a relative slash path that stays inside its directory.
func safeRel(rel string) bool {
	if rel == "" || strings.HasPrefix(rel, "/") || strings.ContainsAny(rel, "\\\x00") || rel == ManifestName {
		return false
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

func sha(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// fileSHA is the sha256 of the file at p ("" when it does not exist or is
// not a regular file).
func fileSHA(p string) (string, bool) {
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		return "", err == nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "", true
	}
	return sha(data), true
}

// Build writes the deployable directory: main.js (the entry module),
// worker/worker.js, index.js, wasm_exec.js, kontext.wasm (the engine
// of the npm package and the console), repos/<name>.json and wrangler.toml, and records them with
// their sha256 in .kontext-build.json.
//
// The directory's other files are never touched. A non-empty directory
// without a manifest is refused unless Force; a file the build would write
// that exists and was not written by an earlier build is refused unless
// Force; a wrangler.toml whose sha256 differs from the manifest's (the
// user edited it) is kept and the new one written as wrangler.toml.new.
// Files an earlier build wrote that this one does not (a repository no
// longer named) are removed when unchanged. Each file is replaced
// atomically; the manifest is written last.
func Build(opts Options) (*Result, error) {
	if opts.Out == "" {
		return nil, apierr.Invalid("kontext edge build needs -o DIR")
	}
	if opts.Name == "" {
		opts.Name = "kontext-edge"
	}
	if !workerName().MatchString(opts.Name) {
		return nil, apierr.Invalid("--name %q is not a Worker name (lowercase letters, digits and dashes, at most 63)", opts.Name)
	}
	files, err := Files(opts)
	if err != nil {
		return nil, err
	}
	out := filepath.Clean(opts.Out)
	prev, err := previousBuild(out, opts.Force)
	if err != nil {
		return nil, err
	}
	res := &Result{Dir: out}
	record := map[string]string{}

	// Plan: what to write where, refusing before anything is written.
	type write struct {
		rel  string
		data []byte
	}
	var writes []write
	rels := make([]string, 0, len(files))
	for rel := range files {
		if rel != ManifestName {
			rels = append(rels, rel)
		}
	}
	sort.Strings(rels)
	for _, rel := range rels {
		data := files[rel]
		cur, exists := fileSHA(filepath.Join(out, filepath.FromSlash(rel)))
		recorded, isRecorded := prev.files[rel]
		switch {
		case exists && cur == "":
			return nil, apierr.Invalid("%s is in the way (not a regular file): move it, or build into another directory", filepath.Join(out, filepath.FromSlash(rel)))
		case rel == "wrangler.toml" && exists && cur != sha(data) && !(isRecorded && cur == recorded):
			// Edited since kontext wrote it (or never kontext's): kept.
			res.WranglerNew = true
			if isRecorded {
				record[rel] = recorded
			}
			writes = append(writes, write{"wrangler.toml.new", data})
			res.Notes = append(res.Notes, fmt.Sprintf("%s was edited since kontext wrote it: kept as it is; the new configuration is wrangler.toml.new (merge what changed, then delete it)", filepath.Join(out, "wrangler.toml")))
			continue
		case exists && cur != sha(data) && !(isRecorded && cur == recorded) && !prev.owned(rel) && !opts.Force:
			return nil, apierr.Invalid("%s exists and kontext edge build did not write it: move it, or pass --force to replace it", filepath.Join(out, filepath.FromSlash(rel)))
		}
		writes = append(writes, write{rel, data})
	}
	written := map[string]bool{}
	for _, w := range writes {
		written[w.rel] = true
	}
	// Files of the earlier build this one does not write: removed when
	// nobody changed them since.
	var stale []string
	for rel, recorded := range prev.files {
		if _, ok := files[rel]; ok || written[rel] {
			continue
		}
		p := filepath.Join(out, filepath.FromSlash(rel))
		cur, exists := fileSHA(p)
		switch {
		case !exists:
		case cur == recorded || prev.legacy:
			stale = append(stale, rel)
		default:
			res.Notes = append(res.Notes, fmt.Sprintf("%s was written by an earlier build and edited since: kept (delete it if it is not needed)", p))
		}
	}
	sort.Strings(stale)

	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "creating %s", out)
	}
	for _, w := range writes {
		if err := writeAtomic(out, w.rel, w.data); err != nil {
			return nil, err
		}
		record[w.rel] = sha(w.data)
		res.Files = append(res.Files, w.rel)
	}
	for _, rel := range stale {
		p := filepath.Join(out, filepath.FromSlash(rel))
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "removing %s of the earlier build", p)
		}
		// Directories the earlier build made and nothing else uses.
		for d := filepath.Dir(p); d != out && strings.HasPrefix(d, out+string(filepath.Separator)); d = filepath.Dir(d) {
			if os.Remove(d) != nil {
				break
			}
		}
	}
	if prev.legacy {
		os.Remove(filepath.Join(out, legacyManifest))
	}
	m := Manifest{Schema: ManifestSchema, Name: opts.Name, Repos: manifestRepos(opts.Repos), Files: record}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := writeAtomic(out, ManifestName, append(data, '\n')); err != nil {
		return nil, err
	}
	sort.Strings(res.Files)
	return describe(res, files)
}

// previous is what an earlier build left in the directory.
type previous struct {
	files map[string]string // recorded path -> sha256
	// legacy: a directory an earlier kontext wrote (kontext-edge.json, no
	// hashes): the files it names as its own are kontext's.
	legacy      bool
	legacyFiles map[string]bool
}

// owned: a path the earlier build wrote (recorded, or named by a legacy
// build).
func (p previous) owned(rel string) bool {
	if _, ok := p.files[rel]; ok {
		return true
	}
	return p.legacyFiles[rel]
}

// previousBuild reads the manifest of out, and refuses a non-empty
// directory without one unless force.
func previousBuild(out string, force bool) (previous, error) {
	prev := previous{files: map[string]string{}}
	fi, err := os.Stat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return prev, nil
	}
	if err != nil {
		return prev, apierr.Wrap(apierr.InvalidInput, err, "-o %s", out)
	}
	if !fi.IsDir() {
		return prev, apierr.Invalid("-o %s is a file, not a directory", out)
	}
	m, ok, err := ReadManifest(out)
	if err != nil && !force {
		return prev, err
	}
	if ok {
		prev.files = m.Files
		return prev, nil
	}
	if data, err := os.ReadFile(filepath.Join(out, legacyManifest)); err == nil {
		var lm struct {
			Schema string `json:"schema"`
			Repos  []struct {
				File string `json:"file"`
			} `json:"repos"`
		}
		if json.Unmarshal(data, &lm) == nil && lm.Schema == "kontext.edge/v1" {
			prev.legacy = true
			prev.legacyFiles = map[string]bool{"main.js": true, "worker/worker.js": true, "index.js": true, "wasm_exec.js": true, "kontext-reader.wasm": true}
			for _, r := range lm.Repos {
				if safeRel(r.File) && strings.HasPrefix(r.File, "repos/") {
					prev.legacyFiles[r.File] = true
					prev.files[r.File] = "" // removed if no longer built
				}
			}
			return prev, nil
		}
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		return prev, apierr.Wrap(apierr.InvalidInput, err, "-o %s", out)
	}
	if len(ents) > 0 && !force {
		return prev, apierr.Invalid("-o %s is not empty and has no %s (kontext edge build did not write it): name a new or empty directory, or pass --force to add kontext's files to it (the others are kept)", out, ManifestName)
	}
	return prev, nil
}

func manifestRepos(repos []Repo) []map[string]any {
	out := []map[string]any{}
	for i, r := range repos {
		out = append(out, map[string]any{"name": r.Name, "file": "repos/" + r.Name + ".json", "default": i == 0})
	}
	return out
}

// writeAtomic writes dir/rel through a temporary file beside it and a
// rename.
func writeAtomic(dir, rel string, data []byte) error {
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "writing %s", p)
	}
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".*.tmp")
	if err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "writing %s", p)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), p)
	}
	if err != nil {
		os.Remove(f.Name())
		return apierr.Wrap(apierr.OperationFailed, err, "writing %s", p)
	}
	return nil
}

// Files returns the deployable directory's files by relative path.
func Files(opts Options) (map[string][]byte, error) {
	if len(opts.Repos) == 0 && !opts.StoreOnly {
		return nil, apierr.Invalid("name at least one bundle: --bundle [NAME=]FILE (write one with kontext bundle -o FILE)")
	}
	files := map[string][]byte{}
	for _, f := range []struct{ asset, out string }{
		{"engine/index.js", "index.js"},
		{"engine/wasm_exec.js", "wasm_exec.js"},
		{"engine/worker/worker.js", "worker/worker.js"},
	} {
		data, err := fs.ReadFile(opts.Assets, f.asset)
		if err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "this kontext has no edge worker built in (%s; run make assets)", f.asset)
		}
		files[f.out] = data
	}
	wasm, err := engineWasm(opts.Assets)
	if err != nil {
		return nil, err
	}
	files["kontext.wasm"] = wasm
	var imports, list strings.Builder
	for i, r := range opts.Repos {
		files["repos/"+r.Name+".json"] = r.Bundle
		fmt.Fprintf(&imports, "import repo%d from \"./repos/%s.json\";\n", i, r.Name)
		fmt.Fprintf(&list, "    { name: %q, bundle: repo%d },\n", r.Name, i)
	}
	files["main.js"] = []byte("// Generated by kontext edge build: the edge worker's entry module.\n" +
		"// The repositories are bundled as Text modules; the first is the default.\n" +
		"import wasm from \"./kontext.wasm\";\n" +
		"import { createWorker } from \"./worker/worker.js\";\n" +
		imports.String() +
		"\nexport default createWorker({\n  wasm,\n  repos: [\n" + list.String() + "  ],\n});\n")
	files["wrangler.toml"] = []byte(wranglerConfig(opts.Name))
	return files, nil
}

func wranglerConfig(name string) string {
	return `# Generated by kontext edge build. Deploy: npx wrangler deploy (from this directory).
name = "` + name + `"
main = "main.js"
compatibility_date = "` + CompatibilityDate + `"
# The modules are uploaded as they are (no bundler): the engine's wasm is
# imported as a module binding and each repository's bundle as a Text module.
no_bundle = true
find_additional_modules = true
rules = [
  { type = "ESModule", globs = ["**/*.js"] },
  { type = "CompiledWasm", globs = ["**/*.wasm"] },
  { type = "Text", globs = ["repos/*.json"] },
]

# Optional settings (README "Edge worker"):
# [vars]
# KONTEXT_CORS_ORIGINS = "https://console.example.com"   # or "*"
# KONTEXT_STORE_REPOS = "app,infra"                      # bundles read from KONTEXT_STORE
#
# [[kv_namespaces]]                                      # or [[r2_buckets]] bucket_name = "…"
# binding = "KONTEXT_STORE"
# id = "<namespace id>"
#
# A bearer token: npx wrangler secret put KONTEXT_TOKEN
`
}

// engineWasm is the built-in engine (the console's), uncompressed.
func engineWasm(assets fs.FS) ([]byte, error) {
	if z, err := fs.ReadFile(assets, "engine/kontext.wasm.gz"); err == nil {
		zr, err := gzip.NewReader(bytes.NewReader(z))
		if err != nil {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "the built-in engine is not gzip")
		}
		return io.ReadAll(zr)
	}
	data, err := fs.ReadFile(assets, "engine/kontext.wasm")
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "this kontext has no engine built in (run make assets)")
	}
	return data, nil
}

// describe adds the upload's sizes: every built file but wrangler.toml.
func describe(res *Result, files map[string][]byte) (*Result, error) {
	var buf bytes.Buffer
	var mods []string
	for rel, data := range files {
		if rel == "wrangler.toml" {
			continue
		}
		mods = append(mods, rel)
		res.Bytes += int64(len(data))
	}
	sort.Strings(mods)
	// The Workers limits count the upload compressed: one gzip stream of the
	// modules in a fixed order gives a stable, slightly pessimistic figure.
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	for _, rel := range mods {
		zw.Write(files[rel])
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	res.Gzip = int64(buf.Len())
	return res, nil
}
