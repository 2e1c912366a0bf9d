package main

import (
	"errors"
	"syscall"
)

// Windows reports a closed pipe as ERROR_BROKEN_PIPE (109) or ERROR_NO_DATA (232).
func brokenPipeOS(err error) bool {
	return errors.Is(err, syscall.Errno(109)) || errors.Is(err, syscall.Errno(232))
}
