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
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall/js"
	"time"
	"unsafe"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
	"github.com/kontext/kontext/engine/markdown"
	"github.com/kontext/kontext/internal/mcptools"
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
		{"stage", stage},
		{"mcp", mcpMessage},
		{"memory", memory},
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

// gcHeld: the collector is off, from an open with a compiled snapshot to
// the end of the next call (the first answer, normally), and gcPercent is
// its setting to restore. Opening and the first answer run while the page
// or the worker waits, and from a snapshot they make little garbage: the
// collector would only trace what they still hold. Without a snapshot the
// first read parses every file, and collecting lets the parser reuse
// memory (a wasm instance's memory never shrinks; fresh pages cost page
// faults); after the first answer it is on again for everything.
var (
	gcHeld    bool
	gcPercent int
)

func holdGC() {
	if !gcHeld {
		gcPercent, gcHeld = debug.SetGCPercent(-1), true
	}
}

func releaseGC() {
	if gcHeld {
		debug.SetGCPercent(gcPercent)
		gcHeld = false
	}
}

// call runs f and encodes its answer; a panic becomes operation_failed.
func call(f function, args []js.Value) (out []byte) {
	if gcHeld && f.name != "open" {
		defer releaseGC()
	}
	defer func() {
		if r := recover(); r != nil {
			out = engine.ErrorEnvelope(apierr.New(apierr.OperationFailed, "internal error in %s: %v; please report it with the input", f.name, r))
		}
	}()
	res, err := f.run(args)
	if err != nil {
		releaseGC() // a refused open: no first answer follows
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
	if isClean(p) {
		return p, nil
	}
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

// sortNames sorts names, in one pass when they are sorted already (the
// package packs a bundle's files in its sorted order). Not inlined: a loop
// over every file inside open, a large function, would have V8 optimise
// all of open during the first open (docs/architecture.md, "V8's tiers").
//
//go:noinline
func sortNames(names []string) {
	if !sort.StringsAreSorted(names) {
		sort.Strings(names)
	}
}

// isClean reports whether p is already a clean relative path (no empty,
// "." or ".." element, no backslash): cleanPath returns it unchanged. Not
// inlined: its loop over every byte of every file name would charge V8's
// tiering budget at cleanPath's size (docs/architecture.md, "V8's tiers").
//
//go:noinline
func isClean(p string) bool {
	start := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			if p[i] == '\\' {
				return false
			}
			continue
		}
		switch p[start:i] {
		case "", ".", "..":
			return false
		}
		start = i + 1
	}
	return true
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

// packedFiles calls add for each file packed in buf: for each file a
// little-endian u32 path length, u32 text length, the path's and the
// text's UTF-8 bytes. The names and texts are slices of buf. Not inlined into
// open: its loop over every file would make open a large function whose
// loop runs long, which the WASM runtime compiles again (a second time,
// for nothing: open runs once).
//
//go:noinline
func packedFiles(buf []byte, add func(name string, text []byte) error) error {
	for len(buf) > 0 {
		if len(buf) < 8 {
			return apierr.Invalid("open: the packed files are truncated")
		}
		pl, tl := le32(buf), le32(buf[4:])
		buf = buf[8:]
		if uint64(pl)+uint64(tl) > uint64(len(buf)) {
			return apierr.Invalid("open: the packed files are truncated")
		}
		// The name is a string over buf, as the text is a slice of it: the
		// buffer is open's and nothing writes it again (an open
		// repository holds no second copy of its file names).
		if err := add(unsafe.String(unsafe.SliceData(buf), pl), buf[pl:pl+tl:pl+tl]); err != nil {
			return err
		}
		buf = buf[pl+tl:]
	}
	return nil
}

// packedCount is how many files buf packs (as packedFiles reads them; it
// stops where they are truncated, which packedFiles reports).
func packedCount(buf []byte) int {
	n := 0
	for len(buf) >= 8 {
		size := uint64(le32(buf)) + uint64(le32(buf[4:]))
		if size > uint64(len(buf)-8) {
			break
		}
		buf = buf[8+size:]
		n++
	}
	return n
}

func le32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// staged holds the buffers stage allocated, by address, until open
// claims them.
var staged = map[int][]byte{}

// StageResult is stage's result.
type StageResult struct {
	Address int `json:"address"`
}

// stage(n) allocates n bytes in the instance's memory for the next open and
// returns their address: the package decodes the snapshot and packs the
// files straight into them (a Uint8Array over the memory at that address)
// instead of into a JS buffer that open would copy, which for a large
// bundle is tens of megabytes of fresh pages. The Go collector never moves
// memory, and staged keeps the buffer alive until open takes it.
func stage(args []js.Value) (any, error) {
	v := arg(args, 0)
	if v.Type() != js.TypeNumber || v.Float() < 0 || v.Float() > 1<<31 || v.Float() != float64(v.Int()) {
		return nil, apierr.Invalid("stage: the size must be a byte count, got %s", v.Type())
	}
	buf := make([]byte, v.Int()+1) // +1: every buffer has its own address
	addr := int(uintptr(unsafe.Pointer(unsafe.SliceData(buf))))
	staged[addr] = buf[:v.Int()]
	return &StageResult{Address: addr}, nil
}

// bytesArg is argument i of open as bytes: a Uint8Array (copied) or
// [address, length] of a buffer stage allocated (claimed); nil when
// absent.
func bytesArg(args []js.Value, i int, name string) ([]byte, error) {
	v := arg(args, i)
	if v.Type() != js.TypeObject {
		return nil, nil
	}
	if v.InstanceOf(js.Global().Get("Uint8Array")) {
		buf := make([]byte, v.Length())
		js.CopyBytesToGo(buf, v)
		return buf, nil
	}
	if v.InstanceOf(js.Global().Get("Array")) && v.Length() == 2 {
		buf, ok := staged[v.Index(0).Int()]
		n := v.Index(1).Int()
		if ok && n >= 0 && n <= len(buf) {
			delete(staged, v.Index(0).Int())
			return buf[:n:n], nil
		}
	}
	return nil, apierr.Invalid("open: %s must be a Uint8Array or a staged buffer [address, length]", name)
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
	// Bytes: what the knowledge base holds as it is opened, by the
	// engine's own accounting (see heldBytes).
	Bytes int `json:"bytes"`
}

// fileBytes is what an open knowledge base holds per file besides its
// text: the name's and the text's headers in the file table, and the
// entry's slot and row index in the stored snapshot.
const fileBytes = 16 + 24 + 8 + 8

// heldBytes is the engine's accounting of a knowledge base opened over the
// snapshot and packed buffers and these files: the buffers (the snapshot
// and the texts are read in place), the texts the JSON gave (copies), and
// fileBytes per file. Entries decoded later (an operation over every
// entry decodes them all) add to it; the edge worker sizes its cache of
// open repositories by it.
func heldBytes(snap, packed []byte, jsonFiles map[string]string, files int) int {
	n := len(snap) + len(packed) + fileBytes*files
	for _, text := range jsonFiles {
		n += len(text)
	}
	return n
}

// open(inputJSON, snapshot?, files?) loads a file set {files, revision?,
// now?, immutable?} into a new knowledge base and returns its handle.
// snapshot is a bundle's compiled snapshot, used wherever the files are
// the ones it was built from. files (see packedFiles) carries the file
// texts packed; the package sends them that way, not in the JSON, because
// decoding megabytes of JSON strings is the slowest part of opening a
// bundle in WASM. Both are bytes (see bytesArg); the package stages them.
func open(args []js.Value) (any, error) {
	doc, err := jsonArg(args, 0, "open input")
	if err != nil {
		return nil, err
	}
	var in openInput
	if err := decode(doc, "open input", &in); err != nil {
		return nil, err
	}
	defer clear(staged) // whatever open did not claim
	snap, err := bytesArg(args, 1, "snapshot")
	if err != nil {
		return nil, err
	}
	if snap != nil {
		holdGC()
	}
	// The JSON's files first, then the packed ones: for a name given
	// twice the packed text wins.
	buf, err := bytesArg(args, 2, "files")
	if err != nil {
		return nil, err
	}
	n := len(in.Files) + packedCount(buf)
	files := make(map[string][]byte, n) // sized once: no map growth per file
	names := make([]string, 0, n)
	add := func(name string, text []byte) error {
		p, err := cleanPath(name)
		if err != nil {
			return err
		}
		if _, dup := files[p]; !dup {
			names = append(names, p)
		}
		files[p] = text
		return nil
	}
	for _, name := range sortedKeys(in.Files) {
		if err := add(name, []byte(in.Files[name])); err != nil {
			return nil, err
		}
	}
	if err := packedFiles(buf, add); err != nil {
		return nil, err
	}
	sortNames(names)
	texts := make([][]byte, len(names))
	for i, name := range names {
		texts[i] = files[name]
	}
	fs := newStableFS(newPackedFS(names, texts))
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
	if snap != nil {
		k.e.UsePortableSnapshot(snap)
	}
	mu.Lock()
	h := next
	next++
	handles[h] = k
	mu.Unlock()
	return &OpenResult{Handle: h, Bytes: heldBytes(snap, buf, in.Files, len(names))}, nil
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

// abi() describes the table: its version, the engine version, the
// operations request serves and the functions of the table.
func abi(_ []js.Value) (any, error) {
	// Operations, not Status: ready (the first abi) reads no files and
	// no schemas.
	e := engine.New(engine.Options{FS: memfs.New(), Surface: engine.Snapshot})
	out := &ABIResult{ABI: ABI, Version: engine.Version, Operations: e.Operations(), Parser: true, MCPProtocolVersions: mcptools.ProtocolVersions}
	for _, f := range functions {
		out.Functions = append(out.Functions, f.name)
	}
	return out, nil
}

// render(markdown) renders an entry body to safe HTML (engine/markdown):
// {html, plain}.
func render(args []js.Value) (any, error) {
	src, ok, err := stringArg(args, 0, "markdown")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apierr.Invalid("markdown is required")
	}
	return markdown.Render(src), nil
}

// mcpMessage(handle, frame) answers one MCP JSON-RPC message over the
// knowledge base (the edge worker's /mcp): the response's JSON, the
// CLI's MCP server's bytes for the same request, or "" for a
// notification. Stateless: nothing of the message is kept.
func mcpMessage(args []js.Value) (any, error) {
	_, k, err := handleArg(args, 0, "handle")
	if err != nil {
		return nil, err
	}
	frame, ok, err := stringArg(args, 1, "message")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, apierr.Invalid("message is required")
	}
	ops := k.e.Operations()
	serves := func(op string) bool { return slices.Contains(ops, op) }
	run := func(op string, input []byte) []byte { return k.e.Request(context.Background(), op, input) }
	out := mcptools.Handle([]byte(frame), serves, run)
	if out == nil {
		out = []byte{}
	}
	return out, nil
}

