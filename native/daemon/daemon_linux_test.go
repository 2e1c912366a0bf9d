package daemon

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/internal/testrepo"
	"github.com/kontext/kontext/native"
	"github.com/kontext/kontext/native/relay"
)

// serve runs a daemon for dir in this process until the test ends.
func serve(t *testing.T, dir string, cfg Config) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	cfg.Dir = dir
	cfg.Ready = func(relay.Info) { close(ready) }
	go func() { done <- Run(ctx, cfg) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
}

func entryText(title string, paths ...string) string {
	return fmt.Sprintf("---\nstatus: active\ndate: 2026-01-02\npaths: [%s]\n---\n# %s\n\nBody of %s.\n", `"`+strings.Join(paths, `", "`)+`"`, title, title)
}

// TestDaemonAnswersEqualLocal is the property: after random edits,
// renames, deletions, touches and new directories, the daemon's answer
// equals a fresh local engine's, byte for byte, every time, with no wait.
func TestDaemonAnswersEqualLocal(t *testing.T) {
	testrepo.Env(t)
	root := t.TempDir()
	testrepo.Git(t, root, "init", "-q")
	files := map[string]string{}
	for i := range 12 {
		p := fmt.Sprintf(".ai/conventions/c%02d.md", i)
		files[p] = entryText(fmt.Sprintf("Convention %d", i), fmt.Sprintf("src/m%d/**", i%3))
	}
	// The target of the links step 6 makes: in a watched tree, never
	// renamed or deleted by the other steps (so a link never dangles).
	const target = ".ai/conventions/target.md"
	files[target] = entryText("Linked to", "src/m1/**")
	testrepo.Write(t, root, files)
	testrepo.Git(t, root, "add", "-A")
	testrepo.Git(t, root, "commit", "-qm", "init")
	serve(t, root, Config{})
	gitDir := filepath.Join(root, ".git")

	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	var live []string
	for p := range files {
		if p != target {
			live = append(live, p)
		}
	}
	slices.Sort(live)
	dirs := []string{".ai/conventions", ".ai/learnings", ".ai/decisions"}
	n := 0
	step := func() string {
		switch k := rng.IntN(8); {
		case k == 0 || len(live) == 0: // a new file, maybe in a new directory
			d := dirs[rng.IntN(len(dirs))]
			if rng.IntN(2) == 0 {
				d = filepath.Join(d, fmt.Sprintf("sub%d", n))
				dirs = append(dirs, d)
			}
			n++
			p := filepath.Join(d, fmt.Sprintf("n%d.md", n))
			testrepo.Write(t, root, map[string]string{p: entryText(fmt.Sprintf("New %d", n), "src/**")})
			live = append(live, p)
			return "add " + p
		case k == 1: // edit, same size or not
			p := live[rng.IntN(len(live))]
			data, _ := os.ReadFile(filepath.Join(root, p))
			s := strings.Replace(string(data), "Body", "Bodx", 1)
			if rng.IntN(2) == 0 {
				s = strings.Replace(s, "src/", "lib/", 1)
			}
			os.WriteFile(filepath.Join(root, p), []byte(s), 0o644)
			return "edit " + p
		case k == 2: // rename
			i := rng.IntN(len(live))
			to := filepath.Join(filepath.Dir(live[i]), fmt.Sprintf("r%d.md", rng.IntN(1000)))
			if slices.Contains(live, to) {
				return "nothing"
			}
			if err := os.Rename(filepath.Join(root, live[i]), filepath.Join(root, to)); err != nil {
				t.Fatal(err)
			}
			live[i] = to
			return "rename " + to
		case k == 3: // delete
			i := rng.IntN(len(live))
			os.Remove(filepath.Join(root, live[i]))
			p := live[i]
			live = slices.Delete(live, i, i+1)
			return "delete " + p
		case k == 4: // touch
			p := live[rng.IntN(len(live))]
			now := time.Now()
			os.Chtimes(filepath.Join(root, p), now, now)
			return "touch " + p
		case k == 5: // rename a whole directory of a source
			if len(dirs) <= 3 {
				return "nothing"
			}
			i := 3 + rng.IntN(len(dirs)-3)
			from := dirs[i]
			to := from + "x"
			if err := os.Rename(filepath.Join(root, from), filepath.Join(root, to)); err != nil {
				return "nothing" // its parent moved already
			}
			for j, d := range dirs {
				if d == from || strings.HasPrefix(d, from+"/") {
					dirs[j] = to + strings.TrimPrefix(d, from)
				}
			}
			for j, p := range live {
				if strings.HasPrefix(p, from+"/") {
					live[j] = to + strings.TrimPrefix(p, from)
				}
			}
			return "move dir " + from
		case k == 6: // a link to the target (a link inside a watched tree), or an edit of the target
			if rng.IntN(2) == 0 {
				data, _ := os.ReadFile(filepath.Join(root, target))
				os.WriteFile(filepath.Join(root, target), append(data, fmt.Sprintf("Edit %d.\n", n)...), 0o644)
				n++
				return "edit the link target"
			}
			d := dirs[rng.IntN(len(dirs))]
			rel, _ := filepath.Rel(d, target)
			n++
			p := filepath.Join(d, fmt.Sprintf("link%d.md", n))
			os.MkdirAll(filepath.Join(root, d), 0o755) // a source directory no file was added to yet
			if err := os.Symlink(rel, filepath.Join(root, p)); err != nil {
				t.Fatal(err)
			}
			return "link " + p
		default: // stage everything: publication states change
			testrepo.Git(t, root, "add", "-A")
			return "git add"
		}
	}
	ops := [][2]string{
		{"status", "{}"},
		{"entries.list", "{}"},
		{"entries.governing", `{"paths":["src/m1/a.go","lib/m2/b.go"]}`},
		{"entries.search", `{"query":"convention"}`},
	}
	ctx := context.Background()
	for i := range 60 {
		what := step()
		for _, op := range ops {
			got, ok := Forward(gitDir, root, op[0], []byte(op[1]), relay.ClientFingerprint())
			if !ok {
				t.Fatalf("step %d (%s): the daemon did not answer %s", i, what, op[0])
			}
			want := native.Request(ctx, root, op[0], []byte(op[1]))
			if string(got) != string(want) {
				t.Fatalf("step %d (%s): %s differs:\ndaemon %s\nlocal  %s", i, what, op[0], got, want)
			}
		}
	}
}

