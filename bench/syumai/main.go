//go:build js && wasm

// Command syumai is the comparison row of the edge worker's benchmark, never
// part of kontext: the same governing request served through
// github.com/syumai/workers' Serve entry, which starts a new Go instance for
// every request (its JS entry does), so every request parses the bundle
// again. It lives in its own module so kontext's go.mod does not depend on
// syumai/workers. bench/edge.go writes bundle.json next to this file, builds
// it for js/wasm and runs it on workerd with syumai's JS entry.
package main

import (
	_ "embed"
	"encoding/json"
	"io"
	"net/http"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"
	"github.com/kontext/kontext/engine"
	"github.com/syumai/workers"
)

//go:embed bundle.json
var bundle []byte

func main() {
	var doc struct {
		Files  map[string]string `json:"files"`
		Config *struct {
			Path string `json:"path"`
			Text string `json:"text"`
		} `json:"config"`
	}
	if err := json.Unmarshal(bundle, &doc); err != nil {
		panic(err)
	}
	fs := memfs.New()
	for name, text := range doc.Files {
		if err := util.WriteFile(fs, name, []byte(text), 0o644); err != nil {
			panic(err)
		}
	}
	if doc.Config != nil {
		if _, ok := doc.Files[doc.Config.Path]; !ok {
			util.WriteFile(fs, doc.Config.Path, []byte(doc.Config.Text), 0o644)
		}
	}
	e := engine.New(engine.Options{FS: fs, Surface: engine.Snapshot})
	workers.Serve(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(e.Request(r.Context(), "entries.governing", body))
	}))
}
