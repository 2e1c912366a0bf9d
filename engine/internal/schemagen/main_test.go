package main

import (
	"bytes"
	"os"
	"testing"
)

// TestSchemasUpToDate fails when engine/schemas.json no longer matches the
// input types: run go generate ./engine.
func TestSchemasUpToDate(t *testing.T) {
	want, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../../schemas.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("engine/schemas.json is stale; run: go generate ./engine")
	}
}
