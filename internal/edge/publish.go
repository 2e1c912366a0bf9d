package edge

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/apierr"
)

// The store layout `kontext edge publish` writes and the worker reads
// (a KV namespace bound as KONTEXT_STORE).
const (
	// ReposKey holds the organisation's list: {repos: [{name, snapshot, entries, updated}]}.
	ReposKey = "repos.json"
)

// IndexKey is a repository's index: {snapshot, entries, updated}.
func IndexKey(repo string) string { return repo + "/index.json" }

// BundleKey is the key of a repository's bundle at a snapshot.
func BundleKey(repo, snapshot string) string { return repo + "/" + snapshot + ".bundle" }

// Index is <repo>/index.json.
type Index struct {
	Snapshot string `json:"snapshot"`
	Entries  int    `json:"entries"`
	Updated  string `json:"updated"`
}

// Listed is one repository of repos.json.
type Listed struct {
	Name     string `json:"name"`
	Snapshot string `json:"snapshot"`
	Entries  int    `json:"entries"`
	Updated  string `json:"updated"`
}

// ReposDoc is repos.json.
type ReposDoc struct {
	Repos []Listed `json:"repos"`
}

// WranglerPackage is the npm package of the wrangler CLI.
const WranglerPackage = "wrangler"

// FindWrangler locates the wrangler CLI: $KONTEXT_WRANGLER, else
// node_modules/.bin/wrangler in dir or a directory above it, else wrangler
// on PATH.
func FindWrangler(dir string, getenv func(string) string) (string, error) {
	return findNodeTool("wrangler", "KONTEXT_WRANGLER", WranglerPackage, dir, getenv)
}

// PublishOptions say what Publish writes where.
type PublishOptions struct {
	Repo   string
	Bundle []byte // the bundle's JSON text
	// The namespace: its id, or its binding in a wrangler config (Config,
	// or wrangler's own lookup when empty).
	NamespaceID, Binding, Config string
	// Local writes wrangler's local storage (PersistTo: its directory;
	// wrangler's default when empty) instead of the remote namespace.
	Local     bool
	PersistTo string
	Wrangler  string // the wrangler binary
	Dir       string // wrangler's working directory ("" = the current one)
	Now       func() time.Time
	Stderr    io.Writer // wrangler's own messages
}

// PublishResult is what Publish did.
type PublishResult struct {
	Repo     string   `json:"repo"`
	Snapshot string   `json:"snapshot"`
	Entries  int      `json:"entries"`
	Updated  string   `json:"updated"`
	Written  []string `json:"written"` // keys, in the order written
	Deleted  []string `json:"deleted"`
	// Unchanged: the store already served this snapshot; nothing written.
	Unchanged bool `json:"unchanged"`
}

