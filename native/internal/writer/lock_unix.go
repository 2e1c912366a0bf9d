//go:build unix

package writer

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/kontext/kontext/engine/apierr"
)

// Lock takes the shared kontext write lock <git-dir>/kontext/lock (an
// exclusive flock), waiting at most KONTEXT_LOCK_TIMEOUT seconds (default
// 30). The holder's pid is written into the lock file. On timeout the error
// is operation_failed naming the holder's pid. unlock releases the lock; it
// is safe to call more than once.
func (w *Writer) Lock(ctx context.Context) (unlock func(), err error) {
	dir := filepath.Join(w.gitDir, "kontext")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "creating %s", dir)
	}
	name := filepath.Join(dir, "lock")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, apierr.Wrap(apierr.OperationFailed, err, "opening the kontext write lock %s", name)
	}
	timeout, err := lockTimeout()
	if err != nil {
		f.Close()
		return nil, err
	}
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EAGAIN) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, apierr.Wrap(apierr.OperationFailed, err, "taking the kontext write lock %s", name)
		}
		if cerr := ctx.Err(); cerr != nil {
			f.Close()
			return nil, apierr.Wrap(apierr.OperationFailed, cerr, "waiting for the kontext write lock")
		}
		if !time.Now().Before(deadline) {
			b, _ := io.ReadAll(io.LimitReader(f, 64))
			f.Close()
			return nil, apierr.New(apierr.OperationFailed,
				"the kontext write lock is held by %s (%s); try again when it finishes", lockHolder(string(b)), name)
		}
		time.Sleep(pollInterval)
	}
	// We hold the lock: record our pid for whoever waits next.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	done := false
	return func() {
		if done {
			return
		}
		done = true
		_ = f.Truncate(0)
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
