//go:build unix

package outfile

import (
	"os"
	"syscall"
)

// dupFile is a duplicate of the process's descriptor fd.
func dupFile(fd int, name string) (*os.File, error) {
	d, err := syscall.Dup(fd)
	if err != nil {
		return nil, err
	}
	syscall.CloseOnExec(d)
	return os.NewFile(uintptr(d), name), nil
}
