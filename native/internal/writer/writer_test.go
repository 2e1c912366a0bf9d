package writer

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kontext/kontext/engine/apierr"
)

// The test binary doubles as a helper process: KONTEXT_WRITER_HELPER
// selects its mode (see helperMain).
func TestMain(m *testing.M) {
	if mode := os.Getenv("KONTEXT_WRITER_HELPER"); mode != "" {
		os.Exit(helperMain(mode))
	}
	os.Exit(m.Run())
}

func helperMain(mode string) int {
	onFallback = func(reason string) {
		fmt.Fprintln(os.Stderr, "unexpected git fallback:", reason)
		os.Exit(3)
	}
	w := New(os.Getenv("HELPER_ROOT"), os.Getenv("HELPER_GITDIR"))
	ctx := context.Background()
	unlock, err := w.Lock(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer unlock()
	switch mode {
	case "stage":
		file := os.Getenv("HELPER_FILE")
		if err := w.WriteFile(file, []byte("content of "+file+"\n")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := w.Stage(ctx, file); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	case "hold":
		fmt.Println("locked")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until stdin closes
	}
	return 0
}

func gitEnv(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	t.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_AUTHOR_NAME", "Test")
	t.Setenv("GIT_AUTHOR_EMAIL", "test@example.invalid")
	t.Setenv("GIT_COMMITTER_NAME", "Test")
	t.Setenv("GIT_COMMITTER_EMAIL", "test@example.invalid")
	t.Setenv("GIT_AUTHOR_DATE", "2026-01-01T00:00:00Z")
	t.Setenv("GIT_COMMITTER_DATE", "2026-01-01T00:00:00Z")
	t.Setenv("GIT_INDEX_FILE", "")
	os.Unsetenv("GIT_INDEX_FILE")
	t.Setenv("KONTEXT_LOCK_TIMEOUT", "")
	onFallback = func(reason string) { t.Errorf("unexpected git fallback: %s", reason) }
	t.Cleanup(func() { onFallback = nil })
}

// expectFallback makes the next Stage calls record their fallback reasons.
func expectFallback(reasons *[]string) {
	onFallback = func(reason string) { *reasons = append(*reasons, reason) }
}

func gitOK(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := gitRun(dir, args...)
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func gitRun(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func writeFile(t *testing.T, dir, rel, content string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// newRepo returns an absolute, symlink-free repository root with one commit.
func newRepo(t *testing.T) string {
	t.Helper()
	gitEnv(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(dir, "repo")
	gitOK(t, ".", "init", "-q", "-b", "main", dir)
	writeFile(t, dir, "README.md", "hello\n", 0o644)
	writeFile(t, dir, "mod.txt", "one\n", 0o644)
	writeFile(t, dir, "conflict.txt", "base\n", 0o644)
	gitOK(t, dir, "add", ".")
	gitOK(t, dir, "commit", "-q", "-m", "init")
	return dir
}

func gitDirOf(t *testing.T, dir string) string {
	t.Helper()
	g := strings.TrimSpace(gitOK(t, dir, "rev-parse", "--absolute-git-dir"))
	return g
}

// lsFilesDebug returns `git ls-files -s --debug` as path → block, with the
// order of paths.
func lsFilesDebug(t *testing.T, dir string) (order []string, blocks map[string]string) {
	t.Helper()
	out := gitOK(t, dir, "ls-files", "-s", "--debug")
	blocks = map[string]string{}
	var cur string
	for _, line := range strings.Split(out, "\n") {
		if line == "" {
			continue
		}
		if !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t") {
			_, path, _ := strings.Cut(line, "\t")
			key := path + " " + strings.Fields(line)[2] // path + stage
			order = append(order, key)
			cur = key
		}
		blocks[cur] += line + "\n"
	}
	return order, blocks
}

func stagedLine(t *testing.T, dir, path string) string {
	t.Helper()
	return strings.TrimSpace(gitOK(t, dir, "ls-files", "-s", "--", path))
}

func fsck(t *testing.T, dir string) {
	t.Helper()
	gitOK(t, dir, "fsck", "--no-dangling")
	gitOK(t, dir, "status", "--porcelain")
}

func TestStagePreservesUnrelatedEntries(t *testing.T) {
	dir := newRepo(t)
	// A real merge conflict.
	gitOK(t, dir, "checkout", "-q", "-b", "side")
	writeFile(t, dir, "conflict.txt", "side\n", 0o644)
	gitOK(t, dir, "commit", "-q", "-am", "side")
	gitOK(t, dir, "checkout", "-q", "main")
	writeFile(t, dir, "conflict.txt", "main\n", 0o644)
	gitOK(t, dir, "commit", "-q", "-am", "main")
	if out, err := gitRun(dir, "merge", "side"); err == nil {
		t.Fatalf("merge did not conflict: %s", out)
	}
	writeFile(t, dir, "other.txt", "other\n", 0o644)
	gitOK(t, dir, "add", "other.txt")
	writeFile(t, dir, "ita.txt", "intent\n", 0o644)
	gitOK(t, dir, "add", "-N", "ita.txt")
	writeFile(t, dir, "bin/run.sh", "#!/bin/sh\n", 0o755)
	gitOK(t, dir, "add", "bin/run.sh")

	beforeOrder, before := lsFilesDebug(t, dir)
	beforeDiff := gitOK(t, dir, "diff", "--cached", "--name-status")

	w := New(dir, gitDirOf(t, dir))
	ctx := context.Background()
	unlock, err := w.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile(".ai/decision/new.md", []byte("# New\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile("mod.txt", []byte("two\n")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "tool.sh", "#!/bin/sh\necho hi\n", 0o755)
	if err := w.Stage(ctx, ".ai/decision/new.md", "mod.txt", "tool.sh"); err != nil {
		t.Fatal(err)
	}
	unlock()

	ours := map[string]bool{".ai/decision/new.md 0": true, "mod.txt 0": true, "tool.sh 0": true}
	afterOrder, after := lsFilesDebug(t, dir)
	var bo, ao []string
	for _, k := range beforeOrder {
		if !ours[k] {
			bo = append(bo, k)
		}
	}
	for _, k := range afterOrder {
		if !ours[k] {
			ao = append(ao, k)
		}
	}
	if strings.Join(bo, "|") != strings.Join(ao, "|") {
		t.Fatalf("unrelated entries changed:\n%v\n%v", bo, ao)
	}
	for _, k := range bo {
		if before[k] != after[k] {
			t.Errorf("entry %s changed:\n%s\n%s", k, before[k], after[k])
		}
	}
	for _, p := range []string{".ai/decision/new.md", "mod.txt", "tool.sh"} {
		want := strings.TrimSpace(gitOK(t, dir, "hash-object", "--", p))
		got := strings.TrimSpace(gitOK(t, dir, "rev-parse", ":"+p))
		if got != want {
			t.Errorf("%s staged %s, want %s", p, got, want)
		}
	}
	if l := stagedLine(t, dir, "tool.sh"); !strings.HasPrefix(l, "100755 ") {
		t.Errorf("tool.sh: %s", l)
	}
	if l := stagedLine(t, dir, "mod.txt"); !strings.HasPrefix(l, "100644 ") {
		t.Errorf("mod.txt: %s", l)
	}
	afterDiff := gitOK(t, dir, "diff", "--cached", "--name-status")
	var rest []string
	for _, l := range strings.Split(afterDiff, "\n") {
		if l == "A\t.ai/decision/new.md" || l == "M\tmod.txt" || l == "A\ttool.sh" {
			continue
		}
		rest = append(rest, l)
	}
	if strings.Join(rest, "\n") != beforeDiff {
		t.Errorf("diff --cached changed:\nbefore:\n%s\nafter:\n%s", beforeDiff, afterDiff)
	}
	status := gitOK(t, dir, "status", "--porcelain")
	for _, want := range []string{"UU conflict.txt", " A ita.txt", "A  other.txt", "M  mod.txt", "A  .ai/decision/new.md"} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}
	fsck(t, dir)
}

func TestStageIndexV4(t *testing.T) {
	dir := newRepo(t)
	for i := range 5 {
		writeFile(t, dir, fmt.Sprintf("src/pkg/file%d.go", i), "package pkg\n", 0o644)
	}
	gitOK(t, dir, "add", ".")
	gitOK(t, dir, "update-index", "--index-version", "4")
	_, before := lsFilesDebug(t, dir)
	w := New(dir, gitDirOf(t, dir))
	if err := w.WriteFile("src/pkg/file2a.go", []byte("package pkg // new\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Stage(context.Background(), "src/pkg/file2a.go"); err != nil {
		t.Fatal(err)
	}
	_, after := lsFilesDebug(t, dir)
	for k, v := range before {
		if after[k] != v {
			t.Errorf("%s changed", k)
		}
	}
	if after["src/pkg/file2a.go 0"] == "" {
		t.Fatal("not staged")
	}
	b, _ := os.ReadFile(filepath.Join(gitDirOf(t, dir), "index"))
	if v := b[7]; v != 4 {
		t.Errorf("index version %d", v)
	}
	fsck(t, dir)
}

func TestStageFallsBackToGitForResolveUndoAndSplitIndex(t *testing.T) {
	dir := newRepo(t)
	gitOK(t, dir, "checkout", "-q", "-b", "side")
	writeFile(t, dir, "conflict.txt", "side\n", 0o644)
	gitOK(t, dir, "commit", "-q", "-am", "side")
	gitOK(t, dir, "checkout", "-q", "main")
	writeFile(t, dir, "conflict.txt", "main\n", 0o644)
	gitOK(t, dir, "commit", "-q", "-am", "main")
	gitRun(dir, "merge", "side")
	writeFile(t, dir, "conflict.txt", "resolved\n", 0o644)
	gitOK(t, dir, "add", "conflict.txt") // records resolve-undo
	gd := gitDirOf(t, dir)
	w := New(dir, gd)
	var reasons []string
	expectFallback(&reasons)
	if err := w.WriteFile("a.md", []byte("a\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Stage(context.Background(), "a.md"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(gd, "index"))
	if !bytes.Contains(b, []byte("REUC")) {
		t.Error("resolve-undo data lost")
	}
	if stagedLine(t, dir, "a.md") == "" {
		t.Error("a.md not staged")
	}

	gitOK(t, dir, "update-index", "--split-index")
	if err := w.WriteFile("b.md", []byte("b\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Stage(context.Background(), "b.md"); err != nil {
		t.Fatal(err)
	}
	if stagedLine(t, dir, "b.md") == "" || stagedLine(t, dir, "a.md") == "" {
		t.Error("split index: not staged")
	}
	if len(reasons) != 2 || !strings.Contains(reasons[0], "resolve-undo") {
		t.Errorf("fallback reasons: %q", reasons)
	}
	fsck(t, dir)
}

func TestConcurrentWriters(t *testing.T) {
	dir := newRepo(t)
	gd := gitDirOf(t, dir)
	writeFile(t, dir, "pre.txt", "pre\n", 0o644)
	gitOK(t, dir, "add", "pre.txt")
	writeFile(t, dir, "ita.txt", "ita\n", 0o644)
	gitOK(t, dir, "add", "-N", "ita.txt")
	pre, ita := stagedLine(t, dir, "pre.txt"), stagedLine(t, dir, "ita.txt")

	const n = 20
	var wg sync.WaitGroup
	errs := make([]error, n)
	outs := make([][]byte, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), "KONTEXT_WRITER_HELPER=stage", "HELPER_ROOT="+dir, "HELPER_GITDIR="+gd,
				fmt.Sprintf("HELPER_FILE=.ai/learning/entry-%02d.md", i))
			outs[i], errs[i] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("writer %d: %v\n%s", i, errs[i], outs[i])
		}
	}
	for i := range n {
		p := fmt.Sprintf(".ai/learning/entry-%02d.md", i)
		want := strings.TrimSpace(gitOK(t, dir, "hash-object", "--", p))
		if got := strings.TrimSpace(gitOK(t, dir, "rev-parse", ":"+p)); got != want {
			t.Errorf("%s: staged %q want %q", p, got, want)
		}
	}
	if got := stagedLine(t, dir, "pre.txt"); got != pre {
		t.Errorf("pre.txt: %q want %q", got, pre)
	}
	if got := stagedLine(t, dir, "ita.txt"); got != ita {
		t.Errorf("ita.txt: %q want %q", got, ita)
	}
	if st := gitOK(t, dir, "status", "--porcelain"); !strings.Contains(st, " A ita.txt") {
		t.Errorf("intent-to-add lost:\n%s", st)
	}
	fsck(t, dir)
}

func TestStageWaitsForGitIndexLock(t *testing.T) {
	dir := newRepo(t)
	gd := gitDirOf(t, dir)
	t.Setenv("KONTEXT_LOCK_TIMEOUT", "1")
	lockPath := filepath.Join(gd, "index.lock")
	if err := os.WriteFile(lockPath, []byte("someone else"), 0o644); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(gd, "index"))
	w := New(dir, gd)
	if err := w.WriteFile("x.md", []byte("x\n")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err := w.Stage(context.Background(), "x.md")
	elapsed := time.Since(start)
	if apierr.CodeOf(err) != apierr.OperationFailed || !strings.Contains(err.Error(), "index.lock") {
		t.Fatalf("err = %v", err)
	}
	if elapsed < 900*time.Millisecond || elapsed > 10*time.Second {
		t.Errorf("waited %v", elapsed)
	}
	after, _ := os.ReadFile(filepath.Join(gd, "index"))
	if !bytes.Equal(before, after) {
		t.Error("index changed")
	}
	if b, err := os.ReadFile(lockPath); err != nil || string(b) != "someone else" {
		t.Errorf("foreign index.lock touched: %q %v", b, err)
	}
	// Released: staging works again.
	os.Remove(lockPath)
	if err := w.Stage(context.Background(), "x.md"); err != nil {
		t.Fatal(err)
	}
	fsck(t, dir)
}

func TestLockHeldByAnotherProcess(t *testing.T) {
	dir := newRepo(t)
	gd := gitDirOf(t, dir)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "KONTEXT_WRITER_HELPER=hold", "HELPER_ROOT="+dir, "HELPER_GITDIR="+gd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("helper: %q %v", line, err)
	}
	t.Setenv("KONTEXT_LOCK_TIMEOUT", "1")
	w := New(dir, gd)
	start := time.Now()
	_, err = w.Lock(context.Background())
	if apierr.CodeOf(err) != apierr.OperationFailed || !strings.Contains(err.Error(), "pid "+strconv.Itoa(cmd.Process.Pid)) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Errorf("gave up after %v", d)
	}
	stdin.Close()
	cmd.Wait()
	unlock, err := w.Lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(gd, "kontext", "lock"))
	if strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock file holds %q", b)
	}
	unlock()
	unlock()
}

func TestWriteFileConfinement(t *testing.T) {
	dir := newRepo(t)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	w := New(dir, gitDirOf(t, dir))
	for _, p := range []string{"../x", "/etc/x", "a/../../x", "out/x", "out/sub/x", ".git/config", "out", ""} {
		if err := w.WriteFile(p, []byte("no")); apierr.CodeOf(err) != apierr.InvalidInput {
			t.Errorf("WriteFile(%q) = %v, want invalid_input", p, err)
		}
		if err := w.Stage(context.Background(), p); apierr.CodeOf(err) != apierr.InvalidInput {
			t.Errorf("Stage(%q) = %v, want invalid_input", p, err)
		}
	}
	if ents, _ := os.ReadDir(outside); len(ents) != 0 {
		t.Errorf("wrote outside the root: %v", ents)
	}
	for _, content := range []string{"first\n", "second\n"} {
		if err := w.WriteFile("a/b/c.md", []byte(content)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "a/b/c.md")); string(b) != content {
			t.Errorf("content %q", b)
		}
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "a/b"))
	if len(ents) != 1 {
		t.Errorf("leftover files: %v", ents)
	}
	// An executable file keeps its mode when rewritten.
	writeFile(t, dir, "run.sh", "#!/bin/sh\n", 0o755)
	if err := w.WriteFile("run.sh", []byte("#!/bin/sh\necho\n")); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(dir, "run.sh")); fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("mode %v", fi.Mode())
	}
}

