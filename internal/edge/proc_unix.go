//go:build unix

package edge

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts workerd in a process group of its own, so stopping it
// reaches every process it started and a terminal's Ctrl-C reaches only us.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// terminate asks workerd's process group to stop.
func terminate(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGTERM) }

// kill ends workerd's process group.
func kill(p *os.Process) { syscall.Kill(-p.Pid, syscall.SIGKILL) }
