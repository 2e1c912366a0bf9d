//go:build unix

package native

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kontext/kontext/internal/testrepo"
)

// TestStress kills writers and races them, then checks that no write was
// lost or doubled and that git fsck passes. `go test` runs a small
// version; `make stress` (KONTEXT_STRESS=full) runs it at scale and writes
// its table into bench/results.md (KONTEXT_STRESS_OUT).
//
// Kills are of two sorts: a -tags faultinject build exits at a named step
// (after the plan, the write or the stage), and a normal child process is
// sent SIGKILL after a random delay. After each kill the same request is
// retried, as a client does: it must finish (fresh when the kill came
// before the plan, resumed from the stored plan, or replayed when the
// write had finished).
func TestStress(t *testing.T) {
	testrepo.Env(t)
	full := os.Getenv("KONTEXT_STRESS") == "full"
	perOp, writers, same := 4, 5, 5
	if full {
		perOp, writers, same = 40, 20, 10
	}
	bin, fault := kontextBin(t, "kontext"), kontextBin(t, "kontext-fault")
	st := &stressStats{}
	for _, op := range []string{"drafts.stage", "drafts.capture", "drafts.confirm", "drafts.retire"} {
		st.killed(t, op, bin, fault, perOp)
	}
	st.concurrent(t, bin, writers)
	st.sameID(t, bin, same)
	edits := 4
	if full {
		edits = 50
	}
	st.outsideEdits(t, bin, edits)
	table := st.table(perOp, writers, same)
	t.Log("\n" + table)
	if st.lost > 0 || st.fsckFailed > 0 || st.editsLost > 0 {
		t.Fatalf("%d writes lost, %d outside edits lost, %d fsck failures:\n%s", st.lost, st.editsLost, st.fsckFailed, table)
	}
	if full && st.kills < 100 {
		t.Fatalf("only %d kills landed (want ≥ 100)", st.kills)
	}
	if out := os.Getenv("KONTEXT_STRESS_OUT"); out != "" {
		if err := writeStressSection(out, table); err != nil {
			t.Fatal(err)
		}
	}
}

type stressStats struct {
	mu                                  sync.Mutex
	attempted, fresh, replayed, resumed int
	lost, kills, faultKills, sigkills   int
	staleIndexLocks, fsckRuns           int
	edits, editConflicts, editsLost     int
	fsckFailed                          int
	rows                                []string
}

func (s *stressStats) add(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f()
}

// fsck runs git fsck on dir and counts a failure.
func (s *stressStats) fsck(t *testing.T, dir string) {
	cmd := exec.Command("git", "fsck", "--no-progress", "--strict")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	s.add(func() {
		s.fsckRuns++
		if err != nil {
			s.fsckFailed++
			t.Errorf("git fsck in %s: %v\n%s", dir, err, out)
		}
	})
}

// stressRepo is a repository with n confirmable and n retirable entries,
// committed.
func stressRepo(t *testing.T, n int) *repo {
	r := newRepo(t)
	files := map[string]string{"other.txt": "x\n"}
	for i := 0; i < n; i++ {
		files[fmt.Sprintf(".ai/conventions/c-%d.md", i)] = fmt.Sprintf("---\nstatus: active\n---\n# Confirm me %d\n", i)
		files[fmt.Sprintf(".ai/conventions/r-%d.md", i)] = fmt.Sprintf("---\nstatus: active\n---\n# Retire me %d\n", i)
	}
	r.write(files)
	r.git("config", "user.name", "Stress")
	r.commit("2026-01-02T10:00:00Z", "seed")
	return r
}

