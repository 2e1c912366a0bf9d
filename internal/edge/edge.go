// Package edge builds the edge worker's deployable directory (the worker
// module over the npm package's engine, the wasm, the knowledge bundles and
// a wrangler config) and runs it on a local workerd (`kontext edge build`,
// `kontext edge serve`). The worker itself is wasm/worker/worker.js; the
// files it needs are embedded from the review console's assets.
package edge

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
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
	Assets    fs.FS // engine/index.js, engine/wasm_exec.js, engine/worker/worker.js, engine/kontext.wasm(.gz)
}

// Result describes a built directory.
type Result struct {
	Dir   string
	Files []string // relative, sorted
	Bytes int64    // the modules a deployment uploads
	Gzip  int64    // the same, gzip-compressed (what the Workers size limits count)
}

// manifestName marks a directory kontext edge build wrote (and may replace).
const manifestName = "kontext-edge.json"

// Build writes the deployable directory: main.js (the entry module),
// worker/worker.js, index.js, wasm_exec.js, kontext.wasm (the engine of
// the npm package and the console), repos/<name>.json
// and wrangler.toml. An existing directory is replaced only when it is
// empty or an earlier edge build; the new one is complete before it
// replaces the old.
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
	if err := checkTarget(out); err != nil {
		return nil, err
	}
	parent := filepath.Dir(out)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "creating %s", parent)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(out)+".tmp-")
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "creating a directory next to %s", out)
	}
	defer os.RemoveAll(tmp)
	if err := writeFiles(tmp, files); err != nil {
		return nil, err
	}
	if err := replaceDir(tmp, out); err != nil {
		return nil, err
	}
	return describe(out, files)
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
	manifest := map[string]any{"schema": "kontext.edge/v1", "name": opts.Name}
	var mrepos []map[string]any
	for i, r := range opts.Repos {
		files["repos/"+r.Name+".json"] = r.Bundle
		fmt.Fprintf(&imports, "import repo%d from \"./repos/%s.json\";\n", i, r.Name)
		fmt.Fprintf(&list, "    { name: %q, bundle: repo%d },\n", r.Name, i)
		mrepos = append(mrepos, map[string]any{"name": r.Name, "file": "repos/" + r.Name + ".json", "default": i == 0})
	}
	if mrepos == nil {
		mrepos = []map[string]any{}
	}
	manifest["repos"] = mrepos
	files["main.js"] = []byte("// Generated by kontext edge build: the edge worker's entry module.\n" +
		"// The repositories are bundled as Text modules; the first is the default.\n" +
		"import wasm from \"./kontext.wasm\";\n" +
		"import { createWorker } from \"./worker/worker.js\";\n" +
		imports.String() +
		"\nexport default createWorker({\n  wasm,\n  repos: [\n" + list.String() + "  ],\n});\n")
	files["wrangler.toml"] = []byte(wranglerConfig(opts.Name))
	m, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		return nil, err
	}
	files[manifestName] = append(m, '\n')
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

func checkTarget(out string) error {
	fi, err := os.Stat(out)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return apierr.Wrap(apierr.InvalidInput, err, "-o %s", out)
	}
	if !fi.IsDir() {
		return apierr.Invalid("-o %s is a file, not a directory", out)
	}
	ents, err := os.ReadDir(out)
	if err != nil {
		return apierr.Wrap(apierr.InvalidInput, err, "-o %s", out)
	}
	if len(ents) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Join(out, manifestName)); err != nil {
		return apierr.Invalid("-o %s is a directory kontext edge build did not write (no %s); name a new or empty directory", out, manifestName)
	}
	return nil
}

func writeFiles(dir string, files map[string][]byte) error {
	for rel, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return apierr.Wrap(apierr.OperationFailed, err, "writing %s", rel)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return apierr.Wrap(apierr.OperationFailed, err, "writing %s", rel)
		}
	}
	return nil
}

// replaceDir moves the complete new directory into place; an earlier
// build is moved aside first and removed after.
func replaceDir(tmp, out string) error {
	old := ""
	if _, err := os.Stat(out); err == nil {
		old = tmp + ".old"
		if err := os.Rename(out, old); err != nil {
			return apierr.Wrap(apierr.OperationFailed, err, "replacing %s", out)
		}
	}
	if err := os.Rename(tmp, out); err != nil {
		if old != "" {
			os.Rename(old, out)
		}
		return apierr.Wrap(apierr.OperationFailed, err, "writing %s", out)
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return nil
}

func describe(dir string, files map[string][]byte) (*Result, error) {
	res := &Result{Dir: dir}
	var buf bytes.Buffer
	for rel, data := range files {
		res.Files = append(res.Files, rel)
		if rel == "wrangler.toml" || rel == manifestName {
			continue
		}
		res.Bytes += int64(len(data))
	}
	sort.Strings(res.Files)
	// The Workers limits count the upload compressed: one gzip stream of the
	// modules in a fixed order gives a stable, slightly pessimistic figure.
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	for _, rel := range res.Files {
		if rel == "wrangler.toml" || rel == manifestName {
			continue
		}
		zw.Write(files[rel])
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	res.Gzip = int64(buf.Len())
	return res, nil
}
