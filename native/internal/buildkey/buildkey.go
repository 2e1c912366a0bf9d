// Package buildkey names the running kontext binary: a rebuilt binary
// (whose parser may read differently) ignores snapshots an older one
// stored.
package buildkey

import (
	"os"
	"strconv"
	"sync"
)

// Key is the executable's path, size and modification time ("unknown"
// when the platform does not say which file runs).
var Key = sync.OnceValue(func() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return "unknown"
	}
	return exe + "\x00" + strconv.FormatInt(fi.Size(), 10) + "\x00" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
})