func (s *stressStats) request(r *repo, op string, i int, tag string) string {
	switch op {
	case "drafts.stage":
		return fmt.Sprintf(`{"operation_id":"%s-%d","entry":{"kind":"learning","title":"Stress %s %d","body":"b"}}`, tag, i, tag, i)
	case "drafts.capture":
		return fmt.Sprintf(`{"operation_id":"%s-%d","entry":{"kind":"learning","title":"Captured %s %d","body":"password=hunter%d"}}`, tag, i, tag, i, i)
	case "drafts.confirm":
		return fmt.Sprintf(`{"operation_id":"%s-%d","id":"c-%d","because":"stress"}`, tag, i, i)
	default:
		rev := r.entry(fmt.Sprintf("r-%d", i))["revision"].(string)
		return fmt.Sprintf(`{"operation_id":"%s-%d","entry_id":"r-%d","entry_revision":"%s","reason":"stress"}`, tag, i, i, rev)
	}
}

// killed runs n writes of op, each killed once (a fault point or SIGKILL)
// and retried, then checks every write landed exactly once.
func (s *stressStats) killed(t *testing.T, op, bin, fault string, n int) {
	r := stressRepo(t, n)
	points := []string{"after_plan", "after_write", "after_stage", "sigkill"}
	for i := 0; i < n; i++ {
		in := s.request(r, op, i, "k")
		point := points[i%len(points)]
		var landed bool
		if point == "sigkill" {
			landed = sigkill(bin, r.dir, op, in, time.Duration(rand.IntN(60))*time.Millisecond)
			s.add(func() { s.sigkills += b2i(landed) })
		} else {
			_, code, _ := runAPI(fault, r.dir, op, in, "KONTEXT_FAULT="+point)
			landed = code == 99
			s.add(func() { s.faultKills += b2i(landed) })
		}
		planned := errCode(r.call("operations.get", fmt.Sprintf(`{"operation_id":"k-%d"}`, i))) == "operation_incomplete"
		m, code, out := runAPI(bin, r.dir, op, in)
		if code != 0 && strings.Contains(out, "index.lock") {
			// SIGKILL inside git's index.lock window leaves the lock, as it
			// does for git itself; the message says to remove it when no
			// git process runs, which the client does here.
			os.Remove(filepath.Join(r.dir, ".git", "index.lock"))
			s.add(func() { s.staleIndexLocks++ })
			m, code, out = runAPI(bin, r.dir, op, in)
		}
		s.add(func() {
			s.attempted++
			s.kills += b2i(landed)
			switch {
			case code != 0 || m == nil || m["ok"] != true:
				s.lost++
				t.Errorf("%s %d after %s: the retry failed: %s", op, i, point, out)
			case m["result"].(map[string]any)["replayed"] == true:
				s.replayed++
			case planned:
				s.resumed++
			default:
				s.fresh++
			}
		})
	}
	s.add(func() { s.lost += s.verify(t, r, op, n, "k") })
	s.fsck(t, r.dir)
}