func TestFallbacks(t *testing.T) {
	testrepo.Env(t)
	root := t.TempDir()
	testrepo.Git(t, root, "init", "-q")
	testrepo.Write(t, root, map[string]string{".ai/decisions/a.md": entryText("A", "src/**")})
	serve(t, root, Config{Environ: append(os.Environ(), "KONTEXT_SOMETHING=else")})
	gitDir := filepath.Join(root, ".git")
	// Another environment: no answer.
	if _, ok := Forward(gitDir, root, "status", []byte("{}"), relay.ClientFingerprint()); ok {
		t.Fatal("a daemon of another environment answered")
	}
	// A write is never sent.
	if Forwardable("drafts.stage") || Forwardable("entries.related") || !Forwardable("entries.governing") {
		t.Fatal("Forwardable is wrong")
	}
	info, err := Status(gitDir)
	if err != nil || info.Requests != 0 || info.Fallbacks != 1 {
		t.Fatalf("status %+v, %v", info, err)
	}
	// A second daemon for the same repository does not start.
	err = Run(context.Background(), Config{Dir: root})
	var running *ErrRunning
	if !errors.As(err, &running) || running.PID != os.Getpid() {
		t.Fatalf("a second daemon: %v", err)
	}
}

// TestForwardableAreReads: every operation a daemon answers is a read:
// one the in-memory engine serves too, or the brief (a read of the
// worktree); never a write.
func TestForwardableAreReads(t *testing.T) {
	for _, op := range engine.Table(native.Operations()...) {
		if !Forwardable(op.Name()) {
			continue
		}
		if op.Needs()&engine.NeedsWriter != 0 || (op.Needs()&engine.Subset == 0 && op.Name() != "context.brief") {
			t.Errorf("%s is forwarded but is not a read", op.Name())
		}
	}
	for _, name := range forwardable {
		found := false
		for _, op := range engine.Table(native.Operations()...) {
			found = found || op.Name() == name
		}
		if !found {
			t.Errorf("%s is not an operation", name)
		}
	}
}

// runUntilExit starts a daemon over a fresh repository whose exit the test
// causes, calls cause once it serves, and waits for Run to return by
// itself (a hang fails by the test timeout, not by a clock here).
func runUntilExit(t *testing.T, cfg Config, cause func(root string)) string {
	testrepo.Env(t)
	root := t.TempDir()
	testrepo.Git(t, root, "init", "-q")
	done := make(chan error, 1)
	ready := make(chan struct{})
	cfg.Dir, cfg.Tick, cfg.Ready = root, 10*time.Millisecond, func(relay.Info) { close(ready) }
	go func() { done <- Run(context.Background(), cfg) }()
	select {
	case <-ready:
		cause(root)
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	return root
}

func TestIdleExit(t *testing.T) {
	root := runUntilExit(t, Config{Idle: 50 * time.Millisecond}, func(string) {})
	if _, err := os.Stat(PathsOf(filepath.Join(root, ".git")).Socket); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the socket is left behind: %v", err)
	}
}

func TestGitDirGoneExit(t *testing.T) {
	runUntilExit(t, Config{}, func(root string) {
		if err := os.RemoveAll(filepath.Join(root, ".git")); err != nil {
			t.Error(err)
		}
	})
}
