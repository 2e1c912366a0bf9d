//go:build !unix

package procgroup

import (
	"errors"
	"os"
	"os/exec"
)

// Set leaves cmd as it is: without Unix process groups only the process
// itself can be killed (its children outlive a timeout; a Job Object
// would be the Windows way).
func Set(cmd *exec.Cmd) {}

// Kill kills p; a process that is already gone is no error.
func Kill(p *os.Process) error {
	if p == nil {
		return nil
	}
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}