func TestLinkedWorktree(t *testing.T) {
	dir := newRepo(t)
	wt := filepath.Join(filepath.Dir(dir), "wt")
	gitOK(t, dir, "worktree", "add", "-q", "-b", "feature", wt)
	wtGitDir := gitDirOf(t, wt)
	if !strings.Contains(wtGitDir, "worktrees") {
		t.Fatalf("unexpected worktree git dir %s", wtGitDir)
	}
	mainIndex, _ := os.ReadFile(filepath.Join(dir, ".git", "index"))
	w := New(wt, wtGitDir)
	ctx := context.Background()
	unlock, err := w.Lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if err := w.WriteFile(".ai/note.md", []byte("worktree note\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Stage(ctx, ".ai/note.md"); err != nil {
		t.Fatal(err)
	}
	h := strings.TrimSpace(gitOK(t, wt, "hash-object", "--", ".ai/note.md"))
	if got := strings.TrimSpace(gitOK(t, wt, "rev-parse", ":.ai/note.md")); got != h {
		t.Errorf("staged %q want %q", got, h)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "objects", h[:2], h[2:])); err != nil {
		t.Errorf("object not in the common dir: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, ".git", "index")); !bytes.Equal(after, mainIndex) {
		t.Error("main worktree's index changed")
	}
	if _, err := os.Stat(filepath.Join(wtGitDir, "kontext", "lock")); err != nil {
		t.Errorf("lock not in the worktree git dir: %v", err)
	}
	fsck(t, wt)
}

// TestWriteFileNestedRepository: a directory holding its own .git (a
// nested checkout, or a submodule's .git file) is another repository; no
// write or stage crosses into it.
func TestWriteFileNestedRepository(t *testing.T) {
	dir := newRepo(t)
	gitOK(t, dir, "init", "-q", "lib")
	writeFile(t, dir, "mod/.git", "gitdir: ../.git/modules/mod\n", 0o644)
	w := New(dir, gitDirOf(t, dir))
	for _, p := range []string{"lib/.ai/decisions/x.md", "lib/x.md", "mod/notes/y.md"} {
		err := w.WriteFile(p, []byte("no"))
		if apierr.CodeOf(err) != apierr.InvalidInput || !strings.Contains(err.Error(), "nested repository") {
			t.Errorf("WriteFile(%q) = %v, want invalid_input naming the nested repository", p, err)
		}
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("%s was written", p)
		}
		if err := w.Stage(context.Background(), p); apierr.CodeOf(err) != apierr.InvalidInput {
			t.Errorf("Stage(%q) = %v, want invalid_input", p, err)
		}
	}
	// Beside the nested repositories, writes work.
	if err := w.WriteFile("library/x.md", []byte("yes\n")); err != nil {
		t.Fatal(err)
	}
}

