//go:build !unix

package snapstore

import "os"

func load(path string) ([]byte, error) { return os.ReadFile(path) }