// sigkill starts a write and kills it with SIGKILL after delay; it
// reports whether the kill landed (the process had not exited yet).
func sigkill(bin, dir, op, in string, delay time.Duration) bool {
	cmd := exec.Command(bin, "-C", dir, "api", op, "-")
	cmd.Stdin = strings.NewReader(in)
	if cmd.Start() != nil {
		return false
	}
	time.Sleep(delay)
	cmd.Process.Signal(syscall.SIGKILL)
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return true
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// verify counts the writes of tag that did not land exactly once.
func (s *stressStats) verify(t *testing.T, r *repo, op string, n int, tag string) int {
	lost := 0
	staged := r.git("diff", "--cached", "--name-only")
	switch op {
	case "drafts.stage":
		for i := 0; i < n; i++ {
			name := fmt.Sprintf(".ai/learnings/2026-11-30-stress-%s-%d.md", tag, i)
			if !strings.Contains(staged+"\n", name+"\n") {
				lost++
				t.Errorf("stage %d: %s is not staged", i, name)
			}
		}
		if files, _ := filepath.Glob(filepath.Join(r.dir, ".ai/learnings/*.md")); len(files) != n {
			t.Errorf("stage: %d entry files, want %d", len(files), n)
			lost += max(0, n-len(files))
		}
	case "drafts.capture":
		l := r.api("inbox.list", `{}`)
		if got := len(l["candidates"].([]any)); got != n {
			t.Errorf("capture: %d candidates, want %d", got, n)
			lost += max(0, n-got)
		}
	case "drafts.confirm":
		led := r.git("show", ":.ai/confirmations.log")
		for i := 0; i < n; i++ {
			if c := strings.Count(led, fmt.Sprintf(`"id":"c-%d"`, i)); c != 1 {
				lost++
				t.Errorf("confirm %d: %d staged ledger lines, want 1", i, c)
			}
		}
	case "drafts.retire":
		for i := 0; i < n; i++ {
			if !strings.Contains(r.git("show", fmt.Sprintf(":.ai/conventions/r-%d.md", i)), "status: deprecated") {
				lost++
				t.Errorf("retire %d: not staged as deprecated", i)
			}
		}
	}
	if tmp := tempFiles(t, r.dir); len(tmp) > 0 {
		t.Errorf("%s: temporary files left: %v", op, tmp)
	}
	return lost
}

// concurrent runs n writers at once, each its own stage.
func (s *stressStats) concurrent(t *testing.T, bin string, n int) {
	r := stressRepo(t, 0)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := s.request(r, "drafts.stage", i, "w")
			m, code, out := runAPI(bin, r.dir, "drafts.stage", in)
			s.add(func() {
				s.attempted++
				if code != 0 || m == nil || m["ok"] != true {
					s.lost++
					t.Errorf("concurrent writer %d: %s", i, out)
				} else {
					s.fresh++
				}
			})
		}()
	}
	wg.Wait()
	s.add(func() { s.lost += s.verify(t, r, "drafts.stage", n, "w") })
	s.fsck(t, r.dir)
}

// sameID races n processes with one operation_id for stage, capture and
// confirm: one writes, the others replay.
func (s *stressStats) sameID(t *testing.T, bin string, n int) {
	r := stressRepo(t, 1)
	for _, op := range []string{"drafts.stage", "drafts.capture", "drafts.confirm"} {
		in := s.request(r, op, 0, "s"+strings.TrimPrefix(op, "drafts."))
		fresh, replays := sameID(t, r.dir, op, in, n)
		s.add(func() {
			s.attempted += n
			s.fresh += fresh
			s.replayed += replays
			if fresh != 1 || replays != n-1 {
				s.lost += n - fresh - replays
				t.Errorf("%s same id ×%d: %d writes, %d replays", op, n, fresh, replays)
			}
		})
	}
	s.fsck(t, r.dir)
}

func (s *stressStats) table(perOp, writers, same int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Written by `make stress` on %s (%s scale). Each write is retried after its kill with the same request.\n\n",
		time.Now().UTC().Format("2006-01-02"), map[bool]string{true: "full", false: "small"}[perOp >= 40])
	b.WriteString("| scenario | value |\n| --- | --- |\n")
	for _, row := range [][2]any{
		{"killed writes (stage, capture, confirm, retire × " + fmt.Sprint(perOp) + ")", 4 * perOp},
		{"kills landed (fault points + SIGKILL)", fmt.Sprintf("%d (%d + %d)", s.kills, s.faultKills, s.sigkills)},
		{"concurrent writers", writers},
		{"same-id races (stage, capture, confirm × processes)", fmt.Sprintf("3 × %d", same)},
		{"writes attempted", s.attempted},
		{"written fresh", s.fresh},
		{"replayed", s.replayed},
		{"resumed from a stored plan", s.resumed},
		{"stale git index.lock removed before a retry", s.staleIndexLocks},
		{"**lost (must be 0)**", s.lost},
		{"outside edits raced against confirm, supersede, retire, extend (0–49 ms after the start)", fmt.Sprintf("%d (%d refused: operation_conflict or stale_entry)", s.edits, s.editConflicts)},
		{"**outside edits lost (must be 0)**", s.editsLost},
		{"git fsck --strict", fmt.Sprintf("%d runs, %d failed", s.fsckRuns, s.fsckFailed)},
	} {
		fmt.Fprintf(&b, "| %v | %v |\n", row[0], row[1])
	}
	return b.String()
}

