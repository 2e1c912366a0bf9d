//go:build !linux

package daemon

import (
	"context"
	"fmt"
	"net"
	"os"
	"time"
)

// Config configures Run.
type Config struct {
	Dir     string
	Idle    time.Duration
	Tick    time.Duration
	Ready   func(Info)
	Environ []string
}

// ErrRunning is returned by Run when a daemon already serves the repository.
type ErrRunning struct{ PID int }

func (e *ErrRunning) Error() string {
	return fmt.Sprintf("a kontext daemon already serves this repository (pid %d)", e.PID)
}

// Run reports that the platform has no monitor.
func Run(context.Context, Config) error { return ErrNotSupported }

// RunningPID is 0: no daemon runs here.
func RunningPID(string) int { return 0 }

// Spawn reports that the platform has no monitor.
func Spawn(string, []string, string) (*os.Process, error) { return nil, ErrNotSupported }

// checkPeer: no daemon serves here, so nothing is trusted.
func checkPeer(net.Conn) error { return ErrNotSupported }

// Supported reports whether this platform has the monitor.
const Supported = false
