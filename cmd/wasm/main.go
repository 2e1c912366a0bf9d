//go:build js && wasm

// Command wasm is kontext's engine as WebAssembly (the npm package
// @kontext/engine, wasm/). It registers one versioned table of synchronous
// functions on globalThis.__kontext_v1; every function takes JSON strings
// (and handles) and returns a JSON envelope string, the same envelope as the
// CLI. Knowledge bases live in a handle table, each over an in-memory
// go-billy filesystem.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall/js"
	"time"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
)

// ABI is the version of the function table; it is part of the global's
// name (__kontext_v1).
const ABI = 1

// global is where the table is registered.
const global = "__kontext_v1"

// function is one row of the table: it receives the JS arguments and
// returns the envelope bytes or an error.
type function struct {
	name string
	run  func(args []js.Value) (any, error)
}

// functions is the one table of what JS can call (filled in init: abi
// reads it back).
var functions []function

func init() {
	functions = []function{
		{"abi", abi},
		{"open", open},
		{"update", update},
		{"close", closeKB},
		{"request", request},
		{"changed", changed},
		{"inspect", inspect},
		{"render", render},
		{"layout", layout},
	}
}

// kb is one open knowledge base.
type kb struct {
	fs *stableFS
	e  *engine.Engine
}

var (
	mu      sync.Mutex
	handles = map[int]*kb{}
	next    = 1
)

func main() {
	table := js.Global().Get("Object").New()
	for _, f := range functions {
		f := f
		table.Set(f.name, js.FuncOf(func(_ js.Value, args []js.Value) any { return string(call(f, args)) }))
	}
	js.Global().Set(global, table)
	select {}
}

// call runs f and encodes its answer; a panic becomes operation_failed.
func call(f function, args []js.Value) (out []byte) {
	defer func() {
		if r := recover(); r != nil {
			out = engine.ErrorEnvelope(apierr.New(apierr.OperationFailed, "internal error in %s: %v; please report it with the input", f.name, r))
		}
	}()
	res, err := f.run(args)
	if err != nil {
		return engine.ErrorEnvelope(err)
	}
	if raw, ok := res.([]byte); ok { // already an envelope
		return raw
	}
	return engine.ResultEnvelope(res)
}

// arg returns argument i (undefined when absent).
func arg(args []js.Value, i int) js.Value {
	if i < len(args) {
		return args[i]
	}
	return js.Undefined()
}

// jsonArg is argument i as a JSON document ("" for undefined or null).
func jsonArg(args []js.Value, i int, name string) ([]byte, error) {
	v := arg(args, i)
	switch v.Type() {
	case js.TypeUndefined, js.TypeNull:
		return nil, nil
	case js.TypeString:
		return []byte(v.String()), nil
	}
	return nil, apierr.Invalid("%s must be a JSON string, got a %s", name, v.Type())
}

// stringArg is argument i as a string; null and undefined are absent.
func stringArg(args []js.Value, i int, name string) (string, bool, error) {
	v := arg(args, i)
	switch v.Type() {
	case js.TypeUndefined, js.TypeNull:
		return "", false, nil
	case js.TypeString:
		return v.String(), true, nil
	}
	return "", false, apierr.Invalid("%s must be a string, got a %s", name, v.Type())
}

// handleArg looks up the knowledge base of argument i.
func handleArg(args []js.Value, i int, name string) (int, *kb, error) {
	v := arg(args, i)
	h := 0
	switch v.Type() {
	case js.TypeNumber:
		h = v.Int()
	case js.TypeString:
		n, err := strconv.Atoi(v.String())
		if err != nil {
			return 0, nil, apierr.Invalid("%s must be a knowledge-base handle, got %q", name, v.String())
		}
		h = n
	default:
		return 0, nil, apierr.Invalid("%s must be a knowledge-base handle, got a %s", name, v.Type())
	}
	mu.Lock()
	defer mu.Unlock()
	k, ok := handles[h]
	if !ok {
		return 0, nil, apierr.New(apierr.NotFound, "%s: no open knowledge base has handle %d (closed?)", name, h)
	}
	return h, k, nil
}

