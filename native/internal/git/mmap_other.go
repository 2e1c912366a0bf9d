//go:build !unix

package git

import "errors"

// mapFile is unsupported here; objects are read through the fallback.
func mapFile(string) ([]byte, func(), error) {
	return nil, nil, errors.New("mmap unsupported")
}
