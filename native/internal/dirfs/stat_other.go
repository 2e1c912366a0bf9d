//go:build !linux

package dirfs

import (
	"errors"
	"os"
)

const supported = false

func lstatAt(*os.File, string) (os.FileInfo, error) { return nil, errors.ErrUnsupported }

func readAt(*os.File, string) ([]byte, error) { return nil, errors.ErrUnsupported }
