//go:build !faultinject

package drafts

// faultpoint is a no-op outside -tags faultinject builds (see fault_on.go).
func faultpoint(string) {}
