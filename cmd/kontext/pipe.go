package main

import (
	"errors"
	"io"
	"io/fs"
	"syscall"
)

// readerGone reports whether a failed write means the reader went away (| head): the
// output ends quietly then. Decided by error identity, never by message text.
func readerGone(err error) bool {
	return errors.Is(err, syscall.EPIPE) || errors.Is(err, io.ErrClosedPipe) ||
		errors.Is(err, fs.ErrClosed) || brokenPipeOS(err)
}
