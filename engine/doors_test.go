package engine_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-git/go-billy/v5/osfs"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/api"
)

// memStore is a SnapshotStore in memory.
type memStore struct{ data []byte }

func (s *memStore) LoadSnapshot() ([]byte, error)  { return s.data, nil }
func (s *memStore) SaveSnapshot(data []byte) error { s.data = append([]byte(nil), data...); return nil }
func (s *memStore) FileID(os.FileInfo) uint64      { return 0 }
func (s *memStore) Key() string                    { return "doors-test" }

// TestDoorsRetrySpoiledSnapshot: one entry of the stored compiled snapshot
// does not decode (its bytes spoiled, its checksum still matching); a read
// through either door — Do (the JSON requests) and Invoke (the typed Go
// calls) — meets it, and still answers exactly what a fresh parse
// answers: both doors share the preamble and the retry.
func TestDoorsRetrySpoiledSnapshot(t *testing.T) {
	dir := t.TempDir()
	past := time.Now().Add(-time.Hour) // not racy: the stored parses are trusted
	for name, text := range portableFiles() {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, past, past); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	open := func(store *memStore) *engine.Engine {
		e := engine.New(engine.Options{FS: osfs.New(dir, osfs.WithBoundOS()), Surface: engine.Native, Root: dir})
		if store != nil {
			e.UseSnapshotStore(store)
		}
		return e
	}
	fresh := open(nil)
	get := &api.GetInput{ID: "0001-use-go"} // the first entry of the snapshot (decisions sort first)
	want, err := fresh.Get(ctx, get)
	if err != nil {
		t.Fatal(err)
	}
	wantEnv := string(fresh.Request(ctx, "entries.get", []byte(`{"id": "0001-use-go"}`)))

	store := &memStore{}
	for range 2 { // the first read stores the parses, the second the compiled part
		if _, err := open(store).Status(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if store.data == nil {
		t.Fatal("no compiled snapshot stored")
	}
	spoiled := spoilEntry(t, store.data, false)

	// The typed door.
	e := open(&memStore{data: spoiled})
	got, err := e.Get(ctx, get)
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	if engine.Spoiled(e) == 0 {
		t.Fatal("Invoke: the read never met the spoiled entry: the test tests nothing")
	}
	if string(mustJSON(t, got)) != string(mustJSON(t, want)) {
		t.Errorf("Invoke over a spoiled snapshot:\n%s\nwant\n%s", mustJSON(t, got), mustJSON(t, want))
	}

	// The JSON door.
	e = open(&memStore{data: spoiled})
	gotEnv := string(e.Request(ctx, "entries.get", []byte(`{"id": "0001-use-go"}`)))
	if engine.Spoiled(e) == 0 {
		t.Fatal("Do: the read never met the spoiled entry: the test tests nothing")
	}
	if gotEnv != wantEnv {
		t.Errorf("Do over a spoiled snapshot:\n%s\nwant\n%s", gotEnv, wantEnv)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
