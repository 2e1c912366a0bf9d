//go:build !unix

package outfile

import (
	"errors"
	"os"
)

// dupFile: descriptor paths exist only on unix.
func dupFile(fd int, name string) (*os.File, error) {
	return nil, errors.New("descriptor paths are not supported on this system")
}
