//go:build !faultinject

package writer

// faultpause is a no-op outside -tags faultinject builds (see fault_on.go).
func faultpause(string) {}
