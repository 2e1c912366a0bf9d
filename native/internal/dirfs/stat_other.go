//go:build !linux

package dirfs

import (
	"errors"
	"os"
)

const supported = false

type info struct{ os.FileInfo }

func lstatAt(*os.File, string, *info, *[]byte) error { return errors.ErrUnsupported }

func readAt(*os.File, string) ([]byte, error) { return nil, errors.ErrUnsupported }

func (i *info) present() bool { return i.FileInfo != nil }

// openBeneath: the long way everywhere but Linux.
func (f *FS) openBeneath(string) (*os.File, string, bool) { return nil, "", false }