// outsideEdits races a user's edit against writes that rewrite an
// existing entry file: for each of confirm, supersede, retire and extend,
// n rounds on an entry of its own, each appending a line to the entry file
// 0–49 ms after the command started. Whatever the command answers (done;
// stale_entry when the edit came before its plan; operation_conflict when
// it got in between the plan and the rename), the user's line must still
// be in the file afterwards.
func (s *stressStats) outsideEdits(t *testing.T, bin string, n int) {
	r := newRepo(t)
	files := map[string]string{}
	for _, op := range []string{"confirm", "supersede", "retire", "extend"} {
		for i := 0; i < n; i++ {
			files[fmt.Sprintf(".ai/conventions/%s-%d.md", op, i)] = fmt.Sprintf("---\nstatus: active\n---\n# Edit me %s %d\n\nBody.\n", op, i)
		}
	}
	r.write(files)
	r.git("config", "user.name", "Stress")
	r.commit("2026-01-02T10:00:00Z", "seed")
	for i := 0; i < n; i++ {
		for _, op := range []string{"confirm", "supersede", "retire", "extend"} {
			id := fmt.Sprintf("%s-%d", op, i)
			args := map[string][]string{
				"confirm":   {"confirm", id, "--because", "stress"},
				"supersede": {"supersede", id, "Replaces " + id},
				"retire":    {"retire", id, "--reason", "stress"},
				"extend":    {"extend", id, "Added by kontext."},
			}[op]
			file := filepath.Join(r.dir, ".ai", "conventions", id+".md")
			line := fmt.Sprintf("USER EDIT %s\n", id)
			cmd := exec.Command(bin, append([]string{"-C", r.dir}, args...)...)
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Duration(rand.IntN(50)) * time.Millisecond)
			f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, werr := f.WriteString(line)
			if cerr := f.Close(); werr != nil || cerr != nil {
				t.Fatal(werr, cerr)
			}
			err = cmd.Wait()
			text, rerr := os.ReadFile(file)
			s.add(func() {
				s.edits++
				// The edit is seen as a conflict (between the plan and the
				// rename) or as a stale revision (between the command's read
				// and the plan): both refusals leave the file the user's.
				if strings.Contains(out.String(), "(operation_conflict)") || strings.Contains(out.String(), "(stale_entry)") {
					s.editConflicts++
				} else if err != nil {
					t.Errorf("kontext %s: %v\n%s", strings.Join(args, " "), err, out.String())
				}
				if rerr != nil || !strings.Contains(string(text), line) {
					s.editsLost++
					t.Errorf("kontext %s lost the user's edit (%v):\n%s\nits answer: %s", strings.Join(args, " "), rerr, text, out.String())
				}
			})
		}
	}
	if tmp := tempFiles(t, r.dir); len(tmp) > 0 {
		t.Errorf("outside edits: temporary files left: %v", tmp)
	}
	s.fsck(t, r.dir)
}

// writeStressSection replaces the stress section of bench/results.md
// (between its markers), keeping the rest.
func writeStressSection(path, table string) error {
	const begin, end = "<!-- stress -->", "<!-- /stress -->"
	old, _ := os.ReadFile(path)
	text := string(old)
	section := begin + "\n## Write stress (`make stress`)\n\n" + table + end + "\n"
	if i, j := strings.Index(text, begin), strings.Index(text, end); i >= 0 && j > i {
		text = text[:i] + section + strings.TrimPrefix(text[j+len(end):], "\n")
	} else {
		text = strings.TrimRight(text, "\n") + "\n\n" + section
	}
	return os.WriteFile(path, []byte(text), 0o644)
}