// decode reads one strict JSON object into v.
func decode(doc []byte, name string, v any) error {
	if len(bytes.TrimSpace(doc)) == 0 {
		doc = []byte("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return apierr.Invalid("%s: field %s must be %s, got %s", name, ute.Field, ute.Type, ute.Value)
		}
		return apierr.Invalid("%s is not a valid JSON object: %v", name, err)
	}
	if dec.More() {
		return apierr.Invalid("%s must be one JSON object", name)
	}
	return nil
}

// cleanPath makes a file name of the file set repo-relative; it refuses
// absolute paths and paths that leave the root.
func cleanPath(p string) (string, error) {
	q := strings.ReplaceAll(p, "\\", "/")
	if strings.HasPrefix(q, "/") {
		return "", apierr.Invalid("file %q must be relative to the knowledge base root", p)
	}
	q = path.Clean(q)
	if q == "." || q == ".." || strings.HasPrefix(q, "../") {
		return "", apierr.Invalid("file %q is not a file inside the knowledge base", p)
	}
	return q, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func writeFiles(fs *stableFS, files map[string]string) ([]string, error) {
	var written []string
	for _, name := range sortedKeys(files) {
		p, err := cleanPath(name)
		if err != nil {
			return written, err
		}
		if err := util.WriteFile(fs, p, []byte(files[name]), 0o644); err != nil {
			return written, apierr.Wrap(apierr.OperationFailed, err, "writing %s", p)
		}
		fs.touch(p)
		written = append(written, p)
	}
	return written, nil
}

// packedFiles adds the files packed in buf to files: for each file a
// little-endian u32 path length, u32 text length, the path's and the
// text's UTF-8 bytes. The texts are slices of buf.
func packedFiles(buf []byte, files map[string][]byte) error {
	for len(buf) > 0 {
		if len(buf) < 8 {
			return apierr.Invalid("open: the packed files are truncated")
		}
		pl, tl := le32(buf), le32(buf[4:])
		buf = buf[8:]
		if uint64(pl)+uint64(tl) > uint64(len(buf)) {
			return apierr.Invalid("open: the packed files are truncated")
		}
		files[string(buf[:pl])] = buf[pl : pl+tl : pl+tl]
		buf = buf[pl+tl:]
	}
	return nil
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

type openInput struct {
	Files    map[string]string `json:"files"`
	Revision *string           `json:"revision"`
	Now      *string           `json:"now"`
	// Immutable: requests do not list or stat the files again; update is
	// the only way they change.
	Immutable bool `json:"immutable"`
}

// OpenResult is open's result.
type OpenResult struct {
	Handle int `json:"handle"`
}

// open(inputJSON, snapshot?, files?) loads a file set {files, revision?,
// now?, immutable?} into a new knowledge base and returns its handle.
// snapshot (a Uint8Array) is a bundle's compiled snapshot, used wherever
// the files are the ones it was built from. files (a Uint8Array, see
// packedFiles) carries the file texts packed; the package sends them that
// way, not in the JSON, because decoding megabytes of JSON strings is the
// slowest part of opening a bundle in WASM.
func open(args []js.Value) (any, error) {
	doc, err := jsonArg(args, 0, "open input")
	if err != nil {
		return nil, err
	}
	var in openInput
	if err := decode(doc, "open input", &in); err != nil {
		return nil, err
	}
	raw := make(map[string][]byte, len(in.Files))
	for name, text := range in.Files {
		raw[name] = []byte(text)
	}
	if v := arg(args, 2); v.Type() == js.TypeObject && v.InstanceOf(js.Global().Get("Uint8Array")) {
		buf := make([]byte, v.Length())
		js.CopyBytesToGo(buf, v)
		if err := packedFiles(buf, raw); err != nil {
			return nil, err
		}
	}
	names := make([]string, 0, len(raw))
	for name := range raw {
		names = append(names, name)
	}
	sort.Strings(names)
	files := make(map[string][]byte, len(raw))
	for _, name := range names {
		p, err := cleanPath(name)
		if err != nil {
			return nil, err
		}
		files[p] = raw[name]
	}
	fs := newStableFS(newPackedFS(files))
	for _, name := range names {
		p, _ := cleanPath(name)
		fs.touch(p)
	}
	opts := engine.Options{FS: fs, Surface: engine.Snapshot, Immutable: in.Immutable}
	if in.Revision != nil {
		opts.Revision = *in.Revision
	}
	if in.Now != nil {
		t, err := time.Parse(time.RFC3339, *in.Now)
		if err != nil {
			return nil, apierr.Invalid("now %q is not an RFC 3339 time such as 2026-01-02T15:04:05Z", *in.Now)
		}
		opts.Now = func() time.Time { return t }
	}
	k := &kb{fs: fs, e: engine.New(opts)}
	if v := arg(args, 1); v.Type() == js.TypeObject && v.InstanceOf(js.Global().Get("Uint8Array")) {
		snap := make([]byte, v.Length())
		js.CopyBytesToGo(snap, v)
		k.e.UsePortableSnapshot(snap)
	}
	mu.Lock()
	h := next
	next++
	handles[h] = k
	mu.Unlock()
	return &OpenResult{Handle: h}, nil
}

type updateInput struct {
	Files    map[string]string `json:"files"`
	Remove   []string          `json:"remove"`
	Revision *string           `json:"revision"`
}

// UpdateResult is update's result.
type UpdateResult struct {
	Written []string `json:"written"`
	Removed []string `json:"removed"`
}

// update(handle, inputJSON) writes and removes files {files?, remove?,
// revision?}; the engine forgets their cached parses (memfs stat data
// cannot be trusted for invalidation).
func update(args []js.Value) (any, error) {
	_, k, err := handleArg(args, 0, "handle")
	if err != nil {
		return nil, err
	}
	doc, err := jsonArg(args, 1, "update input")
	if err != nil {
		return nil, err
	}
	var in updateInput
	if err := decode(doc, "update input", &in); err != nil {
		return nil, err
	}
	if err := k.fs.writable(); err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "update: copying the files to a writable filesystem")
	}
	res := &UpdateResult{Written: []string{}, Removed: []string{}}
	written, err := writeFiles(k.fs, in.Files)
	res.Written = append(res.Written, written...)
	defer func() { k.e.Forget(append(append([]string{}, res.Written...), res.Removed...)...) }()
	if err != nil {
		return nil, err
	}
	for _, name := range in.Remove {
		p, err := cleanPath(name)
		if err != nil {
			return nil, err
		}
		if err := util.RemoveAll(k.fs, p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, apierr.Wrap(apierr.OperationFailed, err, "removing %s", p)
		}
		k.fs.forget(p)
		res.Removed = append(res.Removed, p)
	}
	if in.Revision != nil {
		k.e.SetRevision(*in.Revision)
	}
	return res, nil
}