// TestLockTimeoutValues: KONTEXT_LOCK_TIMEOUT takes seconds or a Go
// duration; anything else is invalid_input naming the variable (it used to
// be ignored silently), and a write refuses to start with it.
func TestLockTimeoutValues(t *testing.T) {
	for v, want := range map[string]time.Duration{"": 30 * time.Second, "2s": 2 * time.Second, "1m30s": 90 * time.Second,
		"500ms": 500 * time.Millisecond, "0.5": 500 * time.Millisecond, "3": 3 * time.Second, " 0 ": 0} {
		t.Setenv("KONTEXT_LOCK_TIMEOUT", v)
		if got, err := lockTimeout(); err != nil || got != want {
			t.Errorf("KONTEXT_LOCK_TIMEOUT=%q: %v, %v; want %v", v, got, err, want)
		}
	}
	for _, v := range []string{"soon", "2 s", "-1", "-2s", "1e12", "NaN", "2sec"} {
		t.Setenv("KONTEXT_LOCK_TIMEOUT", v)
		if _, err := lockTimeout(); apierr.CodeOf(err) != apierr.InvalidInput || !strings.Contains(err.Error(), "KONTEXT_LOCK_TIMEOUT") {
			t.Errorf("KONTEXT_LOCK_TIMEOUT=%q: %v, want invalid_input naming it", v, err)
		}
	}
	dir := newRepo(t)
	t.Setenv("KONTEXT_LOCK_TIMEOUT", "soon")
	if _, err := New(dir, gitDirOf(t, dir)).Lock(context.Background()); apierr.CodeOf(err) != apierr.InvalidInput {
		t.Errorf("Lock with a junk timeout: %v", err)
	}
}

