package bundle

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kontext/kontext/engine/api"
	"github.com/kontext/kontext/engine/worktree"
	"github.com/kontext/kontext/internal/testrepo"
	"github.com/kontext/kontext/native"
)

// The fields Encode writes, in order: a field added to api.Bundle fails
// here until Encode writes it too.
func TestEncodeKnowsEveryField(t *testing.T) {
	want := []string{"schema", "format_version", "generated_at", "repository", "config", "files", "base_files", "changed_paths", "history", "drift", "warnings", "snapshot"}
	var got []string
	typ := reflect.TypeOf(api.Bundle{})
	for i := 0; i < typ.NumField(); i++ {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		got = append(got, name)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("api.Bundle's fields %v, Encode writes %v", got, want)
	}
	// isBlank looks at every field of a history.
	got, want = nil, []string{"Verification", "LastVerified", "Since", "SinceVerified", "Premises", "Failing", "AmendedSince"}
	typ = reflect.TypeOf(api.BundleHistory{})
	for i := 0; i < typ.NumField(); i++ {
		got = append(got, typ.Field(i).Name)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("api.BundleHistory's fields %v, isBlank looks at %v", got, want)
	}
}

// trickyStrings are the texts whose JSON encoding has a special case.
func trickyStrings() []string {
	s := []string{"", "plain", "a\"b\\c", "\b\f\n\r\t\x00\x01\x1f\x7f", "<script>&</script>", "line\u2028sep\u2029",
		"é ünïcödé 日本 🙂", "bad \xff\xfe utf8 \xc3", "\xe2\x80", "\xed\xa0\x80 surrogate", strings.Repeat("x", 5000) + "\n<"}
	for c := 0; c < 256; c++ {
		s = append(s, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"b")
	}
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		b := make([]byte, r.Intn(40))
		r.Read(b)
		s = append(s, string(b))
	}
	return s
}

func TestAppendStringEqualsEncodingJSON(t *testing.T) {
	for _, s := range trickyStrings() {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("%q: %s, encoding/json %s", s, got, want)
		}
	}
}

// Encode and Marshal write exactly json.MarshalIndent's bytes (and a
// newline), for the demo repository's bundle
// and for bundles with every kind of value (nil and empty maps, tricky
// texts, a snapshot or none); EncodeInline the same without the newline.
func TestEncodeEqualsMarshal(t *testing.T) {
	dir := testrepo.Demo(t)
	demo, err := Build(context.Background(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for i, s := range trickyStrings() {
		files[s+string(rune('a'+i%26))] = s
	}
	head := "0123456789abcdef0123456789abcdef01234567"
	bundles := map[string]*Bundle{
		"demo":  demo,
		"empty": {Schema: Schema, Files: map[string]string{}, ChangedPaths: []string{}, History: map[string]*History{}, Drift: []*api.DriftEntry{}},
		"nils":  {Schema: Schema},
		"tricky": {Schema: Schema, FormatVersion: "1.3", Repository: Repository{Name: "x<y", Head: &head}, Config: &Config{Path: ".kontext.toml", Text: "a = \"<b>\"\n"},
			Files: files, BaseFiles: map[string]string{"a": "\u2028"}, ChangedPaths: []string{"a&b"}, Snapshot: "QUJD+/==",
			History: map[string]*History{"blank": {Premises: []api.Premise{}}, "nil-premises": {}, "nil": nil, "<b>": {Failing: true, Premises: []api.Premise{{ID: "p&q"}}},
				"verified": {Verification: &api.Verification{At: "2026-01-01", Kind: "verified"}, Premises: []api.Premise{}}}},
	}
	for name, b := range bundles {
		want, err := json.MarshalIndent(b, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, '\n')
		if m, err := Marshal(b); err != nil || !bytes.Equal(m, want) {
			t.Errorf("%s: Marshal differs from json.MarshalIndent (%v): %s", name, err, testrepo.FirstDiff(string(want), string(m)))
		}
		var got bytes.Buffer
		if err := Encode(&got, b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: Encode differs from Marshal: %s", name, testrepo.FirstDiff(string(want), got.String()))
		}
		got.Reset()
		if err := EncodeInline(&got, b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), bytes.TrimSpace(want)) {
			t.Errorf("%s: EncodeInline differs from Marshal", name)
		}
	}
	// WriteFile writes the same document and reports its size.
	path := filepath.Join(t.TempDir(), "b.json")
	n, err := WriteFile(path, demo)
	data, rerr := os.ReadFile(path)
	want, _ := Marshal(demo)
	if err != nil || rerr != nil || n != len(data) || !bytes.Equal(data, want) {
		t.Errorf("WriteFile: %d bytes, %v %v; equal to Marshal: %v", n, err, rerr, bytes.Equal(data, want))
	}
}

// A bundle built with the compiled-snapshot cache equals one built
// without it (worktree.Bundle, compiled fresh): on the first build (a
// miss), the second (a hit), and after an edit, a rename, a delete and an
// added file; a corrupt cache file is compiled again.
func TestSnapshotCacheEqualsFresh(t *testing.T) {
	dir := testrepo.Demo(t)
	ctx := context.Background()
	fresh := func() []byte {
		t.Helper()
		eng, err := native.OpenWith(dir, native.Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := worktree.Bundle(ctx, eng, &api.BundleInput{Worktree: true})
		if err != nil {
			t.Fatal(err)
		}
		data, _ := Marshal(b)
		return data
	}
	cached := func() []byte {
		t.Helper()
		b, err := Build(ctx, Options{Dir: dir, Worktree: true})
		if err != nil {
			t.Fatal(err)
		}
		data, _ := Marshal(b)
		return data
	}
	check := func(step string) {
		t.Helper()
		for i := 0; i < 2; i++ { // a miss (stores), then a hit
			if got, want := cached(), fresh(); !bytes.Equal(got, want) {
				t.Fatalf("%s (build %d): the cached bundle differs from the fresh one: %s", step, i+1, testrepo.FirstDiff(string(want), string(got)))
			}
		}
	}
	check("first")
	caches, _ := filepath.Glob(filepath.Join(strings.TrimSpace(testrepo.Git(t, dir, "rev-parse", "--absolute-git-dir")), "kontext", "bundle-snapshot-*"))
	if len(caches) != 1 {
		t.Fatalf("cache files %v, want one", caches)
	}

	entries, _ := filepath.Glob(filepath.Join(dir, ".ai", "*", "*.md"))
	if len(entries) < 3 {
		t.Fatalf("demo has %d entries", len(entries))
	}
	data, _ := os.ReadFile(entries[0])
	os.WriteFile(entries[0], append(data, []byte("\nEdited.\n")...), 0o644)
	check("edit")
	os.Rename(entries[1], strings.TrimSuffix(entries[1], ".md")+"-renamed.md")
	check("rename")
	os.Remove(entries[2])
	check("delete")
	testrepo.Write(t, dir, map[string]string{".ai/conventions/2026-02-01-new.md": entryFile("New rule", "team")})
	check("add")
	os.WriteFile(caches[0], []byte("KONTEXTBUNDLESNAP1\ngarbage\n"), 0o644)
	check("corrupt cache")
}
