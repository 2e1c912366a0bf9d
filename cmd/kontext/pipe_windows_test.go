package main

import (
	"os"
	"syscall"
	"testing"
)

func TestWindowsBrokenPipe(t *testing.T) {
	for _, errno := range []syscall.Errno{109, 232} { // ERROR_BROKEN_PIPE, ERROR_NO_DATA
		if !readerGone(&os.PathError{Op: "write", Path: "stdout", Err: errno}) {
			t.Errorf("errno %d is a reader that went away", errno)
		}
	}
}