// closeKB(handle) drops a knowledge base.
func closeKB(args []js.Value) (any, error) {
	h, _, err := handleArg(args, 0, "handle")
	if err != nil {
		return nil, err
	}
	mu.Lock()
	delete(handles, h)
	mu.Unlock()
	return map[string]bool{"closed": true}, nil
}

// request(handle, operation, inputJSON) is Engine.Request.
func request(args []js.Value) (any, error) {
	_, k, err := handleArg(args, 0, "handle")
	if err != nil {
		return nil, err
	}
	op, ok, err := stringArg(args, 1, "operation")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apierr.Invalid("operation is required")
	}
	doc, err := jsonArg(args, 2, "input")
	if err != nil {
		return nil, err
	}
	return k.e.Request(context.Background(), op, doc), nil
}

// changed(baseHandle, headHandle): entries changed between two snapshots.
func changed(args []js.Value) (any, error) {
	_, base, err := handleArg(args, 0, "base")
	if err != nil {
		return nil, err
	}
	_, head, err := handleArg(args, 1, "head")
	if err != nil {
		return nil, err
	}
	return engine.Changed(context.Background(), base.e, head.e), nil
}

// inspect(path, text, configText|null, storage?) is
// PolicyFromConfig(storage, configText).Inspect(path, text).
func inspect(args []js.Value) (any, error) {
	p, ok, err := stringArg(args, 0, "path")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apierr.Invalid("path is required")
	}
	text, ok, err := stringArg(args, 1, "text")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apierr.Invalid("text is required")
	}
	cfg, hasCfg, err := stringArg(args, 2, "config")
	if err != nil {
		return nil, err
	}
	storage, _, err := stringArg(args, 3, "storage")
	if err != nil {
		return nil, err
	}
	var cfgText []byte
	if hasCfg {
		cfgText = []byte(cfg)
	}
	policy, err := engine.PolicyFromConfig(storage, cfgText)
	if err != nil {
		return nil, err
	}
	return policy.Inspect(p, []byte(text))
}