// MemoryResult is memory's result: the engine's own accounting of its heap.
type MemoryResult struct {
	// HeapObjects: bytes in heap objects now (live and not yet swept).
	HeapObjects uint64 `json:"heap_objects"`
	// HeapLive: live heap bytes as of the last collection.
	HeapLive uint64 `json:"heap_live"`
	// Total: all memory the Go runtime has mapped (≤ the instance's memory).
	Total uint64 `json:"total"`
	// Limit: the soft memory limit (debug.SetMemoryLimit).
	Limit int64 `json:"limit"`
	// GCPercent: the collector's setting (debug.SetGCPercent; -1: it runs
	// only near Limit).
	GCPercent int `json:"gc_percent"`
	// Open: knowledge bases open.
	Open int `json:"open"`
}

var memorySamples = []metrics.Sample{
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/gc/heap/live:bytes"},
	{Name: "/memory/classes/total:bytes"},
}

// memory(limit?, gcPercent?) reports the Go heap; a positive limit in
// bytes first sets the runtime's soft memory limit (debug.SetMemoryLimit):
// a wasm instance's memory never shrinks, so the collector must work
// before it grows. gcPercent sets debug.SetGCPercent (-1: only near the
// limit): the edge worker paces the collector at 400, so a small heap is
// not collected every few requests.
func memory(args []js.Value) (any, error) {
	if v := arg(args, 0); v.Type() == js.TypeNumber && v.Float() > 0 {
		debug.SetMemoryLimit(int64(v.Float()))
	}
	if v := arg(args, 1); v.Type() == js.TypeNumber && v.Float() == float64(v.Int()) && v.Int() >= -1 {
		if gcHeld {
			gcPercent = v.Int() // set when the hold ends
		} else {
			debug.SetGCPercent(v.Int())
		}
	}
	percent := gcPercent
	if !gcHeld {
		percent = debug.SetGCPercent(-1)
		debug.SetGCPercent(percent)
	}
	metrics.Read(memorySamples)
	mu.Lock()
	n := len(handles)
	mu.Unlock()
	return &MemoryResult{
		HeapObjects: memorySamples[0].Value.Uint64(),
		HeapLive:    memorySamples[1].Value.Uint64(),
		Total:       memorySamples[2].Value.Uint64(),
		Limit:       debug.SetMemoryLimit(-1),
		GCPercent:   percent,
		Open:        n,
	}, nil
}
