//go:build unix

package snapstore

import (
	"os"
	"syscall"
)

// load maps the snapshot read-only instead of copying it: the reader
// decodes in place, and a file of several MiB costs no fresh heap pages.
// Writers only ever rename a new file over the snapshot, never change it
// in place, so the mapped bytes stay what they were. The mapping lives as
// long as the process (a reader keeps strings pointing into it).
func load(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.Size() == 0 || fi.Size() > 1<<31 {
		return os.ReadFile(path)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED|mapPopulate)
	if err != nil {
		return os.ReadFile(path)
	}
	return data, nil
}