// TestStageContents stages a given content apart from the working file:
// the index holds exactly it (no stat data, so git compares the working
// file and shows the rest as unstaged), the working file is untouched,
// other paths are staged from their files, and the git fallback does the
// same.
func TestStageContents(t *testing.T) {
	for _, fallback := range []bool{false, true} {
		dir := newRepo(t)
		var reasons []string
		if fallback {
			gitOK(t, dir, "update-index", "--split-index")
			expectFallback(&reasons)
		}
		w := New(dir, gitDirOf(t, dir))
		writeFile(t, dir, "mod.txt", "one\nuser\nkontext\n", 0o644)
		writeFile(t, dir, "a.md", "a\n", 0o644)
		if err := w.StageContents(context.Background(), []string{"a.md"}, map[string][]byte{"mod.txt": []byte("one\nkontext\n")}); err != nil {
			t.Fatal(err)
		}
		if got := gitOK(t, dir, "show", ":mod.txt"); got != "one\nkontext\n" {
			t.Errorf("fallback %v: staged mod.txt %q", fallback, got)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, "mod.txt")); string(got) != "one\nuser\nkontext\n" {
			t.Errorf("fallback %v: working mod.txt changed: %q", fallback, got)
		}
		if got := gitOK(t, dir, "diff", "--", "mod.txt"); !strings.Contains(got, "+user") || strings.Contains(got, "+kontext") {
			t.Errorf("fallback %v: unstaged diff %q, want only the user's line", fallback, got)
		}
		if stagedLine(t, dir, "a.md") == "" {
			t.Errorf("fallback %v: a.md not staged", fallback)
		}
		if fallback != (len(reasons) == 1) {
			t.Errorf("fallback %v: reasons %q", fallback, reasons)
		}
		fsck(t, dir)
	}
}
