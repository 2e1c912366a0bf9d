package edge

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kontext/kontext/engine"
)

// fakeWrangler is a wrangler whose `kv key get|put|delete` keep keys as
// files under dir. With dir/rival present, the first put of repos.json is
// followed at once by the rival's text: another publish that read
// repos.json before this one wrote it, writing it after.
const fakeWrangler = `#!/bin/sh
set -e
dir=$(dirname "$0")/kv
op=$3 key=$4
case $op in
get) if [ -f "$dir/$key" ]; then cat "$dir/$key"; else echo "Value not found"; fi ;;
put) mkdir -p "$(dirname "$dir/$key")"; cp "$6" "$dir/$key"
     if [ "$key" = repos.json ] && [ -f "$(dirname "$0")/rival" ]; then mv "$(dirname "$0")/rival" "$dir/repos.json"; fi ;;
delete) rm -f "$dir/$key" ;;
esac
`

// TestPublishPutsBackALostLine: a publish whose repos.json line another
// publish overwrote at once reads it back, finds the line gone and writes
// the list again with both lines.
func TestPublishPutsBackALostLine(t *testing.T) {
	old := ReadBack
	ReadBack = 0
	t.Cleanup(func() { ReadBack = old })
	dir := t.TempDir()
	bin := filepath.Join(dir, "wrangler")
	if err := os.WriteFile(bin, []byte(fakeWrangler), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{".ai/conventions/x.md": "---\npaths: [\"src/**\"]\n---\n# X\n\nBody.\n"}
	snap, err := engine.CompileSnapshot(context.Background(), files, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	bundle, _ := json.Marshal(map[string]any{"schema": "kontext.bundle/v1", "repository": map[string]string{"name": "app"}, "files": files, "snapshot": base64.StdEncoding.EncodeToString(snap)})
	rival, _ := json.Marshal(ReposDoc{Repos: []Listed{{Name: "other", Snapshot: "s1", Entries: 3, Updated: "2026-12-05T00:00:00Z"}}})
	if err := os.WriteFile(filepath.Join(dir, "rival"), rival, 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Publish(context.Background(), PublishOptions{Repo: "app", Bundle: bundle, NamespaceID: "ns", Local: true, Wrangler: bin})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "kv", "repos.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got ReposDoc
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range got.Repos {
		names = append(names, r.Name)
	}
	if !slices.Equal(names, []string{"other", "app"}) || got.Repos[1].Snapshot != res.Snapshot {
		t.Errorf("repos.json after a racing publish: %s", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "rival")); !os.IsNotExist(err) {
		t.Error("the rival publish never wrote")
	}
}
