//go:build faultinject

package drafts

import "os"

// faultpoint kills the process when KONTEXT_FAULT names this point. It is
// compiled only into test binaries built with -tags faultinject (the crash
// tests of writes); the engine stays pure in every real build, where
// fault_off.go makes it a no-op.
func faultpoint(name string) {
	if os.Getenv("KONTEXT_FAULT") == name {
		os.Exit(99)
	}
}
