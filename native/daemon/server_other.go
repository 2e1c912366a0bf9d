//go:build !linux

package daemon

import (
	"context"
	"net"
	"os"

	"github.com/kontext/kontext/native/relay"
)

// Run reports that the platform has no monitor.
func Run(context.Context, Config) error { return relay.ErrNotSupported }

// RunningPID is 0: no daemon runs here.
func RunningPID(string) int { return 0 }

// Spawn reports that the platform has no monitor.
func Spawn(string, []string, string) (*os.Process, error) { return nil, relay.ErrNotSupported }

// checkPeer: no daemon serves here, so nothing is trusted.
func checkPeer(net.Conn) error { return relay.ErrNotSupported }

// Supported reports whether this platform has the monitor.
const Supported = false
