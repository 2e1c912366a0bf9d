//go:build !unix

package history

import "errors"

// mapFile is unsupported here; the walk reads through go-git's storage.
func mapFile(string) ([]byte, func(), error) {
	return nil, nil, errors.New("mmap unsupported")
}
