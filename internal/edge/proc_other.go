//go:build !unix

package edge

import (
	"os"
	"os/exec"
)

func ownGroup(cmd *exec.Cmd) {}

// terminate ends workerd (no process groups or SIGTERM here).
func terminate(p *os.Process) { p.Kill() }

func kill(p *os.Process) { p.Kill() }
