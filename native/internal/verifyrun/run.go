// Package verifyrun runs pinned verify commands natively: `sh -c` in its
// own process group with stdin closed and an allow-listed environment,
// killed with its whole group on timeout or when a child keeps the output
// open after the shell exited. It also reads the user's trust file and the
// local verify settings.
package verifyrun

import (
	"context"
	"errors"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kontext/kontext/engine"
	"github.com/kontext/kontext/engine/drafts"
	"github.com/kontext/kontext/native/internal/procgroup"
)

// TailBytes is how much combined output a run keeps (the last bytes).
const TailBytes = 2048

// HeldOpenDelay is how long a run waits for the output to close after the
// shell exited before it kills the process group.
const HeldOpenDelay = 2 * time.Second

// Runner is the native engine.Runner; GitDir locates the worktree's local
// configuration (<git-dir>/kontext/config.toml).
type Runner struct {
	GitDir string
}

var (
	_ engine.Runner               = (*Runner)(nil)
	_ engine.VerifySettingsSource = (*Runner)(nil)
)

// Run runs req.Command with `sh -c` from req.Dir.
func (r *Runner) Run(ctx context.Context, req engine.RunRequest) (engine.RunResult, error) {
	timeout := req.Timeout
	if timeout <= 0 {
		timeout = drafts.DefaultVerifyTimeout
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, "sh", "-c", req.Command)
	cmd.Dir = req.Dir
	cmd.Env = req.Env
	if cmd.Env == nil {
		cmd.Env = []string{} // never the parent's environment
	}
	cmd.Stdin = nil // /dev/null
	out := &tail{}
	cmd.Stdout, cmd.Stderr = out, out
	procgroup.Set(cmd)
	var killed atomic.Bool
	cmd.Cancel = func() error {
		killed.Store(true)
		return procgroup.Kill(cmd.Process)
	}
	cmd.WaitDelay = HeldOpenDelay
	if err := cmd.Start(); err != nil {
		return engine.RunResult{}, err
	}
	err := cmd.Wait()
	// Whatever is left of the group (a child that held the output open,
	// or background jobs) goes with the shell.
	_ = procgroup.Kill(cmd.Process)
	res := engine.RunResult{Output: out.bytes()}
	if killed.Load() {
		res.TimedOut = errors.Is(tctx.Err(), context.DeadlineExceeded)
		if !res.TimedOut && ctx.Err() != nil {
			return res, ctx.Err()
		}
		return res, nil
	}
	if ps := cmd.ProcessState; ps != nil && ps.Exited() {
		code := ps.ExitCode()
		res.ExitCode = &code
		return res, nil
	}
	var exitErr *exec.ExitError
	if err != nil && !errors.As(err, &exitErr) && !errors.Is(err, exec.ErrWaitDelay) {
		return res, err
	}
	return res, nil // killed by a signal from elsewhere: exit_code null
}

// tail is an io.Writer keeping the last TailBytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if len(p) >= TailBytes {
		t.buf = append(t.buf[:0], p[len(p)-TailBytes:]...)
		return n, nil
	}
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - TailBytes; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	return n, nil
}

func (t *tail) bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf...)
}