// Publish writes a bundle into the store through wrangler (`wrangler kv
// key put`, the user's credentials): the bundle at <repo>/<snapshot>.bundle,
// then <repo>/index.json, then repos.json, so a worker that sees an entry
// finds what it names; then it deletes the bundle the index named before.
// Publishing a snapshot the store already serves writes nothing.
// repos.json is read, changed and written back (KV has no compare and
// swap), then read back after ReadBack: a line another publish dropped
// meanwhile is put back, up to three times. A publish that writes after
// the last read-back can still drop it (the worker serves a repository by
// name from its index either way); the next publish of that repository
// puts it back.
func Publish(ctx context.Context, opts PublishOptions) (*PublishResult, error) {
	if err := CheckRepoName(opts.Repo); err != nil {
		return nil, err
	}
	if (opts.NamespaceID == "") == (opts.Binding == "") {
		return nil, apierr.Invalid("name the KV namespace: --namespace-id ID or --binding NAME (one of them)")
	}
	if opts.PersistTo != "" && !opts.Local {
		return nil, apierr.Invalid("--persist-to is wrangler's local storage: it needs --local")
	}
	if _, err := checkBundle(opts.Bundle); err != nil {
		return nil, err
	}
	id, entries, err := SnapshotOf(ctx, opts.Bundle)
	if err != nil {
		return nil, err
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	w := wrangler{opts: opts}
	res := &PublishResult{Repo: opts.Repo, Snapshot: id, Entries: entries, Updated: now().UTC().Format(time.RFC3339), Written: []string{}, Deleted: []string{}}

	// One wrangler at a time: its local storage is one SQLite database,
	// which refuses a second process (SQLITE_BUSY).
	var old Index
	if _, err := w.getJSON(ctx, IndexKey(opts.Repo), &old); err != nil {
		return nil, err
	}
	var list ReposDoc
	if _, err := w.getJSON(ctx, ReposKey, &list); err != nil {
		return nil, err
	}
	at := -1
	for i, r := range list.Repos {
		if r.Name == opts.Repo {
			at = i
		}
	}
	if old.Snapshot == id && at >= 0 && list.Repos[at].Snapshot == id {
		res.Unchanged, res.Updated = true, old.Updated
		return res, nil
	}
	if old.Snapshot != id {
		if err := w.put(ctx, BundleKey(opts.Repo, id), opts.Bundle); err != nil {
			return nil, err
		}
		res.Written = append(res.Written, BundleKey(opts.Repo, id))
		idx, _ := json.Marshal(Index{Snapshot: id, Entries: entries, Updated: res.Updated})
		if err := w.put(ctx, IndexKey(opts.Repo), idx); err != nil {
			return nil, err
		}
		res.Written = append(res.Written, IndexKey(opts.Repo))
	} else {
		res.Updated = old.Updated // the index stands; repos.json lost its line
	}
	line := Listed{Name: opts.Repo, Snapshot: id, Entries: entries, Updated: res.Updated}
	if err := w.putLine(ctx, list, line); err != nil {
		return nil, err
	}
	res.Written = append(res.Written, ReposKey)
	if old.Snapshot != "" && old.Snapshot != id {
		if err := w.delete(ctx, BundleKey(opts.Repo, old.Snapshot)); err != nil {
			return nil, err
		}
		res.Deleted = append(res.Deleted, BundleKey(opts.Repo, old.Snapshot))
	}
	return res, nil
}

// ReadBack is how long Publish waits before it reads repos.json back (a
// variable for tests).
var ReadBack = time.Second

// putLine writes list with line in it (replacing the repository's line),
// then reads repos.json back after ReadBack and, while another publish
// has written it without the line since, writes it again with the line
// (up to three times).
func (w wrangler) putLine(ctx context.Context, list ReposDoc, line Listed) error {
	for try := 0; ; try++ {
		at := slices.IndexFunc(list.Repos, func(r Listed) bool { return r.Name == line.Name })
		if at >= 0 {
			list.Repos[at] = line
		} else {
			list.Repos = append(list.Repos, line)
		}
		doc, _ := json.Marshal(list)
		if err := w.put(ctx, ReposKey, doc); err != nil {
			return err
		}
		if try == 3 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(ReadBack):
		}
		list = ReposDoc{}
		if _, err := w.getJSON(ctx, ReposKey, &list); err != nil {
			return err
		}
		if slices.Contains(list.Repos, line) {
			return nil
		}
	}
}

// CheckRepoName refuses what is not a repository name of the store.
func CheckRepoName(name string) error {
	if !repoName().MatchString(name) {
		return apierr.Invalid("--repo %q is not a repository name ([A-Za-z0-9._-], 1-100 characters, starting with a letter or digit)", name)
	}
	return nil
}

