package main

import (
	"bytes"
	"os"
	"testing"
)

// TestGeneratedUpToDate fails when a generated file no longer matches the
// API's Go types: run go generate ./engine (make generate).
func TestGeneratedUpToDate(t *testing.T) {
	schemas, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	results, err := ResultSchemas()
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][]byte{
		"../../schemas.json":                      schemas,
		"../../../wasm/index.d.ts":                TypeScript(),
		"../../../internal/mcptools/results.json": results,
	} {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale; run: go generate ./engine", path)
		}
	}
}
