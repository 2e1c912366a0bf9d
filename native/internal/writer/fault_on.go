//go:build faultinject

package writer

import (
	"os"
	"time"
)

// faultpause holds the write at a named point when KONTEXT_FAULT names it
// (a -tags faultinject test binary only): it creates the file
// KONTEXT_FAULT_WAIT names plus ".paused", then waits until that file
// itself exists (at most a minute), so a test acts at exactly this point.
func faultpause(name string) {
	if os.Getenv("KONTEXT_FAULT") != name {
		return
	}
	wait := os.Getenv("KONTEXT_FAULT_WAIT")
	if wait == "" {
		return
	}
	_ = os.WriteFile(wait+".paused", nil, 0o644)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(wait); err == nil {
			return
		}
	}
}