// SnapshotOf opens a bundle as the worker does (its files, its compiled
// snapshot, its head as the revision) and returns the snapshot id the
// worker will report (status.snapshot) and its number of entries.
func SnapshotOf(ctx context.Context, data []byte) (string, int, error) {
	var doc struct {
		Repository struct {
			Head *string `json:"head"`
		} `json:"repository"`
		Config *struct {
			Path string `json:"path"`
			Text string `json:"text"`
		} `json:"config"`
		Files    map[string]string `json:"files"`
		Snapshot string            `json:"snapshot"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return "", 0, apierr.Wrap(apierr.InvalidInput, err, "not a kontext bundle (JSON)")
	}
	fs := memfs.New()
	files := doc.Files
	if doc.Config != nil && doc.Config.Path != "" {
		if _, ok := files[doc.Config.Path]; !ok {
			files[doc.Config.Path] = doc.Config.Text
		}
	}
	for p, text := range files {
		if err := util.WriteFile(fs, p, []byte(text), 0o644); err != nil {
			return "", 0, apierr.Wrap(apierr.InvalidInput, err, "the bundle's file %s", p)
		}
	}
	opts := engine.Options{FS: fs, Surface: engine.Snapshot, Immutable: true}
	if doc.Repository.Head != nil {
		opts.Revision = *doc.Repository.Head
	}
	e := engine.New(opts)
	if doc.Snapshot != "" {
		snap, err := base64.StdEncoding.DecodeString(doc.Snapshot)
		if err != nil {
			return "", 0, apierr.Wrap(apierr.InvalidInput, err, "the bundle's snapshot is not base64")
		}
		e.UsePortableSnapshot(snap)
	}
	st, err := e.Status(ctx)
	if err != nil {
		return "", 0, err
	}
	n := 0
	for _, byStatus := range st.Counts {
		for _, c := range byStatus {
			n += c
		}
	}
	return st.Snapshot, n, nil
}

// wrangler runs `wrangler kv key …` on the namespace of opts.
type wrangler struct{ opts PublishOptions }

func (w wrangler) target() []string {
	var a []string
	if w.opts.NamespaceID != "" {
		a = append(a, "--namespace-id", w.opts.NamespaceID)
	} else {
		a = append(a, "--binding", w.opts.Binding)
		if w.opts.Config != "" {
			a = append(a, "--config", w.opts.Config)
		}
	}
	if w.opts.Local {
		a = append(a, "--local")
		if w.opts.PersistTo != "" {
			a = append(a, "--persist-to", w.opts.PersistTo)
		}
	} else {
		a = append(a, "--remote")
	}
	return a
}

func (w wrangler) run(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, w.opts.Wrangler, append(append([]string{"kv", "key"}, args...), w.target()...)...)
	cmd.Dir = w.opts.Dir
	cmd.Env = append(os.Environ(), "WRANGLER_SEND_METRICS=false")
	var out, errb bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		return nil, apierr.New(apierr.OperationFailed, "wrangler kv key %s failed (%v): %s", strings.Join(args[:2], " "), err, lastLines(msg, 6))
	}
	if w.opts.Stderr != nil {
		w.opts.Stderr.Write(errb.Bytes())
	}
	return out.Bytes(), nil
}

// getJSON reads key into v; found is false when the store has no such key.
func (w wrangler) getJSON(ctx context.Context, key string, v any) (found bool, err error) {
	out, err := w.run(ctx, "get", key, "--text")
	if err != nil {
		return false, err
	}
	s := bytes.TrimSpace(out)
	// wrangler prints "Value not found" for a missing key (exit 0); no
	// value this layout stores is anything but a JSON object.
	if len(s) == 0 || s[0] != '{' {
		return false, nil
	}
	if err := json.Unmarshal(s, v); err != nil {
		return true, apierr.Wrap(apierr.OperationFailed, err, "the store's %s is not what kontext edge publish writes: delete it (wrangler kv key delete %s) and publish again", key, key)
	}
	return true, nil
}

func (w wrangler) put(ctx context.Context, key string, value []byte) error {
	f, err := os.CreateTemp("", "kontext-publish-*")
	if err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "writing %s for wrangler", key)
	}
	defer os.Remove(f.Name())
	_, err = f.Write(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return apierr.Wrap(apierr.OperationFailed, err, "writing %s for wrangler", key)
	}
	_, err = w.run(ctx, "put", key, "--path", f.Name())
	return err
}

func (w wrangler) delete(ctx context.Context, key string) error {
	_, err := w.run(ctx, "delete", key)
	return err
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// findNodeTool locates an npm package's binary: $envVar, else
// node_modules/.bin/<name> in dir or above, else <name> on PATH.
func findNodeTool(name, envVar, pkg, dir string, getenv func(string) string) (string, error) {
	if p := getenv(envVar); p != "" {
		if fi, err := os.Stat(p); err != nil || fi.IsDir() {
			return "", apierr.New(apierr.OperationFailed, "%s=%s is not a %s binary: point it at one, or unset it to use node_modules/.bin/%s (npm install --save-dev %s)", envVar, p, name, name, pkg)
		}
		return p, nil
	}
	if abs, err := filepath.Abs(dir); err == nil {
		for d := abs; ; d = filepath.Dir(d) {
			p := filepath.Join(d, "node_modules", ".bin", name)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
				return p, nil
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	return "", apierr.New(apierr.OperationFailed, "%s not found (%s, node_modules/.bin/%s here or above, PATH): install the npm package %s (npm install --save-dev %s) or set %s", name, envVar, name, pkg, pkg, envVar)
}