// LayoutResult is layout's result: the policy's layout and, when paths were
// given, those of them it reads as entry files.
type LayoutResult struct {
	engine.Layout
	Reads []string `json:"reads"`
}

// layout(configText|null, pathsJSON|null) tells a loader what to read to
// open a knowledge base from a directory: config candidates, storage,
// sources, overlay and ledger paths, and which of the given paths are entry
// files (so no JS reimplements the config's source resolution).
func layout(args []js.Value) (any, error) {
	cfg, hasCfg, err := stringArg(args, 0, "config")
	if err != nil {
		return nil, err
	}
	var cfgText []byte
	if hasCfg {
		cfgText = []byte(cfg)
	}
	policy, err := engine.PolicyFromConfig("", cfgText)
	if err != nil {
		return nil, err
	}
	out := &LayoutResult{Layout: policy.Layout(), Reads: []string{}}
	doc, err := jsonArg(args, 1, "paths")
	if err != nil {
		return nil, err
	}
	if doc != nil {
		var paths []string
		if err := json.Unmarshal(doc, &paths); err != nil {
			return nil, apierr.Invalid("paths must be a JSON array of strings: %v", err)
		}
		for _, p := range paths {
			if policy.Reads(p) {
				out.Reads = append(out.Reads, p)
			}
		}
	}
	return out, nil
}

// render(markdown) is RenderMarkdown: {html, plain}.
func render(args []js.Value) (any, error) {
	src, ok, err := stringArg(args, 0, "markdown")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apierr.Invalid("markdown is required")
	}
	return engine.RenderMarkdown(src), nil
}

// ABIResult is abi's result.
type ABIResult struct {
	ABI        int      `json:"abi"`
	Version    string   `json:"version"`
	Operations []string `json:"operations"`
	Functions  []string `json:"functions"`
}

// abi() describes the table: its version, the engine version, the
// operations request serves and the functions of the table.
func abi(_ []js.Value) (any, error) {
	e := engine.New(engine.Options{FS: memfs.New(), Surface: engine.Snapshot})
	st, err := e.Status(context.Background())
	if err != nil {
		return nil, err
	}
	out := &ABIResult{ABI: ABI, Version: engine.Version, Operations: []string{}}
	for _, c := range st.Capabilities {
		if _, op := engine.InputSchema(c); op { // capability strings such as entries.cursor are not operations
			out.Operations = append(out.Operations, c)
		}
	}
	for _, f := range functions {
		out.Functions = append(out.Functions, f.name)
	}
	return out, nil
}
